# SPDX-License-Identifier: MIT
# 20-bytes.sh — experiment bytes per sample: the experiment directory's size
# over overview.samples, for ~1.5 s runs of each workload (CPU-bound,
# call-heavy, always-new stacks) at -F 1000 (3 runs,
# the median is judged), and perf.data's size over its SAMPLE events for
# `perf record --call-graph dwarf` (one run).  The 1M-sample experiments of
# section 3 give the long-run figure.
section "2. Experiment bytes per sample (-F 1000, ~1.5 s runs)"

why=$(perf_why)
d=$OUT/bytes
rm -rf "$d" && mkdir -p "$d"
line() { printf '  %-9s %-6s %8d %12d %12d %12d   %s, %s, %s\n' "$@"; }
printf '  %-9s %-6s %8s %12s %12s %12s   %s\n' prog tool samples "file bytes" "du apparent" "du alloc" \
	"bytes/sample (files, apparent, alloc)"
for w in cpu calls newstacks; do
	case $w in
	cpu) units=$CPU_UNITS label="CPU-bound" ;;
	calls) units=$CALLS_UNITS label="call-heavy" ;;
	*) units=$NEWSTACKS_UNITS label="always-new stacks" ;;
	esac
	: >"$d/$w.per"
	for r in 1 2 3; do
		e=$d/$w.$r.exp
		"$TALLY" record -F 1000 -o "$e" -- "$BIN/$w" "$units" >/dev/null 2>"$d/$w.tally.err" || continue
		n=$(tally_samples "$e")
		[ -n "$n" ] && [ "$n" -gt 0 ] || continue
		read -r sum app alloc <<<"$(bytes_of "$e")"
		z=$(tb zeros "$e")
		line $w tally "$n" "$sum" "$app" "$alloc" "$(ratio "$sum" "$n")" "$(ratio "$app" "$n")" "$(ratio "$alloc" "$n")"
		note "       files: $(cd "$e" && find . -type f -printf '%P=%s ' | sort)"
		note "       of which $z bytes are all-zero 4 KiB pages (reserved, unused); without them $(ratio $((sum - z)) "$n") bytes/sample"
		ratio "$sum" "$n" 3 >>"$d/$w.per"
	done
	if [ -s "$d/$w.per" ]; then
		read -r med lo hi <<<"$(tb stats <"$d/$w.per")"
		t="$(fmt "$med" 1) [$(fmt "$lo" 1)-$(fmt "$hi" 1)]"
	else
		t="n/a (no samples: $(tail -n 1 "$d/$w.tally.err"))"
	fi
	if [ -n "$why" ]; then
		peer="perf: n/a ($why)"
	elif perf record -q -F 1000 --call-graph dwarf -o "$d/$w.perf.data" -- "$BIN/$w" "$units" \
		>/dev/null 2>"$d/$w.perf.err" && pn=$(perf_samples "$d/$w.perf.data") && [ -n "$pn" ]; then
		read -r sum app alloc <<<"$(bytes_of "$d/$w.perf.data")"
		p=$(ratio "$sum" "$pn")
		line $w perf "$pn" "$sum" "$app" "$alloc" "$p" "$(ratio "$app" "$pn")" "$(ratio "$alloc" "$pn")"
		peer="perf dwarf: $p"
	else
		peer="perf: n/a ($(tail -n 1 "$d/$w.perf.err"))"
	fi
	row "bytes/sample, $label ~1.5 s run" "$t" "<= 64" "$peer"
done
rm -f "$d"/*.perf.data
