# lib.sh — shared by the end-to-end tests: a scratch directory, compiling a
# program from tests/progs, and result lines for tests/run.sh.  Each test
# script sources it, then calls `check NAME COMMAND...` once per case.
set -u
: "${TALLY:?set TALLY to the tally binary (tests/run.sh does)}"
export E2E=$(cd "$(dirname "$0")" && pwd)
export PROGS=$(cd "$E2E/../progs" && pwd)
T=$(mktemp -d "${TMPDIR:-/tmp}/tally-e2e.XXXXXX")
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

# kill_exp SIGNAL EXP: send SIGNAL to the process that writes EXP.
kill_exp() {
	pid=$(exp_pid "$2") && kill -"$1" "$pid"
}

skip() {
	echo "[Skipped: $2] $1"
}

# shares FILE CHECK...: check shares of a collapsed-stack file (profile.py).
shares() {
	python3 "$E2E/profile.py" "$@"
}
