# SPDX-License-Identifier: MIT
# 71-heapscale.sh — heap tracing at scale, beside heaptrack and massif:
# tests/progs/heapmix.c (6 M allocations of mixed sizes and their releases
# on 2 threads) and bench/mapchurn.cpp (a C++ std::map<std::string,
# std::string> churn, ~5 M operator new), each bare, under `tally record -H`
# (clock on at its default rate), heaptrack and valgrind's massif where
# installed, and under bench/heapfloor.c (interposition alone: the floor).
# Bare, the floor and tally run in turn in each of $HEAPSCALE_ROUNDS rounds
# (their CPU ratios: the median of the rounds'); per tool, the median of
# its runs (massif: one):
# CPU time (user + system, the tool's processes included) over bare; bytes
# written per event (allocation or release: the experiment, heaptrack's
# .zst, massif's file); the largest resident set of the recording (tally
# record and the program, heaptrack's interpreter); clock samples lost
# (tally); the report's CPU time and largest resident set (tally report;
# heaptrack_print; ms_print).  Targets (issue 20): CPU <= 1.5x, <= 2 bytes
# per event, tally record <= 64 MB, no sample lost, a report no slower and
# no larger than heaptrack_print's.
section "7b. Heap tracing at scale: tally -H beside heaptrack and massif"

d=$OUT/heapscale
rm -rf "$d" && mkdir -p "$d"
R=${HEAPSCALE_ROUNDS:-3}
MIX_N=${HEAPSCALE_MIX:-3000000}      # per thread, 2 threads
MAP_N=${HEAPSCALE_MAP:-2000000}      # rounds (~2.5 operator new each)
ru() { python3 "$BENCH/rusage.py" "$@"; }
med() { tb stats | awk '{print $1}'; }
mb() { awk -v k="$1" 'BEGIN {printf "%.0f", k / 1024}'; }
ratio3() { python3 -c "import sys; a, b = map(float, sys.argv[1:]); print(f'{a / b:.2f}' if b else 'n/a')" "$@"; }

# measure W LABEL OUT CMD...: R runs (massif 1) of CMD, which writes OUT
# (removed before each run: a path under $d, nothing else); the medians of
# CPU, max RSS (KB) into $d/W.LABEL.{cpu,rss}.
measure() {
	local w=$1 label=$2 out=$3 rounds=$R
	shift 3
	case $out in "$d"/*) ;; *) echo "  measure: $out is not under $d" >&2; return 1 ;; esac
	[ "$label" = massif ] && rounds=1
	: >"$d/$w.$label.runs"
	for i in $(seq "$rounds"); do
		rm -rf "$out" "$out".*
		ru "$d/$w.$label.stdout" -- "$@" >>"$d/$w.$label.runs" || { echo "  $w $label failed: $(tail -n 1 "$d/$w.$label.stdout.err")"; return 1; }
	done
	awk '{print $1}' "$d/$w.$label.runs" | med >"$d/$w.$label.cpu"
	awk '{print $2}' "$d/$w.$label.runs" | med >"$d/$w.$label.rss"
}

# interleaved W CMD...: R rounds of bare, the floor and tally -H, one of
# each per round, so that the machine's load moves all three alike (each
# tool's rounds back to back made tally's ratio move by 10% from one run of
# the section to the next at load 5-10); each one's median CPU and max RSS
# into $d/W.LABEL.{cpu,rss}, and the median of the per-round ratios to bare
# into $d/W.LABEL.ratio.  false if bare or tally failed.
interleaved() {
	local w=$1 l i
	shift
	for l in bare floor tally; do : >"$d/$w.$l.runs"; done
	for i in $(seq "$R"); do
		rm -rf "$d/$w.exp"
		ru "$d/$w.bare.stdout" -- "$@" >>"$d/$w.bare.runs" || { echo "  $w bare failed: $(tail -n 1 "$d/$w.bare.stdout.err")"; return 1; }
		ru "$d/$w.floor.stdout" -- env LD_PRELOAD="$BIN/libheapfloor.so" "$@" >>"$d/$w.floor.runs" ||
			echo "  $w floor failed: $(tail -n 1 "$d/$w.floor.stdout.err")"
		ru "$d/$w.tally.stdout" -- "$TALLY" record -H -o "$d/$w.exp" -- "$@" >>"$d/$w.tally.runs" ||
			{ echo "  $w tally failed: $(tail -n 1 "$d/$w.tally.stdout.err")"; return 1; }
	done
	for l in bare floor tally; do
		[ -s "$d/$w.$l.runs" ] || continue
		awk '{print $1}' "$d/$w.$l.runs" | med >"$d/$w.$l.cpu"
		awk '{print $2}' "$d/$w.$l.runs" | med >"$d/$w.$l.rss"
		[ "$(wc -l <"$d/$w.$l.runs")" = "$R" ] &&
			paste "$d/$w.$l.runs" "$d/$w.bare.runs" | awk '{print $1 / $4}' | med >"$d/$w.$l.ratio"
	done
	return 0
}

run_workload() {
	local w=$1 events=$2
	shift 2
	interleaved "$w" "$@" || return
	local bare=$(cat "$d/$w.bare.cpu")
	note "$w: $events events (allocations and releases), bare $bare s of CPU (median of $R; bare, floor and tally interleaved, their ratios the median of the rounds')"
	printf '  %-10s %8s %12s %14s %10s %12s %12s\n' tool "CPU x" "bytes/event" "record MB" "lost" "report s" "report MB"
	# the floor: interposition alone (bench/heapfloor.c)
	if [ -s "$d/$w.floor.ratio" ]; then
		printf '  %-10s %8.2f %12s %14s %10s %12s %12s\n' floor "$(cat "$d/$w.floor.ratio")" - - - - -
		eval "F_$w=$(printf '%.2f' "$(cat "$d/$w.floor.ratio")")"
	fi
	# tally
	if [ -s "$d/$w.tally.ratio" ]; then
		local bytes=$(du -sb "$d/$w.exp" | cut -f1)
		local lost=$("$TALLY" report "$d/$w.exp" --format json 2>/dev/null |
			python3 -c "import json, sys; print(json.load(sys.stdin)['overview'].get('lost.reentry', 0))")
		ru "$d/$w.rep.txt" -- "$TALLY" report "$d/$w.exp" >"$d/$w.rep.ru"
		read -r rcpu rrss _ <"$d/$w.rep.ru"
		tx=$(printf '%.2f' "$(cat "$d/$w.tally.ratio")")
		tb_=$(ratio3 "$bytes" "$events")
		trss=$(mb "$(cat "$d/$w.tally.rss")")
		printf '  %-10s %8s %12s %14s %10s %12s %12s\n' tally "$tx" "$tb_" "$trss" "$lost" "$rcpu" "$(mb "$rrss")"
		eval "T_$w=\"$tx $tb_ $trss $lost $rcpu $(mb "$rrss")\""
	fi
	# heaptrack
	if command -v heaptrack >/dev/null && command -v heaptrack_print >/dev/null &&
		measure "$w" heaptrack "$d/$w.ht" heaptrack -o "$d/$w.ht" "$@"; then
		local f=$(ls "$d/$w".ht.* 2>/dev/null | head -n 1)
		local bytes=$(stat -c %s "$f")
		ru "$d/$w.htp.txt" -- heaptrack_print "$f" >"$d/$w.htp.ru"
		read -r hcpu hrss _ <"$d/$w.htp.ru"
		local hx=$(ratio3 "$(cat "$d/$w.heaptrack.cpu")" "$bare")
		printf '  %-10s %8s %12s %14s %10s %12s %12s\n' heaptrack "$hx" \
			"$(ratio3 "$bytes" "$events")" "$(mb "$(cat "$d/$w.heaptrack.rss")")" - "$hcpu" "$(mb "$hrss")"
		eval "H_$w=\"$hcpu $(mb "$hrss") $hx $(ratio3 "$bytes" "$events") $(mb "$(cat "$d/$w.heaptrack.rss")")\""
	else
		note "heaptrack: not installed (scripts/install-deps.sh bench) or failed"
	fi
	# massif (one run)
	if command -v valgrind >/dev/null &&
		measure "$w" massif "$d/$w.massif" valgrind -q --tool=massif --massif-out-file="$d/$w.massif" "$@"; then
		local bytes=$(stat -c %s "$d/$w.massif")
		ru "$d/$w.msp.txt" -- ms_print "$d/$w.massif" >"$d/$w.msp.ru"
		read -r mcpu mrss _ <"$d/$w.msp.ru"
		printf '  %-10s %8s %12s %14s %10s %12s %12s\n' massif "$(ratio3 "$(cat "$d/$w.massif.cpu")" "$bare")" \
			"$(ratio3 "$bytes" "$events")" "$(mb "$(cat "$d/$w.massif.rss")")" - "$mcpu" "$(mb "$mrss")"
	fi
}

g++ -O2 -g -o "$BIN/mapchurn" "$BENCH/mapchurn.cpp" 2>"$d/cxx.err" || note "mapchurn: g++ failed: $(tail -n 1 "$d/cxx.err")"
cc -O2 -g -pthread -o "$BIN/heapmix" "$ROOT/tests/progs/heapmix.c"
cc -O2 -g -fno-omit-frame-pointer -shared -fPIC -o "$BIN/libheapfloor.so" "$BENCH/heapfloor.c" -ldl

# Events: heapmix's allocations (its own counts) twice (each is released,
# but for 20 blocks); mapchurn's operator new calls twice.
run_workload heapmix $((2 * 2 * MIX_N)) "$BIN/heapmix" "$MIX_N" 2
if [ -x "$BIN/mapchurn" ]; then
	news=$("$BIN/mapchurn" "$MAP_N" | awk '/^news/ {print $2}')
	run_workload mapchurn $((2 * news)) "$BIN/mapchurn" "$MAP_N"
fi

for w in heapmix mapchurn; do
	eval "t=\${T_$w:-}; h=\${H_$w:-}; f=\${F_$w:-n/a}"
	[ -n "$t" ] || continue
	set -- $t ${h:-- - - - -}
	row "$w -H: CPU over bare" "$1" "<= 1.5" "heaptrack $9; floor $f"
	row "$w -H: bytes per event" "$2" "<= 2" "heaptrack ${10}"
	row "$w -H: tally record max RSS (MB)" "$3" "<= 64" "heaptrack ${11}"
	row "$w -H: clock samples lost" "$4" "<= 0" "-"
	if [ -n "$h" ]; then
		row "$w -H: report CPU s (heaptrack_print's)" "$5" "<= $7" "heaptrack_print $7 s"
		row "$w -H: report max RSS MB (heaptrack_print's)" "$6" "<= $8" "heaptrack_print $8 MB"
	fi
done
rm -rf "$d"/*.exp "$d"/*.ht.* "$d"/*.massif
