# test_critical_wake.sh — the critical path through condition variables and
# pipes: tests/progs/prodcons.c, a producer thread whose slow_produce()
# sets the pace and a main thread that consumes each item quickly, handed
# over through a condition variable (record -s: who signalled is recorded)
# and through a pipe (record -s -i: the pipe's writes and reads).  Each
# way, the path's total covers the program's own wall time (less 5%),
# within the record command's, and
# slow_produce() is on it within 10% of the program's measure of it (the
# path goes from main's waits to the producer that woke them); main's own
# consuming hardly.  And a producer that sleeps in slow_produce() (record
# -s --states): its time off the CPU is on the path at the stack where it
# slept, slow_produce within 10% of the program's measure; without
# --states the path cannot name it (<not sampled>).
. "$(dirname "$0")/lib.sh"
cd "$T"
cc_prog prodcons -pthread

t0=$(date +%s%N)
"$TALLY" record -s -o cond.exp ./prodcons cond 12 30 >own_cond.txt 2>rec_cond.err
t1=$(date +%s%N)
echo $((t1 - t0)) >outer_cond.txt
"$TALLY" report cond.exp --critical-path -q --format csv >cond.csv 2>cond.err
t0=$(date +%s%N)
"$TALLY" record -s -i -o pipe.exp ./prodcons pipe 12 30 >own_pipe.txt 2>rec_pipe.err
t1=$(date +%s%N)
echo $((t1 - t0)) >outer_pipe.txt
"$TALLY" report pipe.exp --critical-path -q --format csv >pipe.csv 2>pipe.err
t0=$(date +%s%N)
"$TALLY" record -s --states -o sleep.exp ./prodcons sleep 12 30 >own_sleep.txt 2>rec_sleep.err
t1=$(date +%s%N)
echo $((t1 - t0)) >outer_sleep.txt
"$TALLY" report sleep.exp --critical-path -q --format csv >sleep.csv 2>sleep.err
# Without --states a running segment's time is shared among the clock
# samples in it: at 1 kHz, the sleeping producer's few µs of CPU a round
# made one sample once under load (make check), which then took the whole
# sleep.  At -F 100 its CPU stays far below a period, so the segment has
# no sample, as the check means.
"$TALLY" record -s -F 100 -o nostates.exp ./prodcons sleep 12 30 >own_nostates.txt 2>rec_nostates.err
"$TALLY" report nostates.exp --critical-path -q --format csv >nostates.csv 2>nostates.err

# At 10 kHz the sleeping producer's CPU makes samples (checked: else the
# check could not fail); before, those few shared its whole sleep (0.21 s
# of 0.37 s here, from 16 samples of 1.5 ms of CPU).  Now slow_produce is
# on the path for at most its thread's sampled CPU, and a period more, times
# the stretch the report states: twice its own ratio of running wall time to CPU,
# at most 4 times their process's (which load raises, and the bound with it);
# or, its schedstat read at its end (it lives over 50 ms), for its CPU and
# wait for a CPU, the kernel's (test_critical_sched.sh).
"$TALLY" record -s -F 10000 -o fast.exp ./prodcons sleep 12 30 >own_fast.txt 2>rec_fast.err
"$TALLY" report fast.exp --critical-path -q --format csv >fast.csv 2>fast.err
"$TALLY" report fast.exp --critical-path -q >fast.txt 2>>fast.err
"$TALLY" report fast.exp --threads -q --format csv >fast_threads.csv 2>>fast.err
"$TALLY" report fast.exp --format json >fast_overview.json 2>>fast.err

cat >crit.py <<'PY'
import csv, sys
way, what = sys.argv[1], sys.argv[2]
rows = {r['name']: r for r in csv.DictReader(open(way + '.csv'))}
v = open('own_%s.txt' % way).read().split()
wall, produce = int(v[1]), int(v[3])
path = float(rows['<Total>']['path']) * 1e9
def on(fn):
    return float(rows[fn]['path']) * 1e9 if fn in rows else 0.0
if what == 'total':
    # The path spans the main thread's life (from the collector's start
    # to its exit); the program measures main's start to its end, and
    # the time outside main (loading, the tracers' set-up, exit) grows
    # with the load (CI: path 0.479 s for main's 0.455 s).  So: the path
    # covers the program's wall, less 5%, and stays within the wall of
    # the whole tally record command, measured around it.
    outer = int(open('outer_%s.txt' % way).read())
    print(way, 'path', int(path), 'program wall', wall, 'record command wall', outer)
    sys.exit(not (0.95 * wall <= path <= outer))
if what == 'producer':
    print(way, 'slow_produce on the path', int(on('slow_produce')), 'program', produce,
          'quick_consume', int(on('quick_consume')))
    # main consumes a quarter of each item while the producer makes the
    # next: only the last item's consuming is on the path.  That holds
    # while the producer sets the pace, as the program's own measures say
    # (the wall within 10% of its slow_produce).  On a loaded machine the
    # consumer's quarter of CPU can take longer than a producer's nap, and
    # then the path rightly runs through quick_consume for those items (at
    # load 13: produce 0.60 s, quick_consume 1.33 s on the path; at load 6:
    # produce 0.366 s, slow_produce 0.246 s and quick_consume 0.132 s on
    # it): the path must then not give slow_produce more than it took, and
    # what it leaves of it must be the consumer's.
    if wall > 1.1 * produce:
        print(way, 'loaded: wall %.3f s for %.3f s of producing; the consumer set the pace at times' % (wall / 1e9, produce / 1e9))
        sys.exit(on('slow_produce') > 1.1 * produce or on('slow_produce') + on('quick_consume') < 0.9 * produce)
    sys.exit(abs(on('slow_produce') - produce) > 0.1 * produce or on('quick_consume') > 0.1 * path)
if what == 'few':
    import re
    prod = [r for r in csv.DictReader(open('fast_threads.csv')) if r['start'] == 'producer']
    n = int(prod[0]['samples']) if prod else 0
    cpu = float(prod[0]['excl_cpu']) * 1e9 if prod else 0
    m = re.search(r"at most 4 times their process's, (?:up to )?([0-9.]+)\)", open('fast.txt').read())
    stretch = float(m.group(1)) if m else 0
    bound = 4 * stretch * 2 * cpu
    if not m and 'the kernel\'s schedstat' in open('fast.txt').read():
        # the producer's schedstat was read at its end: its samples stand
        # for its CPU and wait for a CPU (the overview's table), a period
        # (0.1 ms) more, the rest is <off CPU>
        import json
        rows = json.load(open('fast_overview.json')).get('thread_sched', [])
        pid = int([l.split()[1] for l in open('fast.exp/log.txt') if l.startswith('pid: ')][0])
        p = [r for r in rows if r['tid'] != pid]
        m = bool(p)
        bound = 1.1 * (p[0]['cpu'] + p[0]['wait_cpu']) * 1e9 + 1e5 if p else 0
    print(way, 'producer samples', n, 'CPU', int(cpu), 'process stretch', stretch, 'bound', int(bound),
          '; slow_produce on the path', int(on('slow_produce')), '<not sampled>', int(on('<not sampled>')),
          '<off CPU>', int(on('<off CPU>')), 'program', produce)
    sys.exit(n == 0 or not m or on('slow_produce') > bound or bound > 0.5 * produce)
if what == 'unnamed':
    print(way, 'slow_produce on the path', int(on('slow_produce')), '<not sampled>', int(on('<not sampled>')),
          'program', produce)
    # Under load the path runs through the consumer's waits for a CPU too,
    # so how much of it is the producer's unsampled sleep moves with the
    # load; what must hold is that the sleep is not slow_produce's.
    sys.exit(on('slow_produce') > 0.1 * produce or on('<not sampled>') <= 0)
PY

for way in cond pipe; do
	check critical_${way}_total_is_wall_time sh -c "cat own_$way.txt rec_$way.err $way.err; python3 crit.py $way total"
	check critical_${way}_goes_to_the_producer python3 crit.py $way producer
done
# The stacks where threads left the CPU: the signal way (the ring way,
# without the right to count in the kernel, has none: docs/states.md).
if grep -q '^states: context switches: .*SIGTRAP at each resume' sleep.exp/log.txt; then
	check critical_sleep_total_is_wall_time sh -c "cat own_sleep.txt rec_sleep.err sleep.err; python3 crit.py sleep total"
	check critical_sleep_off_cpu_at_its_stack python3 crit.py sleep producer
else
	skip critical_sleep_total_is_wall_time "no stacks where threads left the CPU here (states: the ring way)"
	skip critical_sleep_off_cpu_at_its_stack "no stacks where threads left the CPU here (states: the ring way)"
fi
check critical_sleep_unnamed_without_states sh -c "cat own_nostates.txt; python3 crit.py nostates unnamed"
check critical_sleep_few_samples_not_stretched sh -c "cat own_fast.txt rec_fast.err fast.err; python3 crit.py fast few"
