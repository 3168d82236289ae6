# SPDX-License-Identifier: MIT
# 97-html.sh — `tally html` on a one-million-sample experiment: the time to
# write the page (target < 2 s), its size (< 5 MB) and the time headless
# Chromium takes to show its flame graph (< 3 s: navigation start to the
# first flame graph painted, tests/js/time_html.mjs).
#
# The experiment is the call-heavy workload (deep stacks, most of them
# distinct: the largest call tree) on 4 threads at -F 20000, sized by a
# 2-second pilot to just above 1,000,000 samples, as in section 3.
section "97. HTML report of a 1,000,000-sample experiment"

d=$OUT/html
rm -rf "$d" && mkdir -p "$d"
HZ=20000
WANT=1000000
THR=4
JS=$ROOT/tests/js
scale() { python3 -c "import sys; u, g, w, m = map(float, sys.argv[1:]); print(max(0.5, round(u * m * w / g, 1)))" "$@"; }
record() {
	rm -rf "$d/calls.exp"
	"$TALLY" record -F $HZ -o "$d/calls.exp" -- "$BIN/calls" -t "$1" $THR >/dev/null 2>"$d/rec.err" &&
		tally_samples "$d/calls.exp"
}

note "machine load before: $(cut -d' ' -f1-3 /proc/loadavg) (1, 5, 15 min) on $NCPU CPUs"
pn=$(record 2) && [ -n "$pn" ] && [ "$pn" -gt 0 ] || { row "html write time, 1M samples (s)" "n/a (pilot failed)" "< 2" "-"; return 0; }
secs=$(scale 2 "$pn" $WANT 1.06)
n=$(record "$secs")
if [ -n "$n" ] && [ "$n" -lt $WANT ]; then
	secs=$(scale "$secs" "$n" $WANT 1.08)
	n=$(record "$secs")
fi
note "experiment: tally record -F $HZ -- calls -t $secs $THR: $n samples," \
	"$("$TALLY" export "$d/calls.exp" --format collapsed 2>/dev/null | wc -l) distinct stacks"

tb time --rounds 5 --json "$d/times.json" --dir "$d/runs" \
	--cmd html "$TALLY html $d/calls.exp -o $d/page.html"
t=$(tb get "$d/times.json" html.wall_med)
size=$(stat -c %s "$d/page.html")
nodes=$(python3 -c "
import json, re, sys
s = open(sys.argv[1]).read()
d = json.loads(re.search(r'id=.tally-data.>(.*?)</script>', s, re.S).group(1))
print(len(d['tree']['f']), d.get('pruned', 0))" "$d/page.html")
note "page: $size bytes; call-tree nodes embedded, folded: $nodes"
row "html write time, $n samples (s)" \
	"$(fmt "$t") [$(fmt "$(tb get "$d/times.json" html.wall_min)")-$(fmt "$(tb get "$d/times.json" html.wall_max)")]" "< 2" "-"
row "html size, $n samples (MB)" "$(python3 -c "print(f'{$size / 1e6:.2f}')")" "< 5" "-"

if [ ! -d "$JS/node_modules/playwright-core" ] || [ ! -x "${CHROMIUM:-/usr/bin/chromium}" ]; then
	row "flame graph shown in Chromium (s)" "n/a (chromium or tests/js/node_modules missing)" "< 3" "-"
elif r=$(timeout 600 node "$JS/time_html.mjs" "$d/page.html" 5 2>"$d/render.err"); then
	note "Chromium: $r"
	med=$(python3 -c "import json, sys; print(json.loads(sys.argv[1])['median_ms'] / 1000)" "$r")
	rng=$(python3 -c "import json, sys; m = json.loads(sys.argv[1])['ms']; print(f'{min(m) / 1000:.3f}-{max(m) / 1000:.3f}')" "$r")
	row "flame graph shown in Chromium, $n samples (s)" "$(fmt "$med") [$rng]" "< 3" "-"
else
	row "flame graph shown in Chromium (s)" "n/a ($(tail -n 1 "$d/render.err"))" "< 3" "-"
fi
note "machine load after: $(cut -d' ' -f1-3 /proc/loadavg)"
