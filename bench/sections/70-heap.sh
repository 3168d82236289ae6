# SPDX-License-Identifier: MIT
# 70-heap.sh — heap tracing cost: bench/mallocs.c (N allocations three calls
# deep, each freed later) bare and under `tally record -H` (-F 0: the tracer
# alone; and with the clock), with valgrind's massif and heaptrack beside it
# where installed.  Extra nanoseconds per allocation (with its release):
# the median per-round difference of wall times over N.  Target: 150 ns.
section "7. Heap tracing: cost per traced allocation"

d=$OUT/heap
rm -rf "$d" && mkdir -p "$d"
N=${BENCH_ALLOCS:-2000000}
ns() { python3 -c "import sys; print(f'{float(sys.argv[1]) * 1e9 / float(sys.argv[2]):.0f}')" "$1" "$2"; }
tb time --rounds "$ROUNDS" --warmup 1 --base bare --check 'checksum [0-9]+' --json "$d/t.json" --dir "$d" \
	--cmd bare "$BIN/mallocs $N" \
	--cmd tally "$TALLY record -F 0 -H -o $d/h.exp -- $BIN/mallocs $N" --pre tally "rm -rf $d/h.exp" \
	--cmd tally-1kHz "$TALLY record -H -o $d/h1.exp -- $BIN/mallocs $N" --pre tally-1kHz "rm -rf $d/h1.exp"
t=$(tb get "$d/t.json" tally.diff_med)
t1=$(tb get "$d/t.json" tally-1kHz.diff_med)
"$TALLY" record -F 0 -H -o "$d/check.exp" -- "$BIN/mallocs" "$N" >/dev/null 2>&1
count=$("$TALLY" export "$d/check.exp" --format collapsed --metric heap.count 2>/dev/null |
	awk '/level3/ {n += $NF} END {print n + 0}')
note "allocations traced from level3: $count of $N; with the clock at 1 kHz: $(ns "${t1:-0}" "$N") ns each"

# Peers are much slower: a tenth of the work, fewer rounds.
n=$((N / 10))
set -- --cmd bare "$BIN/mallocs $n"
command -v valgrind >/dev/null && set -- "$@" --cmd massif "valgrind -q --tool=massif --massif-out-file=$d/massif.data $BIN/mallocs $n"
command -v heaptrack >/dev/null && set -- "$@" --cmd heaptrack "heaptrack -o $d/ht $BIN/mallocs $n" --pre heaptrack "rm -f $d/ht*"
peers=""
if [ $# -gt 2 ]; then
	tb time --rounds 3 --warmup 0 --base bare --check 'checksum [0-9]+' --json "$d/peers.json" --dir "$d" "$@"
	for p in massif heaptrack; do
		v=$(tb get "$d/peers.json" "$p.diff_med" 2>/dev/null)
		[ -n "$v" ] && peers="$peers${peers:+; }$p: $(ns "$v" "$n") ns"
	done
fi
if [ -n "$t" ]; then
	row "heap tracing, per allocation (ns)" "$(ns "$t" "$N")" "<= 150" "${peers:-massif, heaptrack: n/a (not installed)}"
else
	row "heap tracing, per allocation (ns)" "n/a (the traced run failed)" "<= 150" "$peers"
fi
rm -rf "$d"/*.exp "$d"/ht* "$d"/massif.data
