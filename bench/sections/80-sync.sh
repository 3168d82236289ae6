# SPDX-License-Identifier: MIT
# 80-sync.sh — synchronization tracing cost: bench/locky.c (2 threads, each
# taking a shared mutex and a private one N times) bare and under
# `tally record -s` (-F 0, calibrated threshold).  The ratio of wall times,
# and the extra nanoseconds per lock call.  No target is set for it; gprofng's
# sync tracing costs about 4 us per traced event here.
section "8. Synchronization tracing: lock-heavy workload"

d=$OUT/sync
rm -rf "$d" && mkdir -p "$d"
N=${BENCH_LOCKS:-2000000}
tb time --rounds "$ROUNDS" --warmup 1 --base bare --check 'checksum [0-9]+' --json "$d/t.json" --dir "$d" \
	--cmd bare "$BIN/locky $N 2" \
	--cmd tally "$TALLY record -F 0 -s -o $d/s.exp -- $BIN/locky $N 2" --pre tally "rm -rf $d/s.exp"
r=$(tb get "$d/t.json" tally.ratio_med)
t=$(tb get "$d/t.json" tally.diff_med)
if [ -n "$r" ]; then
	note "extra per lock call: $(python3 -c "import sys; print(f'{float(sys.argv[1]) * 1e9 / (2 * float(sys.argv[2])):.1f}')" "$t" "$N") ns (2 lock calls per iteration, threads in parallel)"
	"$TALLY" record -F 0 -s -o "$d/c.exp" -- "$BIN/locky" "$N" 2 >/dev/null 2>&1
	note "waits recorded: $("$TALLY" export "$d/c.exp" --format collapsed --metric sync.count 2>/dev/null | awk '{n += $NF} END {print n + 0}'), threshold: $(grep '^sync.threshold' "$d/c.exp/log.txt" | cut -d' ' -f2-)"
	row "sync tracing, lock-heavy (ratio)" "$(fmt "$r" 3)" "-" "-"
else
	row "sync tracing, lock-heavy (ratio)" "n/a (the traced run failed)" "-" "-"
fi
rm -rf "$d"/*.exp
