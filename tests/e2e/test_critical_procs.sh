# test_critical_procs.sh — the critical path across processes (record -s
# -i): a wait whose waker is in another process of the experiment is
# followed into it, through the channel both processes' FD_FLOW records
# name (a pipe's inode), and a shell's wait for a child (wait, waitpid,
# wait3, wait4, waitid: SYNC records of kind child) goes to the child it
# reaped at its end.  tests/progs/forkpipe.c:
#   fork      main forks a child whose slow_child_work() makes each of 12
#             items (30 ms of CPU each) and writes a byte per item into a
#             pipe; main reads each and consumes it quickly, then waits
#             for the child
#   pipeline  `sh -c 'forkpipe produce | forkpipe consume'`: the same
#             parts as two programs in a shell's pipeline, the path from
#             the shell's end through its waits for its children
# Each way slow_child_work() is on the path within 5% of the program's own
# measure of it, and the path's total is the root's life: within 5% of the
# program's own wall (above it, of the process's life: the start and exit
# outside main grow under load).  The build before gave no critical path
# in either (the child's writes were never matched to the parent's reads,
# and a shell's waits were not recorded).
#
# orphan: main forks a child that works 0.3 s and ends at once, without
# waiting for it.  The path covers main's life, and the report says that one
# process outlived it, by about the child's work (at least half of it: the
# child may start late under load; the build before said nothing).
#
# Load can make the consumer's work, a quarter of the producer's, last
# longer than the producer's next item: the consumer is then critical,
# truly, and slow_child_work is less on the path than the program measured.
# A way whose first run fails is run once more, and the check is of the
# better run.
. "$(dirname "$0")/lib.sh"
cd "$T"
cc_prog forkpipe

cat >crit.py <<'PY'
import csv, json, sys
run = sys.argv[1]
rows = {r['name']: r for r in csv.DictReader(open(run + '.csv'))}
own = dict(zip(*[iter(open(run + '.own').read().split())] * 2))
wall, produce = int(own['wall']), int(own['produce'])
life = json.load(open(run + '.json'))['overview']['duration_s'] * 1e9
path = float(rows['<Total>']['path']) * 1e9
def on(fn):
    return float(rows[fn]['path']) * 1e9 if fn in rows else 0.0
print(run, 'path', int(path), 'program wall', wall, 'life', int(life), '; slow_child_work on the path',
      int(on('slow_child_work')), 'program', produce, '; quick_consume', int(on('quick_consume')))
crossed = 'other process' in open(run + '.txt').read()
print('the view says the path crosses processes:', crossed)
sys.exit(path < 0.95 * wall or path > max(wall, life) + 0.05 * wall or not crossed
         or abs(on('slow_child_work') - produce) > 0.05 * produce)
PY

# run WAY N: record WAY as $WAY.N.exp, its critical path in $WAY.N.csv
# (and as text, .txt), the program's own measures in $WAY.N.own.
run() {
	case $1 in
	fork)
		"$TALLY" record -s -i -o "$1.$2.exp" ./forkpipe fork 12 30 >"$1.$2.own" 2>"$1.$2.err" ;;
	pipeline)
		"$TALLY" record -s -i -o "$1.$2.exp" sh -c "./forkpipe produce 12 30 2>$1.$2.prod | ./forkpipe consume 12 30 >$1.$2.cons" 2>"$1.$2.err" &&
			cat "$1.$2.prod" "$1.$2.cons" >"$1.$2.own" ;;
	esac
	st=$?
	[ $st -eq 0 ] && "$TALLY" report "$1.$2.exp" --critical-path -q --format csv >"$1.$2.csv" 2>>"$1.$2.err" &&
		"$TALLY" report "$1.$2.exp" --critical-path -q >"$1.$2.txt" 2>>"$1.$2.err" &&
		"$TALLY" report "$1.$2.exp" --format json >"$1.$2.json" 2>>"$1.$2.err"
	return $st
}

for way in fork pipeline; do
	if run $way 1 && python3 crit.py $way.1 >$way.1.out 2>&1; then
		check critical_procs_${way}_goes_to_the_child cat $way.1.out
	else
		run $way 2
		check critical_procs_${way}_goes_to_the_child sh -c "cat $way.1.out $way.1.err $way.2.err; python3 crit.py $way.2"
	fi
done

"$TALLY" record -s -i -o orphan.exp ./forkpipe orphan 10 30 >orphan.own 2>orphan.err
sleep 1           # the child's end, for the report
"$TALLY" report orphan.exp --critical-path -q >orphan.txt 2>>orphan.err
cat >orphan.py <<'PY'
import re, sys
t = open('orphan.txt').read()
m = re.search(r'^(\d+) process(?:es)? ended after the main thread \(by up to ([0-9.]+) s\)', t, re.M)
print(t[:600])
sys.exit(not m or int(m.group(1)) != 1 or float(m.group(2)) < 0.15)
PY
check critical_procs_outliving_child_named sh -c "cat orphan.err; python3 orphan.py"
