#!/bin/sh
# run.sh — run the tests, several at a time, and print one summary line,
# `N passed, N failed`.
#
#   tests/run.sh [--unit-only] [--e2e "test_a test_b ..."] BUILD [BUILD...]
#
# Unit tests (BUILD/tests/test_*) run for every BUILD given (plain and
# sanitized); the end-to-end scripts (tests/e2e/test_*.sh, or those named
# by --e2e) run against the first BUILD's tally.  Each test prints
# `[Success] name`, `[Failed] name` or `[Skipped: why] name`; this script
# counts those lines.  A test program that crashes or prints no result
# counts as one failure.
#
# Test programs are independent (each end-to-end script works in its own
# scratch directory), so TALLY_TEST_JOBS of them run at once (default: the
# number of CPUs, at least 2).  Each one's output is kept apart and, if it
# failed, printed whole as it ends.  The longest run first (the times of
# the last run are kept in BUILD/test-times), so the last to end is a
# short one.  Checks that measure time hold under this load: their bounds
# come from what they measure (tests/e2e/fidelity.py, for one).
#
# Each test program has TALLY_TEST_TIMEOUT seconds (default 600); past that
# it is killed, with every process it started (timeout(1) signals its
# process group), and counts as one failure.
set -u
cd "$(dirname "$0")/.."
ROOT=$PWD

# --one DIR NAME CMD...: run one test program (a job of xargs below): its
# output in DIR/NAME.out, its result lines in DIR/NAME.res, its time in
# DIR/NAME.time; the output printed, whole, under a lock, if it failed.
if [ "${1:-}" = "--one" ]; then
	dir=$2 name=$3
	shift 3
	key=$(echo "$name" | tr / _)
	out=$dir/$key.out res=$dir/$key.res
	start=$(date +%s)
	timeout -k 10 "${TALLY_TEST_TIMEOUT:-600}" "$@" >"$out" 2>&1 </dev/null
	rc=$?
	echo "$name $(( $(date +%s) - start ))" >"$dir/$key.time"
	if [ $rc -eq 124 ]; then
		echo "[Failed] timed out after ${TALLY_TEST_TIMEOUT:-600} s (TALLY_TEST_TIMEOUT)" >>"$out"
	fi
	grep -E '^\[(Success|Failed|Skipped)' "$out" | sed "s|^|$name: |" >"$res"
	if grep -q '^\[Failed' "$out" || [ $rc -ne 0 ]; then
		if ! grep -q '^\[Failed' "$out"; then
			echo "$name: [Failed] exited with status $rc" >>"$res"
		fi
		lock=; command -v flock >/dev/null && lock="flock $dir/print.lock"
		$lock sh -c 'echo "---- $1 (exit $2)"; cat "$3"' sh "$name" "$rc" "$out"
	fi
	exit 0
fi

unit_only=0 e2e=
while [ $# -gt 0 ]; do
	case $1 in
	--unit-only) unit_only=1; shift ;;
	--e2e) e2e=$2; shift 2 ;;
	*) break ;;
	esac
done
[ $# -ge 1 ] || { echo "usage: $0 [--unit-only] [--e2e \"test_a ...\"] BUILD..." >&2; exit 64; }

work=$(mktemp -d "${TMPDIR:-/tmp}/tally-run.XXXXXX")
trap 'rm -rf "$work"' EXIT
cpus=$(nproc 2>/dev/null || echo 2)
[ "$cpus" -ge 2 ] 2>/dev/null || cpus=2
jobs=${TALLY_TEST_JOBS:-$cpus}
times=$1/test-times
[ -f "$times" ] || : >"$times" 2>/dev/null

# The list, one test a line: "SECONDS NAME CMD...", SECONDS from the last
# run (unknown: first), longest first.
for b in "$@"; do
	for t in "$b"/tests/test_*; do
		[ -x "$t" ] || continue
		echo "$(basename "$b")/$(basename "$t") $t"
	done
done >"$work/list"
if [ $unit_only -eq 0 ]; then
	export TALLY="$ROOT/$1/bin/tally" TALLY_BUILD="$ROOT/$1"
	if [ -n "$e2e" ]; then
		for n in $e2e; do
			[ -f "tests/e2e/$n.sh" ] || { echo "run.sh: no tests/e2e/$n.sh" >&2; exit 64; }
			echo "$n sh tests/e2e/$n.sh"
		done
	else
		for t in tests/e2e/test_*.sh; do
			[ -f "$t" ] && echo "$(basename "$t" .sh) sh $t"
		done
	fi >>"$work/list"
fi
awk 'FILENAME == ARGV[1] { s[$1] = $2; next } { print (($1 in s) ? s[$1] : 999999), $0 }' "$times" "$work/list" |
	sort -k1,1nr | cut -d' ' -f2- | sed "s|^|$work |" |
	xargs -P "$jobs" -L 1 sh tests/run.sh --one

cat "$work"/*.res >"$work/log" 2>/dev/null
# The times of this run replace those of the tests it ran.
cat "$work"/*.time >"$work/new" 2>/dev/null
awk 'FILENAME == ARGV[1] { t[$1] = $2; next } !($1 in t) { print } END { for (n in t) print n, t[n] }' \
	"$work/new" "$times" >"$work/times" 2>/dev/null && cp "$work/times" "$times" 2>/dev/null
# What each failed check printed, once more at the end, a few lines each:
# CI keeps only the tail of a run's output.
for o in "$work"/*.out; do
	grep -q '^\[Failed' "$o" 2>/dev/null || continue
	awk -v n="$(basename "$o" .out)" '/^\[Failed/ { on = 1; k = 0; print n ": " $0; next }
		/^\[/ { on = 0 } on && k++ < 8 { print }' "$o"
done
grep -E '\[(Failed|Skipped)' "$work/log" || true
passed=$(grep -c '\[Success\]' "$work/log")
failed=$(grep -c '\[Failed' "$work/log")
skipped=$(grep -c '\[Skipped' "$work/log")
[ "$skipped" -gt 0 ] && echo "($skipped skipped)"
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
