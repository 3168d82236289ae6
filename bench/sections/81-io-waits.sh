# SPDX-License-Identifier: MIT
# 81-io-waits.sh — what the I/O tracer adds to the calls an event loop makes
# most: bench/polly.c (poll, epoll_wait and select on an always-ready pipe,
# N times each) bare and under `tally record -F 0 -i`.  Each call is timed
# (two clock reads) and recorded only if it blocked (io_wait.c), so this is
# the cost of a loop that never waits; select's timeout is 0, a call that
# cannot block and is not timed; the extra nanoseconds per call, tally
# record's start-up included.
section "8b. I/O tracing: poll, epoll_wait and select"

d=$OUT/iowaits
rm -rf "$d" && mkdir -p "$d"
N=${BENCH_POLLS:-1000000}
tb time --rounds "$ROUNDS" --warmup 1 --base bare --check 'checksum [0-9]+' --json "$d/t.json" --dir "$d" \
	--cmd bare "$BIN/polly $N" \
	--cmd tally "$TALLY record -F 0 -i -o $d/p.exp -- $BIN/polly $N" --pre tally "rm -rf $d/p.exp"
per_call_row "$d/t.json" tally "$N" 3 "I/O tracing, poll-heavy (ratio)" \
	"poll, epoll_wait or select, at most (three calls per iteration; tally record's start-up included)"
rm -rf "$d"/*.exp
