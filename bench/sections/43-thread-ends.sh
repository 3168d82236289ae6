# SPDX-License-Identifier: MIT
# 43-thread-ends.sh — what the collector adds to a thread's end:
# bench/threadends.c (threads one after another, each asleep, then joined;
# the program's own median time from a thread's last act to its join's
# return), bare and under `tally record`, rounds interleaved.  Threads of
# 60 ms have their schedstat read as they end (collector/col_sched.c, 50 ms
# and more: a helper aside and an open in /proc); threads of 30 ms do not,
# the same exit path otherwise: their difference is the read's cost.
section "4d. A thread's end: records and its schedstat"

d=$OUT/threadends
rm -rf "$d" && mkdir -p "$d"
N=${BENCH_THREADS:-20}
: >"$d/rounds.txt"
for r in $(seq "$ROUNDS"); do
	for ms in 60 30; do
		echo "bare $ms $("$BIN/threadends" "$N" "$ms")" >>"$d/rounds.txt"
		rm -rf "$d/t.exp"
		echo "tally $ms $("$TALLY" record -o "$d/t.exp" -- "$BIN/threadends" "$N" "$ms" 2>/dev/null)" >>"$d/rounds.txt"
	done
done
read -r read_us noread_us <<<"$(python3 - "$d/rounds.txt" <<'PY'
import statistics, sys
v = {}
for line in open(sys.argv[1]):
    f = line.split()
    if len(f) >= 4 and f[2] == 'join_us':
        v.setdefault((f[0], f[1]), []).append(float(f[3]))
def over(ms):
    b, t = v.get(('bare', ms)), v.get(('tally', ms))
    return f'{statistics.median(t) - statistics.median(b):.0f}' if b and t else 'n/a'
print(over('60'), over('30'))
PY
)"
note "$N threads a run, $ROUNDS rounds; median of the program's own join delays over bare:" \
	"threads of 60 ms (schedstat read) ${read_us} us, of 30 ms (not read) ${noread_us} us"
row "thread end: join delay over bare, thread of 60 ms (us)" "${read_us}" "-" \
	"30 ms threads (no schedstat read): ${noread_us} us"
rm -rf "$d"/*.exp
