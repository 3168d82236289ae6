#!/bin/sh
# run.sh — run every test and print one summary line, `N passed, N failed`.
#
#   tests/run.sh [--unit-only] BUILD [BUILD...]
#
# Unit tests (BUILD/tests/test_*) run for every BUILD given (plain and
# sanitized); the end-to-end scripts (tests/e2e/test_*.sh) run against the
# first BUILD's tally.  Each test prints `[Success] name`, `[Failed] name` or
# `[Skipped: why] name`; this script counts those lines.  A test program that
# crashes or prints no result counts as one failure.  Each test program has
# TALLY_TEST_TIMEOUT seconds (default 600); past that it is killed, with every
# process it started (timeout(1) signals its process group), and counts as
# one failure.
set -u
cd "$(dirname "$0")/.."
unit_only=0
[ "${1:-}" = "--unit-only" ] && { unit_only=1; shift; }
[ $# -ge 1 ] || { echo "usage: $0 [--unit-only] BUILD..." >&2; exit 64; }

log=$(mktemp)
trap 'rm -f "$log"' EXIT
failed_runs=0

limit=${TALLY_TEST_TIMEOUT:-600}

run() {   # run NAME CMD...: run one test program, keep its result lines
	name=$1; shift
	out=$(mktemp)
	timeout -k 10 "$limit" "$@" >"$out" 2>&1 </dev/null
	rc=$?
	if [ $rc -eq 124 ]; then
		echo "[Failed] timed out after $limit s (TALLY_TEST_TIMEOUT)" >>"$out"
	fi
	grep -E '^\[(Success|Failed|Skipped)' "$out" | sed "s|^|$name: |" >>"$log"
	if grep -q '^\[Failed' "$out" || { [ $rc -ne 0 ] && ! grep -q '^\[Failed' "$out"; }; then
		echo "---- $name (exit $rc)"
		cat "$out"
		if ! grep -q '^\[' "$out" || ! grep -q '^\[Failed' "$out"; then
			echo "$name: [Failed] exited with status $rc" >>"$log"
		fi
	fi
	rm -f "$out"
}

for b in "$@"; do
	for t in "$b"/tests/test_*; do
		[ -x "$t" ] || continue
		run "$(basename "$b")/$(basename "$t")" "$t"
	done
done
if [ $unit_only -eq 0 ]; then
	export TALLY="$PWD/$1/bin/tally" TALLY_BUILD="$PWD/$1"
	for t in tests/e2e/test_*.sh; do
		[ -f "$t" ] || continue
		run "$(basename "$t" .sh)" sh "$t"
	done
fi
grep -E '\[(Failed|Skipped)' "$log" || true
passed=$(grep -c '\[Success\]' "$log")
failed=$(grep -c '\[Failed' "$log")
skipped=$(grep -c '\[Skipped' "$log")
[ "$skipped" -gt 0 ] && echo "($skipped skipped)"
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
