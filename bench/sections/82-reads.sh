# SPDX-License-Identifier: MIT
# 82-reads.sh — two reads of /proc the collector makes per object, each a
# cost per event of a path no other section exercises (issue 25), timed by
# the programs' own clocks, rounds interleaved.
# Each is timed in CPU time (the reading thread's clock), which the load
# does not stretch; wall times are noted beside.
# - an epoll set's list, /proc/self/fdinfo/N (tracers/io_wait.c): read once
#   for a set the I/O tracer did not see made, at its first epoll_ctl or
#   wait.  bench/epollsets.c makes N sets, then adds a pipe to each (the
#   read) and a second pipe to each (no read): under `tally record -i` the
#   first pass's excess over the second is the read, per set.  Sets made
#   by raw system calls are not seen made; sets made by libc's
#   epoll_create1 while traced are (interposed since 7893ae8) and are
#   never read: their excess over bare, against a fifth of the raw sets',
#   is the check that nothing is read, and the raw sets' excess over bare
#   the check that they are; a traced run that fails is a MISS;
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
	# A traced run that fails is counted (a MISS below), its stderr kept.
	for how in raw libc; do
		rm -rf "$d/e.exp"
		arg=; [ $how = libc ] && arg=libc
		if out=$("$TALLY" record -F 0 -i -o "$d/e.exp" -- "$BIN/epollsets" "$N" $arg 2>"$d/err.$r.$how"); then
			echo "tally $how $out" >>"$d/rounds.txt"
		else
			echo "failed $how $r: $(tail -n 1 "$d/err.$r.$how")" >>"$d/rounds.txt"
		fi
	done
	echo "sched - $("$BIN/schedreads" 64 200)" >>"$d/rounds.txt"
done
read -r raw_us libc_us bare_us sched_us failed raw_excess libc_excess libc_bound raw_wall bare_wall sched_wall <<<"$(python3 - "$d/rounds.txt" <<'PY'
import statistics, sys
v = {}
# CPU time, the programs' own (their thread's clock): wall time per read
# is mostly the wait for a CPU under load (at load 23-26, bare: 34-94 us
# of wall per epoll_ctl and 0.9-1.1 us of CPU; a schedstat read 74-120 us
# of wall and 5.5 us of CPU).  Each is the first pass's excess over the
# second, as before.
for line in open(sys.argv[1]):
    f = line.split()
    if len(f) >= 10 and f[6] == 'first_cpu_ns' and f[8] == 'second_cpu_ns':
        v.setdefault((f[0], f[1]), []).append((float(f[7]) - float(f[9])) / 1000)
        v.setdefault((f[0], f[1], 'wall'), []).append((float(f[3]) - float(f[5])) / 1000)
    elif len(f) >= 6 and f[4] == 'cpu_ns_per_read':
        v.setdefault(('sched', '-'), []).append(float(f[5]) / 1000)
        v.setdefault(('sched', '-', 'wall'), []).append(float(f[3]) / 1000)
def med(k):
    return f'{statistics.median(v[k]):.1f}' if v.get(k) else 'n/a'
failed = sum(1 for line in open(sys.argv[1]) if line.startswith('failed '))
m = {k: statistics.median(x) for k, x in v.items() if x}
raw, libc, bare = m.get(('tally', 'raw')), m.get(('tally', 'libc')), m.get(('bare', 'raw'))
# Relative to the bare run: the raw sets' excess is the read; the libc sets'
# excess must be at most a fifth of it (they are never read).
rx = f'{raw - bare:.1f}' if raw is not None and bare is not None else 'n/a'
lx = f'{libc - bare:.1f}' if libc is not None and bare is not None else 'n/a'
lb = f'{0.2 * (raw - bare):.1f}' if raw is not None and bare is not None else 'n/a'
print(med(('tally', 'raw')), med(('tally', 'libc')), med(('bare', 'raw')), med(('sched', '-')),
      failed, rx, lx, lb, med(('tally', 'raw', 'wall')), med(('bare', 'raw', 'wall')), med(('sched', '-', 'wall')))
PY
)"
note "$N epoll sets a run, $ROUNDS rounds; median excess of the first epoll_ctl's CPU per set over the second's:" \
	"sets made by raw calls, under -i ${raw_us} us (bare ${bare_us} us; wall ${raw_wall} and ${bare_wall} us);" \
	"sets made by libc's epoll_create1 while traced ${libc_us} us (not read)"
note "schedstat: 64 threads x 200 reads a run, median ${sched_us} us of CPU per read (open, read, close;" \
	"wall ${sched_wall} us); the load now: $(cut -d' ' -f1-3 /proc/loadavg)"
# Absolute bounds on CPU time, a cost per object (docs/benchmarks.md, 8c).
row "epoll set's fdinfo read, a set not seen made (us CPU per set)" "${raw_us}" "<= 20" \
	"a set made while traced: ${libc_us} us (not read); bare: ${bare_us} us"
# A failed traced run is a MISS, not a row of n/a: its line names why.
row "traced epollsets runs that failed (of $((2 * ROUNDS)))" "$failed" "<= 0" \
	"$(grep -m1 '^failed ' "$d/rounds.txt" || echo -)"
# The premise: sets made by raw calls are read at all (their first
# epoll_ctl's excess over bare above 1 us); then those made while traced
# are not: their excess over bare at most a fifth of the raw sets' (a bound
# from this run, not one machine's microseconds).
row "epoll set not seen made: excess over bare (us per set, read)" "${raw_excess}" "> 1" \
	"raw ${raw_us} us, bare ${bare_us} us"
row "epoll set made while traced: excess over bare (us, not read)" "${libc_excess}" "<= ${libc_bound}" \
	"a fifth of the raw sets' excess; libc ${libc_us} us"
row "thread's schedstat read, attach and stop (us CPU per read)" "${sched_us}" "<= 20" "wall ${sched_wall} us"
rm -rf "$d"/*.exp
