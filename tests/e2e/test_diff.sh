# test_diff.sh — `tally diff A B` on two runs of tests/progs/sizes at sizes 1
# and 3: scaled() moves by twice its first time (ratio 3), fixed() does not
# move; normalised, scaled()'s share grows by half; functions of another
# program are "new" and "gone"; `tally html --diff` draws it in Chromium.
# A renamed executable (sizes -> sizes2) matches by function name; one
# metric by default under a readable head; normalised columns add up; no
# change below the resolution shows a sign; CSV is one table, exact.
# Repeated runs on each side compare means, their noise from the spread.
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
cp sizes sizes2
"$TALLY" record -o r1.exp ./sizes2 1 2>/dev/null

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
assert s[\"status\"] == \"\" and x[\"status\"] in (\"\", \"noise\"), (s, x)"'
# A change is noise when within two standard deviations of the sampling
# error from the rows' sample counts (issue 21): scaled's change is real,
# a run against itself is all noise, and the +-2sd column is the formula's.
check diff_marks_changes_within_the_noise sh -c '
	"$TALLY" diff z1.exp z3.exp --metric cpu,samples --format json >ns.json &&
	"$TALLY" diff z1.exp z1.exp --format json >self.json && python3 -c "
import json, math
d = json.load(open(\"ns.json\")); hd = d[\"diff\"]
f = {r[\"name\"]: r for r in d[\"functions\"]}
s = f[\"scaled\"]
na, nb, ta, tb = s[\"a_excl_samples\"], s[\"b_excl_samples\"], hd[\"a_samples\"], hd[\"b_samples\"]
pa, pb = hd[\"a_cpu\"] / ta, hd[\"b_cpu\"] / tb
want = 2 * math.sqrt(pa * pa * na * (1 - na / ta) + pb * pb * nb * (1 - nb / tb))
print(\"scaled\", s[\"delta_excl_cpu\"], \"+-\", s[\"noise\"], \"want\", want)
assert abs(s[\"noise\"] - want) <= 1e-6 + 1e-3 * want, (s, want)
assert 0 < s[\"noise\"] < abs(s[\"delta_excl_cpu\"]) and s[\"status\"] == \"\", s
me = json.load(open(\"self.json\"))
assert me[\"functions\"] and all(r[\"status\"] == \"noise\" for r in me[\"functions\"]), me[\"functions\"]"'
check diff_normalised_compares_shares sh -c '
	"$TALLY" diff z1.exp z3.exp --normalised --format json >n.json && python3 -c "
import json; d = json.load(open(\"n.json\"))
f = {r[\"name\"]: r for r in d[\"functions\"]}
assert 1.2 < f[\"scaled\"][\"ratio_excl_cpu\"] < 1.8, f[\"scaled\"]
assert 0.3 < f[\"fixed\"][\"ratio_excl_cpu\"] < 0.7, f[\"fixed\"]"'
check diff_marks_new_and_gone sh -c '
	"$TALLY" diff sp.exp z1.exp --format csv --limit 0 >g.csv &&
	grep -q ",new,scaled," g.csv && grep -q ",gone,leaf_two," g.csv'
check diff_renamed_binary_matches_by_name sh -c '
	"$TALLY" diff z1.exp r1.exp --format json --limit 0 >r.json && python3 -c "
import json; d = json.load(open(\"r.json\"))
f = {r[\"name\"]: r for r in d[\"functions\"]}
for n in (\"scaled\", \"fixed\", \"main\"):
    assert f[n][\"status\"] in (\"\", \"noise\") and f[n][\"object\"] == \"sizes -> sizes2\", f[n]
assert not [r for r in d[\"functions\"] if r[\"status\"] in (\"new\", \"gone\") and r[\"object\"].startswith(\"sizes\")], d[\"functions\"]
assert \"sizes (A) is sizes2 (B)\" in d[\"diff\"][\"renamed\"], d[\"diff\"]"'
check html_diff_renamed_binary_matches sh -c '
	"$TALLY" html --diff z1.exp r1.exp -o r.html && python3 -c "
import json, re
from tally_page import page_json
s = open(\"r.html\").read()
d = json.loads(page_json(s))
names = [f[0] for f in d[\"funcs\"]]
assert names.count(\"scaled\") == 1 and names.count(\"main\") == 1, names"'
check diff_default_one_metric_readable_head sh -c '
	"$TALLY" diff z1.exp z3.exp >t.txt && cat t.txt &&
	grep -Eq "^  CPU +A [0-9]+\.[0-9]{3} s, B [0-9]+\.[0-9]{3} s: [+-][0-9]+\.[0-9]{3} s \([+-][0-9]+\.[0-9]%\)$" t.txt &&
	grep -q "^  Also in both .*samples" t.txt && test "$(grep -c "B/A" t.txt)" -eq 2 &&
	! grep -qi "samples A" t.txt &&
	"$TALLY" diff z1.exp z3.exp --metric cpu,samples | grep -q "Samples A"'
check diff_normalised_columns_add_up sh -c '
	"$TALLY" diff z1.exp z3.exp --normalised --format csv --limit 0 >n.csv && python3 -c "
import csv
rows = list(csv.DictReader(open(\"n.csv\")))
assert rows[0][\"table\"] == \"total\" and abs(float(rows[0][\"a_excl_cpu\"]) - float(rows[0][\"b_excl_cpu\"])) < 1e-6, rows[0]
n = 0
for r in rows:
    for k in (\"excl\", \"incl\"):
        if r[\"a_%s_cpu\" % k] == \"\": continue
        a, b, dl = (float(r[\"%s_%s_cpu\" % (x, k)]) for x in (\"a\", \"b\", \"delta\"))
        assert abs(a + dl - b) < 2e-9, r
        n += 1
assert n > 4, n"'
check diff_no_sign_below_resolution sh -c '
	"$TALLY" diff z1.exp z3.exp --normalised --limit 0 --metric cpu,samples >s.txt &&
	"$TALLY" diff sp.exp z1.exp --normalised --limit 0 --metric cpu,samples >>s.txt &&
	! grep -En "(^| )-0(\.0+)?( |$)" s.txt'
check diff_csv_one_exact_table sh -c '
	"$TALLY" diff z1.exp z3.exp --format csv --limit 0 >c.csv &&
	"$TALLY" report z3.exp --format json >o3.json && python3 -c "
import csv, json
rows = list(csv.reader(open(\"c.csv\")))
head = rows[0]
assert head[0] == \"table\" and all(len(r) == len(head) for r in rows), [r for r in rows if len(r) != len(head)][:3]
parts = [r[0] for r in rows[1:]]
assert parts[0] == \"total\" and \"functions\" in parts and \"paths\" in parts and set(parts) == {\"total\", \"functions\", \"paths\"}, set(parts)
t = dict(zip(head, rows[1]))
o = json.load(open(\"o3.json\"))[\"overview\"][\"sampled_cpu_s\"]
assert abs(float(t[\"b_excl_cpu\"]) - o) < 1e-9, (t, o)
# exact: to the ns, not rounded to ms
assert any(len(r[1].split(\".\")[-1]) > 3 for r in rows[1:] if \".\" in r[1]), rows[:4]"'
check diff_needs_two_experiments sh -c '"$TALLY" diff z1.exp 2>/dev/null; test $? -eq 64'
# Repeated runs (issue 21): `diff A1 A2 A3 -- B1 B2 B3` compares each side's
# mean, and a row's +-2sd is Welch's from the runs' spread, here recomputed
# from each run's own report: scaled's change is real, fixed's is noise
# unless the runs agree more closely than its change; a side against
# itself is all noise.  Three operands without `--`, or an empty side, are
# usage errors.
"$TALLY" record -o z1b.exp ./sizes 1 2>/dev/null
"$TALLY" record -o z1c.exp ./sizes 1 2>/dev/null
"$TALLY" record -o z3b.exp ./sizes 3 2>/dev/null
"$TALLY" record -o z3c.exp ./sizes 3 2>/dev/null
check diff_repeated_runs_mean_and_spread sh -c '
	"$TALLY" diff --format json z1.exp z1b.exp z1c.exp -- z3.exp z3b.exp z3c.exp >rr.json &&
	"$TALLY" diff z1.exp z1b.exp z1c.exp -- z1.exp z1b.exp z1c.exp --format json >rself.json &&
	for e in z1 z1b z1c z3 z3b z3c; do "$TALLY" report $e.exp --format json >run_$e.json || exit 1; done &&
	python3 -c "
import json, math
def excl(e, name):
    fs = {r[\"name\"]: r for r in json.load(open(\"run_%s.json\" % e))[\"functions\"]}
    return fs[name][\"excl_cpu\"] if name in fs else 0.0
d = json.load(open(\"rr.json\"))
assert d[\"diff\"][\"runs_a\"] == 3 and d[\"diff\"][\"runs_b\"] == 3, d[\"diff\"]
f = {r[\"name\"]: r for r in d[\"functions\"]}
for name in (\"scaled\", \"fixed\"):
    a = [excl(e, name) for e in (\"z1\", \"z1b\", \"z1c\")]
    b = [excl(e, name) for e in (\"z3\", \"z3b\", \"z3c\")]
    ma, mb = sum(a) / 3, sum(b) / 3
    var = lambda v, m: sum((x - m) ** 2 for x in v) / 2
    want = 2 * math.sqrt(var(a, ma) / 3 + var(b, mb) / 3)
    r = f[name]
    print(name, r[\"a_excl_cpu\"], r[\"b_excl_cpu\"], \"+-\", r[\"noise\"], \"want\", ma, mb, want)
    assert abs(r[\"a_excl_cpu\"] - ma) < 1e-6 and abs(r[\"b_excl_cpu\"] - mb) < 1e-6, (r, ma, mb)
    assert abs(r[\"noise\"] - want) < 1e-6 + 1e-3 * want, (r, want)
    assert r[\"status\"] == (\"noise\" if abs(mb - ma) <= want else \"\"), r
assert f[\"scaled\"][\"status\"] == \"\", f[\"scaled\"]
me = json.load(open(\"rself.json\"))
assert me[\"functions\"] and all(r[\"status\"] == \"noise\" for r in me[\"functions\"]), me[\"functions\"]"'
check diff_sides_usage_errors sh -c '
	for args in "z1.exp z1b.exp z3.exp" "z1.exp --" "-- z3.exp" "z1.exp -- z3.exp -- z1b.exp"; do
		"$TALLY" diff $args 2>err; rc=$?
		[ $rc -eq 64 ] && grep -q "two sets of runs" err || { echo "$args: $rc"; cat err; exit 1; }
	done'
if need browser html_diff_in_chromium; then
	check html_diff_in_chromium sh -c "
		\"\$TALLY\" html --diff z1.exp z3.exp -o \"$SHOTS/diff.html\" &&
		\"\$TALLY\" report z1.exp --format json >t1.json && \"\$TALLY\" report z3.exp --format json >t3.json &&
		timeout 100 node \"$JS/check_html.mjs\" \"$SHOTS/diff.html\" \"$SHOTS/diff.png\" scaled fixed >r.json &&
		python3 -c \"
import json, re
from tally_page import page_json
r = json.load(open('r.json'))
assert r['zoomName'] == 'scaled' and r['matched'] >= 1, r
# no change below the resolution with a sign, no share of a negative
bad = [c for c in r['function_cells'] if re.search(r'(^|[ (])-0( |\\.0+ ?%|$)|-0 µs|\\+-|-0\\.00%', c)]
assert r['function_cells'] and not bad, bad
# a search hides rows: they are not counted as \"more rows\"
assert r['search_rows'] >= 1 and r['search_note'] == '', (r['search_rows'], r['search_note'])
s = open('$SHOTS/diff.html').read()
d = json.loads(page_json(s))
assert d['diff'] and len(d['tree']['ao'][0]) == len(d['tree']['vo'][0])
# each side's root (the sum of its own values) is that experiment's sampled
# CPU (in us), whatever the machine's load made of the two runs
t1, t3 = (json.load(open(f))['overview']['sampled_cpu_s'] * 1e6 for f in ('t1.json', 't3.json'))
a, b = sum(d['tree']['ao'][0]), sum(d['tree']['vo'][0])
assert abs(a - t1) <= 1 and abs(b - t3) <= 1, (a, t1, b, t3)\""
fi
