# SPDX-License-Identifier: MIT
# 30-report.sh — `tally report` and the exports on experiments of two million
# samples (BENCH_REPORT_SAMPLES): time, CPU and peak memory.
#
# Real samples at 1 kHz would take ~17 min of CPU, so each experiment is
# recorded at -F 20000 (per thread, of CPU time) from a workload on 4 threads
# run with -t SECONDS (work until the process has used SECONDS of CPU time),
# sized by a 2-second pilot run to land just above 1,000,000 samples (one
# retry, larger, if it falls short).  Two experiments: the CPU-bound workload (few,
# shallow stacks) and the call-heavy one (deep stacks, most of them distinct).
# The time is the median of interleaved runs of `tally report EXP` (overview +
# functions, the default view), `tally report EXP --tree`, `--format json`
# and `tally export EXP --format collapsed` / `pprof`, output to a file; each
# one's CPU (user + system, median) per million samples and its peak resident
# set (largest of the runs) are also given: the analysis's cost grows with
# the samples (decoding, summing) and with the distinct stacks (an entry,
# symbolized, each), so the rows say both counts.
#
# perf: the same program at the same rate, `perf record -F 20000
# --call-graph dwarf`, sized by its own 1-second pilot for $BENCH_PERF_SAMPLES samples
# (default 250000; a DWARF sample is ~8 KB, so 1M would be an 8 GB file), and
# the median time of `perf report --stdio > file`, shown as measured and
# scaled linearly to 1M samples.
section "3. Report time, CPU and memory on ${BENCH_REPORT_SAMPLES:-2000000}-sample experiments"

d=$OUT/report
rm -rf "$d" && mkdir -p "$d"
HZ=20000
WANT=${BENCH_REPORT_SAMPLES:-2000000}
THR=4
PW=${BENCH_PERF_SAMPLES:-250000}
why=$(perf_why)

# scale SECONDS GOT WANT MARGIN: CPU seconds for WANT samples, given GOT in SECONDS.
scale() { python3 -c "import sys; u, g, w, m = map(float, sys.argv[1:]); print(max(0.5, round(u * m * w / g, 1)))" "$@"; }

# record W SECONDS: the experiment $d/W.exp; prints its sample count.
record() {
	rm -rf "$d/$1.exp"
	/usr/bin/time -f '%e %U %S' -o "$d/$1.time" "$TALLY" record -F $HZ -o "$d/$1.exp" -- "$BIN/$1" -t "$2" $THR \
		>"$d/$1.prog.out" 2>"$d/$1.rec.err" || {
		echo "  tally record failed: $(tail -n 1 "$d/$1.rec.err")" >&2
		return 1
	}
	tally_samples "$d/$1.exp" || {
		echo "  tally report --format json failed on $d/$1.exp" >&2
		return 1
	}
}

# precord W SECONDS: perf.data of W; prints its sample count.
precord() {
	rm -f "$d/perf.data"
	/usr/bin/time -f '%e' -o "$d/p.time" perf record -q -F $HZ -m 128M --call-graph dwarf -o "$d/perf.data" \
		-- "$BIN/$1" -t "$2" $THR >/dev/null 2>"$d/perf.rec.err" && perf_samples "$d/perf.data"
}

for w in cpu calls; do
	if [ $w = cpu ]; then label="CPU-bound"; else label="call-heavy"; fi
	echo "-- $label workload, $THR threads"
	# Pilot: samples per unit of work at this rate, on this machine, now.
	pu=2
	fail() { row "report time, $label 1M samples (s)" "n/a ($1)" "<= 2" "-"; }
	pn=$(record $w $pu) && [ -n "$pn" ] && [ "$pn" -gt 0 ] || { fail "pilot failed"; continue; }
	secs=$(scale "$pu" "$pn" $WANT 1.06)
	n=$(record $w "$secs") || { fail "record failed"; continue; }
	if [ "$n" -lt $WANT ]; then
		note "first try: $n samples from $w -t $secs $THR; once more, larger"
		secs=$(scale "$secs" "$n" $WANT 1.08)
		n=$(record $w "$secs") || { fail "record failed"; continue; }
	fi
	read -r wall usr sys <"$d/$w.time"
	read -r sum app alloc <<<"$(bytes_of "$d/$w.exp")"
	note "experiment: tally record -F $HZ -- $w -t $secs $THR  ($THR threads on $NCPU CPUs; pilot: $pn samples in $pu CPU-s)"
	note "  $n samples, recorded in $wall s wall ($usr s user + $sys s system); program said: $(head -c 120 "$d/$w.prog.out")"
	z=$(tb zeros "$d/$w.exp")
	note "  $sum bytes in files (du apparent $app, allocated $alloc) = $(ratio "$sum" "$n") bytes/sample;" \
		"$("$TALLY" export "$d/$w.exp" --format collapsed 2>/dev/null | sort -u | wc -l) distinct stacks"
	note "  files: $(cd "$d/$w.exp" && find . -type f -printf '%P=%s ' | sort)"
	note "  of which $z bytes are all-zero 4 KiB pages (reserved, unused); without them $(ratio $((sum - z)) "$n") bytes/sample"

	tb time --rounds "$ROUNDS" --json "$d/$w.times.json" --dir "$d/$w.runs" \
		--cmd report "$TALLY report $d/$w.exp" \
		--cmd tree "$TALLY report $d/$w.exp --tree" \
		--cmd json "$TALLY report $d/$w.exp --format json" \
		--cmd collapsed "$TALLY export $d/$w.exp --format collapsed" \
		--cmd pprof "$TALLY export $d/$w.exp --format pprof -o $d/$w.pb"
	j=$d/$w.times.json
	nst=$(grep -c . "$d/$w.runs/collapsed.out")
	# per1m LABEL: "CPU s [min-max] per 1M samples, peak MB" of command LABEL (the
	# peak as measured: ~30 MB of it is fixed, libraries and symbols).
	per1m() {
		python3 - "$j" "$1" "$n" <<'PY'
import json, sys
s = json.load(open(sys.argv[1]))[sys.argv[2]]
k = 1e6 / int(sys.argv[3])
print(f"{s['cpu_med'] * k:.3f} [{s['cpu_min'] * k:.3f}-{s['cpu_max'] * k:.3f}] s, "
      f"peak {s['rss_kb_max'] / 1024:.0f} MB")
PY
	}
	t=$(tb get "$j" report.wall_med)
	tt=$(tb get "$j" tree.wall_med)
	note "report says: $(grep -m1 'Samples' "$d/$w.runs/report.out" | sed 's/^ *//')"

	if [ -n "$why" ]; then
		peer="perf: n/a ($why)"
	elif ppn=$(precord $w 1) && [ -n "$ppn" ] && [ "$ppn" -gt 0 ] &&
		psecs=$(scale 1 "$ppn" "$PW" 1.0) && pn2=$(precord $w "$psecs") && [ -n "$pn2" ]; then
		lost=$(perf report -i "$d/perf.data" --stats 2>/dev/null | awk '/LOST_SAMPLES events:/ {v = $3} END {print v + 0}')
		note "perf: perf record -F $HZ -m 128M --call-graph dwarf -- $w -t $psecs $THR: $pn2 samples" \
			"($lost lost), $(stat -c %s "$d/perf.data") bytes, $(cat "$d/p.time") s"
		tb time --rounds 3 --json "$d/$w.ptimes.json" --dir "$d/$w.runs" \
			--cmd perf-report "perf report -i $d/perf.data --stdio"
		p=$(tb get "$d/$w.ptimes.json" perf-report.wall_med)
		if [ -n "$p" ]; then
			p1m=$(python3 -c "import sys; print(f'{float(sys.argv[1]) * $WANT / int(sys.argv[2]):.1f}')" "$p" "$pn2")
			peer="perf report: $(fmt "$p" 2) s @ ${pn2} samples (~${p1m} s per 1M, linear)"
		else
			peer="perf: n/a ($(tb get "$d/$w.ptimes.json" perf-report.failed))"
		fi
	else
		peer="perf: n/a (perf record: $(tail -n 1 "$d/perf.rec.err"))"
	fi
	rm -f "$d/perf.data"
	if [ -n "$t" ]; then
		row "report time, $label $n samples (s)" \
			"$(fmt "$t") [$(fmt "$(tb get "$j" report.wall_min)")-$(fmt "$(tb get "$j" report.wall_max)")]" "<= 2" "$peer"
		row "report --tree time, $label $n samples (s)" \
			"$(fmt "$tt") [$(fmt "$(tb get "$j" tree.wall_min)")-$(fmt "$(tb get "$j" tree.wall_max)")]" "<= 2" "-"
		for c in report tree json collapsed pprof; do
			if [ -z "$(tb get "$j" $c.failed)" ]; then
				row "$c CPU per 1M samples, peak RSS, $label $n samples, $nst stacks" "$(per1m $c)" "<= 1 s" "-"
			else
				row "$c CPU per 1M samples, $label" "n/a ($(tb get "$j" $c.failed))" "<= 1 s" "-"
			fi
		done
		note "CPU of $n samples: report $(fmt "$(tb get "$j" report.cpu_med)") s, --tree" \
			"$(fmt "$(tb get "$j" tree.cpu_med)") s, json $(fmt "$(tb get "$j" json.cpu_med)") s," \
			"collapsed $(fmt "$(tb get "$j" collapsed.cpu_med)") s, pprof $(fmt "$(tb get "$j" pprof.cpu_med)") s"
		row "report CPU, $label $n samples (s)" "$(fmt "$(tb get "$j" report.cpu_med)")" "<= 2" "-"
	else
		row "report time, $label 1M samples (s)" "n/a ($(tb get "$j" report.failed))" "<= 2" "$peer"
	fi
	row "bytes/sample, $label $n-sample experiment" "$(ratio "$sum" "$n")" "<= 64" "-"
done
