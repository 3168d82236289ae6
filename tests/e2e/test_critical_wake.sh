# test_critical_wake.sh — the critical path through condition variables and
# pipes: tests/progs/prodcons.c, a producer thread whose slow_produce()
# sets the pace and a main thread that consumes each item quickly, handed
# over through a condition variable (record -s: who signalled is recorded)
# and through a pipe (record -s -i: the pipe's writes and reads).  Each
# way, the path's total is within 5% of the program's own wall time and
# slow_produce() is on it within 10% of the program's measure of it (the
# path goes from main's waits to the producer that woke them); main's own
# consuming hardly.
. "$(dirname "$0")/lib.sh"
cd "$T"
cc_prog prodcons -pthread

"$TALLY" record -s -o cond.exp ./prodcons cond 12 30 >own_cond.txt 2>rec_cond.err
"$TALLY" report cond.exp --critical-path -q --format csv >cond.csv 2>cond.err
"$TALLY" record -s -i -o pipe.exp ./prodcons pipe 12 30 >own_pipe.txt 2>rec_pipe.err
"$TALLY" report pipe.exp --critical-path -q --format csv >pipe.csv 2>pipe.err

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
    print(way, 'path', int(path), 'program wall', wall)
    sys.exit(abs(path - wall) > 0.05 * wall)
if what == 'producer':
    print(way, 'slow_produce on the path', int(on('slow_produce')), 'program', produce,
          'quick_consume', int(on('quick_consume')))
    # main consumes a quarter of each item while the producer makes the
    # next: only the last item's consuming is on the path.
    sys.exit(abs(on('slow_produce') - produce) > 0.1 * produce or on('quick_consume') > 0.1 * path)
PY

for way in cond pipe; do
	check critical_${way}_total_is_wall_time sh -c "cat own_$way.txt rec_$way.err $way.err; python3 crit.py $way total"
	check critical_${way}_goes_to_the_producer python3 crit.py $way producer
done
