# test_states.sh — thread states (tally record --states): programs whose
# states are known by construction, each state's time within 5% of the
# truth at the right stack.  The machine is shared and loaded, so the truth
# is what the programs measured themselves (their phases' wall time with
# CLOCK_MONOTONIC, their CPU time, and the kernel's per-thread schedstat
# run_delay for the time runnable but waiting for a CPU), never the nominal
# lengths.  The tolerance is 5% of the phase's (or thread's) wall time.
#
#   - one thread that sleeps, burns user CPU and reads a pipe, 0.5 s each;
#   - two threads contending on a mutex;
#   - three CPU-bound threads on one CPU (taskset);
#   - a spinning thread stopped (SIGSTOP) for 0.4 s, then continued;
#   - the same phases without the right to count in the kernel (a user
#     other than root, perf_event_paranoid 2): the ring way, timings only.
. "$(dirname "$0")/lib.sh"
cd "$T"
cc_prog states_phases -pthread
cc_prog states_mutex -pthread
cc_prog states_crowd -pthread
cc_prog states_stopped
INCL="python3 $E2E/incl.py"

# near NAME GOT WANT SPAN [SLACK]: |GOT - WANT| <= 5% of SPAN (ns) + SLACK
# (ns), said either way.
near() {
	echo "$1: tally $2 ns, truth $3 ns (5% of $4 ns + ${5:-0} ns)"
	d=$(($2 - $3))
	[ $d -lt 0 ] && d=$((-d))
	test $((d * 100)) -le $(($4 * 5 + ${5:-0} * 100))
}
# collector_ns EXP TID: the collector's own CPU on thread TID, in ns, as
# the experiment measured it.  It is in no sample and no state, but in the
# thread's CPU clock that the programs measure with: with --states a
# handler runs at each resume, so it grows with the preemptions a loaded
# machine brings (0.03-0.06 s of a 0.5 s burn at load 6).
collector_ns() {
	"$TALLY" report "$1" --threads -q --format csv | python3 -c "
import csv, sys
print(next((int(float(r['collector_cpu']) * 1e9) for r in csv.DictReader(sys.stdin) if r['tid'] == sys.argv[1]), 0))" "$2"
}
# export_metric EXP METRIC [--thread TID]: the collapsed export into METRIC.txt.
export_metric() {
	exp=$1 metric=$2
	shift 2
	"$TALLY" export "$exp" --format collapsed --metric "$metric" "$@" >"$metric.txt"
}
field() { awk -v k="$1" -v n="$2" '$1 == k { print $n }' "$3"; }

# --- one thread: sleep, burn, read a pipe ------------------------------------
# The states are checked at the libc call the program made (read,
# pthread_mutex_lock): --no-inline, as libc's own inlined helpers
# (__GI___libc_read, lll_mutex_lock_optimized, futex_wait) would otherwise
# be the leaves.
"$TALLY" record --states -o phases.exp ./states_phases 0.5 >phases.out 2>/dev/null
for m in wall cpu.user cpu.system wait.cpu wait.lock wait.io wait.sleep wait.stopped; do
	"$TALLY" export phases.exp --format collapsed --no-inline --metric $m >ph.$m.txt
done
sw=$(field sleep 2 phases.out) sr=$(field sleep 4 phases.out)
bw=$(field burn 2 phases.out) bc=$(field burn 3 phases.out) br=$(field burn 4 phases.out) bu=$(field burn 5 phases.out)
rw=$(field read 2 phases.out) rr=$(field read 4 phases.out)
check states_signal_way_logged grep -q '^states: context switches: .*SIGTRAP at each resume' phases.exp/log.txt
check states_sleep_is_wait_sleep_at_nanosleep near sleep $($INCL ph.wait.sleep.txt phase_sleep) $((sw - sr)) $sw
check states_sleep_phase_wall near sleep.wall $($INCL ph.wall.txt phase_sleep) $sw $sw
phc=$(collector_ns phases.exp "$(sed -n 's/^pid: //p' phases.exp/log.txt)")
check states_burn_is_cpu near burn.cpu $(($($INCL ph.cpu.user.txt phase_burn) + $($INCL ph.cpu.system.txt phase_burn))) $bc $bw $phc
# User CPU as the kernel split it for the program (getrusage), within 5% of
# the burn's CPU: on a loaded machine the split moves (0.82 to 0.93 of the
# burn's CPU was user in six runs at load ~15; the fixed bound 0.8 failed
# once), so no fixed fraction holds.
check states_burn_is_user_cpu near burn.user $($INCL ph.cpu.user.txt phase_burn) $bu $bc $phc
check states_burn_waits_for_cpu near burn.runnable $($INCL ph.wait.cpu.txt phase_burn) $br $bw
check states_pipe_read_is_wait_io_at_read near read $(python3 "$E2E/weight.py" ph.wait.io.txt 'phase_read;read') $((rw - rr)) $rw
check states_read_phase_wall near read.wall $($INCL ph.wall.txt phase_read) $rw $rw
check states_no_lock_wait_in_phases sh -c "test \$($INCL ph.wait.lock.txt phase_sleep phase_burn phase_read) -eq 0"
check states_nothing_stopped_in_phases sh -c "test \$($INCL ph.wait.stopped.txt measure) -eq 0"
# A block's wake-up latency after a busy phase: states_phases pinned to one
# CPU beside a spinner pinned there is preempted hundreds of times in its
# burn; each preemption's switch records span 8-20 us more than the
# kernel's run delay counts for it, and tally used to take their sum off
# the read's latency (before: 0 of 0.397 ms, the excess past the growth;
# now the run delay is the base after each batch of preemptions).  The
# read's wait.cpu within 50 us (or 5%) of the program's run delay for it.
if command -v taskset >/dev/null && taskset -c 0 true 2>/dev/null; then
	# The read often runs at once on its wake-up (0 run delay: nothing
	# to check): up to three runs for one that waited.
	pr=0 tries=0
	while [ "${pr:-0}" -eq 0 ] && [ $tries -lt 3 ]; do
		tries=$((tries + 1))
		rm -rf pinned.exp
		taskset -c 0 sh -c 'while :; do :; done' & spin=$!
		taskset -c 0 "$TALLY" record --states -o pinned.exp ./states_phases 0.2 >pinned.out 2>/dev/null
		kill $spin
		pr=$(field read 4 pinned.out)
	done
	if [ "${pr:-0}" -gt 0 ]; then
		"$TALLY" export pinned.exp --format collapsed --no-inline --metric wait.cpu >pin.wait.cpu.txt
		# the read phase's run delay holds the writer's creation (at
		# measure;pthread_create, outside phase_read)
		pt=$(($($INCL pin.wait.cpu.txt phase_read) + $(python3 "$E2E/weight.py" pin.wait.cpu.txt 'measure;pthread_create')))
		check states_wake_after_preemptions_is_wait_cpu sh -c \
			"echo 'read: program run delay $pr ns, tally wait.cpu $pt ns'; d=\$(($pt - $pr)); test \${d#-} -le \$(($pr / 20 > 50000 ? $pr / 20 : 50000))"
	else
		skip states_wake_after_preemptions_is_wait_cpu "the read never waited for the CPU in $tries runs"
	fi
else
	skip states_wake_after_preemptions_is_wait_cpu "taskset cannot pin to CPU 0 here"
fi
# wall is the sum of the states, and the threads' lifetimes are accounted for;
# the writer's less the time from its creation to its first instruction,
# which it measured (tally's thread start, before its states are recorded:
# 24 ms of a 0.52 s lifetime, 95.4%, once at load ~15), and less the
# collector's own CPU on it (in no state).
"$TALLY" report phases.exp --threads -q --format csv >ph.threads.csv
check states_wall_is_the_sum sh -c "\"\$TALLY\" report phases.exp --format json | python3 -c '
import csv, json, sys
coll = {int(r[\"tid\"]): float(r[\"collector_cpu\"]) for r in csv.DictReader(open(\"ph.threads.csv\"))}
o = json.load(sys.stdin)
w = [l.split() for l in open(\"phases.out\") if l.startswith(\"writer \")][0]
for t in o[\"thread_states\"]:
    parts = sum(t[k] for k in (\"cpu.user\", \"cpu.system\", \"wait.cpu\", \"wait.lock\", \"wait.io\", \"wait.sleep\",
                        \"wait.stopped\"))
    assert abs(parts - t[\"wall\"]) <= 0.004, t
    before = int(w[2]) / 1e9 if t[\"tid\"] == int(w[1]) else 0
    before += coll.get(t[\"tid\"], 0)
    assert 97 - 100 * before / (t[\"lifetime\"] or 1) <= t[\"accounted_pct\"] <= 100.5, (t, before)
'"
# Every table of threads names them by the same columns, written in one
# place (report_thread_cols): the threads table, the states overview and
# the states view each have tid and thread, and a thread with a name of
# its own has it in all three (before: the threads table's was "name").
check states_thread_columns_alike sh -c "\"\$TALLY\" report phases.exp --threads --format json >cols_t.json &&
	\"\$TALLY\" report phases.exp --format json >cols_o.json && \"\$TALLY\" report phases.exp --states --format json >cols_s.json &&
	python3 -c '
import json
th = json.load(open(\"cols_t.json\"))[\"threads\"]
ov = json.load(open(\"cols_o.json\"))[\"thread_states\"]
st = json.load(open(\"cols_s.json\"))[\"states\"]
for name, rows in ((\"threads\", th), (\"thread_states\", ov), (\"states\", st)):
    assert rows and all(\"tid\" in r and \"thread\" in r for r in rows), (name, rows[:1])
own = {r[\"tid\"]: r[\"thread\"] for r in th if r[\"thread\"]}
named = [r for r in ov + [r for r in st if r[\"thread\"]] if r[\"tid\"] in own]
assert named and all(r[\"thread\"] == own[r[\"tid\"]] for r in named), (own, named[:3])
print(len(th), \"threads\", own)
'"
check states_view_shows_states_and_stacks sh -c "\"\$TALLY\" report phases.exp --states >view.txt &&
	grep -q 'wait.io .*read <- phase_read <- measure' view.txt &&
	grep -q 'wait.sleep .*clock_nanosleep <- __nanosleep <- phase_sleep' view.txt &&
	grep -q 'cpu.user .*phase_burn <- measure' view.txt"
check states_metric_in_function_table sh -c "\"\$TALLY\" report phases.exp --metric wall,wait.io >fn.txt &&
	grep -q 'Excl. Wall s' fn.txt && grep -q 'Excl. I/O wait s' fn.txt"

# The time axis: the chrome export draws each interval off the CPU on its
# thread, named by its state and leaf, as long as the state's time.
check states_timeline_in_chrome_export sh -c "\"\$TALLY\" export phases.exp --format chrome --no-inline -o ph.json && python3 -c '
import json, collections
ev = json.load(open(\"ph.json\"))
ev = ev[\"traceEvents\"] if isinstance(ev, dict) else ev
open_, dur = {}, collections.Counter()
for e in ev:
    if e.get(\"ph\") == \"b\":
        open_[e[\"id\"]] = e[\"ts\"]
    elif e.get(\"ph\") == \"e\" and e[\"id\"] in open_:
        dur[e[\"name\"]] += (e[\"ts\"] - open_.pop(e[\"id\"])) * 1000
print(dict(dur))
io, sl = dur[\"I/O wait: read\"], dur[\"Sleep: clock_nanosleep\"]
assert abs(io - ($rw - $rr)) <= 0.05 * $rw, io
assert abs(sl - ($sw - $sr) - 0.5e9) <= 0.05 * $sw, sl      # the writer thread sleeps 0.5 s too
'"

# --- two threads contending on a mutex ---------------------------------------
"$TALLY" record --states -o mutex.exp ./states_mutex 15 20 >mutex.out 2>/dev/null
ok=0
for tid in $(awk '$1 == "lock" { print $2 }' mutex.out); do
	lw=$(awk -v t=$tid '$1 == "lock" && $2 == t { print $3 }' mutex.out)
	lr=$(awk -v t=$tid '$1 == "lock" && $2 == t { print $4 }' mutex.out)
	bc=$(awk -v t=$tid '$1 == "burn" && $2 == t { print $3 }' mutex.out)
	for m in wall wait.lock wait.cpu cpu.user cpu.system; do
		"$TALLY" export mutex.exp --format collapsed --no-inline --metric $m --thread $tid >mx.$m.txt
	done
	check "states_mutex_wait_is_wait_lock_at_take_lock ($tid)" near lock.$tid \
		$($INCL mx.wait.lock.txt take_lock) $((lw - lr)) $lw
	check "states_mutex_wake_latency_is_wait_cpu ($tid)" near lock.runnable.$tid \
		$($INCL mx.wait.cpu.txt take_lock) $lr $lw
	check "states_mutex_lock_wall ($tid)" near lock.wall.$tid $($INCL mx.wall.txt take_lock) $lw $lw
	check "states_mutex_hold_is_cpu ($tid)" near hold.$tid \
		$(($($INCL mx.cpu.user.txt hold_burn) + $($INCL mx.cpu.system.txt hold_burn))) $bc $bc \
		$(collector_ns mutex.exp $tid)
	check "states_mutex_lock_stack ($tid)" sh -c "test \$(python3 '$E2E/weight.py' mx.wait.lock.txt 'worker;take_lock;pthread_mutex_lock;__lll_lock_wait') -gt 0 &&
		test \$($INCL mx.wait.lock.txt hold_burn nap) -eq 0"
	ok=$((ok + 1))
done
check states_mutex_two_threads test $ok -eq 2

# --- more runnable threads than CPUs -------------------------------------------
taskset -c 0 "$TALLY" record --states -o crowd.exp ./states_crowd 3 0.3 >crowd.out 2>/dev/null
ok=0
for tid in $(awk '$1 == "thread" { print $2 }' crowd.out); do
	cpu=$(awk -v t=$tid '$2 == t { print $3 }' crowd.out)
	run=$(awk -v t=$tid '$2 == t { print $4 }' crowd.out)
	for m in wall wait.cpu cpu.user cpu.system; do
		"$TALLY" export crowd.exp --format collapsed --metric $m --thread $tid >cr.$m.txt
	done
	check "states_crowd_runnable_is_wait_cpu_at_spin ($tid)" near crowd.runnable.$tid \
		$($INCL cr.wait.cpu.txt spin) $run $((cpu + run))
	check "states_crowd_cpu_at_spin ($tid)" near crowd.cpu.$tid \
		$(($($INCL cr.cpu.user.txt spin) + $($INCL cr.cpu.system.txt spin))) $cpu $((cpu + run))
	ok=$((ok + 1))
done
check states_crowd_three_threads test $ok -eq 3

# --- stopped: SIGSTOP for 0.4 s while it spins in user code ------------------
# No system call and no page fault before the stop: wait.stopped, not I/O
# (a block outside a system call after a fault) nor a sleep.
"$TALLY" record --states -o stop.exp ./states_stopped 1.5 >stop.out 2>stop.err & R=$!
P=$(exp_pid stop.exp)
for i in $(seq 100); do grep -q ready stop.err && break; sleep 0.05; done
sleep 0.2
kill -STOP "$P"
sleep 0.4
kill -CONT "$P"
for i in $(seq 200); do kill -0 $R 2>/dev/null || break; sleep 0.1; done
kill -0 $R 2>/dev/null && kill -KILL $R
wait $R
gap=$(field stop 2 stop.out) grun=$(field stop 3 stop.out)
for m in wait.stopped wait.io wait.sleep; do
	"$TALLY" export stop.exp --format collapsed --metric $m >st.$m.txt
done
check states_stop_is_wait_stopped_at_spin near stop $($INCL st.wait.stopped.txt spin_here) $((gap - grun)) $gap
check states_stop_not_io_nor_sleep sh -c "test \$($INCL st.wait.io.txt spin_here) -eq 0 &&
	test \$($INCL st.wait.sleep.txt spin_here) -eq 0"
check states_stop_in_the_view sh -c "\"\$TALLY\" report stop.exp --states >stopview.txt &&
	grep -q 'wait.stopped .*spin_here <- main' stopview.txt || { grep -B2 -A4 'wait.stopped' stopview.txt; exit 1; }"

# --- under a tracer (issue 19) ----------------------------------------------
# A tracer stops the program at each signal, and the stop is a switch-out
# whose SIGTRAP (the signal way) came before the handler ran, and so on until
# the stack was gone: `strace -f tally record --states` killed the program by
# SIGSEGV.  Traced from its start, the collector takes the ring way; the
# program runs to its end with its output whole, tracers and all.
if need strace states_under_strace_runs_to_end states_under_strace_with_tracers_runs_to_end; then
	for v in plain:--states tracers:--states_-s_-H_-i; do
		name=${v%%:*} opts=$(echo "${v#*:}" | tr _ ' ')
		# shellcheck disable=SC2086
		strace -f -qq -o /dev/null "$TALLY" record $opts -o tr_$name.exp ./states_phases 0.1 \
			>tr_$name.out 2>tr_$name.err
		echo $? >tr_$name.rc
	done
	traced_ok() { # NAME: exit 0, each phase's line, the ring way said why
		test "$(cat tr_$1.rc)" -eq 0 && for p in sleep burn read writer; do
			grep -q "^$p [0-9]" tr_$1.out || { echo "no $p line"; exit 1; }
		done && grep -q '^states: .*the program is traced' tr_$1.exp/log.txt || {
			echo "rc $(cat tr_$1.rc)"; cat tr_$1.err tr_$1.out; grep '^states' tr_$1.exp/log.txt; exit 1; }
	}
	check states_under_strace_runs_to_end traced_ok plain
	check states_under_strace_with_tracers_runs_to_end traced_ok tracers
fi

# A child made traced after the collector started in it (a debugger's or
# strace's child: PTRACE_TRACEME, or a self-stop then PTRACE_SEIZE) moves to
# the ring way before the tracer can stop it; the build before died of
# SIGSEGV after ~2,700 stops.
cc_prog states_traced
for how in traceme seize; do
	"$TALLY" record --states -o trc_$how.exp ./states_traced $how >trc_$how.out 2>trc_$how.err
	echo $? >trc_$how.rc
	if [ "$(cat trc_$how.rc)" -eq 77 ]; then
		skip states_traced_child_${how}_runs_to_end "$(tail -n 1 trc_$how.err)"
		continue
	fi
	check states_traced_child_${how}_runs_to_end sh -c "test \$(cat trc_$how.rc) -eq 0 &&
		grep -q '^child exit 7 stops [1-9]\$' trc_$how.out || { cat trc_$how.out trc_$how.err; exit 1; }"
done

# A tracer that attaches later (strace -p, gdb -p) to a program recording
# its states the signal way: its stop at each SIGTRAP's delivery is a
# switch, which sends the next one, so the build before piled up handler
# frames until the stack was gone (SIGSEGV, strace -p) or ran nothing but
# the handler while traced.  Now the handler blocks SIGTRAP, asks the
# tracer when a switch signal came while it was blocked, and moves the
# thread to the ring way, said once in the log; the program runs on and
# ends with its output and status.  The program naps on until the tracer
# has detached (its stop file made after), and each check first proves the
# tracer attached (rev-tests 2): strace's trace holds the program's naps,
# gdb says it detached from the process.
cc_prog late_attach -pthread
late_attach_run() { # NAME TRACER-COMMAND...: record late_attach, attach at "ready"
	name=$1
	shift
	"$TALLY" record --states -o la_$name.exp ./late_attach 1500 la_$name.stop >la_$name.out 2>la_$name.err & R=$!
	for i in $(seq 200); do grep -q ready la_$name.err && break; sleep 0.05; done
	if P=$(exp_pid la_$name.exp) && [ -n "$P" ]; then
		"$@" "$P" >la_$name.tracer 2>&1
	else
		echo "no pid of late_attach's recording (la_$name.exp/log.txt)" >la_$name.tracer
	fi
	echo "$P" >la_$name.pid
	touch la_$name.stop
	wait $R
	echo $? >la_$name.rc
}
late_attach_ok() { # NAME: exit 5, both threads' lines whole (at least 1500 naps)
	test "$(cat la_$1.rc)" -eq 5 &&
		awk '($1 == "main" || $1 == "worker") && $2 == "naps" && $3 >= 1500 { n++ } END { exit n != 2 }' la_$1.out || {
		echo "rc $(cat la_$1.rc)"; cat la_$1.out la_$1.err; tail -n 5 la_$1.tracer; exit 1; }
}
strace_attached() { # the trace holds the program's naps
	grep -q 'nanosleep(' la_strace.trace || {
		echo "strace traced no nap of late_attach (pid $(cat la_strace.pid)):"; tail -n 5 la_strace.tracer; exit 1; }
}
gdb_attached() { # gdb detached from that very process
	grep -q "^\[Inferior 1 (process $(cat la_gdb.pid)) detached\]" la_gdb.tracer || {
		echo "gdb did not attach to late_attach (pid $(cat la_gdb.pid)):"; tail -n 5 la_gdb.tracer; exit 1; }
}
signal_way() { grep -q '^states: .*a SIGTRAP at each resume' la_$1.exp/log.txt; }
strace_for_a_while() { timeout -s INT 0.5 strace -qq -o la_strace.trace -p "$1"; }
if need strace_attach states_strace_p_attach_runs_to_end states_strace_p_attach_said; then
	late_attach_run strace strace_for_a_while
	check states_strace_p_attach_runs_to_end eval 'strace_attached && late_attach_ok strace'
	if ! signal_way strace; then
		skip states_strace_p_attach_said "the states took the ring way here (no signal to loop)"
	elif need trap_async states_strace_p_attach_said; then
		check states_strace_p_attach_said grep -q '^states: a tracer attached (TracerPid [1-9][0-9]*): ' \
			la_strace.exp/log.txt
	fi
fi
# gdb: a guard that the program runs on, and no more: it passes on the
# build before too (gdb does not pass a SIGTRAP on by default), and the log
# says nothing of gdb's attach (it stops the threads while attached).
gdb_detach() { timeout 60 gdb -q -nx -batch -p "$1" -ex detach; }
if need gdb states_gdb_p_attach_runs_to_end; then
	late_attach_run gdb gdb_detach
	if grep -q 'ptrace: Operation not permitted' la_gdb.tracer; then
		skip states_gdb_p_attach_runs_to_end "gdb cannot attach to a process here (ptrace refused)"
	else
		check states_gdb_p_attach_runs_to_end eval 'gdb_attached && late_attach_ok gdb'
	fi
fi

# --- without the right to count in the kernel: the ring way ------------------
if ! need other_user states_ring_way_logged states_ring_way_times; then
	:
elif [ "$(cat /proc/sys/kernel/perf_event_paranoid)" -ne 2 ]; then
	skip states_ring_way_logged "perf_event_paranoid is not 2"
	skip states_ring_way_times "perf_event_paranoid is not 2"
else
	chmod 711 "$T" && mkdir ring && chmod 777 ring && cp states_phases ring/
	(cd ring && setpriv --reuid=65534 --regid=65534 --clear-groups \
		"$TALLY" record --states -o ring.exp ./states_phases 0.3 >ring.out 2>/dev/null)
	check states_ring_way_logged grep -q '^states: .*read at clock samples' ring/ring.exp/log.txt
	check states_ring_way_times sh -c "\"\$TALLY\" report ring/ring.exp --format json | python3 -c '
import json, sys
o = json.load(sys.stdin)
truth = {l.split()[0]: [int(x) for x in l.split()[1:]] for l in open(\"ring/ring.out\") if not l.startswith(\"writer \")}
main = [t for t in o[\"thread_states\"] if t[\"wall\"] > 0.8][0]
runnable = sum(v[2] for v in truth.values()) / 1e9
blocked = (truth[\"sleep\"][0] - truth[\"sleep\"][2] + truth[\"read\"][0] - truth[\"read\"][2]) / 1e9
span = sum(v[0] for v in truth.values()) / 1e9
print(main, runnable, blocked, span)
assert abs(main[\"wait.cpu\"] - runnable) <= 0.05 * span, \"wait.cpu\"
assert abs(main[\"wait.sleep\"] - blocked) <= 0.05 * span, \"blocked\"
assert 97 <= main[\"accounted_pct\"] <= 100.5
'"
fi
