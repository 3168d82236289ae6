# SPDX-License-Identifier: MIT
# 60-pg.sh — the -pg runtime's cost per call: bench/pgcalls.c built without
# and with -pg, run bare, under glibc's gmon (the -pg binary alone), and under
# `tally record` (-F 0: the runtime alone; and with the clock at 1 kHz), with 1
# and 2 threads.  Extra nanoseconds per call over the uninstrumented build:
# the median per-round difference of wall times over the calls each thread
# makes (threads run in parallel).  Target: tally's <= half of glibc's.
section "6. -pg runtime: cost per call, tally vs glibc's mcount"

d=$OUT/pg
rm -rf "$d" && mkdir -p "$d"
N=${BENCH_PG_CALLS:-100000000}
ns() { python3 -c "import sys; print(f'{float(sys.argv[1]) * 1e9 / float(sys.argv[2]):.2f}')" "$1" "$N"; }
half() { python3 -c "import sys; print(f'{float(sys.argv[1]) / 2:.2f}')" "$1"; }
cd "$d" || exit 1
for th in 1 2; do
	note "$N calls per thread, $th thread(s):"
	tb time --rounds "$ROUNDS" --warmup 1 --base bare --check 'checksum [0-9]+' --json "$d/t$th.json" --dir "$d" \
		--cmd bare "$BIN/pgcalls $N $th" \
		--cmd glibc "$BIN/pgcalls.pg $N $th" --pre glibc "rm -f gmon.out" \
		--cmd tally "$TALLY record -F 0 -o $d/t.exp -- $BIN/pgcalls.pg $N $th" --pre tally "rm -rf $d/t.exp" \
		--cmd tally-1kHz "$TALLY record -o $d/t1.exp -- $BIN/pgcalls.pg $N $th" --pre tally-1kHz "rm -rf $d/t1.exp"
	g=$(tb get "$d/t$th.json" glibc.diff_med)
	t=$(tb get "$d/t$th.json" tally.diff_med)
	t1=$(tb get "$d/t$th.json" tally-1kHz.diff_med)
	if [ -n "$g" ] && [ -n "$t" ]; then
		note "extra ns per call: glibc $(ns "$g"), tally $(ns "$t"), tally with the clock at 1 kHz $(ns "$t1")"
		row "-pg cost per call, $th thread(s) (ns)" "$(ns "$t")" "<= $(half "$(ns "$g")")" "glibc mcount: $(ns "$g") ns"
	else
		row "-pg cost per call, $th thread(s) (ns)" "n/a (a run failed)" "-" "-"
	fi
	# Exact counts: tally's against glibc's, on the same binary.
	rm -rf "$d/c.exp" gmon.out
	"$TALLY" record -F 0 -o "$d/c.exp" -- "$BIN/pgcalls.pg" "$N" "$th" >/dev/null 2>&1
	tc=$("$TALLY" export "$d/c.exp" --format arcs 2>/dev/null | awk -F'\t' '$1 == "outer" && $2 == "middle" {n += $3} END {print n + 0}')
	"$BIN/pgcalls.pg" "$N" "$th" >/dev/null 2>&1
	gc=$(gprof -b -q "$BIN/pgcalls.pg" gmon.out 2>/dev/null | awk '/^\[[0-9]+\].* middle \[/ {print $5; exit}')
	note "outer -> middle calls: expected $((N / 2 * th)), tally counted $tc, glibc's mcount ${gc:-?}"
done
rm -rf "$d"/*.exp gmon.out
