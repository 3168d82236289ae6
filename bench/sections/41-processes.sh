# SPDX-License-Identifier: MIT
# 41-processes.sh — process-heavy work: a shell loop of 100 /bin/true, each
# a new process image that the collector starts in.  CPU time (user +
# system, every process of the run) of the bare loop, under `tally record`
# and under `perf record -g`, interleaved; the figure is the median CPU over
# bare divided by the number of processes.  What remains is the collector's
# start-up and its files per process (one process file for a short one,
# format 8), and tally record's own ending (compaction, archive).
#
# Beside them, the floors every process of the loop pays under any
# collector that is preloaded and samples with a perf event, measured with
# bench/sigfloor.c preloaded into every process (LD_PRELOAD inherited):
# `empty`, a library that does nothing (SIGFLOOR_MODE=none: the loader's
# cost of one more object), and `floor`, the same task-clock event as
# tally's (sigtrap, inherited by threads) with a handler that does nothing.
# Every command goes through env(1), so each pays the same extra process.
#
# Then the same loop under bash, which forks a child for each command and
# execs /bin/true in it (sh, dash here, uses vfork): two process images an
# iteration, the fork child's collector set-up included (its files wait
# for its first write, issue 20).  Bare, tally and perf record -g,
# interleaved; the figure is CPU per iteration over bare.
section "4b. Process-heavy work: a shell loop of /bin/true"

d=$OUT/procs
rm -rf "$d" && mkdir -p "$d"
N=100
printf 'for i in $(seq %d); do /bin/true; done\n' "$N" >"$d/loop.sh"
set -- --cmd bare "env sh $d/loop.sh" \
	--cmd empty "env LD_PRELOAD=$BIN/libsigfloor.so SIGFLOOR_MODE=none sh $d/loop.sh" \
	--cmd floor "env LD_PRELOAD=$BIN/libsigfloor.so SIGFLOOR_INHERIT=1 SIGFLOOR_QUIET=1 sh $d/loop.sh" \
	--cmd tally "env $TALLY record -o $d/t.exp -- sh $d/loop.sh" --pre tally "rm -rf $d/t.exp"
pwhy=$(perf_why)
[ -z "$pwhy" ] && set -- "$@" --cmd perf "env perf record -q -g -o $d/perf.data -- sh $d/loop.sh" \
	--pre perf "rm -f $d/perf.data"
tb time --rounds "$ROUNDS" --warmup 1 --base bare --json "$d/times.json" --dir "$d" "$@"

j=$d/times.json
# per LABEL: median CPU over bare per process, in ms ("" if it did not run).
per() {
	local v b
	v=$(tb get "$j" "$1.cpu_med")
	b=$(tb get "$j" bare.cpu_med)
	[ -n "$v" ] && [ -n "$b" ] &&
		python3 -c "import sys; print(f'{(float(sys.argv[1]) - float(sys.argv[2])) / $N * 1000:.2f}')" "$v" "$b"
}
tv=$(per tally)
pv=$(per perf)
ev=$(per empty)
fv=$(per floor)
over=""
[ -n "$tv" ] && [ -n "$fv" ] && over=$(python3 -c "import sys; print(f'{float(sys.argv[1]) - float(sys.argv[2]):.2f}')" "$tv" "$fv")
note "bare loop: $(tb get "$j" bare.cpu_med) s of CPU for $N processes"
note "floors per process over bare: an empty preloaded library ${ev:-n/a} ms;" \
	"with the same perf event and an empty handler ${fv:-n/a} ms (tally above that floor: ${over:-n/a} ms)"
row "process start-up: CPU per process over bare (ms)" "${tv:-n/a}" "<= 1" \
	"perf record -g: ${pv:-n/a (${pwhy:-failed})} ms; floor (preload + perf event): ${fv:-n/a} ms"

# The bash loop: fork then exec, each iteration.
printf 'for i in $(seq %d); do /bin/true; done\n' "$N" >"$d/bloop.sh"
if command -v bash >/dev/null 2>&1; then
	set -- --cmd bare "env bash $d/bloop.sh" \
		--cmd tally "env $TALLY record -o $d/b.exp -- bash $d/bloop.sh" --pre tally "rm -rf $d/b.exp"
	[ -z "$pwhy" ] && set -- "$@" --cmd perf "env perf record -q -g -o $d/bperf.data -- bash $d/bloop.sh" \
		--pre perf "rm -f $d/bperf.data"
	tb time --rounds "$ROUNDS" --warmup 1 --base bare --json "$d/btimes.json" --dir "$d" "$@"
	j=$d/btimes.json
	btv=$(per tally)
	bpv=$(per perf)
	note "bash loop: $(tb get "$j" bare.cpu_med) s of CPU for $N iterations (fork, then exec of /bin/true)"
	row "bash loop (fork then exec): CPU per iteration over bare (ms)" "${btv:-n/a}" "-" \
		"perf record -g: ${bpv:-n/a (${pwhy:-failed})} ms"
else
	note "bash loop: not run (no bash)"
fi
