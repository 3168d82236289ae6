# SPDX-License-Identifier: MIT
# 82-reads.sh — two reads of /proc the collector makes per object, each a
# cost per event of a path no other section exercises (issue 25), timed by
# the programs' own clocks, rounds interleaved:
# - an epoll set's list, /proc/self/fdinfo/N (tracers/io_wait.c): read once
#   for a set the I/O tracer did not see made, at its first epoll_ctl or
#   wait.  bench/epollsets.c makes N sets, then adds a pipe to each (the
#   read) and a second pipe to each (no read): under `tally record -i` the
#   first pass's excess over the second is the read, per set.  Sets made
#   by raw system calls are not seen made; sets made by libc's
#   epoll_create1 while traced are (interposed since 7893ae8) and are
#   never read: their excess is the check that nothing is read;
# - a thread's schedstat, /proc/self/task/TID/schedstat
#   (collector/col_sched.c's col_sched_read_many, twice per thread at an
#   attach: its start and its stop, in the helper): bench/schedreads.c
#   reads 64 sleeping threads' the same way (open, read, close).
section "8c. Reads of /proc: an epoll set's list, a thread's schedstat"

d=$OUT/reads
rm -rf "$d" && mkdir -p "$d"
N=${BENCH_EPOLL_SETS:-2000}
: >"$d/rounds.txt"
for r in $(seq "$ROUNDS"); do
	echo "bare raw $("$BIN/epollsets" "$N")" >>"$d/rounds.txt"
	rm -rf "$d/e.exp"
	echo "tally raw $("$TALLY" record -F 0 -i -o "$d/e.exp" -- "$BIN/epollsets" "$N" 2>/dev/null)" >>"$d/rounds.txt"
	rm -rf "$d/e.exp"
	echo "tally libc $("$TALLY" record -F 0 -i -o "$d/e.exp" -- "$BIN/epollsets" "$N" libc 2>/dev/null)" >>"$d/rounds.txt"
	echo "sched - $("$BIN/schedreads" 64 200)" >>"$d/rounds.txt"
done
read -r raw_us libc_us bare_us sched_us <<<"$(python3 - "$d/rounds.txt" <<'PY'
import statistics, sys
v = {}
for line in open(sys.argv[1]):
    f = line.split()
    if len(f) >= 6 and f[2] == 'first_ns' and f[4] == 'second_ns':
        v.setdefault((f[0], f[1]), []).append((float(f[3]) - float(f[5])) / 1000)
    elif len(f) >= 4 and f[2] == 'ns_per_read':
        v.setdefault(('sched', '-'), []).append(float(f[3]) / 1000)
def med(k):
    return f'{statistics.median(v[k]):.1f}' if v.get(k) else 'n/a'
print(med(('tally', 'raw')), med(('tally', 'libc')), med(('bare', 'raw')), med(('sched', '-')))
PY
)"
note "$N epoll sets a run, $ROUNDS rounds; median excess of the first epoll_ctl per set over the second:" \
	"sets made by raw calls, under -i ${raw_us} us (bare ${bare_us} us);" \
	"sets made by libc's epoll_create1 while traced ${libc_us} us (not read)"
note "schedstat: 64 threads x 200 reads a run, median ${sched_us} us per read (open, read, close)"
row "epoll set's fdinfo read, a set not seen made (us per set)" "${raw_us}" "<= 20" \
	"a set made while traced: ${libc_us} us (not read); bare: ${bare_us} us"
row "epoll set made while traced: first epoll_ctl over second (us)" "${libc_us}" "<= 2" \
	"a set made by raw calls: ${raw_us} us (read)"
row "thread's schedstat read, attach and stop (us per read)" "${sched_us}" "<= 20" "-"
rm -rf "$d"/*.exp
