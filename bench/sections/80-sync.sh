# SPDX-License-Identifier: MIT
# 80-sync.sh — synchronization tracing cost: bench/locky.c (2 threads, each
# taking a shared mutex and a private one N times) bare and under
# `tally record -s` (-F 0, calibrated threshold), with lock-holder blame (the
# default) and without it (--sync-holders=off).  The ratios of wall times,
# and the extra nanoseconds per lock call.  The shared mutex is contended
# from the start, so with blame each of its acquisitions after the first
# contention probes the holders' table and, when the other thread held it
# last, reads the clock and unwinds: the worst case for blame.  No target is
# set for it; gprofng's sync tracing costs about 4 us per traced event here.
# Then bench/signaly.c (a condition variable signalled and a semaphore
# posted N times each, no waiter) bare and under -s: the extra nanoseconds
# per signal or post that noting its waker (for the critical path) costs.
section "8. Synchronization tracing: lock-heavy workload"

d=$OUT/sync
rm -rf "$d" && mkdir -p "$d"
N=${BENCH_LOCKS:-2000000}
tb time --rounds "$ROUNDS" --warmup 1 --base bare --check 'checksum [0-9]+' --json "$d/t.json" --dir "$d" \
	--cmd bare "$BIN/locky $N 2" \
	--cmd tally "$TALLY record -F 0 -s -o $d/s.exp -- $BIN/locky $N 2" --pre tally "rm -rf $d/s.exp" \
	--cmd noblame "$TALLY record -F 0 -s --sync-holders=off -o $d/n.exp -- $BIN/locky $N 2" \
	--pre noblame "rm -rf $d/n.exp"
per_call_row "$d/t.json" tally "$N" 2 "sync tracing, lock-heavy (ratio)" \
	"lock call (2 lock calls per iteration, threads in parallel)"
per_call_row "$d/t.json" noblame "$N" 2 "sync tracing without blame (--sync-holders=off)" \
	"lock call (2 lock calls per iteration, threads in parallel)"
if [ -n "$(tb get "$d/t.json" tally.ratio_med)" ]; then
	"$TALLY" record -F 0 -s -o "$d/c.exp" -- "$BIN/locky" "$N" 2 >/dev/null 2>&1
	note "waits recorded: $("$TALLY" export "$d/c.exp" --format collapsed --metric sync.count 2>/dev/null | awk '{n += $NF} END {print n + 0}'), threshold: $(grep '^sync.threshold' "$d/c.exp/log.txt" | cut -d' ' -f2-), blame rows: $("$TALLY" report "$d/c.exp" --blame -q --format csv 2>/dev/null | tail -n +2 | wc -l)"
fi
S=${BENCH_SIGNALS:-2000000}
tb time --rounds "$ROUNDS" --warmup 1 --base bare --check 'checksum [0-9]+' --json "$d/w.json" --dir "$d" \
	--cmd bare "$BIN/signaly $S" \
	--cmd tally "$TALLY record -F 0 -s -o $d/w.exp -- $BIN/signaly $S" --pre tally "rm -rf $d/w.exp"
per_call_row "$d/w.json" tally "$S" 2 "sync tracing, signal-heavy (ratio)" \
	"signal or post, at most (a signal and a post per iteration; tally record's start-up included; wakers noted for the critical path)"
rm -rf "$d"/*.exp
