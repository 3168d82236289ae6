# test_thread_end.sh — a thread's end record (THREAD_END) against its life:
# tests/progs/shortcpu.c, 200 threads one after another, each spinning
# 0.2 ms of its own CPU (short CPU-bound threads, where tally's end work
# is a large share of the thread's CPU).
#  - every thread's END cpu, less the CPU it had when its routine started
#    (the program's own clock: the kernel's and the thread library's work
#    before, and tally's set-up), is within its END time less its START
#    time: the END's time and CPU are taken at one point, and tally's end
#    work after it is in THREAD_COST only.
#  - tests/progs/spin_to_exit.c: workers that spin until the process
#    returns from main get a THREAD_SWITCHES record (written by the ending
#    thread from /proc/TID/status) besides their END, as a thread that
#    ends itself does.  The build before wrote none for them.
#  - under a size limit that bites (-L 300k at -F 10000), every thread
#    whose THREAD_START was written has its THREAD_END: the limit keeps a
#    reserve for them (col_write_closing_sigsafe).  The build before lost
#    2 (the main thread's and the worker's running when the limit bit).
# At most 1 in 20 threads may be past (one of 200 was, by 31 us, once).
# The build before: 143 and 185 of 200 threads past their life (median
# 15 us, at most 59 us: the end's CPU was read after tally's end work).
. "$(dirname "$0")/lib.sh"
cd "$T"
cc -O2 -g -pthread -o shortcpu "$PROGS/shortcpu.c"
cc -O2 -g -pthread -o spin_to_exit "$PROGS/spin_to_exit.c"

cat >ends.py <<'PY'
import struct, sys, tally_proc
exp, own = sys.argv[1], sys.argv[2]
START, END = 5, 6     # src/format/exp_records.h
start, end = {}, {}
for kind, rec in tally_proc.block_records(exp + '/threads.dat'):
    tid = struct.unpack_from('<I', rec, 4)[0]
    if kind == START:
        start[tid] = struct.unpack_from('<Q', rec, 8)[0]
    elif kind == END:
        end[tid] = struct.unpack_from('<QQ', rec, 8)
entry = dict(map(int, line.split()) for line in open(own))
over = sorted(cpu - entry[tid] - (t - start[tid])
              for tid, (t, cpu) in end.items() if tid in entry and tid in start)
bad = [o for o in over if o > 0]
print(len(over), 'of', len(entry), 'threads;', len(bad), 'with END cpu past their life;',
      'excess median', over[len(over) // 2], 'ns, max', over[-1], 'ns')
# At most 1 in 20 over: in a clean root, 1 of 200 went 31 us past its life
# (cause not traced); the build before had 143-185 of 200.
sys.exit(1 if len(bad) > len(entry) // 20 or len(over) < len(entry) * 9 // 10 else 0)
PY

check thread_end_cpu_within_life sh -c '
	"$TALLY" record -o a.exp ./shortcpu 200 0.0002 >a.own 2>a.err || { cat a.err; exit 1; }
	python3 ends.py a.exp a.own'

# Threads running at the process's end: their switches written for them.
cat >switches.py <<'PY'
import struct, sys, tally_proc
exp, out = sys.argv[1], sys.argv[2]
START, END, SWITCHES = 5, 6, 65     # src/format/exp_records.h
th = {}
for kind, rec in tally_proc.block_records(exp + '/threads.dat'):
    d = th.setdefault(struct.unpack_from('<I', rec, 4)[0], {})
    if kind == SWITCHES:
        d['switches'] = struct.unpack_from('<QQ', rec, 16)
    elif kind in (START, END):
        d[kind] = True
workers = [int(line.split()[1]) for line in open(out) if line.startswith('worker ')]
for w in workers:
    print('worker', w, 'start', START in th.get(w, {}), 'end', END in th.get(w, {}),
          'switches (voluntary, involuntary)', th.get(w, {}).get('switches'))
sys.exit(not (len(workers) == 2 and
              all(START in th.get(w, {}) and END in th.get(w, {}) and 'switches' in th.get(w, {}) for w in workers)))
PY
check thread_end_running_at_exit_has_switches sh -c '
	"$TALLY" record -o spin.exp ./spin_to_exit 2 0.3 >spin.out 2>spin.err || { cat spin.err; exit 1; }
	python3 switches.py spin.exp spin.out'

# A size limit that bites: no thread that started lacks its end.
cat >started_ended.py <<'PY'
import struct, sys, tally_proc
START, END = 5, 6     # src/format/exp_records.h
started, ended = set(), set()
for kind, rec in tally_proc.block_records(sys.argv[1] + '/threads.dat'):
    tid = struct.unpack_from('<I', rec, 4)[0]
    if kind == START:
        started.add(tid)
    elif kind == END:
        ended.add(tid)
print(len(started), 'threads started,', len(started - ended), 'of them without an END')
sys.exit(not started or bool(started - ended))
PY
check thread_end_past_size_limit sh -c '
	"$TALLY" record -F 10000 -L 300k -o lim.exp ./shortcpu 200 0.003 >lim.own 2>lim.err
	tail -1 lim.err; grep "^size-limit" lim.exp/log.txt &&
	grep -q "^size-limit.reached:" lim.exp/log.txt && python3 started_ended.py lim.exp'
