# SPDX-License-Identifier: MIT
# 10-overhead.sh — collector overhead: wall time of `tally record -F 1000`
# over the bare program, on the CPU-bound and the call-heavy workload, with
# `perf record -F 1000 --call-graph dwarf` beside it (the recording command
# only: perf's own end-of-run processing counts, `perf report` does not).
# Also run, as diagnostics: the bare program under bench/sigfloor.c, which
# takes the same perf_event task-clock signal (sigtrap, as tally) 1000 times
# per CPU second and does nothing else — the floor of this sampling mechanism
# on this machine — and the same event overflowing with no signal at all
# ("timer alone": what any 1 kHz CPU-time sampler pays here before it does
# anything); tally over the timer alone is judged too (<= 1.005 CPU-bound,
# <= 1.015 call-heavy).  And, as diagnostic rows with no target, the same
# event sampling with no signal at all, into a perf ring drained by a thread
# (sigfloor's ring-* modes): `ringstack` copies 8 KiB of user stack and the
# registers per sample (perf's DWARF mode), `ringchain` has the kernel walk
# frame pointers, `ringunwind` is ringstack with a stack scan in the drain
# thread — what a signal-free collector would cost here, over bare and over
# the timer alone, per sample, with the drain thread's CPU on its own.
# BENCH_OVERHEAD_HZ (default 1000) runs every one of them at another rate,
# where per-sample costs stand out of the noise; the targets are for 1 kHz,
# so its rows are then not judged.
# This section runs more rounds than the others ($BENCH_OVERHEAD_ROUNDS,
# default 2 x BENCH_ROUNDS - 1): a 2% effect under the run-to-run noise of a
# shared VM (several % on the bare program alone) needs them.
hz=${BENCH_OVERHEAD_HZ:-1000}
section "1. Collector overhead (wall time recorded / bare, -F $hz)"
rounds=${BENCH_OVERHEAD_ROUNDS:-$((ROUNDS * 2 - 1))}
# judged TARGET: TARGET at the rate the targets are for, else "-" (a diagnostic).
judged() { if [ "$hz" = 1000 ]; then echo "$1"; else echo "-"; fi; }
floor="env SIGFLOOR_HZ=$hz LD_PRELOAD=$BIN/libsigfloor.so"

# over TIMES.JSON LABEL [wall|cpu]: LABEL's wall (or CPU) time over the timer
# alone's, the median [min-max] of the per-round ratios: what tally adds to
# what any 1 kHz CPU-time sampler pays on this machine.  (Under load the wall
# ratios of single rounds range +-50%; the CPU-time ratio is the steadier
# cross-check.)
over() {
	python3 -c '
import json, statistics, sys
j = json.load(open(sys.argv[1]))
a, b, k = j.get(sys.argv[2], {}), j.get("timer", {}), sys.argv[3]
if a.get(k) and b.get(k) and a["n"] == b["n"]:
    r = [x / y for x, y in zip(a[k], b[k])]
    print("%.3f [%.3f-%.3f]" % (statistics.median(r), min(r), max(r)))' "$1" "$2" "${3:-wall}"
}

why=$(perf_why)
for w in cpu calls; do
	if [ $w = cpu ]; then units=$CPU_UNITS label="CPU-bound"; else units=$CALLS_UNITS label="call-heavy"; fi
	d=$OUT/overhead/$w
	rm -rf "$d" && mkdir -p "$d"
	echo "-- $label workload: $BIN/$w $units"
	set -- --cmd bare "$BIN/$w $units" \
		--cmd tally "$TALLY record -F $hz -o $d/t.exp -- $BIN/$w $units" --pre tally "rm -rf $d/t.exp"
	[ -z "$why" ] && set -- "$@" \
		--cmd perf "perf record -q -F $hz --call-graph dwarf -o $d/perf.data -- $BIN/$w $units" \
		--pre perf "rm -f $d/perf.data"
	[ -f "$BIN/libsigfloor.so" ] && set -- "$@" --cmd sigfloor "$floor $BIN/$w $units" \
		--cmd timer "env SIGFLOOR_MODE=nosignal $floor $BIN/$w $units" \
		--cmd ringstack "env SIGFLOOR_MODE=ring-stack $floor $BIN/$w $units" \
		--cmd ringchain "env SIGFLOOR_MODE=ring-callchain $floor $BIN/$w $units" \
		--cmd ringunwind "env SIGFLOOR_MODE=ring-stack-unwind $floor $BIN/$w $units"
	tb time --rounds "$rounds" --base bare --check 'checksum [0-9a-f]+' --json "$d/times.json" \
		--dir "$d" "$@"
	j=$d/times.json
	t=$(tb get "$j" tally.ratio_med)
	ts=$(tally_samples "$d/t.exp")
	if [ -n "$why" ]; then
		peer="perf: n/a ($why)"
		note "last run: tally ${ts:-?} samples"
	else
		p=$(tb get "$j" perf.ratio_med)
		if [ -n "$p" ]; then
			peer="perf dwarf: $(fmt "$p")"
			note "last runs: tally ${ts:-?} samples, perf $(perf_samples "$d/perf.data") samples"
		else
			peer="perf: n/a ($(tb get "$j" perf.failed))"
			note "last run: tally ${ts:-?} samples"
		fi
	fi
	# Cost per sample: (median wall - median bare wall) / samples of the last run.
	per() { python3 -c "import sys; a, b, n = map(float, sys.argv[1:]); print(f'{(a - b) / n * 1e6:.1f}')" "$@"; }
	bw=$(tb get "$j" bare.wall_med)
	tw=$(tb get "$j" tally.wall_med)
	[ -n "$tw" ] && [ -n "$ts" ] && [ -n "$bw" ] &&
		note "tally: $(per "$tw" "$bw" "$ts") us of wall time per sample (medians)"
	f=$(tb get "$j" sigfloor.ratio_med)
	tm=$(tb get "$j" timer.ratio_med)
	if [ -n "$f" ]; then
		peer="$peer; signal floor: $(fmt "$f"); timer alone: $(fmt "${tm:-0}")"
		note "timer alone (the event overflowing, no signal): wall ratio $(fmt "${tm:-0}");" \
			"$(grep -h 'sigfloor:' "$d/timer.err" | tail -n 1)"
		note "signal floor: $(grep -h 'sigfloor:' "$d/sigfloor.err" | tail -n 1)," \
			"wall ratio $(fmt "$f") [$(fmt "$(tb get "$j" sigfloor.ratio_min)")-$(fmt "$(tb get "$j" sigfloor.ratio_max)")];" \
			"tally over the floor: $( [ -n "$t" ] && ratio "$t" "$f" 3);" \
			"$(per "$(tb get "$j" sigfloor.wall_med)" "$bw" "$(grep -h 'sigfloor:' "$d/sigfloor.err" | tail -n 1 | awk '{print $2}')") us per signal"
	fi
	[ -n "$t" ] || t="n/a ($(tb get "$j" tally.failed))"
	case $t in n/a*) ;; *)
		t="$(fmt "$t") [$(fmt "$(tb get "$j" tally.ratio_min)")-$(fmt "$(tb get "$j" tally.ratio_max)")]" ;;
	esac
	row "overhead, $label (wall ratio, -F $hz)" "$t" "$(judged "<= 1.02")" "$peer"
	if [ $w = cpu ]; then target="<= 1.005"; else target="<= 1.015"; fi
	ot=$(over "$j" tally) op=$(over "$j" perf)
	note "over the timer alone: tally wall ${ot:-n/a}, CPU time $(over "$j" tally cpu);" \
		"perf dwarf wall ${op:-n/a}, CPU time $(over "$j" perf cpu)"
	row "overhead over the timer alone, $label (wall ratio, -F $hz)" "${ot:-n/a (no timer or tally run)}" "$(judged "$target")" \
		"perf dwarf: ${op:-n/a}"
	# Per sample, against the timer alone (CPU medians), tally's and the
	# signal-free rings' alike; tally's handler from its own experiment.
	tc=$(tb get "$j" timer.cpu_med)
	[ -n "$tc" ] && [ -n "$ts" ] && note "tally: $(per "$(tb get "$j" tally.cpu_med)" "$tc" "$ts") us of CPU per sample" \
		"over the timer alone (medians); handler $("$TALLY" report "$d/t.exp" --format json 2>/dev/null |
			python3 -c 'import json, sys; o = json.load(sys.stdin)["overview"]
print("p50 %.1f us, p99 %.1f us" % (o["handler_p50_us"], o["handler_p99_us"]))' 2>/dev/null || echo n/a) (last run)"
	for r in ringstack ringchain ringunwind; do
		rw=$(tb get "$j" $r.ratio_med)
		if [ -z "$rw" ]; then
			[ -f "$BIN/libsigfloor.so" ] && note "$r: n/a ($(tb get "$j" $r.failed))"
			continue
		fi
		line=$(grep -h 'sigfloor:' "$d/$r.err" | tail -n 1)
		n=$(echo "$line" | awk '{print $3}')
		oc=$(over "$j" $r cpu)
		note "$line"
		note "  $r over bare: wall $(fmt "$rw"), CPU $(fmt "$(tb get "$j" $r.cpu_ratio_med)");" \
			"over the timer alone: wall $(over "$j" $r), CPU ${oc:-n/a};" \
			"per sample: $(per "$(tb get "$j" $r.wall_med)" "$bw" "$n") us wall over bare," \
			"$(per "$(tb get "$j" $r.cpu_med)" "${tc:-0}" "$n") us CPU over the timer alone (medians, samples of the last run)"
		row "diagnostic: $r (no signal) over the timer alone, $label (CPU ratio, $hz Hz)" "${oc:-n/a (no timer run)}" "-" \
			"wall $(over "$j" $r); over bare: wall $(fmt "$rw"), CPU $(fmt "$(tb get "$j" $r.cpu_ratio_med)")"
	done
done
