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
#   - attach_states_static: the same program -static (outside mode);
#   - attach_kernel_states: with --kernel, where the kernel allows it, the
#     intervals carry the kernel's stack: at least 90% of phase_read's
#     wait.io under anon_pipe_read;schedule.
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
	for m in wait.sleep wait.io wait.lock; do
		"$TALLY" export "$name.exp" --format collapsed --metric $m --thread "$tid" >"$name.d/$m.folded"
	done
}

# phases_ok NAME [outside]: the attach and the program ended well, and the
# phases are within their bounds (phases_window.py: `outside` for a static
# program, whose blocks keep their wait for a CPU).
phases_ok() {
	cat "$1.out"
	test "$(cat "$1.rc")" = "0 0" &&
	python3 "$E2E/phases_window.py" "$1.log" "$(sed -n 's/^start.mono_ns: //p' "$1.exp/log.txt")" \
		"$(sed -n 's/^end.mono_ns: //p' "$1.exp/log.txt")" "$1.d" ${2:-}
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
		grep "outside mode" st.exp/log.txt && phases_ok st outside
	}
	check attach_states_static static_ok
fi

attach_run kern phases --kernel
if [ -f kern.exp/log.txt ] && ! grep -q '^kernel.switches: recorded' kern.exp/log.txt; then
	skip attach_kernel_states "the kernel gives no call chains here: $(grep '^kernel' kern.exp/log.txt | tr '\n' ' ' | cut -c1-200)"
else
	check attach_kernel_states sh -c '
		test "$(cat kern.rc)" = "0 0" && "$TALLY" report kern.exp | grep "Kernel at switches" &&
		awk "{ w = \$NF; s = \$0; sub(/ [0-9.]+\$/, \"\", s)
		       if (s ~ /;phase_read;/) { all += w; if (s ~ /;anon_pipe_read;schedule\$/) k += w } }
		     END { print k + 0, \"of\", all + 0, \"ns of phase_read wait.io under anon_pipe_read;schedule\"
			   exit !(all > 0 && k >= 0.9 * all) }" kern.d/wait.io.folded'
fi
