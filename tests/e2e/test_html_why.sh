# test_html_why.sh — the "why" views of `tally html` (issue 25): the Blame
# tab (the waiters' flame graph of a -s run; a waiting stack's leaf opens
# the stacks of the threads that held the mutex) and the critical path on
# the Timeline.  The page's data holds what `tally report --blame` and
# `--critical-path` say: each holder's part of consume()'s waits in
# tests/progs/blamey.c, the holder's function and lock line; the path's
# stretches on the tracks adding up to its total.  In headless Chromium
# (tests/js/check_why.mjs): a click on consume's leaf shows slow_flush and
# quick_update holding, with their stacks; the timeline paints the path
# and follows it from the producer of tests/progs/prodcons.c to main, and
# a stretch's part off the CPU (without --states) under it.
. "$(dirname "$0")/lib.sh"
cc_prog blamey -pthread
cc_prog prodcons -pthread
JS="$E2E/../js"
SHOTS="${TALLY_BUILD:-$T}/test-html"
mkdir -p "$SHOTS"
cd "$T"
SLOW_LINE=$(grep -n 'BLAME-SLOW' "$PROGS/blamey.c" | cut -d: -f1)
"$TALLY" record -s -o b.exp ./blamey 100 >/dev/null 2>rec_b.err
"$TALLY" record -s -o pc.exp ./prodcons cond 8 20 >own_pc.txt 2>rec_pc.err
"$TALLY" html b.exp -o "$SHOTS/blame.html" 2>html.err
"$TALLY" html pc.exp -o "$SHOTS/critical.html" 2>>html.err
"$TALLY" report b.exp --blame -q --format csv >blame.csv
"$TALLY" report pc.exp --critical-path -q --format csv >cp.csv

cat >why.py <<'PY'
import csv, json, re, sys
from tally_page import page_json
def data(page):
    s = open(page).read()
    return json.loads(page_json(s))
what = sys.argv[1]
if what == 'blame':
    d = data(sys.argv[2])
    page = {}
    for b in d['blame']:
        if b['w'] and b['w'][-1] == 'consume':
            page[b['where']] = page.get(b['where'], 0) + b['us']
    rep = {r['holder']: float(r['wait']) * 1e6 for r in csv.DictReader(open('blame.csv')) if r['waiter'] == 'consume'}
    print('page', page, 'report', rep)
    want = 'slow_flush (blamey.c:%s)' % sys.argv[3]
    held = [b for b in d['blame'] if b['where'] == want]
    ok = want in page and held and held[0]['h'][-1] == 'slow_flush' and held[0]['tid'] > 0
    # each holder's part as the report has it (the page in whole µs per part)
    ok = ok and set(page) == set(rep) and all(abs(page[k] - rep[k]) <= 2 + 0.001 * rep[k] for k in rep)
    sys.exit(not ok)
if what == 'critical':
    d = data(sys.argv[2])
    segs = [s for t in d['timeline']['tracks'] for s in t.get('cp', [])]
    total = sum(s[1] for s in segs)
    rows = {r['name']: r for r in csv.DictReader(open('cp.csv'))}
    path = float(rows['<Total>']['path']) * 1e6
    before = d['critical']['before_us']
    print('segments', len(segs), 'sum', total, 'us, before the axis', before, 'us; page path',
          d['critical']['path_us'], 'report', int(path))
    # each stretch rounded down to the µs; the part of the path before the
    # timeline's first event (main's start) is off its axis, and said
    tracks = {t['name'].split()[-1] for t in d['timeline']['tracks'] if t.get('cp')}
    sys.exit(abs(d['critical']['path_us'] - path) > 1 or not (path - len(segs) - 2 <= total + before <= path + 1)
             or len(tracks) < 2)
PY

check html_blame_data_as_report sh -c "cat rec_b.err html.err; python3 why.py blame '$SHOTS/blame.html' $SLOW_LINE"
check html_critical_stretches_tile_the_path python3 why.py critical "$SHOTS/critical.html"
if need browser html_blame_leaf_opens_holders html_critical_path_on_timeline; then
	check html_blame_leaf_opens_holders sh -c "
		timeout 100 node \"$JS/check_why.mjs\" \"$SHOTS/blame.html\" \"$SHOTS/blame.png\" consume >r.json &&
		python3 -c \"
import json; r = json.load(open('r.json'))
print({k: v for k, v in r.items() if k != 'holders_text'})
assert not r['errors'] and r['blame_tab'] and r['leaf_found'], r
where = {h['where']: h for h in r['holders']}
slow = where['slow_flush (blamey.c:$SLOW_LINE)']
assert slow['stack'][-1] == 'slow_flush' and 'holder' in slow['stack'], slow
assert any(w.startswith('quick_update (') for w in where), where
assert 'slow_flush' in r['holders_text'], r['holders_text']\""
	check html_critical_path_on_timeline sh -c "
		timeout 100 node \"$JS/check_why.mjs\" \"$SHOTS/critical.html\" \"$SHOTS/critical.png\" none >r2.json &&
		python3 -c \"
import json; r = json.load(open('r2.json'))
print(r)
c = r['critical']
# the producer, then main that it woke (main's start may come before the
# timeline's first event, where the page's axis begins)
assert not r['errors'] and c['segments'] >= 2 and c['crossings'] >= 1 and r['green'] > 100, r
assert 'critical path' in r['legend'], r['legend']\""
fi
# Without --states a stretch's part off the CPU (<off CPU>: the kernel's
# schedstat says how long, not when) is drawn under it, dashed, and named
# in the legend: prodcons "mixed", a producer that naps most of each item.
# The page's share is the report's <off CPU> on the path (each stretch's in
# whole µs); the build before had no such share in the page or the legend.
"$TALLY" record -s -o mixed.exp ./prodcons mixed 8 20 >own_mixed.txt 2>rec_mixed.err
"$TALLY" html mixed.exp -o "$SHOTS/offcpu.html" 2>>html.err
"$TALLY" report mixed.exp --critical-path -q --format csv >mixed.csv
if [ -r /proc/thread-self/schedstat ] && need browser html_critical_off_cpu_drawn; then
	check html_critical_off_cpu_drawn sh -c "
		cat rec_mixed.err; timeout 100 node \"$JS/check_why.mjs\" \"$SHOTS/offcpu.html\" \"$SHOTS/offcpu.png\" none >r4.json &&
		python3 -c \"
import csv, json; r = json.load(open('r4.json'))
rows = {x['name']: x for x in csv.DictReader(open('mixed.csv'))}
off = float(rows['<off CPU>']['path']) * 1e6 if '<off CPU>' in rows else 0
c = r['critical']
print('page', c, 'report <off CPU> us', int(off))
assert not r['errors'] and off > 0 and c.get('off_segments', 0) >= 1, r
assert off - c['segments'] - 1 <= c['off_us'] <= off + 1, (c, off)
assert '<off CPU>' in r['legend'], r['legend']\""
elif [ ! -r /proc/thread-self/schedstat ]; then
	skip html_critical_off_cpu_drawn "no /proc/thread-self/schedstat here (a kernel without CONFIG_SCHED_INFO)"
fi
# A diff's page (two runs' tracks) draws no critical path.
if need browser html_diff_page_draws_no_path; then
	check html_diff_page_draws_no_path sh -c "
		\"\$TALLY\" html --diff b.exp pc.exp -o \"$SHOTS/why-diff.html\" 2>/dev/null &&
		timeout 100 node \"$JS/check_why.mjs\" \"$SHOTS/why-diff.html\" \"$SHOTS/why-diff.png\" none >r3.json &&
		python3 -c \"
import json; r = json.load(open('r3.json'))
print(r)
assert not r['errors'] and r['critical']['segments'] == 0 and 'critical path' not in r['legend'], r\""
fi
