# SPDX-License-Identifier: MIT
# 15-cost.sh — what a sample costs the program: the collector's CPU time
# (handlers, thread set-up, object scans; `Collector CPU` of the overview)
# over the kernel's CPU time for the run, and the CPU time of each handler
# run (p50, p99, max of the experiment's THREAD_COST histograms), at -F 1000
# on the CPU-bound, the call-heavy and the always-new-stacks workload (a
# fib-like recursion through two call sites, 26 deep: nearly every sample a
# new stack).  A handler that pays for a stack's novelty shows as a p99 on
# always-new stacks above the CPU-bound one.  Every run is kept (the warm-up
# too) and the median over them judged.  Beside it perf record -F 1000
# --call-graph dwarf, interleaved: the CPU time it adds to the run (all its
# processes, from wait4) and that over its samples.
section "1b. Collector cost (CPU share and handler time per sample, -F 1000)"
rounds=${BENCH_COST_ROUNDS:-5}

why=$(perf_why)
d0=$OUT/cost
rm -rf "$d0" && mkdir -p "$d0"
for w in cpu calls newstacks; do
	case $w in
	cpu) units=$CPU_UNITS label="CPU-bound" ;;
	calls) units=$CALLS_UNITS label="call-heavy" ;;
	*) units=$NEWSTACKS_UNITS label="always-new stacks" ;;
	esac
	d=$d0/$w
	mkdir -p "$d"
	echo "-- $label workload: $BIN/$w $units"
	# Each run's experiment is kept: the next run's --pre moves it aside.
	set -- --cmd bare "$BIN/$w $units" \
		--cmd tally "$TALLY record -F 1000 -o $d/t.exp -- $BIN/$w $units" \
		--pre tally "[ ! -d $d/t.exp ] || mv $d/t.exp $d/t.\$(date +%s%N).exp"
	[ -z "$why" ] && set -- "$@" \
		--cmd perf "perf record -q -F 1000 --call-graph dwarf -o $d/perf.data -- $BIN/$w $units" \
		--pre perf "rm -f $d/perf.data"
	tb time --rounds "$rounds" --base bare --check 'checksum [0-9a-f]+' --json "$d/times.json" \
		--dir "$d" "$@"
	# One line per run, then the medians into $d0/$w.med:
	# "SHARE_PCT SHARE_LO SHARE_HI P50_US P99_US P99_LO P99_HI MAX_US RUNS".
	python3 -c '
import json, statistics, subprocess, sys
runs = []
for e in sys.argv[2:]:
    p = subprocess.run([sys.argv[1], "report", e, "--format", "json"], capture_output=True, text=True)
    if p.returncode:
        continue
    o = json.loads(p.stdout)["overview"]
    share = 100 * o["collector_cpu_s"] / o["kernel_cpu_s"]
    runs.append((share, o["handler_p50_us"], o["handler_p99_us"], o["handler_max_us"]))
    print("run: %5d samples, collector %.3f s of %.3f s kernel CPU = %.2f%%; handler p50 %.1f us,"
          " p99 %.1f us, max %.1f us" % (o["samples"], o["collector_cpu_s"], o["kernel_cpu_s"], share,
                                          o["handler_p50_us"], o["handler_p99_us"], o["handler_max_us"]),
          file=sys.stderr)
if runs:
    col = lambda i: [r[i] for r in runs]
    med = statistics.median
    print("%.3f %.3f %.3f %.2f %.2f %.2f %.2f %.1f %d" % (
        med(col(0)), min(col(0)), max(col(0)), med(col(1)), med(col(2)), min(col(2)), max(col(2)),
        max(col(3)), len(runs)))' "$TALLY" "$d"/t*.exp >"$d0/$w.med" 2>"$d0/$w.runs"
	sed 's/^/  /' "$d0/$w.runs"
	j=$d/times.json
	bare_cpu=$(tb get "$j" bare.cpu_med)
	perf_share= perf_us=
	if [ -n "$why" ]; then
		peer="perf: n/a ($why)"
	elif [ -n "$(tb get "$j" perf.cpu_med)" ] && pn=$(perf_samples "$d/perf.data") && [ -n "$pn" ]; then
		read -r perf_share perf_us <<<"$(python3 -c "import sys; p, b, n = map(float, sys.argv[1:])
print(f'{100 * (p - b) / b:.1f} {(p - b) / n * 1e6:.1f}')" "$(tb get "$j" perf.cpu_med)" "$bare_cpu" "$pn")"
		note "perf dwarf: $pn samples; CPU time $(fmt "$(tb get "$j" perf.cpu_med)") s against" \
			"$(fmt "$bare_cpu") s bare (medians): +$perf_share%, $perf_us us of CPU per sample"
	else
		peer="perf: n/a ($(tb get "$j" perf.failed))"
	fi
	ts=$(tally_samples "$d/t.exp")
	tc=$(tb get "$j" tally.cpu_med)
	[ -n "$tc" ] && [ -n "$ts" ] && [ -n "$bare_cpu" ] &&
		note "tally record: CPU time $(fmt "$tc") s against $(fmt "$bare_cpu") s bare (medians, the" \
			"command's start and end included): $(python3 -c "import sys; t, b, n = map(float, sys.argv[1:])
print(f'+{100 * (t - b) / b:.1f}%, {(t - b) / n * 1e6:.1f} us per sample')" "$tc" "$bare_cpu" "$ts")"
	if [ -s "$d0/$w.med" ]; then
		read -r share slo shi p50 p99 plo phi mx n <"$d0/$w.med"
		note "$label, median of $n runs: collector $(fmt "$share" 2)% of the kernel's CPU time;" \
			"handler p50 $(fmt "$p50" 1) us, p99 $(fmt "$p99" 1) us [$(fmt "$plo" 1)-$(fmt "$phi" 1)], max $(fmt "$mx" 1) us"
		[ -n "$perf_share" ] && peer="perf dwarf: +$perf_share% CPU"
		row "collector CPU share, $label (% of kernel CPU, -F 1000)" \
			"$(fmt "$share" 2) [$(fmt "$slo" 2)-$(fmt "$shi" 2)]" "<= 1" "$peer"
		[ -n "$perf_us" ] && peer="perf dwarf: $perf_us us of CPU per sample (mean)"
		row "handler p99, $label (us of CPU, -F 1000)" \
			"$(fmt "$p99" 1) [$(fmt "$plo" 1)-$(fmt "$phi" 1)] (p50 $(fmt "$p50" 1), max $(fmt "$mx" 1))" "-" "$peer"
	else
		row "collector CPU share, $label (% of kernel CPU, -F 1000)" "n/a (tally record failed: $(tb get "$j" tally.failed))" "<= 1" "$peer"
	fi
done
if [ -s "$d0/cpu.med" ] && [ -s "$d0/newstacks.med" ]; then
	read -r _ _ _ _ base _ <"$d0/cpu.med"
	read -r _ _ _ _ new _ <"$d0/newstacks.med"
	row "handler p99, always-new stacks / CPU-bound (ratio)" "$(ratio "$new" "$base" 2)" "<= 2" \
		"$(fmt "$new" 1) us / $(fmt "$base" 1) us"
fi
