# test_control.sh — control of a launched run (docs/collector.md, "Control
# of a run"): --delay and --duration record only their window, the program
# running on to its end; a toggle signal hides the phase between two
# raise()s, and gives the signal up to a program that sets its own handler;
# --control fifo:PATH and `tally control EXP off|on` hide the phase between
# a disable and an enable.  Each gap is in the log at its exact time, in the
# overview and on the HTML timeline (headless Chromium).  Bounds come from
# what the run itself logged: the edges' times, the timeline's bin width.
. "$(dirname "$0")/lib.sh"
cc_prog control
JS="$E2E/../js"
SHOTS="${TALLY_BUILD:-$T}/test-control"
mkdir -p "$SHOTS"
cd "$T"

data() {   # data PAGE: the page's embedded JSON, into PAGE.json
	python3 -c "
import re, sys
from tally_page import page_json
s = open(sys.argv[1]).read()
open(sys.argv[1] + '.json', 'w').write(page_json(s))" "$1"
}

# --delay 0.3 --duration 0.4 on a program burning the CPU for 1.2 s of wall
# time: the log's edges are launch + 0.3 and launch + 0.7 exactly; the
# timeline has CPU only between them (a sample's CPU is laid before it, so
# one bin of slack at the first edge); the program printed its last line;
# the kernel's CPU is the sampled and collector's plus the paused part's.
"$TALLY" record -o w.exp --delay 0.3 --duration 0.4 ./control wall 1.2 >w.out 2>w.err
echo $? >w.rc
check delay_duration_edges_logged_exactly python3 -c "
import re
log = open('w.exp/log.txt').read()
launch = int(re.search(r'launch=(\d+)', log).group(1))
ed = {(m[1], m[2]): int(m[0]) for m in re.findall(r'^control: (\d+) (on|off) (\S+)', log, re.M)}
assert ed[('on', '--delay')] == launch + 300000000, ed
assert ed[('off', '--duration')] == launch + 700000000, ed
assert ('off', '--delay') in ed, ed"
check duration_program_runs_to_its_end sh -c 'test "$(cat w.rc)" = 0 && grep -qx done w.out &&
	! grep -q "could not be sampled" w.err'
check delay_duration_timeline_cpu_only_inside sh -c '"$TALLY" html w.exp -o w.html 2>/dev/null && '"$(command -v python3)"' -c "
import json, re, sys
from tally_page import page_json
sys.argv = [\"\", \"w.html\"]
s = open(\"w.html\").read()
d = json.loads(page_json(s))
tl = d[\"timeline\"]
gaps = {g[3]: g for g in tl[\"gaps\"]}
assert set(gaps) == {\"--delay\", \"--duration\"}, tl[\"gaps\"]
on = gaps[\"--delay\"][0] + gaps[\"--delay\"][1]
off = gaps[\"--duration\"][0]
w = tl[\"span_us\"] / tl[\"bins\"]
cpu = tl[\"tracks\"][0][\"cpu\"]
before = sum(v for i, v in enumerate(cpu) if (i + 1) * w < on - w)
after = sum(v for i, v in enumerate(cpu) if i * w > off + w)
inside = sum(cpu) - before - after
assert before == 0 and after == 0 and inside > 0, (before, inside, after, on, off, w)
print(on, off, inside)"'
check delay_duration_overview_accounts_the_pause sh -c '"$TALLY" report w.exp --format json >w.json 2>/dev/null;
	"$TALLY" report w.exp >w.txt 2>/dev/null && grep -q "^  Paused .*2 stretches" w.txt &&
	grep -q "off .*--delay" w.txt && grep -q "off .*--duration" w.txt && python3 -c "
import json
o = json.load(open(\"w.json\"))[\"overview\"]
tot = o[\"sampled_cpu_s\"] + o[\"collector_cpu_s\"] + o[\"paused_cpu_s\"]
assert o[\"paused_cpu_s\"] > 0 and 0.8 < tot / o[\"kernel_cpu_s\"] < 1.15, o"'

# Process samples of a run that starts with recording off (--delay): every
# period after the delay has its sample, as in a run recorded from the
# start (they were armed only by a start recorded, so such a run had one
# sample, its last).  Bounds from the run's own log: the delay's edge, the
# last sample's time, the period; a sample comes at the first clock tick
# of a period, so half of the periods' count is asked for.
"$TALLY" record -o ps.exp --delay 0.3 --process-samples 0.1 ./control wall 1.2 >/dev/null 2>&1
check process_samples_resume_after_delay sh -c '"$TALLY" report ps.exp --samples --format csv -q >ps.csv 2>/dev/null &&
	python3 -c "
import csv, re
log = open(\"ps.exp/log.txt\").read()
start = int(re.search(r\"^start.mono_ns: (\\d+)$\", log, re.M).group(1))
on = int(re.search(r\"^control: (\\d+) on --delay\", log, re.M).group(1))
t = [start + round(float(r[\"time\"]) * 1e9) for r in csv.DictReader(open(\"ps.csv\"))]
assert t and min(t) >= on, (t, on)
periods = (max(t) - on) // 100000000
assert len(t) - 1 >= periods // 2 and len(t) >= 3, (len(t), periods)"'

# The toggle signal: phase_b, between the program's two raise(SIGUSR1),
# has no sample; phase_a and phase_c have theirs.
USR1=$(python3 -c 'import signal; print(int(signal.SIGUSR1))')
"$TALLY" record -o t.exp --toggle-signal USR1 ./control toggle "$USR1" >t.out 2>t.err
check toggle_signal_hides_the_phase_between sh -c '"$TALLY" export t.exp --format collapsed >t.txt &&
	grep -q ";phase_a;" t.txt && grep -q ";phase_c;" t.txt && ! grep -q phase_b t.txt &&
	"$TALLY" report t.exp >t.rep && grep -q "off .*--toggle-signal" t.rep &&
	grep -q "own handler ran 0 times" t.out'
# A program that sets its own handler for the signal gets every one of
# them, and recording does not toggle: phase_b is sampled.
"$TALLY" record -o o.exp --toggle-signal SIGUSR1 ./control toggle "$USR1" own >o.out 2>o.err
check toggle_signal_given_up_to_the_program sh -c '"$TALLY" export o.exp --format collapsed >o.txt &&
	grep -q ";phase_b;" o.txt && grep -q "own handler ran 2 times" o.out &&
	"$TALLY" report o.exp >o.rep && grep -q "Toggle signal .*its own handler" o.rep'
check toggle_signal_refused_when_it_cannot_work sh -c '
	"$TALLY" record -o r.exp --toggle-signal KILL ./control wall 0 2>r1.err; test $? = 64 &&
	grep -q "cannot be caught" r1.err && test ! -e r.exp &&
	{ "$TALLY" record -o r.exp --toggle-signal PROF ./control wall 0 2>r2.err; test $? = 64; } &&
	grep -q "collector" r2.err &&
	{ "$TALLY" record -o r.exp --toggle-signal NOSUCH ./control wall 0 2>r3.err; test $? = 64; } &&
	grep -q "no such signal" r3.err'

# --control fifo:PATH: the program writes disable, waits until tally has
# set the control page, runs phase_b, writes enable: phase_b has no sample.
# The FIFO tally made is gone afterwards.
"$TALLY" record -o f.exp --control "fifo:$T/ctl.fifo" ./control fifo "$T/ctl.fifo" >f.out 2>f.err
check control_fifo_pauses_and_resumes sh -c '"$TALLY" export f.exp --format collapsed >f.txt &&
	grep -q ";phase_a;" f.txt && grep -q ";phase_c;" f.txt && ! grep -q phase_b f.txt &&
	"$TALLY" report f.exp >f.rep && grep -q "off .*--control" f.rep && test ! -e ctl.fifo'
# tally control EXP off|on, from a shell the program starts.
TALLY="$TALLY" "$TALLY" record -o c.exp --control cmd ./control cmd >c.out 2>c.err
check tally_control_command_pauses_and_resumes sh -c '"$TALLY" export c.exp --format collapsed >c.txt &&
	grep -q "^.control [0-9]*.;.*;phase_a;" c.txt && grep -q "^.control [0-9]*.;.*;phase_c;" c.txt && ! grep -q phase_b c.txt'
check tally_control_without_a_page_says_so sh -c '
	"$TALLY" control t.exp off 2>n.err; test $? = 2 && grep -q "t.exp/control.dat: no control page" n.err &&
	{ "$TALLY" control t.exp sideways 2>n2.err; test $? = 64; }'

# The gaps on the HTML timeline, in Chromium: named in the timeline's line,
# grey over the process's track in the middle of each, not where it has CPU.
if need browser html_timeline_shows_the_gaps; then
	check html_timeline_shows_the_gaps sh -c "
		\"\$TALLY\" html w.exp -o \"$SHOTS/gaps.html\" 2>/dev/null &&
		timeout 100 node \"$JS/check_gaps.mjs\" \"$SHOTS/gaps.html\" \"$SHOTS/gaps.png\" >g.json &&
		python3 -c \"
import json; r = json.load(open('g.json'))
assert not r['errors'], r['errors']
assert 'recording off' in r['info'] and '--delay' in r['info'] and '--duration' in r['info'], r['info']
px = {p['why']: p['gap'] for p in r['pixels']}
grey = lambda c: max(c[:3]) - min(c[:3]) < 12 and c[3] > 0
assert grey(px['--delay']) and grey(px['--duration']), px
assert px['cpu'][0] > px['cpu'][2] + 40 and px['cpu'][3] > 0, px\""
fi
