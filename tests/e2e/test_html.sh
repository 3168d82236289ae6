# test_html.sh — `tally html` in headless Chromium (tests/js/check_html.mjs):
# the page, opened from disk with the network off, loads with no console
# error, the flame graph renders, a click zooms, a search highlights, every
# view draws; the screenshots stay in BUILD/test-html/.  The page's data
# holds what tally report says (timeline per thread, the tree's total), and
# `tally html --diff` shows the function that grew.
. "$(dirname "$0")/lib.sh"
cc_prog spin
cc_prog threads4 -pthread
JS="$E2E/../js"
SHOTS="${TALLY_BUILD:-$T}/test-html"
mkdir -p "$SHOTS"
cd "$T"
# spin at 10 kHz (~3,000 samples): leaf_two's width checked within 0.05 of 2/3
# (at 1 kHz, 340 samples, it was once 0.587 under load)
"$TALLY" record -F 10000 -o s.exp ./spin 0.4 2>/dev/null
"$TALLY" record -o t.exp ./threads4 1 2>/dev/null

data() {   # data PAGE: the page's embedded JSON
	python3 -c "
import re, sys
from tally_page import page_json
s = open(sys.argv[1]).read()
print(page_json(s))" "$1"
}

check html_written_self_contained sh -c '
	"$TALLY" html s.exp -o s.html && test -s s.html &&
	! grep -Eiq "(src|href)=\"?(https?:)?//" s.html'
# The data is embedded packed (gzip in base64, report_html_pack.c): the
# element says so, unpacks to the JSON object, and is under half its size.
check html_data_packed sh -c '
	"$TALLY" html s.exp -o sp.html && '"$(command -v python3)"' -c "
import json, re
from tally_page import page_json
s = open(\"sp.html\").read()
m = re.search(r\"<script type=.text/plain. id=.tally-data. data-encoding=.gzip.base64.>([A-Za-z0-9+/=]+)</script>\", s)
j = page_json(s)
d = json.loads(j)
assert m and d[\"end\"] is True and d[\"tree\"][\"f\"], d.keys()
assert len(m.group(1)) * 2 < len(j), (len(m.group(1)), len(j))"'
# A page whose data was cut short (a truncated download) says in the page
# that its data cannot be read, and why; never an empty report.
if need browser html_unreadable_data_said; then
	check html_unreadable_data_said sh -c '
		"$TALLY" html s.exp -o cut.html && '"$(command -v python3)"' -c "
import re
s = open(\"cut.html\").read()
m = re.search(r\"(data-encoding=.gzip.base64.>)([^<]*)<\", s)
b = m.group(2)[:len(m.group(2)) // 2 // 4 * 4]
open(\"cut.html\", \"w\").write(s[:m.start(2)] + b + s[m.end(2):])" &&
		timeout 60 node "'"$E2E"'/../js/check_unreadable.mjs" cut.html >cut.json && '"$(command -v python3)"' -c "
import json
r = json.load(open(\"cut.json\"))
print(r)
assert r[\"text\"].startswith(\"tally: the page\x27s data cannot be read: its \") and \"bytes of gzip are damaged or cut short\" in r[\"text\"], r
assert any(\"page:\" in e for e in r[\"errors\"]), r"'
fi
if need browser html_in_chromium_loads_renders_zooms_searches html_threads_page_in_chromium; then
	check html_in_chromium_loads_renders_zooms_searches sh -c "
		cp s.html \"$SHOTS/spin.html\" &&
		timeout 100 node \"$JS/check_html.mjs\" \"$SHOTS/spin.html\" \"$SHOTS/spin.png\" leaf_two leaf_one >r.json &&
		python3 -c \"
import json; r = json.load(open('r.json'))
assert not r['errors'], r['errors']
assert r['drawn'] >= 7 and r['painted'] > 5000, r
w = r['width']
assert abs(r['before']['w'] / w - 0.667) < 0.05, (r['before'], w)
assert r['zoomName'] == 'leaf_two' and abs(r['after']['w'] - w) < 2, r
# the zoomed share with its sampling error, as tally report --errors has it
import re, subprocess
rep = json.loads(subprocess.run(['$TALLY', 'report', 's.exp', '--errors', '--format', 'json'],
                                capture_output=True, text=True, check=True).stdout)
row = [f for f in rep['functions'] if f['name'] == 'leaf_two'][0]
e = re.search(r'leaf_two: .*, ([0-9.]+)% ±([0-9.]+)', r['info'])
print(r['info'], row)
assert e and abs(float(e.group(2)) - row['incl_cpu_pct_err']) < 0.015 and float(e.group(2)) > 0, (r['info'], row)
assert r['matched'] >= 1 and 'matched: 3' in r['search_info'], r['search_info']
assert all(v > 0 for v in r['views'].values()), r['views']
assert r['function_rows'] >= 5, r
# the overview as tally report prints it, the source columns titled (issue 23)
ov = r['overview_text']
assert 'Sampled CPU' in ov and 'Kernel CPU' in ov and 'sampled_cpu_s' not in ov, ov
assert 'Excl. CPU s' in r['source_heads'] and not [h for h in r['source_heads'] if '_' in h], r['source_heads']\" && test -s \"$SHOTS/spin.png\""
	check html_threads_page_in_chromium sh -c "
		\"\$TALLY\" html t.exp -o \"$SHOTS/threads.html\" &&
		timeout 100 node \"$JS/check_html.mjs\" \"$SHOTS/threads.html\" \"$SHOTS/threads.png\" t4 work >r2.json"
fi
check html_timeline_has_each_thread sh -c '
	"$TALLY" html t.exp -o t.html && "$TALLY" report t.exp --threads --format json >th.json &&
	'"$(command -v python3)"' -c "
import json, re, sys
from tally_page import page_json
s = open(\"t.html\").read()
d = json.loads(page_json(s))
th = {str(t[\"tid\"]): t[\"excl_cpu\"] for t in json.load(open(\"th.json\"))[\"threads\"]}
tracks = {t[\"name\"].split()[-1]: sum(t.get(\"cpu\", [])) / 1e6 for t in d[\"timeline\"][\"tracks\"]}
assert set(tracks) == set(th), (tracks, th)
for tid, cpu in th.items():
    assert abs(tracks[tid] - cpu) < 0.002, (tid, tracks[tid], cpu)
root = sum(d[\"tree\"][\"vo\"][0])   # own values: they sum to the root total
assert abs(root / 1e6 - sum(th.values())) < 0.003, root"'
# The hot source: spin.c once (annotate shows the whole file), named by its
# hot functions, with leaf_two's loop the hottest line.
check html_hot_source_file_once sh -c '
	"$TALLY" html s.exp -o s2.html && "$TALLY" annotate s.exp leaf_two --format json >a.json && python3 -c "
import json, re
from tally_page import page_json
d = json.loads(page_json(open(\"s2.html\").read()))
spin = [s for s in d[\"source\"] if s[\"name\"].split(\": \")[0].endswith(\"spin.c\")]
assert len(spin) == 1, [s[\"name\"] for s in d[\"source\"]]
names = spin[0][\"name\"].split(\": \", 1)[1].split(\", \")
assert names[:2] == [\"leaf_two\", \"leaf_one\"], names
rows = lambda t: [(r[\"line\"], r[\"text\"], r[\"excl_cpu\"], r[\"incl_cpu\"]) for r in t[\"source\"]]
assert rows(spin[0][\"doc\"]) == rows(json.load(open(\"a.json\"))), (rows(spin[0][\"doc\"])[:5])"'
# A range dragged across the timeline is what the flame graph shows: the
# first 40% of two_phases mostly first_half, the last 40% second_half; each
# range's total is the CPU of the timeline's bins it covers (another path
# through the data), and "whole run" brings the run back.
cc_prog two_phases
"$TALLY" record -F 2000 -o tp.exp ./two_phases 0.3 2>/dev/null
if need browser html_timeline_range_is_the_flame_graph; then
	check html_timeline_range_is_the_flame_graph sh -c "
		\"\$TALLY\" html tp.exp -o \"$SHOTS/range.html\" &&
		timeout 100 node \"$JS/check_range.mjs\" \"$SHOTS/range.html\" \"$SHOTS/range.png\" first_half second_half >rr.json &&
		python3 -c \"
import json, re
from tally_page import page_json
r = json.load(open('rr.json'))
d = json.loads(page_json(open('$SHOTS/range.html').read()))
tl = d['timeline']
def cpu(us):                   # the timeline's CPU (us) in the bins of [us0, us1)
    w = tl['span_us'] / tl['bins']
    return sum(v for t in tl['tracks'] for b, v in enumerate(t.get('cpu', [])) if us[0] <= (b + 0.5) * w < us[1])
assert not r['errors'], r['errors']
w, f, l = r['whole'], r['first'], r['last']
assert abs(w['a'] - 0.5) < 0.1 and abs(w['b'] - 0.5) < 0.1, w
assert f['a'] > 0.6 and f['a'] > 2 * f['b'] and l['b'] > 0.6 and l['b'] > 2 * l['a'], (f, l)
for x in (f, l):
    assert abs(x['total'] - cpu(x['us'])) <= 0.03 * x['total'] + 2000, (x, cpu(x['us']))
back = r['back']
assert f['total'] + l['total'] < w['total'] and [back[k] for k in ('a', 'b', 'total')] == [w[k] for k in ('a', 'b', 'total')], (f, l, back, w)
\" && test -s \"$SHOTS/range.png\""
fi
# (without -o the page is named after the experiment: test_cli_small)
check html_unwritable_output_said sh -c '"$TALLY" html s.exp -o /nonexistent/x.html 2>err; test $? -eq 2 &&
	test $(wc -l <err) -eq 1 && grep -q "/nonexistent/x.html: No such file or directory" err'
# A -H run's page has the leaked bytes (issue 23): heap.leak among the
# metrics, in bytes, its total the report's (heapy leaks 3,936 bytes).
cc_prog heapy -pthread
"$TALLY" record -H -o hy.exp ./heapy 2>/dev/null
check html_heap_run_has_leaked_bytes sh -c '
	"$TALLY" html hy.exp -o hy.html && "$TALLY" report hy.exp --metric heap.leak --format json >hy.json &&
	'"$(command -v python3)"' -c "
import json, re
from tally_page import page_json
s = open(\"hy.html\").read()
d = json.loads(page_json(s))
m = {x[\"name\"]: x for x in d[\"metrics\"]}
r = json.load(open(\"hy.json\"))[\"functions\"][0]
print(m.get(\"heap.leak\"), r)
assert r[\"name\"] == \"<Total>\" and m[\"heap.leak\"][\"unit\"] == \"B\", m
assert m[\"heap.leak\"][\"total\"] == r[\"excl_heap.leak\"] > 0, (m[\"heap.leak\"], r)"'
# The timeline's stack chart (issue 23): two_phases' one thread, its
# most sampled stack bin by bin in time order, is first_half in the first
# 40% of its sampled bins and second_half in the last 40%; the chart spans
# the thread's samples (first and last bins have one) and a bin has a stack
# only where the thread's CPU bins covering it have time.
check html_stack_chart_in_time_order sh -c '
	"$TALLY" html tp.exp -o tp.html && '"$(command -v python3)"' -c "
import json, re
from tally_page import page_json
d = json.loads(page_json(open(\"tp.html\").read()))
f, dep, tl = d[\"tree\"][\"f\"], d[\"tree\"][\"d\"], d[\"timeline\"]
parent, stack = [], []
for i, x in enumerate(dep):
    del stack[x:]
    parent.append(stack[-1] if stack else -1)
    stack.append(i)
def names(n):
    out = []
    while n > 0:
        out.append(d[\"funcs\"][f[n]][0]); n = parent[n]
    return out
t = max(tl[\"tracks\"], key=lambda t: sum(t.get(\"cpu\", [])))
nb, st = t[\"stn\"], t[\"st\"]
assert 100 <= nb <= tl[\"st_bins\"], (nb, tl[\"st_bins\"])
bins = [n for k in range(0, len(st), 2) for n in [st[k]] * st[k + 1]]
assert len(bins) == nb, (len(bins), nb)
on = [b for b in range(nb) if bins[b]]
first, last = on[:len(on) * 4 // 10], on[-len(on) * 4 // 10:]
share = lambda bs, fn: sum(fn in names(bins[b]) for b in bs) / len(bs)
print(len(on), share(first, \"first_half\"), share(last, \"second_half\"))
assert share(first, \"first_half\") > 0.9 and share(last, \"second_half\") > 0.9, (share(first, \"first_half\"), share(last, \"second_half\"))
cpu, B, S = t[\"cpu\"], tl[\"bins\"], tl[\"span_us\"]
w = (t[\"st1\"] - t[\"st0\"]) / nb
cb = lambda us: min(B - 1, int(us * B / S))
# busy within one CPU bin of it: a sample on a bin edge is charged to the
# CPU bin before it (1 bad of 1,000 bins once under load, without)
busy = [sum(cpu[max(0, cb(t[\"st0\"] + b * w) - 1):cb(t[\"st0\"] + (b + 1) * w) + 2]) > 0 for b in range(nb)]
bad = sum(bool(bins[b]) and not busy[b] for b in range(nb))
assert bins[0] and bins[-1] and bad == 0, (bad, nb)"'
# What a user does with the page beyond looking (issue 23, check_state.mjs):
# a zoom, a search and a tab kept in the address (a reload shows them, Back
# undoes the tab and stays on the page), Esc resets the zoom, "/" focuses
# the search, an invalid regex said so; on the timeline a legend, each
# process's command line (its program's directory left out), the stack chart (a click on its main: the flame
# graph zoomed there), a click keeping one thread; the
# 4 spin processes of spawny merged into one node holding their sum.
cc_prog spawny
cc_prog spin
"$TALLY" record -o sw.exp ./spawny ./spin >/dev/null 2>&1
if need browser html_state_keys_timeline_merge; then
	check html_state_keys_timeline_merge sh -c "
		\"\$TALLY\" html sw.exp -o \"$SHOTS/state.html\" &&
		timeout 150 node \"$JS/check_state.mjs\" \"$SHOTS/state.html\" \"$SHOTS/state.png\" child_work leaf >st.json &&
		python3 -c \"
import json; r = json.load(open('st.json'))
assert not r['errors'], r['errors']
assert 'z=' in r['hash_zoomed'] and all(k in r['hash_all'] for k in ('v=functions', 'q=leaf', 'z=')), r['hash_all']
assert r['reload'] == {'view': 'functions', 'search': 'leaf', 'zoomName': 'child_work'}, r['reload']
assert r['back1']['same_page'] and r['back1']['view'] == 'flame' and r['back1']['zoomName'] == 'child_work', r['back1']
assert r['after_esc'] == '' and 'click a frame to zoom' in r['info_after_esc'], r['info_after_esc']
assert r['slash_focus'] == 'search', r['slash_focus']
assert r['bad_regex_visible'] and 'not a regular expression' in r['bad_regex_note'] and r['good_regex_note'] == '', r
assert 'CPU sampled' in r['legend'], r['legend']
assert r['title'].endswith('.exp: ./spawny ./spin'), r['title']
labels = r['track_labels']
assert ['spin', 'spin 0.05'] in [[l[0].split()[0], l[1]] for l in labels if len(l) > 1], labels
assert any(l[0].startswith('spawny') and l[1:] == ['spawny ./spin'] for l in labels), labels
assert r['stack_all']['frames'] > 5 and r['stack_painted'] > 500 and 'leaf_two' in r['stack_all']['names'], r['stack_all']
assert r['tracks_kept'] == 1 and 'th=' in r['kept_hash'] and 'only' in r['kept_info'], r
assert r['stack_kept']['track'] == r['tracks_all'] - 1 and r['tracks_again'] == r['tracks_all'], r
assert r['stack_click'] == {'view': 'flame', 'zoomName': 'main'}, r['stack_click']
assert r['mergeable'], r
before = [v for n, v in r['top_before'] if n.startswith('[spin ')]
merged = dict(r['top_merged'])
assert len(before) == 4 and merged['spin (4 processes)'] == sum(before), (r['top_before'], merged)
assert abs(sum(merged.values()) - sum(v for n, v in r['top_before'])) <= 1 and 'mp=1' in r['merged_hash'], r
\""
fi
