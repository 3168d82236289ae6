# test_attach_states.sh — `tally record -p PID --states` (and with --kernel):
# thread states for the attached window, in a dynamically linked process
# (the collector injected) and a static one (the outside mode)
# (docs/attach.md, docs/states.md).
#
# tests/progs/attach_phases.c's main thread repeats burn, sleep, pipe read
# and lock phases and logs each occurrence as it measured it (wall, CPU,
# runnable time).  tally attaches for 1.5 s of its 3.5 s.  phases_window.py
# compares, for each blocked phase, tally's state (wait.sleep, wait.io,
# wait.lock at phase_sleep, phase_read, phase_lock) with the program's
# blocked time (wall less CPU and runnable) within the collector's window
# (start.mono_ns .. end.mono_ns of its log), bounds from the program's own
# occurrences (phases_window.py says which).  Before this change, --states
# was refused with -p.
#   - attach_states_phases: dynamic, the three states within bounds; the
#     process goes on and ends with status 0;
#   - attach_states_every_thread: its writer and holder threads, blocked at
#     the attach, are accounted for at least half the window (their first
#     return to a CPU), and the overview says what the window covers;
#   - attach_states_static: the same program -static (outside mode), with
#     the same bounds: its blocks' waits for a CPU after the wake-up are
#     told from the blocks by the threads' schedstat, read by tally record
#     at each poll (before, they stayed in the blocks and the bound had to
#     allow them: phases_window.py's `outside`, now unused);
#   - attach_states_static_none_before_window: no interval of it begins
#     before the log's start.mono_ns.  The events count from their open, and
#     the build before took the image's start after opening them: under load
#     4 of 5 runs had intervals up to 0.4 s before it, which the analyzer
#     counted while the window (and the program's overlap) left them out;
#   - attach_states_static_wake: that wait for a CPU, in the blocked
#     phases, within bounds of the program's runnable time in them
#     (phases_wake.py; skipped when the machine woke it at once).  On the
#     build before it was 0;
#   - attach_kernel_states: with --kernel, where the kernel allows it, the
#     intervals carry the kernel's stack: at least 90% of phase_read's
#     wait.io under anon_pipe_read;schedule.
#   - attach_states_blocked_whole_window: tests/progs/blocked_whole.c's
#     reader (in read) and sleeper (in one nanosleep) are blocked from before
#     the attach to after the stop: each has the whole window in wait.io at
#     block_in_read;read and wait.sleep at sleep_through;clock_nanosleep
#     (states_window.py).  Before the helper read their schedstat before
#     the window (col_attach.c) they lost its set-up: 84-90% in 4 of 10
#     runs beside two spinners (load 12); before that, neither had any
#     state (a block under way at the attach was not seen).
#   - attach_kernel_blocked_at_attach: with --kernel as root, the blocks
#     under way at the attach (blocked_whole.c's reader and sleeper) carry
#     the kernel's stack read from /proc/PID/task/TID/stack: >= 90% of
#     each under vfs_read and hrtimer_nanosleep.  On the build before they
#     had no kernel frame.
#   - attach_states_proc_stack_through_frame_pointers: the same built -O0
#     (every frame's CFA rbp-based; /proc gives only sp and pc): at least
#     90% of each block under start_thread;reader;block_in_read and
#     start_thread;sleeper;sleep_through.  On the build before, the walk
#     ended at block_in_read and sleep_through (rbp unknown).
#   - attach_states_none_past_window: no interval ends after the window's
#     end (attach.window_end_ns: the clocks and the switch events stopped in
#     one step).  The build before logged no window end: its switch events
#     ran on until each thread was ended, after the clocks.
#   - attach_states_no_idle_event: no switch event the helper opened idled
#     (attach.states.idle 0 in both runs: the event is in the thread's slot
#     before its clock opens).  The race it guards against (a thread's
#     first clock signal before the helper stored the event) is rare: 1
#     thread of 17 in 1 of 14 runs at -F 20000 on the build before, which
#     logged no count; no deterministic test.
. "$(dirname "$0")/lib.sh"
cd "$T"
cc -O2 -g -pthread -I"$PROGS" -o phases "$PROGS/attach_phases.c"


# attach_run NAME PROG [OPTIONS...]: run PROG for 3.5 s, attach with
# --states OPTIONS for 1.5 s into NAME.exp; NAME.log is the program's, the
# phases' totals in NAME.d/; NAME.rc the attach's and the program's status.
attach_run() {
	name=$1 prog=$2
	shift 2
	./"$prog" "$name.log" 3.5 2>"$name.err" &
	p=$!
	wait_ready "$name.err"
	"$TALLY" record -p $p --states "$@" --duration 1.5 -o "$name.exp" >"$name.out" 2>&1
	rc=$?
	( sleep 30; kill -9 $p 2>/dev/null ) & w=$!
	wait $p
	rcp=$?
	kill $w 2>/dev/null
	wait $w 2>/dev/null
	echo "$rc $rcp" >"$name.rc"
	tid=$(awk '/^main/ { print $2 }' "$name.log")
	mkdir -p "$name.d"
	for m in wait.sleep wait.io wait.lock wait.cpu; do
		"$TALLY" export "$name.exp" --format collapsed --metric $m --thread "$tid" >"$name.d/$m.folded"
	done
}

# phases_ok NAME: the attach and the program ended well, and the phases
# are within their bounds (phases_window.py).
phases_ok() {
	cat "$1.out"
	test "$(cat "$1.rc")" = "0 0" &&
	python3 "$E2E/phases_window.py" "$1.log" "$1.exp" "$1.d"
}

attach_run dyn phases
check attach_states_phases phases_ok dyn

every_thread() {
	"$TALLY" report dyn.exp | grep "States window" &&
	"$TALLY" report dyn.exp --format json | python3 -c "
import json, sys
rows = json.load(sys.stdin)['thread_states']
for r in rows:
    print(r['tid'], r['thread'], 'wall', r['wall'], 'lifetime', r['lifetime'], 'accounted', r['accounted_pct'])
sys.exit(0 if len(rows) == 3 and all(r['accounted_pct'] >= 50 for r in rows) else 1)"
}
check attach_states_every_thread every_thread

if need static attach_states_static; then
	cc -O2 -g -static -pthread -I"$PROGS" -o phases_static "$PROGS/attach_phases.c"
	attach_run st phases_static
	static_ok() {
		grep "outside mode" st.exp/log.txt && phases_ok st
	}
	check attach_states_static static_ok
	check attach_states_static_none_before_window python3 "$E2E/states_window.py" --starts st.exp
	python3 "$E2E/phases_wake.py" st.log "$(sed -n 's/^start.mono_ns: //p' st.exp/log.txt)" \
		"$(sed -n 's/^end.mono_ns: //p' st.exp/log.txt)" st.d/wait.cpu.folded >st.wake 2>&1
	rc=$?
	if [ $rc = 77 ]; then
		skip attach_states_static_wake "$(tail -1 st.wake)"
	else
		check attach_states_static_wake sh -c "cat st.wake; test $rc = 0"
	fi
fi

cc -O2 -g -pthread -o blocked_whole "$PROGS/blocked_whole.c"
./blocked_whole whole.log 3 2>whole.err &
p=$!
wait_ready whole.err
"$TALLY" record -p $p --states --duration 1 -o whole.exp >whole.out 2>&1
echo $? >whole.rc
wait $p
echo $? >>whole.rc
python3 "$E2E/states_window.py" "$TALLY" whole.exp whole.log >whole.check 2>&1
echo $? >whole.check.rc
whole_blocked() {
	cat whole.out whole.check
	test "$(cat whole.rc | tr '\n' ' ')" = "0 0 " && test "$(cat whole.check.rc)" = 0
}
check attach_states_blocked_whole_window whole_blocked
check attach_states_none_past_window sh -c 'cat whole.check; grep -q "ending after it: 0" whole.check'
# The same target built -O0 (frame pointers: each frame's CFA is rbp-based,
# and read() and clock_nanosleep() save no rbp of their own): its blocked
# threads' places come from /proc's stack pointer and pc alone, rbp found
# on the stack.  At least 90% of each block under its whole chain.
cc -O0 -g -fno-omit-frame-pointer -pthread -o blocked_whole_o0 "$PROGS/blocked_whole.c"
./blocked_whole_o0 whole0.log 3 2>whole0.err &
p=$!
wait_ready whole0.err
"$TALLY" record -p $p --states --duration 1 -o whole0.exp >whole0.out 2>&1
wait $p
"$TALLY" export whole0.exp --format collapsed --metric wait.io >whole0.io.folded 2>&1
"$TALLY" export whole0.exp --format collapsed --metric wait.sleep >whole0.sleep.folded 2>&1
check attach_states_proc_stack_through_frame_pointers sh -c 'cat whole0.io.folded whole0.sleep.folded &&
	python3 "$E2E/profile.py" whole0.io.folded "within block_in_read path start_thread;reader;block_in_read 1.0 0.1" &&
	python3 "$E2E/profile.py" whole0.sleep.folded "within sleep_through path start_thread;sleeper;sleep_through 1.0 0.1"'
check attach_states_no_idle_event sh -c 'grep -H "^attach.states.idle: 0\$" dyn.exp/log.txt whole.exp/log.txt | grep -c . | grep -qx 2'

attach_run kern phases --kernel
if [ -f kern.exp/log.txt ] && ! grep -q '^kernel.switches: recorded' kern.exp/log.txt; then
	skip attach_kernel_states "the kernel gives no call chains here: $(grep '^kernel' kern.exp/log.txt | tr '\n' ' ' | cut -c1-200)"
else
	# A read under way when the thread's switch event began (a moment after
	# the window's start, log: start.mono_ns, as the threads are stopped
	# and set up) is an interval from the attach, with no switch of its own
	# and so no kernel stack (docs/attach.md): the first read ending in the
	# window, from the window's start (the program's own line), is left
	# out of what must have one.
	check attach_kernel_states sh -c '
		test "$(cat kern.rc)" = "0 0" && "$TALLY" report kern.exp | grep "Kernel at switches" &&
		python3 -c "
import re
start = int(re.search(r\"^start.mono_ns: ([0-9]+)\$\", open(\"kern.exp/log.txt\").read(), re.M).group(1))
under = min([(int(w[2]), int(w[2]) - max(int(w[1]), start)) for w in (l.split() for l in open(\"kern.log\"))
             if w[0] == \"read\" and int(w[2]) > start] or [(0, 0)])[1]
k = every = 0
for l in open(\"kern.d/wait.io.folded\"):
    stack, w = l.rsplit(\" \", 1)
    if \";phase_read;\" in stack:
        every += float(w)
        k += float(w) if stack.endswith(\";anon_pipe_read;schedule\") else 0
print(int(k), \"of\", int(every), \"ns of phase_read wait.io under anon_pipe_read;schedule;\", under, \"ns under way at the attach\")
assert every > 0 and k >= 0.9 * (every - under), (k, every, under)"'
fi

# --kernel: blocks under way at the attach carry the kernel's stack, read
# from /proc/PID/task/TID/stack (root only) as tally attaches, placed by
# /proc/kallsyms: blocked_whole's reader and sleeper, blocked from before
# the attach to after the stop, at least 90% of each block under vfs_read
# and hrtimer_nanosleep (the kernel leaves the scheduler's own frames out
# of that file).  On the build before, those intervals had no kernel frame.
if [ "$(id -u)" != 0 ]; then
	skip attach_kernel_blocked_at_attach "/proc/PID/task/TID/stack is root's only"
elif [ -f kern.exp/log.txt ] && ! grep -q '^kernel.switches: recorded' kern.exp/log.txt; then
	skip attach_kernel_blocked_at_attach "the kernel gives no call chains here"
else
	./blocked_whole wholek.log 3 2>wholek.err &
	p=$!
	wait_ready wholek.err
	"$TALLY" record -p $p --states --kernel --duration 1 -o wholek.exp >wholek.out 2>&1
	wait $p
	"$TALLY" export wholek.exp --format collapsed --metric wait.io >wholek.io.folded 2>&1
	"$TALLY" export wholek.exp --format collapsed --metric wait.sleep >wholek.sleep.folded 2>&1
	check attach_kernel_blocked_at_attach sh -c 'grep "^kernel.blocked_at_attach" wholek.exp/log.txt &&
		cat wholek.io.folded wholek.sleep.folded &&
		python3 "$E2E/profile.py" wholek.io.folded "within block_in_read incl vfs_read 1.0 0.1" &&
		python3 "$E2E/profile.py" wholek.sleep.folded "within sleep_through incl hrtimer_nanosleep 1.0 0.1"'
fi
