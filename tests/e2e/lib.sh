# lib.sh — shared by the end-to-end tests: a scratch directory, compiling a
# program from tests/progs, and result lines for tests/run.sh.  Each test
# script sources it, then calls `check NAME COMMAND...` once per case.
set -u
: "${TALLY:?set TALLY to the tally binary (tests/run.sh does)}"
export E2E=$(cd "$(dirname "$0")" && pwd)
export PROGS=$(cd "$E2E/../progs" && pwd)
# tests/pylib: the Python helpers of the checks (tally_page: an HTML page's data)
export PYTHONPATH="$(cd "$E2E/../pylib" && pwd)${PYTHONPATH:+:$PYTHONPATH}"
T=$(mktemp -d "${TMPDIR:-/tmp}/tally-e2e.XXXXXX")
# python3 resolved once: a version manager's shim (pyenv's, a bash script)
# costs ~0.5 s of CPU a call where the interpreter costs 0.05 s, and the
# scripts make hundreds of calls; the interpreter it resolves to comes
# first on PATH, for the scripts' own commands and the ones they start.
if py=$(python3 -c 'import sys; print(sys.executable)' 2>/dev/null) && [ -x "$py" ]; then
	mkdir "$T/.python" && ln -s "$py" "$T/.python/python3" && PATH=$T/.python:$PATH
fi
# A background `tally record` still running at the end is stopped (it passes
# SIGTERM on to its target); tests/run.sh also bounds each test's time.
trap 'for j in $(jobs -p); do kill -TERM "$j" 2>/dev/null; done; rm -rf "$T"' EXIT

# cc_prog NAME [FLAGS...]: build tests/progs/NAME.c into $T/NAME (-O2 -g).
cc_prog() {
	name=$1
	shift
	cc -O2 -g -o "$T/$name" "$PROGS/$name.c" "$@"
}

# check NAME CMD...: one test case; CMD's output is shown if it fails.
check() {
	name=$1
	shift
	if out=$("$@" 2>&1); then
		echo "[Success] $name"
	else
		echo "[Failed] $name"
		printf '%s\n' "$out" | sed 's/^/    /' | tail -n 25
	fi
}

# exp_pid EXP: the pid of the process that writes experiment EXP (the first
# line "pid: N" of its log, which the collector writes as it starts); fails
# if none appears within 10 s.  Tests stop their targets by this pid, never
# by a name pattern.
exp_pid() {
	for i in $(seq 200); do
		pid=$(sed -n 's/^pid: \([0-9][0-9]*\)$/\1/p' "$1/log.txt" 2>/dev/null | head -n 1)
		[ -n "$pid" ] && { echo "$pid"; return 0; }
		sleep 0.05
	done
	echo "exp_pid: no pid in $1/log.txt" >&2
	return 1
}

# A process's log whatever the layout (a descendant's own directory, or its
# process file LINEAGE.proc from format 8 on), in a check's sh -c too:
# `python3 -m tally_proc log EXP LINEAGE`; its lineages: `... lineages EXP`
# (tests/pylib/tally_proc.py).

# kill_exp SIGNAL EXP: send SIGNAL to the process that writes EXP.
kill_exp() {
	pid=$(exp_pid "$2") && kill -"$1" "$pid"
}

# skip NAME WHY: a case this machine cannot run, and why.
skip() {
	echo "[Skipped: $2] $1"
}

# can CAPABILITY: whether this machine has what a check needs, found out by
# trying it; if not, $why says what is missing (for skip).  Every check
# that needs one goes through here, so that the suite passes on any machine
# this project runs on, each missing capability named once per check:
#   root        running as root (mount, other users' processes, setpriv)
#   i386        the kernel runs 32-bit x86 programs (IA32 emulation; binutils
#               builds $T/sleep_i386 from tests/progs/sleep_i386.S)
#   other_user  user 65534 can run this build: root, setpriv, and every
#               directory down to $TALLY and its libraries searchable by
#               others (a checkout under /root is not)
#   pty         script(1) can give a program a terminal (/dev/pts mounted)
#   pmu         a CPU PMU: hardware counters (cycles, instructions)
#   pmu_mem     a precise memory event `tally record --data` chooses (its
#               own decision, the log's data.source; why: that line)
#   node        node with tests/js/node_modules (scripts/install-deps.sh test)
#   browser     node and tests/js/node_modules, and chromium ($CHROMIUM)
#   tmpfs       mount a tmpfs on a new directory ($T/mnt), mounted on success:
#               the caller unmounts it (root, outside most containers)
#   static      a static libc to link with
#   strace      strace(1) can trace a child it starts (not where ptrace is
#               refused: a container's seccomp profile, Yama's scope 3)
#   strace_attach  strace -p can attach to a running process (not where
#               Yama's ptrace_scope 1 allows only tracing one's children)
#   perf_clone  perf stat counts the syscalls:sys_enter_clone tracepoint
#               with a filter on its clone_flags (helpers apart from threads)
#   perf_clock_reads  perf stat counts the syscalls:sys_enter_clock_gettime
#               tracepoint (the handler's reads of the thread's CPU clock)
#   perf_walk_reads  perf stat counts the syscalls:sys_enter_process_vm_readv
#               and sys_enter_getpid tracepoints (an unwinder's reads)
#   trap_async  the kernel flags a perf SIGTRAP sent while blocked
#               (TRAP_PERF_FLAG_ASYNC, Linux 6.0+), by which the states'
#               signal way finds a tracer (tests/progs/trap_async.c)
#   pidns       a pid namespace of one's own whose ns_last_pid can be set
#               (unshare -Urpf --mount-proc), to make the kernel reuse an id
can() {
	why=
	case $1 in
	root)
		[ "$(id -u)" -eq 0 ] || why="needs root"
		;;
	i386)
		if ! { as --32 -o "$T/sleep_i386.o" "$PROGS/sleep_i386.S" &&
			ld -m elf_i386 -o "$T/sleep_i386" "$T/sleep_i386.o"; } >/dev/null 2>&1; then
			why="binutils cannot build i386"
		else
			# It sleeps forever where it can run; gone at once where not.
			"$T/sleep_i386" >/dev/null 2>&1 &
			_can_pid=$!
			sleep 0.2
			if kill "$_can_pid" 2>/dev/null; then
				wait "$_can_pid" 2>/dev/null
			else
				why="the kernel cannot run 32-bit x86 programs (no IA32 emulation)"
			fi
		fi
		;;
	other_user)
		_can_lib=${TALLY_BUILD:-$(dirname "$TALLY")/..}/lib/libtally-collector.so
		if ! can root; then
			why="needs root to run as another user (setpriv)"
		elif ! command -v setpriv >/dev/null; then
			why="setpriv not installed (util-linux)"
		elif ! setpriv --reuid=65534 --regid=65534 --clear-groups \
			sh -c 'test -x "$1" && test -r "$2"' sh "$TALLY" "$_can_lib" 2>/dev/null; then
			why="user 65534 cannot reach $TALLY and its libraries (a checkout in a private directory, such as /root)"
		fi
		;;
	pty)
		if ! command -v script >/dev/null; then
			why="script(1) not installed (bsdutils)"
		elif ! script -qec true /dev/null >/dev/null 2>&1 </dev/null; then
			why="script(1) cannot open a terminal (is /dev/pts mounted?)"
		fi
		;;
	pmu)
		[ -e /sys/bus/event_source/devices/cpu ] || [ -e /sys/bus/event_source/devices/cpu_core ] ||
			why="no CPU PMU (no hardware counters: a virtual machine without a virtual PMU?)"
		;;
	pmu_mem)
		mkdir -p "$T/pmu_mem" && printf 'int main(void){return 0;}\n' >"$T/pmu_mem/t.c" &&
			cc -o "$T/pmu_mem/t" "$T/pmu_mem/t.c" &&
			"$TALLY" record -d -o "$T/pmu_mem/t.exp" "$T/pmu_mem/t" >/dev/null 2>&1
		_src=$(sed -n 's/^data\.source: //p' "$T/pmu_mem/t.exp/log.txt" 2>/dev/null)
		case $_src in
		precise*) ;;
		"") why="tally record --data logged no data.source" ;;
		*) why="no precise memory event: tally record --data chose $_src" ;;
		esac
		rm -rf "$T/pmu_mem"
		;;
	node)
		if ! command -v node >/dev/null || [ ! -d "$E2E/../js/node_modules/playwright-core" ]; then
			why="node or tests/js/node_modules missing (scripts/install-deps.sh test)"
		fi
		;;
	browser)
		if ! can node; then
			:
		elif [ ! -x "${CHROMIUM:-/usr/bin/chromium}" ]; then
			why="chromium missing (scripts/install-deps.sh test; or set CHROMIUM)"
		fi
		;;
	tmpfs)
		mkdir -p "$T/mnt"
		mount -t tmpfs -o size=512k tmpfs "$T/mnt" 2>/dev/null ||
			why="cannot mount a tmpfs here (needs root, outside a container that forbids it)"
		;;
	strace)
		if ! command -v strace >/dev/null 2>&1; then
			why="no strace"
		elif ! _can_msg=$(strace -f -qq -e trace=none -o /dev/null true 2>&1); then
			why="strace cannot trace a child here (ptrace refused?): $(echo "$_can_msg" | head -n 1)"
		fi
		;;
	gdb)
		if ! command -v gdb >/dev/null 2>&1; then
			why="no gdb"
		elif ! _can_msg=$(gdb -batch -ex run --args /bin/true 2>&1) ||
			! printf '%s\n' "$_can_msg" | grep -q 'exited normally'; then
			why="gdb cannot run a program here (ptrace refused?): $(printf '%s\n' "$_can_msg" | tail -n 1)"
		fi
		;;
	strace_attach)
		# strace -p: attaching to a running process, which Yama's
		# ptrace_scope 1 refuses while it allows tracing a child
		if ! command -v strace >/dev/null 2>&1; then
			why="no strace"
		else
			sleep 5 & _can_pid=$!
			# strace says why on stderr when it cannot attach (its exit
			# status is lost to the background); -qq keeps it quiet else
			_can_msg=$(timeout 5 strace -qq -e trace=none -o /dev/null -p $_can_pid 2>&1 &
				sleep 0.3; kill $_can_pid 2>/dev/null; wait)
			[ -z "$_can_msg" ] ||
				why="strace cannot attach to a process here (ptrace refused?): $(echo "$_can_msg" | head -n 1)"
			kill $_can_pid 2>/dev/null; wait $_can_pid 2>/dev/null
		fi
		;;
	perf_clone)
		if ! command -v perf >/dev/null 2>&1; then
			why="no perf"
		elif ! _can_msg=$(perf stat -x, -e syscalls:sys_enter_clone \
			--filter '!(clone_flags & 0x10000)' -o /dev/null true 2>&1); then
			why="perf stat cannot count syscalls:sys_enter_clone with a clone_flags filter here: $(echo "$_can_msg" | head -n 1)"
		fi
		;;
	perf_clock_reads)
		if ! command -v perf >/dev/null 2>&1; then
			why="no perf"
		elif ! _can_msg=$(perf stat -x, -e syscalls:sys_enter_clock_gettime -o /dev/null true 2>&1); then
			why="perf stat cannot count syscalls:sys_enter_clock_gettime here: $(echo "$_can_msg" | head -n 1)"
		fi
		;;
	perf_walk_reads)
		if ! command -v perf >/dev/null 2>&1; then
			why="no perf"
		elif ! _can_msg=$(perf stat -x, -e syscalls:sys_enter_process_vm_readv,syscalls:sys_enter_getpid \
			-o /dev/null true 2>&1); then
			why="perf stat cannot count syscalls:sys_enter_process_vm_readv and sys_enter_getpid here: $(echo "$_can_msg" | head -n 1)"
		fi
		;;
	trap_async)
		if ! cc -O2 -o "$T/trap_async" "$PROGS/trap_async.c" 2>/dev/null; then
			why="cannot build tests/progs/trap_async.c"
		elif ! _can_msg=$("$T/trap_async" 2>&1); then
			why="no TRAP_PERF_FLAG_ASYNC here: $(echo "$_can_msg" | head -n 1)"
		fi
		;;
	pidns)
		if ! command -v unshare >/dev/null 2>&1 || ! command -v taskset >/dev/null 2>&1; then
			why="no unshare or taskset (util-linux)"
		elif ! _can_msg=$(unshare -Urpf --mount-proc sh -c 'echo 300 >/proc/sys/kernel/ns_last_pid' 2>&1); then
			why="no pid namespace of one's own with a writable ns_last_pid (unshare -Urpf --mount-proc): $(echo "$_can_msg" | head -n 1)"
		fi
		;;
	static)
		printf 'int main(void) { return 0; }\n' >"$T/static_probe.c"
		cc -static -o "$T/static_probe" "$T/static_probe.c" 2>/dev/null ||
			why="no static libc to link with (libc6-dev's libc.a)"
		;;
	*)
		echo "can: unknown capability $1" >&2
		why="unknown capability $1"
		;;
	esac
	[ -z "$why" ]
}

# need CAPABILITY NAME...: true if this machine has CAPABILITY; else prints
# `[Skipped: why] NAME` for each NAME and is false.  For
#   if need pty colour_on_a_terminal; then check colour_on_a_terminal ...; fi
need() {
	_need_cap=$1
	shift
	can "$_need_cap" && return 0
	for n in "$@"; do
		skip "$n" "$why"
	done
	return 1
}

# shares FILE CHECK...: check shares of a collapsed-stack file (profile.py).
shares() {
	python3 "$E2E/profile.py" "$@"
}

# record_option_value OPTION: a value `tally record`'s OPTION takes (empty:
# it takes none), for the scripts that try every option
# (test_attach_options.sh, test_static_options.sh); fails naming an option
# it has no value for, so that a new option is given one here.
record_option_value() {
	case $1 in
	-o | --output | -p | --pid | -h | --help | -H | --heap | -s | --sync | -i | --io | -m | --mpi | --states | \
		-d | --data | --kernel | --no-kernel) echo "" ;;
	-F | --freq) echo 200 ;;
	--sync-holders | -j | --java) echo on ;;
	-c | --counter) echo page-faults ;;
	--follow) echo all ;;
	--frames) echo 64 ;;
	--delay | --duration | --process-samples) echo 1 ;;
	--toggle-signal) echo USR1 ;;
	--control) echo cmd ;;
	-L | --limit) echo 100M ;;
	*) echo "no sample value for $1: add one to record_option_value() in tests/e2e/lib.sh" >&2; return 1 ;;
	esac
}

# record_option_long OPTION HELP: its long name ("-H" -> "--heap"), from the
# option lines of `tally record --help` saved in file HELP (the first match:
# the refusal lists below them may begin with "  -c, --follow").
record_option_long() {
	case $1 in
	--*) echo "$1" ;;
	*) sed -n "s/^  $1, \(--[a-z-]*\).*/\1/p" "$2" | head -n 1 ;;
	esac
}

# wait_ready FILE: until a target printed "ready" there (10 s at most).
wait_ready() {
	for _ in $(seq 100); do
		grep -q '^ready' "$1" 2>/dev/null && return 0
		sleep 0.1
	done
	return 1
}

# bounded_wait PID SECS: wait for a child, killing it after SECS; its status.
bounded_wait() {
	( sleep "$2"; kill -9 "$1" 2>/dev/null ) & w=$!
	wait "$1"; rc=$?
	kill "$w" 2>/dev/null; wait "$w" 2>/dev/null
	return $rc
}
