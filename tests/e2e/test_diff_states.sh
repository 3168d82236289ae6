# test_diff_states.sh — `tally diff` of two --states runs splits the change
# of wall time by state and call path.  tests/progs/states_diff.c is run two
# ways: its main thread waits in lock_and_work() for a mutex a helper holds
# asleep for HOLD ms, then sleeps NAP ms in nap_a_while(); run A holds long
# and naps short, run B the other way round.  The program measures the time
# of each call itself (and the part of it runnable, waiting for a CPU).  The
# diff's wait.lock change in lock_and_work and its wait.sleep change under
# nap_a_while must each be within 5% of the program's measured change of
# its time blocked (wall less the runnable part, which tally counts as
# wait.cpu), give or take 5% of the runnable parts;
# the head's largest changes are the table's first rows; the states' changes add up to the
# threads' wall change; CSV and JSON carry the same rows.  By thread: the helper
# sleeps in hold_it() as long as main's lock wait, so its sleep changes the other way
# from main's nap and the sum over threads of wait.sleep hardly moves; the split by
# thread shows each: main's wait.sleep change and the helper's (helper #1), each within
# the same slack of the program's measure (nap, hold) and what the runs could not
# place (sleep with no stack, time off the CPU in tally's handlers), while the summed
# change is less than either.  A diff where
# only one side has states says so.
. "$(dirname "$0")/lib.sh"
cd "$T"
cc_prog states_diff -pthread

"$TALLY" record --states -o a.exp ./states_diff 10 40 10 >own_a.txt 2>rec_a.err
"$TALLY" record --states -o b.exp ./states_diff 10 10 40 >own_b.txt 2>rec_b.err
"$TALLY" diff a.exp b.exp --limit 0 >diff.txt 2>diff.err
"$TALLY" diff a.exp b.exp --format csv >diff.csv 2>>diff.err
"$TALLY" diff a.exp b.exp --format json >diff.json 2>>diff.err
for r in a b; do
	"$TALLY" export $r.exp --format collapsed --metric wait.sleep >$r.sleep.txt 2>>diff.err
	"$TALLY" report $r.exp --format json >$r.json 2>>diff.err
done

cat >ds.py <<'PY'
import csv, json, sys
what = sys.argv[1]
def own(f):
    v = {}
    for line in open(f):
        k, wall, rq = line.split()
        v[k] = (int(wall), int(rq))
    return v
A, B = own('own_a.txt'), own('own_b.txt')
d = json.load(open('diff.json'))
rows = d['state_paths']
def delta(state, fn):
    # every path of the main thread through fn, in that state
    return sum(r['delta'] for r in rows if r['state'] == state and ';main;' + fn in r['path'] + ';') * 1e9
def check(state, fn, key):
    # The program's wall time in the call, less the part it measured
    # runnable (tally's wait.cpu), is its time blocked; the uncertainty: 5%
    # of the change and of the runnable parts (schedstat's own reading).
    # Under load the helper's wake-ups stretch its holds and the runs
    # differ less than designed; the change must still exceed the slack.
    want = (B[key][0] - B[key][1]) - (A[key][0] - A[key][1])
    slack = 0.05 * abs(want) + 0.05 * (A[key][1] + B[key][1])
    got = delta(state, fn)
    print('%s in %s: tally %+d ns, program %+d ns blocked (runnable %d, %d ns), slack %d ns' %
          (state, fn, got, want, A[key][1], B[key][1], slack))
    return abs(got - want) <= slack and abs(want) > slack
def not_placed(r):
    # What a run could not place, said in its report: sleep whose stack was
    # not taken (states.no-stack, <Unknown>: in which thread and call is
    # not known) and time off the CPU inside tally's own handlers, left out
    # of the threads' states (states_collector_s).  Under load the signal
    # that takes an interval's stack can be lost and a handler's write can
    # wait: 0.4-23 ms and up to 57 ms a run at load 9.5.
    nostack = sum(int(l.rsplit(' ', 1)[1]) for l in open(r + '.sleep.txt') if l.rsplit(' ', 1)[0] == '<Unknown>')
    return nostack + json.load(open(r + '.json'))['overview'].get('states_collector_s', 0) * 1e9
def thread_check(thread, key):
    # A thread's whole wait.sleep against the program's measure of one
    # call: the slack of check() and what the runs could not place.
    want = (B[key][0] - B[key][1]) - (A[key][0] - A[key][1])
    unknown = not_placed('a') + not_placed('b')
    slack = 0.05 * abs(want) + 0.05 * (A[key][1] + B[key][1]) + unknown
    got = sum(r['delta'] for r in d['state_threads'] if r['state'] == 'wait.sleep' and r['thread'] == thread) * 1e9
    print('wait.sleep of %s: tally %+d ns, program %+d ns blocked (%s), slack %d ns (%d not placed)' %
          (thread, got, want, key, slack, unknown))
    return abs(got - want) <= slack and abs(want) > slack, got
if what == 'threads':
    lost = not_placed('a') + not_placed('b')
    if lost >= 0.5 * 1e6 * 10 * 30:
        # Half the designed change (10 rounds of 30 ms) not placed: the runs
        # cannot tell the threads' changes apart.  A skip only where the
        # program's own measure shows the load that explains it: its
        # threads runnable in their calls (waiting for a CPU, which delays
        # the signal that takes a sleep's stack and tally's handlers) at
        # least as long as what went unplaced.  Otherwise tally lost the
        # stacks or spent the time itself: a failure (before: always a skip).
        runnable = sum(A[k][1] + B[k][1] for k in A if k in B)
        why = ('the runs could not place %.3f s (sleep with no stack, off the CPU in tally\'s handlers); '
               'the program measured %.3f s runnable in its calls' % (lost / 1e9, runnable / 1e9))
        if runnable >= lost:
            print('SKIP: ' + why)
            sys.exit(77)
        print('FAIL: ' + why + ', less: not explained by load')
        sys.exit(1)
    ok_main, main = thread_check('main thread', 'nap')
    ok_helper, helper = thread_check('helper #1', 'hold')
    summed = d['wall_by_state']['wait.sleep'] * 1e9
    print('wait.sleep summed over threads %+d ns' % summed)
    sys.exit(not (ok_main and ok_helper and abs(summed) < min(abs(main), abs(helper))))
if what == 'lock':
    sys.exit(not check('wait.lock', 'lock_and_work', 'lock'))
if what == 'sleep':
    sys.exit(not check('wait.sleep', 'nap_a_while', 'nap'))
if what == 'sum':
    h = d['wall_by_state']
    parts = sum(v for k, v in h.items() if k.startswith(('cpu.', 'wait.')))
    byrow = sum(r['delta'] for r in rows)
    print('states', parts, 'rows', byrow, 'threads wall', h['wall'])
    sys.exit(abs(parts - h['wall']) > 1e-6 or abs(byrow - h['wall']) > 1e-6)
if what == 'head':
    # the head's largest changes are the table's first rows, as words
    line = [l for l in open('diff.txt') if l.strip().startswith('Largest changes')][0]
    said = line.split('Largest changes', 1)[1].strip().split('; ')
    top = sorted(rows, key=lambda r: -abs(r['delta']))[:3]
    want = ['%s%.3f s %s in %s' % ('-' if r['delta'] < 0 else '+', abs(r['delta']), r['state'], r['in']) for r in top]
    print('head', said, 'rows', want)
    sys.exit(said != want)
if what == 'csv':
    c = [r for r in csv.DictReader(open('diff.csv')) if r['table'] == 'states']
    j = {(r['state'], r['path']): r['delta'] for r in rows}
    bad = [r for r in c if abs(float(r['state_delta']) - j[(r['state'], r['name'])]) > 1e-6]
    print(len(c), 'csv rows', len(j), 'json rows', len(bad), 'differ')
    sys.exit(len(c) != len(j) or bad != [])
PY

check diff_states_lock_change_as_program_measures sh -c "cat own_a.txt own_b.txt rec_a.err rec_b.err diff.err; python3 ds.py lock"
check diff_states_sleep_change_as_program_measures python3 ds.py sleep
check diff_states_add_up_to_threads_wall python3 ds.py sum
check diff_states_head_says_the_largest_rows python3 ds.py head
python3 ds.py threads >threads.verdict 2>&1; rc=$?
if [ $rc = 77 ]; then
	skip diff_states_by_thread_as_program_measures "$(tail -n 1 threads.verdict)"
else
	check diff_states_by_thread_as_program_measures sh -c "cat threads.verdict; exit $rc"
fi
check diff_states_csv_as_json python3 ds.py csv
check diff_states_only_one_side_says_so sh -c "
	\"\$TALLY\" record -o plain.exp ./states_diff 2 5 5 >/dev/null 2>&1 &&
	\"\$TALLY\" diff a.exp plain.exp | grep -q 'only some of the runs were recorded with --states'"
