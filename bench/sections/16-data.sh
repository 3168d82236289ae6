# SPDX-License-Identifier: MIT
# 16-data.sh — what `tally record --data` adds per sample (docs/dataspace.md):
# on the CPU-bound workload at -F 1000, runs without and with --data
# alternate (BENCH_DATA_ROUNDS pairs, default 5); from each experiment's
# overview: the collector's CPU time per sample, the handler's p50 and p99
# (THREAD_COST histograms), and the experiment's bytes per sample (with
# --data: a DATA_REGS record of 192 bytes and a DATA_FRAMES record of 24 +
# 16 per frame).  The medians of each, and --data's excess over plain
# recording.  Then what --data costs a malloc without -H (the bounds of
# the blocks a sample may have seen, no stack: docs/dataspace.md):
# bench/mallocs.c bare and under `record -F 0 -d`, and under `record -F
# 1000` and `record -F 1000 -d`: the median per-round difference over N
# allocations.
section "1c. Cost of --data per sample (-F 1000, CPU-bound)"
rounds=${BENCH_DATA_ROUNDS:-5}
d=$OUT/data
rm -rf "$d" && mkdir -p "$d"
for r in $(seq "$rounds"); do
	for m in plain data; do
		flag=
		[ $m = data ] && flag=-d
		"$TALLY" record -F 1000 $flag -o "$d/$m.$r.exp" -- "$BIN/cpu" "$CPU_UNITS" >/dev/null 2>>"$d/err" ||
			echo "  tally record $flag failed: $(tail -n 1 "$d/err")"
	done
done
python3 - "$TALLY" "$d" "$rounds" >"$d/summary" <<'PY'
import json, os, statistics, subprocess, sys
tally, d, rounds = sys.argv[1], sys.argv[2], int(sys.argv[3])
res = {}
for m in ('plain', 'data'):
    rows = []
    for r in range(1, rounds + 1):
        e = f'{d}/{m}.{r}.exp'
        p = subprocess.run([tally, 'report', e, '--format', 'json'], capture_output=True, text=True)
        if p.returncode:
            continue
        o = json.loads(p.stdout)['overview']
        n = o['samples']
        size = sum(os.path.getsize(os.path.join(a, f)) for a, _, fs in os.walk(e) for f in fs
                   if not a.endswith('archive'))
        rows.append((o['collector_cpu_s'] * 1e6 / n, o['handler_p50_us'], o['handler_p99_us'], size / n, n))
        print(f'  {m:5} run {r}: {n} samples, collector {rows[-1][0]:.2f} us/sample, handler p50 '
              f'{rows[-1][1]:.1f} us, p99 {rows[-1][2]:.1f} us, {rows[-1][3]:.1f} bytes/sample')
    res[m] = [statistics.median(c) for c in zip(*rows)] if rows else None
if res['plain'] and res['data']:
    p, q = res['plain'], res['data']
    print(f'MED {p[0]:.2f} {q[0]:.2f} {p[1]:.1f} {q[1]:.1f} {p[2]:.1f} {q[2]:.1f} {p[3]:.1f} {q[3]:.1f}')
PY
grep -v '^MED' "$d/summary"
if read -r _ cp cd p50p p50d p99p p99d bp bd <<<"$(grep '^MED' "$d/summary")" && [ -n "$bd" ]; then
	note "medians of $rounds runs each: collector $cp -> $cd us of CPU per sample;" \
		"handler p50 $p50p -> $p50d us, p99 $p99p -> $p99d us; $bp -> $bd bytes per sample"
	row "--data: collector CPU per sample (us, plain -> --data)" "$cp -> $cd" "-" "-"
	row "--data: handler p50 (us, plain -> --data)" "$p50p -> $p50d" "-" "-"
	row "--data: bytes per sample (plain -> --data)" "$bp -> $bd" "+216 + 16/frame" "-"
else
	row "--data: collector CPU per sample" "n/a (no experiment read)" "-" "-"
fi

N=${BENCH_ALLOCS:-2000000}
# At -F 0 no sample can see a block: the floor of the interposer and the
# held-back table.  At the default rate, over plain recording at that rate:
# what a malloc-heavy program pays for --data (the blocks the samples may
# have seen are written; col_datablocks.c).
tb time --rounds "$ROUNDS" --warmup 1 --base bare --check 'checksum [0-9]+' --json "$d/m.json" --dir "$d" \
	--cmd bare "$BIN/mallocs $N" \
	--cmd data "$TALLY record -F 0 -d -o $d/m.exp -- $BIN/mallocs $N" --pre data "rm -rf $d/m.exp"
tb time --rounds "$ROUNDS" --warmup 1 --base plain --check 'checksum [0-9]+' --json "$d/k.json" --dir "$d" \
	--cmd plain "$TALLY record -F 1000 -o $d/p.exp -- $BIN/mallocs $N" --pre plain "rm -rf $d/p.exp" \
	--cmd data "$TALLY record -F 1000 -d -o $d/k.exp -- $BIN/mallocs $N" --pre data "rm -rf $d/k.exp"
for run in "m -F 0, over bare" "k -F 1000, over record -F 1000"; do
	f=${run%% *}
	what=${run#* }
	t=$(tb get "$d/$f.json" data.diff_med)
	if [ -n "$t" ]; then
		ns=$(python3 -c "import sys; print(f'{float(sys.argv[1]) * 1e9 / float(sys.argv[2]):.0f}')" "$t" "$N")
		note "mallocs $N under record $what: +$(fmt "$t") s a run, $ns ns per allocation (with its release)"
		row "--data without -H ($what): per allocation (ns)" "$ns" "-" "-"
	else
		row "--data without -H ($what): per allocation (ns)" "n/a (the run failed)" "-" "-"
	fi
done
