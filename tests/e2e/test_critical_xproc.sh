# test_critical_xproc.sh — the critical path across processes through what
# is not a channel (record -s): a process-shared mutex and a futex word on
# a shared page (the object named in both processes by its mapping's inode
# and offset: SYNC_KEY records), system()'s wait for its child, and a fork
# made by a thread other than the main one (the child's fork.tid).
# tests/progs/sharedlock.c:
#   mutex   main forks a child that holds a PTHREAD_PROCESS_SHARED mutex
#           through slow_holder_work(); main waits for it, and ends
#   futex   the same through FUTEX_WAIT and FUTEX_WAKE on a shared word
#   sem, cond, rwlock, barrier, condmutex  the same through a shared
#           semaphore, condition variable, rwlock, barrier, and the mutex
#           let go inside a condition wait
#   system  main calls system("exec sharedlock work"): slow_child_work()
#   forker  a worker thread spins in work_before_fork(), then forks a child
#           (slow_child_work()) and waits for it; main joins the worker
# Each way, the slow function is on the path by the program's own measures
# of it: at least 95% of its wall, and at most the wall the run measured
# around it (the child's from before the fork to its release, system()'s
# call, the worker's function) and 5% of its wall; the path's total is
# the program's wall within 5% (above it, the process's life).  On the
# build before none of them had the function on the path (0 s): the mutex
# and futex waits stayed on main, system()'s wait was not recorded, and the
# child's start went back to main, blocked in its join, not to the worker.
. "$(dirname "$0")/lib.sh"
cd "$T"
cc_prog sharedlock -pthread

cat >crit.py <<'PY'
import csv, json, sys
run, fn, measure, span = sys.argv[1:5]
rows = {r['name']: r for r in csv.DictReader(open(run + '.csv'))}
own = {}
for line in open(run + '.own'):
    w = line.split()
    own.update(zip(w[0::2], map(int, w[1::2])))
wall, m, s = own['wall'], own[measure], own[span]
life = json.load(open(run + '.json'))['overview']['duration_s'] * 1e9
path = float(rows['<Total>']['path']) * 1e9
on = float(rows[fn]['path']) * 1e9 if fn in rows else 0.0
print(run, 'path', int(path), 'program wall', wall, 'life', int(life), ';', fn, 'on the path', int(on),
      'program', m, 'measured around it', s)
bad = path < 0.95 * wall or path > max(wall, life) + 0.05 * wall or on < 0.95 * m or on > s + 0.05 * m
if bad:   # what the waits and keys were, in every process
    import glob, os, struct, tally_proc
    for f in sorted(glob.glob(run + '.exp/**/sync.dat', recursive=True)):
        for typ, r in tally_proc.block_records(f):
            if typ == 8:
                print(f, 'SYNC tid', struct.unpack_from('<I', r, 4)[0], 'grant', struct.unpack_from('<Q', r, 8)[0],
                      'op', struct.unpack_from('<H', r, 20)[0], 'flags', struct.unpack_from('<H', r, 22)[0],
                      'wait', struct.unpack_from('<Q', r, 24)[0])
            elif typ == 66:
                print(f, 'SYNC_KEY tid', struct.unpack_from('<I', r, 4)[0], 'time', struct.unpack_from('<Q', r, 8)[0],
                      'dev ino offset', struct.unpack_from('<QQQ', r, 24), 'role', struct.unpack_from('<H', r, 48)[0])
    print(open(run + '.txt').read()[:3000])
sys.exit(bad)
PY

# run WAY: record sharedlock WAY as WAY.exp, its path in WAY.csv, the
# program's measures in WAY.own.
run() {
	"$TALLY" record -s -o "$1.exp" ./sharedlock "$1" 300 >"$1.own" 2>"$1.err" &&
		"$TALLY" report "$1.exp" --critical-path -q --format csv >"$1.csv" 2>>"$1.err" &&
		"$TALLY" report "$1.exp" --critical-path -q >"$1.txt" 2>>"$1.err" &&
		"$TALLY" report "$1.exp" --format json >"$1.json" 2>>"$1.err"
}

run mutex
check critical_xproc_shared_mutex_goes_to_the_holder sh -c "cat mutex.err; python3 crit.py mutex slow_holder_work held span"
run futex
check critical_xproc_shared_futex_goes_to_the_waker sh -c "cat futex.err; python3 crit.py futex slow_holder_work held span"
# The other process-shared objects, each released in the child: a
# semaphore posted, a condition variable signalled, an rwlock unlocked by
# its writer, a barrier's round completed by the child's arrival, and the
# mutex let go inside the child's pthread_cond_timedwait (no unlock call).
# On the build before each wait had its key but no release: 0 s on the path.
for way in sem cond rwlock barrier condmutex; do
	run $way
	check critical_xproc_shared_${way}_goes_to_the_releaser sh -c "cat $way.err; python3 crit.py $way slow_holder_work held span"
done
# The key lookups read /proc/self/maps once per process and new mapping,
# not on each miss of a thread's four kept ranges: 130 timed futex waits
# on words in 6 shared mappings in turn, a 7th mapped halfway, may open it
# twice more than the same run without -s, no key looked up (the
# collector's own reads of it by that name, measured here): once at the first wait, once
# at the first wait on the new mapping.  Each word's waits must be keyed
# (SYNC_KEY role 1 for its address), so that a lookup that fails or a
# cache blind to the 7th mapping fails too (rev-tests 10).  The build
# before 1fa5f07 read it on each wait.
cat >maps.py <<'PY'
import struct, sys
import tally_proc
opens = lambda f: sum('"/proc/self/maps"' in l for l in open(f))
base, n = opens('maps0.trace'), opens('maps.trace')
own = open('maps.own').read().split('\n')
words = {int(l.split()[2], 16): l.split()[1] for l in own if l.startswith('word ')}
keyed = {}
for t, r in tally_proc.block_records('maps.exp/sync.dat'):
    if t == 66 and struct.unpack_from('<H', r, 48)[0] == 1:
        obj = struct.unpack_from('<Q', r, 16)[0]
        keyed[obj] = keyed.get(obj, 0) + 1
print('/proc/self/maps opened %d times for %s, %d without -s; keyed waits by word: %s'
      % (n, own[0], base, ', '.join('%s %d' % (words[a], keyed.get(a, 0)) for a in sorted(words, key=words.get))))
sys.exit(len(words) != 7 or n > base + 2 or any(keyed.get(a, 0) == 0 for a in words))
PY
if need strace critical_xproc_maps_read_once_per_mapping; then
	strace -f -qq -e trace=openat -o maps0.trace "$TALLY" record -o maps0.exp ./sharedlock mapsreads 20 >maps0.own 2>maps0.err
	strace -f -qq -e trace=openat -o maps.trace "$TALLY" record -s -o maps.exp ./sharedlock mapsreads 20 >maps.own 2>maps.err
	check critical_xproc_maps_read_once_per_mapping sh -c 'cat maps0.err maps.err; grep -q "^waits 130$" maps.own && python3 maps.py'
fi
run system
sed -i 's/^work/child_work/' system.own
check critical_xproc_system_goes_to_the_child sh -c "cat system.err; python3 crit.py system slow_child_work child_work span"
run forker
check critical_xproc_forking_thread_is_the_parent sh -c "cat forker.err; python3 crit.py forker work_before_fork before before"

# The HTML page's timeline draws the path on the tracks it crossed: the
# holder's track (the child process's) carries the stretch of its work,
# at least 95% of slow_holder_work's wall by the program's measure, and at
# most the child's span; the build before drew nothing on it.
"$TALLY" html mutex.exp -o mutex.html 2>mutex_html.err
cat >page.py <<'PY'
import json, sys
from tally_page import page_json
d = json.loads(page_json(open('mutex.html').read()))
own = dict(zip(*[iter(open('mutex.own').read().split())] * 2))
held, span = int(own['held']), int(own['span'])
on = {}
for t in d['timeline']['tracks']:
    on[t['proc']] = on.get(t['proc'], 0) + sum(s[1] for s in t.get('cp', [])) * 1000
print('path on each process track (ns)', on, 'program held', held, 'span', span)
child = sum(v for p, v in on.items() if p != 0)
sys.exit(len(on) < 2 or child < 0.95 * held or child > span + 0.05 * held)
PY
check html_critical_path_on_the_holders_track sh -c "cat mutex_html.err; python3 page.py"
# The layouts sync.c reads were probed at load and found as known (glibc
# here): on another C library or layout, the log says nothing is followed.
check critical_xproc_glibc_layout_probed grep -q '^sync.layout: glibc .*: as known$' mutex.exp/log.txt
