# lib.sh — shared by the end-to-end tests: a scratch directory, compiling a
# program from tests/progs, and result lines for tests/run.sh.  Each test
# script sources it, then calls `check NAME COMMAND...` once per case.
set -u
: "${TALLY:?set TALLY to the tally binary (tests/run.sh does)}"
export E2E=$(cd "$(dirname "$0")" && pwd)
export PROGS=$(cd "$E2E/../progs" && pwd)
T=$(mktemp -d "${TMPDIR:-/tmp}/tally-e2e.XXXXXX")
trap 'rm -rf "$T"' EXIT

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

skip() {
	echo "[Skipped: $2] $1"
}

# shares FILE CHECK...: check shares of a collapsed-stack file (profile.py).
shares() {
	python3 "$E2E/profile.py" "$@"
}
