# SPDX-License-Identifier: MIT
# 26-static.sh — what the outside mode costs (docs/static.md): `tally record`
# of a statically linked program (perf events with a 16 KiB stack copy per
# sample, unwound by tally record as they arrive) beside `perf record
# --call-graph dwarf` with the same stack size at the same rate (its
# unwinding is left to `perf report`, timed apart), on the CPU-bound and
# the call-heavy workloads built -static.  Wall and CPU (wait4: the program
# and the profiler), interleaved rounds.
section "26. Static programs: tally's outside mode beside perf --call-graph dwarf"

d=$OUT/static
rm -rf "$d" && mkdir -p "$d"
for w in cpu calls; do
	${CC:-cc} -O2 -g -fomit-frame-pointer -static -pthread -o "$BIN/$w.static" "$BENCH/$w.c" ||
		{ note "cannot build $w -static (no libc.a?)"; exit 1; }
done
rounds=${ROUNDS:-11}
[ "$rounds" -gt 7 ] && rounds=7
hz=1000
why=$(perf_why)
note "load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
for w in cpu calls; do
	if [ $w = cpu ]; then args=$CPU_UNITS; else args=$CALLS_UNITS; fi
	set -- --cmd bare "$BIN/$w.static $args" \
		--pre tally "rm -rf $d/t.exp" --cmd tally "$TALLY record -F $hz -o $d/t.exp -- $BIN/$w.static $args"
	[ -z "$why" ] && set -- "$@" --pre perf "rm -f $d/p.data" \
		--cmd perf "perf record -q -e task-clock -F $hz --call-graph dwarf,16384 -o $d/p.data -- $BIN/$w.static $args"
	tb time --rounds "$rounds" --base bare --json "$d/$w.json" --dir "$d/$w.runs" "$@"
	get() { tb get "$d/$w.json" "$1"; }
	for c in tally $([ -z "$why" ] && echo perf); do
		note "$w: $c: wall x$(fmt "$(get "$c.ratio_med")" 3) of bare, CPU x$(fmt "$(get "$c.cpu_ratio_med")" 3)"
	done
	note "$w: tally: $(grep -h '^outside\.\(lost\|records\)' "$d/t.exp/log.txt" | tr '\n' ' ')"
	if [ -z "$why" ]; then
		t0=$(date +%s.%N)
		perf report -i "$d/p.data" --stdio >/dev/null 2>&1
		note "$w: perf report (perf's unwinding, after the run): $(python3 -c "import sys; print(f'{float(sys.argv[2]) - float(sys.argv[1]):.2f} s')" "$t0" "$(date +%s.%N)") wall"
	fi
	# The target is perf's own ratio in the same rounds (issue 24: no
	# worse than perf's dwarf mode at the same rate): PASS or MISS.
	row "outside mode ($w): CPU ratio to bare" "$(fmt "$(get tally.cpu_ratio_med)" 3)" \
		"$([ -z "$why" ] && echo "<= $(fmt "$(get perf.cpu_ratio_med)" 3) (perf dwarf)" || echo "<= perf dwarf")" \
		"perf --call-graph dwarf: CPU x$([ -z "$why" ] && fmt "$(get perf.cpu_ratio_med)" 3 || echo "n/a ($why)") of bare"
done
note "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
