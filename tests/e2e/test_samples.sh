# test_samples.sh — process samples over time (record --process-samples,
# report --samples, the HTML timeline's curves): a program whose memory
# grows in three steps of 16 MiB, each touched whole before it prints the
# time, is sampled every 0.1 s with -H.  Between the end of step i and the
# next, every sample holds i+1 steps of resident memory and of live heap
# more than the first sample (bounds: the steps' own size, plus what else
# the process maps); counts only grow; the samples are a period apart.
# (Between a step's malloc and the end of its touching, RSS is anywhere.)
# The curves are drawn in headless Chromium with the live heap's peak
# marked where the heap tracer says it was.
. "$(dirname "$0")/lib.sh"
cc_prog rss_steps
JS="$E2E/../js"
SHOTS="${TALLY_BUILD:-$T}/test-samples"
mkdir -p "$SHOTS"
cd "$T"

"$TALLY" record -H -o r.exp --process-samples 0.1 ./rss_steps 3 16 0.4 >steps.txt 2>r.err
"$TALLY" report r.exp --samples --format csv -q >r.csv 2>/dev/null
check samples_follow_the_steps python3 -c "
import csv, re
start = int(re.search(r'^start.mono_ns: (\d+)$', open('r.exp/log.txt').read(), re.M).group(1))
lines = [[int(x) for x in l.split()] for l in open('steps.txt')]
steps, frees = lines[:-1], lines[-1][0]
rows = list(csv.DictReader(open('r.csv')))
assert len(rows) >= 5, len(rows)
t = [start + round(float(r['time']) * 1e9) for r in rows]
rss = [int(r['rss_bytes']) for r in rows]
heap = [int(r['heap_live_bytes']) for r in rows]
MiB = 1 << 20
step = 16 * MiB
seen = 0
for i, (_, ts) in enumerate(steps):
    end = steps[i + 1][0] if i + 1 < len(steps) else frees
    for k in range(len(rows)):
        if ts <= t[k] < end:
            seen += 1
            grown = rss[k] - rss[0]
            assert (i + 1) * step * 0.95 <= grown <= (i + 1) * step + 8 * MiB, (i, k, grown)
            assert (i + 1) * step <= heap[k] < (i + 1) * step + MiB, (i, k, heap[k])
assert seen >= 3, seen
assert heap[-1] < MiB, heap[-1]
print(len(rows), seen)"
check samples_counts_only_grow_a_period_apart python3 -c "
import csv
rows = list(csv.DictReader(open('r.csv')))
for key in ('cpu', 'minflt', 'majflt', 'vcsw', 'ivcsw'):
    v = [float(r[key]) for r in rows]
    assert v == sorted(v), (key, v)
# each taken at the first clock sample after its period's end, the next
# period due a period after that end (col_psample.c: a sample taken late
# keeps the schedule, unless a whole period late), so under load one
# gap may be short after a long one, never two together under a period
# (the sample before a due time is taken before it, the one two later
# after the next): never more than the periods the run had (the first
# and the end's aside)
t = [float(r['time']) for r in rows]
gaps = [b - a for a, b in zip(t, t[1:-1])]
pairs = [a + b for a, b in zip(gaps, gaps[1:])]
assert pairs and min(pairs) >= 0.095, gaps
assert len(t) <= (t[-1] - t[0]) / 0.1 + 2, (len(t), t[-1] - t[0])"
check samples_json_is_the_csv sh -c '"$TALLY" report r.exp --samples --format json -q 2>/dev/null | python3 -c "
import csv, json, sys
j = json.load(sys.stdin)[\"samples\"]
c = list(csv.DictReader(open(\"r.csv\")))
assert len(j) == len(c) and all(int(a[\"rss_bytes\"]) == int(b[\"rss_bytes\"]) for a, b in zip(j, c)), (len(j), len(c))"'
"$TALLY" record -o n.exp --process-samples 0 ./rss_steps 1 1 0.05 >/dev/null 2>&1
check samples_off_says_so sh -c '"$TALLY" report n.exp --samples -q 2>/dev/null | grep -q "No process samples" &&
	"$TALLY" report n.exp --samples --format csv -q 2>/dev/null | python3 -c "
import sys; assert len(sys.stdin.read().strip().splitlines()) == 1"'
check samples_bad_period_refused sh -c '
	"$TALLY" record -o b.exp --process-samples -1 ./rss_steps 1 1 0 2>b.err; test $? = 64 &&
	grep -q "process-samples" b.err && test ! -e b.exp'

# The curves in Chromium: one row for the process, its scale the largest
# value; the peak marked red at the heap tracer's peak (the overview's).
if need browser html_curves_mark_the_heap_peak; then
	check html_curves_mark_the_heap_peak sh -c "
		\"\$TALLY\" html r.exp -o \"$SHOTS/curves.html\" 2>/dev/null &&
		\"\$TALLY\" report r.exp --format json >o.json 2>/dev/null &&
		timeout 100 node \"$JS/check_curves.mjs\" \"$SHOTS/curves.html\" \"$SHOTS/curves.png\" >c.json &&
		python3 -c \"
import csv, json
r = json.load(open('c.json'))
assert not r['errors'], r['errors']
o = json.load(open('o.json'))['overview']
rows = list(csv.DictReader(open('r.csv')))
c = r['curves']
assert len(c) == 1 and c[0]['peak'] == o['heap_peak'], (c, o['heap_peak'])
assert c[0]['max'] == max([int(x['rss_bytes']) for x in rows] + [int(x['heap_live_bytes']) for x in rows] + [c[0]['peak']]), c
p = r['peak_pixel']
assert p[0] > 150 and p[1] < 100 and p[2] < 100 and p[3] > 0, p
assert 'heap peak 48.0 MiB' in r['tip'] and 'RSS' in r['tip'], r['tip']\""
fi
