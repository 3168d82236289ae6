# test_diff.sh — `tally diff A B` on two runs of tests/progs/sizes at sizes 1
# and 3: scaled() moves by twice its first time (ratio 3), fixed() does not
# move; normalised, scaled()'s share grows by half; functions of another
# program are "new" and "gone"; `tally html --diff` draws it in Chromium.
. "$(dirname "$0")/lib.sh"
cc_prog sizes
cc_prog spin
JS="$E2E/../js"
SHOTS="${TALLY_BUILD:-$T}/test-html"
mkdir -p "$SHOTS"
cd "$T"
"$TALLY" record -o z1.exp ./sizes 1 2>/dev/null
"$TALLY" record -o z3.exp ./sizes 3 2>/dev/null
"$TALLY" record -o sp.exp ./spin 0.2 2>/dev/null

check diff_scaled_moves_by_its_size sh -c '
	"$TALLY" diff z1.exp z3.exp --format json >d.json && python3 -c "
import json; d = json.load(open(\"d.json\"))
f = {r[\"name\"]: r for r in d[\"functions\"]}
s, x = f[\"scaled\"], f[\"fixed\"]
assert d[\"functions\"][0][\"name\"] == \"scaled\", d[\"functions\"][0]
# CPU time per unit of work varies by up to a quarter on a loaded shared
# machine: the checks allow for that, and still tell 2 units from 0
unit = (s[\"a_excl_cpu\"] + x[\"a_excl_cpu\"] + x[\"b_excl_cpu\"]) / 3
assert abs(s[\"delta_excl_cpu\"] - 2 * unit) < 0.35 * 2 * unit, (s, unit)
assert 2.3 < s[\"ratio_excl_cpu\"] < 3.7, s
assert 0.7 < x[\"ratio_excl_cpu\"] < 1.4 and abs(x[\"delta_excl_cpu\"]) < 0.25 * s[\"delta_excl_cpu\"], x
assert d[\"paths\"][0][\"name\"].endswith(\"main;scaled\"), d[\"paths\"][0]
assert s[\"status\"] == \"\" and x[\"status\"] == \"\""'
check diff_normalised_compares_shares sh -c '
	"$TALLY" diff z1.exp z3.exp --normalised --format json >n.json && python3 -c "
import json; d = json.load(open(\"n.json\"))
f = {r[\"name\"]: r for r in d[\"functions\"]}
assert 1.2 < f[\"scaled\"][\"ratio_excl_cpu\"] < 1.8, f[\"scaled\"]
assert 0.3 < f[\"fixed\"][\"ratio_excl_cpu\"] < 0.7, f[\"fixed\"]"'
check diff_marks_new_and_gone sh -c '
	"$TALLY" diff sp.exp z1.exp --format csv --limit 0 >g.csv &&
	grep -q ",new,scaled," g.csv && grep -q ",gone,leaf_two," g.csv'
check diff_needs_two_experiments sh -c '"$TALLY" diff z1.exp 2>/dev/null; test $? -eq 64'
if need browser html_diff_in_chromium; then
	check html_diff_in_chromium sh -c "
		\"\$TALLY\" html --diff z1.exp z3.exp -o \"$SHOTS/diff.html\" &&
		\"\$TALLY\" report z1.exp --format json >t1.json && \"\$TALLY\" report z3.exp --format json >t3.json &&
		timeout 100 node \"$JS/check_html.mjs\" \"$SHOTS/diff.html\" \"$SHOTS/diff.png\" scaled fixed >r.json &&
		python3 -c \"
import json, re
r = json.load(open('r.json'))
assert r['zoomName'] == 'scaled' and r['matched'] >= 1, r
s = open('$SHOTS/diff.html').read()
d = json.loads(re.search(r'id=.tally-data.>(.*?)</script>', s, re.S).group(1))
assert d['diff'] and len(d['tree']['a'][0]) == len(d['tree']['v'][0])
# each side's root is that experiment's sampled CPU (in us), whatever the
# machine's load made of the two runs
t1, t3 = (json.load(open(f))['overview']['sampled_cpu_s'] * 1e6 for f in ('t1.json', 't3.json'))
assert abs(d['tree']['a'][0][0] - t1) <= 1 and abs(d['tree']['v'][0][0] - t3) <= 1, (d['tree']['a'][0][0], t1, d['tree']['v'][0][0], t3)\""
fi
