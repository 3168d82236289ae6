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
r=$(tb get "$d/t.json" tally.ratio_med)
t=$(tb get "$d/t.json" tally.diff_med)
if [ -n "$r" ]; then
	note "extra per poll, epoll_wait or select: $(python3 -c "import sys; print(f'{float(sys.argv[1]) * 1e9 / (3 * float(sys.argv[2])):.1f}')" "$t" "$N") ns, at most (three calls per iteration; tally record's start-up included)"
	row "I/O tracing, poll-heavy (ratio)" "$(fmt "$r" 3)" "-" "-"
else
	row "I/O tracing, poll-heavy (ratio)" "n/a (the traced run failed)" "-" "-"
fi
rm -rf "$d"/*.exp
