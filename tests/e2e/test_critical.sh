# test_critical.sh — the critical path across threads (record -s, report
# --critical-path) on tests/progs/forkjoin.c: main's setup, then three
# workers joined, one of them spinning 3 units in long_work(), the others 1
# unit.  The path's total covers the program's own wall time (less 5%)
# within the record command's;
# long_work() is on it within 10% of the program's measure of it, the short
# workers hardly; and run again with long_work() twice as fast, the run
# shortens by about the bound the first run gave (bare runs against bare
# runs, the least of three each, each less the time its critical threads
# waited for a CPU, the kernel's run delay the program reads: load moves
# the walls by more than the gain, not the work; the bound less the
# recorded run's share of run delay; without schedstat, walls as they are,
# skipped with the measured stretch when the machine did not give the
# program its CPUs).
. "$(dirname "$0")/lib.sh"
cd "$T"
cc_prog forkjoin -pthread

t0=$(date +%s%N)
"$TALLY" record -s -o fj.exp ./forkjoin 1 100 >own1.txt 2>rec.err
t1=$(date +%s%N)
echo $((t1 - t0)) >outer.txt
"$TALLY" report fj.exp --critical-path -q --format csv >cp.csv 2>cp.err
"$TALLY" report fj.exp --critical-path -q >cp.txt 2>&1
# The gain, bare against bare: the least wall of three runs of each,
# interleaved (load moves single wall times by more than the bound).
for i in 1 2 3; do
	./forkjoin 1 100 >bare1.$i.txt
	./forkjoin 2 100 >bare2.$i.txt
done

cat >crit.py <<'PY'
import csv, sys
what = sys.argv[1]
rows = {r['name']: r for r in csv.DictReader(open('cp.csv'))}
v = open('own1.txt').read().split()
wall, long_ns = int(v[1]), int(v[3])
path = float(rows['<Total>']['path']) * 1e9
def on(fn):
    return float(rows[fn]['path']) * 1e9 if fn in rows else 0.0
if what == 'total':
    # The path spans the main thread's life, the program's wall main's
    # start to its end: the time outside main grows with the load.  The
    # path covers the program's wall (less 5%) within the record
    # command's wall, measured around it.
    outer = int(open('outer.txt').read())
    print('path', int(path), 'program wall', wall, 'record command wall', outer)
    sys.exit(not (0.95 * wall <= path <= outer))
if what == 'long':
    print('long_work on the path', int(on('long_work')), 'program', long_ns, 'short_work', int(on('short_work')))
    sys.exit(abs(on('long_work') - long_ns) > 0.1 * long_ns or on('short_work') > 0.05 * path)
if what == 'bound':
    bound = float(rows['long_work']['twice_as_fast']) * 1e9
    runs = lambda k: [[int(x) for x in open('bare%d.%d.txt' % (k, i)).read().split()[1::2]] for i in (1, 2, 3)]
    delay_rec = int(v[5]) if len(v) > 5 else 0
    if delay_rec and all(r[2] for k in (1, 2) for r in runs(k)):
        # Each run's wall less the time its critical threads (main and
        # long_work's worker) waited for a CPU (the kernel's run delay, read
        # by the program): what the wall would be had the machine given the
        # program its CPUs, whatever else ran beside it.  Under load 10-15
        # the bare walls moved by more than the gain (1.60 -> 2.26 s for a
        # bound of about 0.2 s, at 4.92 times their CPU); less their delay,
        # they are the program's own work, which load does not move.  The
        # bound, the recorded run's, is taken to the same footing by its
        # own share of delay.
        free = lambda r: r[0] - r[2]
        wall1, wall2 = min(free(r) for r in runs(1)), min(free(r) for r in runs(2))
        gain = wall1 - wall2
        scaled = bound * (wall - delay_rec) / wall
        print('bound', int(bound), 'less the recorded run\'s run delay', int(scaled), 'measured gain', gain,
              '(least wall less run delay', wall1, '->', wall2, '; recorded run', wall, 'of which delay', delay_rec,
              '; bare runs', runs(1), runs(2), ')')
        sys.exit(not (0.5 * scaled <= gain <= 1.5 * scaled))
    least = lambda k: min(r[0] for r in runs(k))
    wall1, wall2 = least(1), least(2)
    gain = wall1 - wall2
    # Without the kernel's run delay: the bound is the recorded run's, in
    # its wall time; the bare runs may have met another load (a clean root
    # beside the suite: bound 278 ms from a run the load had stretched,
    # against bare walls of 485 -> 380 ms).  Scaled by the bare run's wall
    # over the recorded one's, the two are compared at one load.
    scaled = bound * wall1 / wall
    # The bound is close to the gain only when the program had the CPUs it
    # asked for; the bare runs' stretch over the program's own CPU (setup
    # 0.25 + long_work 3 units of 100 ms, spun on the thread's CPU clock)
    # says which case this is.
    stretch = wall1 / 325e6
    print('bound', int(bound), 'scaled to the bare runs', int(scaled), 'measured gain', gain,
          '(least wall', wall1, '->', wall2, '; recorded run', wall, '; stretch %.2f)' % stretch)
    if stretch > 1.5:
        print('SKIP: no run delay here, and the bare runs took %.2f times their CPU: the machine did not '
              'give the program its CPUs' % stretch)
        sys.exit(77)
    sys.exit(not (0.5 * scaled <= gain <= 1.5 * scaled))
PY

check critical_path_total_is_wall_time sh -c "cat own1.txt cp.txt rec.err cp.err; python3 crit.py total"
check critical_path_has_the_long_worker python3 crit.py long
python3 crit.py bound >bound.txt 2>&1
case $? in
0) check critical_path_bound_close_to_measured_gain cat bound.txt ;;
77) skip critical_path_bound_close_to_measured_gain "$(tail -n 1 bound.txt)" ;;
*) check critical_path_bound_close_to_measured_gain sh -c "cat bound.txt; false" ;;
esac
check critical_path_needs_sync_tracing sh -c "
	\"\$TALLY\" record -o plain.exp ./forkjoin 1 20 >/dev/null 2>&1 &&
	\"\$TALLY\" report plain.exp --critical-path -q | grep -q 'No critical path: record with -s'"
