# SPDX-License-Identifier: MIT
# lib.sh — shared by bench/run.sh and the section scripts (bash, sourced).
#
# Variables: ROOT (the checkout), BENCH (bench/), OUT (scratch: build/bench),
# BIN (the workloads, built by run.sh), TALLY, ROUNDS (interleaved rounds for
# timings), NCPU, CPU_UNITS / CALLS_UNITS / NEWSTACKS_UNITS (workload sizes of
# ~1.5 s of CPU bare, calibrated by run.sh).
# Functions: section TITLE, note TEXT, tb ARGS (bench/tb.py), row METRIC VALUE
# TARGET PEER (a line of the final summary), perf_why / gprofng_why (empty if
# the peer works, else why not), bytes_of DIR, tally_samples EXP,
# perf_samples FILE, fmt X [DIGITS], ratio A B [DIGITS].

ROOT=${ROOT:-$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)}
BENCH=$ROOT/bench
OUT=${BENCH_OUT:-$ROOT/build/bench}
BIN=$OUT/bin
TALLY=${TALLY:-$ROOT/build/bin/tally}
SUMMARY=$OUT/summary.tsv
ROUNDS=${BENCH_ROUNDS:-11}
NCPU=$(nproc 2>/dev/null || echo 1)
export ROOT BENCH OUT BIN TALLY SUMMARY ROUNDS NCPU

tb() { python3 "$BENCH/tb.py" "$@"; }
section() { printf '\n== %s ==\n' "$*"; }
note() { printf '  %s\n' "$*"; }
row() { tb row "$SUMMARY" "$@"; }

# fmt X [DIGITS]: a number rounded for display ("n/a" stays).
fmt() {
	case $1 in
	'' | n/a*) printf '%s' "${1:-n/a}" ;;
	*) printf "%.${2:-3}f" "$1" ;;
	esac
}

# peer_why NAME PROBE...: prints nothing if the peer NAME is installed and
# the probe command (recording /bin/true) succeeds here, else the reason;
# cached in $OUT/NAME.why.
peer_why() {
	local name=$1
	shift
	if [ ! -f "$OUT/$name.why" ]; then
		rm -rf "$OUT/probe.$name" "$OUT/probe.$name.er"
		if ! command -v "$name" >/dev/null 2>&1; then
			echo "$name not installed" >"$OUT/$name.why"
		elif ! "$@" >/dev/null 2>"$OUT/probe.$name.err"; then
			echo "$name failed: $(tail -n 1 "$OUT/probe.$name.err")" >"$OUT/$name.why"
		else
			: >"$OUT/$name.why"
		fi
		rm -rf "$OUT/probe.$name" "$OUT/probe.$name.er"
	fi
	cat "$OUT/$name.why"
}

# perf_why, gprofng_why: why `perf record --call-graph dwarf` or `gprofng
# collect app` cannot be measured here, or nothing.
perf_why() {
	peer_why perf perf record -q -F 1000 --call-graph dwarf -o "$OUT/probe.perf" -- /bin/true
}

gprofng_why() {
	peer_why gprofng gprofng collect app -O "$OUT/probe.gprofng.er" /bin/true
}

# bytes_of PATH: "SUM APPARENT ALLOCATED" — the sum of the sizes of the
# regular files under PATH, `du -B1 --apparent-size` and `du -B1`.
bytes_of() {
	local sum app alloc
	sum=$(find "$1" -type f -printf '%s\n' | awk '{s += $1} END {printf "%.0f", s}')
	app=$(du -s -B1 --apparent-size "$1" | cut -f1)
	alloc=$(du -s -B1 "$1" | cut -f1)
	echo "$sum $app $alloc"
}

# tally_samples EXP: overview.samples of `tally report EXP --format json`.
tally_samples() {
	"$TALLY" report "$1" --format json 2>/dev/null |
		python3 -c 'import json,sys; print(json.load(sys.stdin)["overview"]["samples"])' 2>/dev/null
}

# perf_samples FILE: the SAMPLE events in a perf.data file (perf report --stats).
perf_samples() {
	perf report -i "$1" --stats 2>/dev/null | awk '/SAMPLE events:/ {print $3; exit}'
}

# ratio A B [DIGITS]
# per_call_row JSON TOOL N K ROW WHAT: the summary row ROW of TOOL's median
# wall ratio in JSON (tb time's), and a note of the extra nanoseconds per
# call, its median wall difference over N iterations of K calls each
# ("TOOL: extra per WHAT: X ns ..."); "n/a" when the traced run failed.
per_call_row() {
	r=$(tb get "$1" "$2.ratio_med")
	t=$(tb get "$1" "$2.diff_med")
	if [ -z "$r" ]; then
		row "$5" "n/a (the traced run failed)" "-" "-"
		return
	fi
	note "$2: extra per $6: $(python3 -c "import sys; print(f'{float(sys.argv[1]) * 1e9 / (float(sys.argv[3]) * float(sys.argv[2])):.1f}')" "$t" "$3" "$4") ns"
	row "$5" "$(fmt "$r" 3)" "-" "-"
}
ratio() { python3 -c "import sys; a, b = float(sys.argv[1]), float(sys.argv[2]); print(f'{a / b:.${3:-1}f}')" "$1" "$2"; }
