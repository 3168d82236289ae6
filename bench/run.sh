#!/bin/bash
# SPDX-License-Identifier: MIT
#
# run.sh — tally's benchmarks (`make bench` runs it after building).
#
#   bench/run.sh [SECTION...]      e.g.  bench/run.sh overhead fixed
#
# Prints one section per measurement, then a summary table: metric, tally's
# value, the target, the peers' values, PASS/MISS.  Every figure comes from a
# measurement made in this run: timings are interleaved (A B C, B C A, ...),
# repeated ($BENCH_ROUNDS rounds, default 11, after a discarded warm-up) and
# given as median [min-max]; ratios are the median of per-round ratios.  It
# runs at nice -20 (BENCH_NICE) to keep other users' jobs out of the way.
# docs/benchmarks.md says what each number means.  Scratch output goes to
# build/bench/ (BENCH_OUT); the workloads bench/*.c are built there with -O2 -g.
#
# ADDING A SECTION: write bench/sections/NN-name.sh (NN orders the sections;
# `name` is what `bench/run.sh name` selects).  It is run by bash with
# bench/lib.sh already sourced, so it can use $TALLY, $BIN/cpu, $BIN/calls,
# $BIN/newstacks, $CPU_UNITS, $CALLS_UNITS, $NEWSTACKS_UNITS, $ROUNDS,
# `section`, `note`, `tb time ...` (the interleaved timer), `row METRIC VALUE
# TARGET PEER` (a summary line) and
# `perf_why` / `gprofng_why` (why a peer cannot run, or nothing).  A new
# workload is a bench/NAME.c plus a line in build_workloads below.  A section
# that fails is reported and the others still run; a peer that is missing or
# fails is shown as "n/a (why)".
set -u
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

START=$(date +%s)
# The machine is shared: run at a high priority (nice -20 by default, as root)
# so that other users' jobs disturb the timings less.  BENCH_NICE=0: don't.
# Under the kernel's autogroups (sched_autogroup_enabled: one group per
# session, the groups shared out equally) a nice value weighs only against
# the processes of the same session, so the bench runs in a session of its
# own (setsid) and renices that session's group as well: at load 12, `nice
# -n -20 tally html` of the 2 M-sample bench experiment took 5.3-5.7 s of
# wall time for 1.9 s of CPU, in a reniced group 1.7-2.1 s.  The new session
# has no terminal: stop the bench with kill (it prints its process group).
NICE=${BENCH_NICE:--20}
if [ "$NICE" != 0 ] && [ -z "${BENCH_SESSION:-}" ] && command -v setsid >/dev/null &&
	[ "$(cat /proc/sys/kernel/sched_autogroup_enabled 2>/dev/null)" = 1 ]; then
	BENCH_SESSION=1 exec setsid -w bash "${BASH_SOURCE[0]}" "$@"
fi
if [ "$NICE" != 0 ] && renice -n "$NICE" -p $$ >/dev/null 2>&1; then
	prio="nice $NICE"
	if [ -n "${BENCH_SESSION:-}" ]; then
		if (echo "$NICE" >/proc/self/autogroup) 2>/dev/null; then
			prio="$prio, its session's autogroup too (stop it: kill -- -$$)"
		else
			prio="$prio (its session's autogroup could not be reniced: other sessions take equal shares)"
		fi
	fi
else
	prio="nice $(nice) (could not renice to $NICE)"
fi
mkdir -p "$OUT" "$BIN"
rm -f "$SUMMARY" "$OUT/perf.why" "$OUT/gprofng.why"
CC=${CC:-cc}

build_workloads() {
	$CC -O2 -g -fomit-frame-pointer -pthread -o "$BIN/cpu" "$BENCH/cpu.c" &&
		$CC -O2 -g -fomit-frame-pointer -pthread -o "$BIN/calls" "$BENCH/calls.c" &&
		$CC -O2 -g -fomit-frame-pointer -pthread -o "$BIN/newstacks" "$BENCH/newstacks.c" &&
		$CC -O2 -g -shared -fPIC -o "$BIN/libsigfloor.so" "$BENCH/sigfloor.c" &&
		$CC -O2 -g -pthread -o "$BIN/pgcalls" "$BENCH/pgcalls.c" &&
		$CC -O2 -g -pg -pthread -o "$BIN/pgcalls.pg" "$BENCH/pgcalls.c" &&
		$CC -O2 -g -o "$BIN/mallocs" "$BENCH/mallocs.c" &&
		$CC -O2 -g -pthread -o "$BIN/locky" "$BENCH/locky.c" &&
		$CC -O2 -g -pthread -o "$BIN/signaly" "$BENCH/signaly.c" &&
		$CC -O2 -g -o "$BIN/polly" "$BENCH/polly.c" &&
		$CC -O2 -g -pthread -o "$BIN/threadends" "$BENCH/threadends.c" &&
		$CC -O2 -g -o "$BIN/epollsets" "$BENCH/epollsets.c" &&
		$CC -O2 -g -pthread -o "$BIN/schedreads" "$BENCH/schedreads.c"
}

# calibrate NAME: the units that make NAME use ~1.5 s of CPU bare on this
# machine (one timed run of 4 units, then a second at the estimate to correct
# it).  CPU time, not wall: on a loaded machine the wall time of a run is
# mostly waiting, and a size from it gave runs of 0.6 s of CPU (600 samples
# at 1 kHz, so the experiment's fixed bytes dominated bytes per sample).
calibrate() {
	local u=4 t i
	for i in 1 2; do
		t=$(tb time --rounds 1 --warmup 0 --quiet --json "$OUT/calib.json" --dir "$OUT/calib" \
			--cmd "$1" "$BIN/$1 $u" >/dev/null && tb get "$OUT/calib.json" "$1.cpu_med")
		[ -n "$t" ] || { echo 15; return; }
		u=$(python3 -c "import sys; print(round(float(sys.argv[1]) * 1.5 / float(sys.argv[2]), 1))" "$u" "$t")
	done
	echo "$u"
}

echo "tally benchmarks — $(date -u +%Y-%m-%dT%H:%M:%SZ) on $(uname -n): $(uname -sr), $NCPU CPUs," \
	"$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ *//')"
echo "tally: $TALLY ($(git -C "$ROOT" describe --always --dirty 2>/dev/null || echo '?'))"
echo "peers: $(perf --version 2>/dev/null || echo 'perf: none'); $(gprofng --version 2>/dev/null | head -n 1 || echo 'gprofng: none')"
echo "load average at start: $(cut -d' ' -f1-3 /proc/loadavg); running at $prio"

if ! [ -x "$TALLY" ]; then
	echo "run.sh: $TALLY is missing: run make first" >&2
	exit 2
fi
# Measure a snapshot of the build: others may rebuild build/ during the run.
SNAP=$OUT/tally
rm -rf "$SNAP" && mkdir -p "$SNAP/bin" "$SNAP/lib"
if cp "$TALLY" "$SNAP/bin/tally" && cp -P "$(dirname "$TALLY")/../lib/"*.so "$SNAP/lib/"; then
	echo "tally snapshot: $SNAP (copied from $TALLY and its lib/);" \
		"sha256: tally $(sha256sum "$SNAP/bin/tally" | cut -c1-12)," \
		"collector $(sha256sum "$SNAP/lib/libtally-collector.so" | cut -c1-12)"
	TALLY=$SNAP/bin/tally
	TALLY_LIB_DIR=$SNAP/lib
	export TALLY TALLY_LIB_DIR
else
	echo "run.sh: cannot copy tally to $SNAP; measuring $TALLY in place" >&2
fi
if ! build_workloads; then
	echo "run.sh: cannot build the workloads" >&2
	exit 2
fi
CPU_UNITS=${CPU_UNITS:-$(calibrate cpu)}
CALLS_UNITS=${CALLS_UNITS:-$(calibrate calls)}
NEWSTACKS_UNITS=${NEWSTACKS_UNITS:-$(calibrate newstacks)}
export CPU_UNITS CALLS_UNITS NEWSTACKS_UNITS
echo "workloads ($CC -O2 -g -fomit-frame-pointer): cpu $CPU_UNITS units, calls $CALLS_UNITS units," \
	"newstacks $NEWSTACKS_UNITS units (~1.5 s of CPU each, bare)"
echo "perf: $(w=$(perf_why); echo "${w:-usable}");  gprofng: $(w=$(gprofng_why); echo "${w:-usable}")"

# The sections, in order; arguments select some by name.
want=" $* "
for f in "$BENCH"/sections/[0-9]*.sh; do
	name=$(basename "$f" .sh)
	name=${name#*-}
	[ $# -eq 0 ] || [[ $want == *" $name "* ]] || continue
	t0=$(date +%s)
	bash -c '. "$1"; . "$2"' run.sh "$BENCH/lib.sh" "$f" ||
		echo "  section $name failed (status $?); continuing"
	echo "  ($name: $(($(date +%s) - t0)) s)"
done

section "Summary"
tb table "$SUMMARY"
echo "load average at end: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "total time: $(($(date +%s) - START)) s"
