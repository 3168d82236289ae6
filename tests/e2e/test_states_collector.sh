# test_states_collector.sh — time a thread spends off the CPU inside tally's
# own handlers is tally's, not the program's (record --states).  On a
# loaded disk a record write waits inside the handler; the switch signal is
# blocked there and comes at the handler's return, where the program's
# code resumes, so that wait used to be counted as the program's state at
# its stack (make check at load 13: 45 ms of wait.sleep at sem_post, a call
# that cannot sleep).  tests/progs/slow_own_read.c makes the collector's
# handler wait on purpose: a seccomp user notification holds each
# getrusage (the handler's look at the thread's page faults, after its
# run-delay read; the program makes none) 20 ms, while the program naps 10
# times 20 ms and measures each nap's wall, run delay and the part held.
# Checked: wait.sleep under nap_a_while within 5% (and 2 ms) of the
# program's sleep (its naps' wall less their run delay and the holds:
# before, the holds were in it, twice the sleep), and never under the
# naps themselves: the wait for a CPU after a hold is the collector's, not
# the next nap's (before: 0.1727-0.1849 s for 0.200 s of naps beside three
# spinners, when the handler held pread64, the run-delay read itself,
# whose own wait no read can take out: docs/states.md); the overview says
# the collector's time off the CPU (between the holds within the naps, less
# 10%, and the record command's wall less the naps' sleeps); the
# collector's CPU
# does not take it (before: 0.22 s of "CPU" for 0.003 s).
# Skipped where the program cannot install the filter, or the states have
# no switch signal here (the ring way has no handler at a resume).
. "$(dirname "$0")/lib.sh"
cd "$T"
cc_prog slow_own_read -pthread

if ! ./slow_own_read 1 1 1 >probe.txt 2>probe.err; then
	for n in states_collector_not_the_programs states_collector_said states_collector_no_cpu; do
		skip $n "no seccomp user notification here: $(head -c 200 probe.err)"
	done
	exit 0
fi
t0=$(date +%s%N)
"$TALLY" record --states -o own.exp ./slow_own_read 10 20 20 >own.txt 2>rec.err
t1=$(date +%s%N)
echo $((t1 - t0)) >outer.txt
if ! grep -q '^states: context switches: .*SIGTRAP at each resume' own.exp/log.txt; then
	for n in states_collector_not_the_programs states_collector_said states_collector_no_cpu; do
		skip $n "no switch signal here (states: the ring way): $(sed -n 's/^states: //p' own.exp/log.txt | head -c 200)"
	done
	exit 0
fi
"$TALLY" export own.exp --format collapsed --metric wait.sleep >sleep.folded 2>exp.err
"$TALLY" report own.exp --format json >own.json 2>rep.err

cat >own.py <<'PY'
import json, sys
what = sys.argv[1]
v = open('own.txt').read().split()
wall, runnable, held_naps, held_all = int(v[1]), int(v[2]), int(v[3]), int(v[5])
sleep = wall - runnable - held_naps
got = sum(int(l.rsplit(' ', 1)[1]) for l in open('sleep.folded') if 'nap_a_while' in l.split(' ')[0].split(';'))
o = json.load(open('own.json'))['overview']
own = o.get('states_collector_s', 0) * 1e9
print('program: naps %.4f s, run delay %.4f s, held %.4f s (all %.4f s): sleep %.4f s; '
      'tally: wait.sleep in nap_a_while %.4f s, collector off CPU %.4f s, collector CPU %.4f s' %
      (wall / 1e9, runnable / 1e9, held_naps / 1e9, held_all / 1e9, sleep / 1e9, got / 1e9, own / 1e9,
       o.get('collector_cpu_s', 0)))
if what == 'sleep':
    # The program counts as sleep what is neither run delay nor held by
    # its supervisor; time the handler waited beyond the hold (the
    # supervisor's own wake-up, late under load: 0.2245 s "sleep" for
    # 0.2009 s of naps at load 6) is tally's, said as collector off CPU.
    # So the truth lies between the naps' floor (a nanosleep never ends
    # early: 10 x 20 ms) raised to the program's figure less that excess,
    # and the program's figure.
    floor = 10 * 20e6
    lo = max(floor, sleep - max(0.0, own - held_all))
    print('bounds %.4f .. %.4f s' % (lo / 1e9, sleep / 1e9))
    sys.exit(not (0.95 * lo - 2e6 <= got <= 1.05 * sleep + 2e6))
if what == 'said':
    # At most the whole run's wall (the record command's, measured around
    # it) less the naps' sleeps (a nanosleep never ends early: 10 x 20
    # ms): every read of the handler's waits for the supervisor's own
    # wake-up, inside the naps and out (at the thread's end), so neither
    # the holds nor the naps' rest bound it (make check: 0.2231 s said for
    # 0.2016 s held and 0.2107 s of the naps outside their sleeps).
    outer = int(open('outer.txt').read())
    print('record command wall %.4f s' % (outer / 1e9))
    sys.exit(not (0.9 * held_naps <= own <= outer - 10 * 20e6))
if what == 'cpu':
    # the handlers' CPU is microseconds; the holds alone are 0.2 s
    sys.exit(o.get('collector_cpu_s', 1) * 1e9 > 0.25 * held_all)
PY
check states_collector_not_the_programs sh -c "cat own.txt rec.err exp.err; python3 own.py sleep"
check states_collector_said python3 own.py said
check states_collector_no_cpu python3 own.py cpu
