# SPDX-License-Identifier: MIT
# 90-mpi.sh — MPI: the tracing cost per call and the report of a big job.
#
# 1. tests/progs/mpi_work.c pingpong: ranks 0 and 1 of `mpirun -np 2`
#    exchange N messages of 8 bytes (MPI_Send, MPI_Recv); the program times
#    its own loop (MPI_Init and the launch excluded).  Three ways, rounds
#    interleaved: bare; under `tally record -F 0` (the collector, no MPI
#    tracing); under `tally record -F 0 -m`.  A round trip is four calls on
#    the critical path (rank 0's send, rank 1's receive and send, rank 0's
#    receive), so the cost per traced call is the round trip's growth from
#    the second to the third, / 4.  Under load the ping-pong's latency is
#    mostly scheduling (both ranks poll), so the same is measured on a call
#    without communication: `mpi_work probe`, one rank calling MPI_Iprobe
#    with nothing to find, per call, the three ways.
# 2. A job of 1,000 ranks written by build/tests/jobgen (2,000 samples and 3
#    MPI calls per rank, the same 9 stacks in every rank): the wall time and
#    peak memory of `tally report JOB --ranks`, and the memory for 100 ranks,
#    to show it grows with ranks by a small constant (no rank's events stay).
# 3. A job of 10,000 ranks (200 samples each): the same, issue 27's bound
#    of 5 s.
section "9. MPI: tracing cost per call (ping-pong), 1,000- and 10,000-rank jobs' reports"

d=$OUT/mpi
rm -rf "$d" && mkdir -p "$d"
[ "$(id -u)" -eq 0 ] && export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
lib=${TALLY_LIB_DIR:-$(dirname "$TALLY")/../lib}
N=${BENCH_PINGPONG:-200000}
R=${BENCH_MPI_ROUNDS:-5}

if ! command -v mpicc >/dev/null || ! command -v mpirun >/dev/null; then
	row "MPI tracing per call (ns)" "n/a (no mpicc/mpirun: apt-get install openmpi-bin libopenmpi-dev)" "-" "-"
elif ! [ -f "$lib/libtally-mpi.so" ]; then
	row "MPI tracing per call (ns)" "n/a (libtally-mpi.so not built: no mpi.h)" "-" "-"
elif ! mpicc -O2 -g -o "$BIN/mpi_work" "$ROOT/tests/progs/mpi_work.c"; then
	row "MPI tracing per call (ns)" "n/a (mpicc failed)" "-" "-"
else
	# one MODE NP N LABEL: the ns per round trip or per call of one run, or
	# nothing if it failed.
	one() {
		local pre
		case $4 in
		bare) pre="" ;;
		collector) pre="$TALLY record -F 0 -o $d/c.exp --" ;;
		traced) pre="$TALLY record -F 0 -m -o $d/m.exp --" ;;
		esac
		rm -rf "$d/c.exp" "$d/m.exp"
		timeout 300 mpirun --oversubscribe -np "$2" $pre "$BIN/mpi_work" "$1" "$3" 2>/dev/null |
			sed -n 's/^[a-z]* [0-9]* [a-z ]* \([0-9.]*\) ns each$/\1/p'
	}
	# measure MODE NP N: R interleaved rounds of the three ways; prints the
	# medians and minimums, and the cost per traced call from each.
	measure() {
		rm -f "$d"/*.ns
		for r in $(seq "$R"); do
			for label in bare collector traced; do
				echo "$(one "$1" "$2" "$3" $label)" >>"$d/$label.ns"
			done
		done
		stat() { grep -E '^[0-9.]+$' "$d/$1.ns" | tb stats | grep -v n/a; }
		set -- "$1" "$(stat bare)" "$(stat collector)" "$(stat traced)"
		[ -n "$3" ] && [ -n "$4" ] || return 1
		python3 - "$@" <<-'EOF'
		import sys
		mode, b, c, m = sys.argv[1], *(list(map(float, x.split())) for x in sys.argv[2:])
		calls = 4 if mode == 'pingpong' else 1
		print(f"{(m[0] - c[0]) / calls:.0f} {(m[1] - c[1]) / calls:.0f} "
		      f"{b[0]:.0f} {c[0]:.0f} {m[0]:.0f} {b[1]:.0f} {c[1]:.0f} {m[1]:.0f}")
		EOF
	}
	load=$(cut -d' ' -f1 /proc/loadavg)
	if set -- $(measure pingpong 2 "$N"); then
		note "ping-pong, ns per round trip of 8-byte messages ($R runs of $N, load $load):" \
			"median bare $3, collector $4, collector + -m $5; minimum $6, $7, $8"
		note "cost per traced call (traced - collector, 4 calls per round trip): median $1 ns, from the minimums $2 ns"
		row "MPI tracing per call, ping-pong (ns)" "$1" "-" "-"
	else
		row "MPI tracing per call, ping-pong (ns)" "n/a (a run failed: see $d)" "-" "-"
	fi
	if set -- $(measure probe 1 2000000); then
		note "MPI_Iprobe with nothing to find, ns per call ($R runs of 2,000,000):" \
			"median bare $3, collector $4, collector + -m $5; minimum $6, $7, $8"
		note "cost per traced call: median $1 ns, from the minimums $2 ns"
		row "MPI tracing per call, no communication (ns)" "$1" "-" "-"
	else
		row "MPI tracing per call, no communication (ns)" "n/a (a run failed: see $d)" "-" "-"
	fi
fi

gen=$ROOT/build/tests/jobgen
if ! [ -x "$gen" ]; then
	row "report of a 1,000-rank job (s)" "n/a (build/tests/jobgen missing: make tests)" "-" "-"
else
	"$gen" "$d/job1000" 1000 2000 >"$d/gen1000.txt" && "$gen" "$d/job100" 100 2000 >/dev/null
	note "job: $(cat "$d/gen1000.txt"), $(du -sh "$d/job1000" | cut -f1) on disk"
	tb time --rounds "$R" --warmup 1 --json "$d/r.json" --dir "$d/r" \
		--cmd report "$TALLY report $d/job1000 --ranks" \
		--cmd functions "$TALLY report $d/job1000"
	t=$(tb get "$d/r.json" report.wall_med)
	rss() { /usr/bin/time -f %M "$TALLY" report "$1" --ranks 2>&1 >/dev/null | tail -n 1; }
	m1000=$(rss "$d/job1000") m100=$(rss "$d/job100")
	note "peak memory of report --ranks: $m100 KB for 100 ranks, $m1000 KB for 1,000" \
		"($(( (m1000 - m100) / 900 )) KB more per rank; each rank's events are $(( $(du -sk "$d/job1000/rank1.exp" | cut -f1) )) KB on disk)"
	row "report of a 1,000-rank job (s)" "$(fmt "$t" 2)" "<= 10" "-"
fi

# 3. 10,000 ranks x 200 samples (the same 8 stacks in every rank): the
#    report's wall time and peak memory, beside 1,000 ranks of the same kind,
#    to show what a rank costs (its log, totals and threads; never its events).
if [ -x "$gen" ]; then
	"$gen" "$d/job10k" 10000 200 >"$d/gen10k.txt" && "$gen" "$d/job1k" 1000 200 >/dev/null
	note "job: $(cat "$d/gen10k.txt"), $(du -sh "$d/job10k" | cut -f1) on disk"
	tb time --rounds 3 --warmup 1 --json "$d/r10k.json" --dir "$d/r10k" \
		--cmd report10k "$TALLY report $d/job10k --ranks"
	t=$(tb get "$d/r10k.json" report10k.wall_med)
	rss() { /usr/bin/time -f %M "$TALLY" report "$1" --ranks 2>&1 >/dev/null | tail -n 1; }
	m10k=$(rss "$d/job10k") m1k=$(rss "$d/job1k")
	note "peak memory of report --ranks: $m1k KB for 1,000 ranks, $m10k KB for 10,000" \
		"($(( (m10k - m1k) / 9000 )) KB more per rank); load $(cut -d' ' -f1 /proc/loadavg)"
	row "report of a 10,000-rank job (s)" "$(fmt "$t" 2)" "<= 5" "-"
	row "report of a 10,000-rank job, peak memory (MB)" "$((m10k / 1024))" "-" "-"
fi
rm -rf "$d"/*.exp "$d"/job1000 "$d"/job100 "$d"/job10k "$d"/job1k
