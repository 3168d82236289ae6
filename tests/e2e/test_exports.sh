# test_exports.sh — each export read by its real consumer, whose totals
# equal `tally report`'s: go tool pprof (golang-go) for pprof; speedscope's
# schema and its own app in headless Chromium for speedscope; the Trace
# Event Format, Chrome DevTools' trace engine and a trace viewer in Chromium
# (speedscope's importer of the trace format) for chrome; speedscope's
# importer of collapsed stacks for collapsed.
. "$(dirname "$0")/lib.sh"
cc_prog spin
cc_prog threads4 -pthread
cc_prog syncy -pthread
JS="$E2E/../js"
cd "$T"
"$TALLY" record -o s.exp ./spin 0.4 2>/dev/null
"$TALLY" record -o t.exp ./threads4 1 2>/dev/null
"$TALLY" record -s -o y.exp ./syncy 2>/dev/null
for x in s t y; do
	"$TALLY" report $x.exp --format json >$x.json
	"$TALLY" report $x.exp --threads --format json >$x.threads.json
done

if ! command -v go >/dev/null 2>&1; then
	skip pprof_read_by_go_tool_pprof "go is not installed (golang-go)"
else
	export HOME="$T" GOCACHE="$T/go-cache" GOPATH="$T/go" GOFLAGS=-mod=mod GOTOOLCHAIN=local
	for x in s t; do
		check pprof_read_by_go_tool_pprof_$x sh -c "
			\"\$TALLY\" export $x.exp --format pprof -o $x.pb.gz &&
			timeout 120 go tool pprof -top -unit=ns -symbolize=none $x.pb.gz >$x.top 2>&1 &&
			python3 \"\$E2E/consumers.py\" pprof $x.top $x.json"
	done
	# A run of several processes is titled by the command (issue 23: a
	# build's export said "File: libc.so.6"): the founder's program as the
	# first mapping, each distinct command line as a comment.
	cc_prog spawny
	"$TALLY" record -o sw.exp ./spawny ./spin >/dev/null 2>&1
	check pprof_titled_by_the_command sh -c '
		"$TALLY" export sw.exp --format pprof -o sw.pb.gz &&
		timeout 120 go tool pprof -top -symbolize=none sw.pb.gz >sw.top 2>&1 &&
		head -n 1 sw.top | grep -qx "File: spawny" && grep -qx "command: ./spawny ./spin" sw.top &&
		grep -qx "also: ./spin 0.05" sw.top || { cat sw.top | head -5; false; }'
fi

if need node speedscope_read_by_speedscope speedscope_profile_per_thread chrome_read_by_devtools_s \
	chrome_read_by_devtools_t chrome_read_by_devtools_y chrome_opened_in_a_viewer_in_chromium \
	collapsed_opened_in_a_viewer_in_chromium chrome_has_sync_waits; then
	check speedscope_read_by_speedscope sh -c "
		\"\$TALLY\" export s.exp --format speedscope -o s.speedscope.json &&
		timeout 100 node \"$JS/check_speedscope.mjs\" s.speedscope.json >s.ss.out &&
		python3 \"\$E2E/consumers.py\" speedscope s.ss.out s.json s.threads.json"
	check speedscope_profile_per_thread sh -c "
		\"\$TALLY\" export t.exp --format speedscope -o t.speedscope.json &&
		timeout 100 node \"$JS/check_speedscope.mjs\" t.speedscope.json >t.ss.out &&
		python3 -c \"
import json; d = json.load(open('t.ss.out'))
names = [p['name'] for p in d['profiles']]
rows = json.load(open('t.threads.json'))['threads']
tids = [' %d: cpu' % t['tid'] for t in rows if t['samples']]
busy = [' %d: cpu' % t['tid'] for t in rows if t['excl_cpu'] > 0]
assert len(names) >= 5 and all(any(n.endswith(t) for t in tids) for n in names), names
assert all(any(n.endswith(t) for n in names) for t in busy), (names, busy)\" &&
		python3 \"\$E2E/consumers.py\" speedscope t.ss.out t.json t.threads.json"
	for x in s t y; do
		check chrome_read_by_devtools_$x sh -c "
			\"\$TALLY\" export $x.exp --format chrome -o $x.trace.json &&
			timeout 60 node \"$JS/check_chrome.mjs\" $x.trace.json >$x.chrome.out &&
			python3 \"\$E2E/consumers.py\" chrome $x.chrome.out $x.json $x.threads.json"
	done
	# ... and opened in a trace viewer in Chromium (speedscope imports
	# Chrome's trace format): each function's total and self are tally's.
	check chrome_opened_in_a_viewer_in_chromium sh -c "
		timeout 100 node \"$JS/check_speedscope.mjs\" s.trace.json >s.viewer.out &&
		python3 \"\$E2E/consumers.py\" viewer s.viewer.out s.json"
	# the collapsed stacks (ns per stack) opened by speedscope too
	check collapsed_opened_in_a_viewer_in_chromium sh -c "
		\"\$TALLY\" export s.exp --format collapsed -o s.collapsed &&
		timeout 100 node \"$JS/check_speedscope.mjs\" s.collapsed >s.cviewer.out &&
		python3 \"\$E2E/consumers.py\" viewer s.cviewer.out s.json"
	check chrome_has_sync_waits sh -c '
		grep -q "\"ph\":\"b\",\"cat\":\"tally\".*Sync wait" y.trace.json'
fi
# A thread's complete events nest as its stacks did, each at least 1 us long
# (a zero-length frame beside the next at the same microsecond made
# speedscope nest every later frame under it, on a loaded machine).
check chrome_frames_nest_and_last_a_microsecond sh -c '
	for x in s t y; do "$TALLY" export $x.exp --format chrome -o $x.nest.json || exit 1; done
	python3 -c "
import json, sys
for f in sys.argv[1:]:
    stacks = {}
    for e in json.load(open(f))[\"traceEvents\"]:
        if e[\"ph\"] != \"X\":
            continue
        assert e[\"dur\"] >= 1, (f, e)
        st = stacks.setdefault((e[\"pid\"], e[\"tid\"]), [])
        while st and st[-1] <= e[\"ts\"]:
            st.pop()
        assert not st or e[\"ts\"] + e[\"dur\"] <= st[-1], (f, e, st[-1])
        st.append(e[\"ts\"] + e[\"dur\"])
" s.nest.json t.nest.json y.nest.json'
check export_unknown_format_is_usage_error sh -c '
	"$TALLY" export s.exp --format nope 2>err; test $? -eq 64 && grep -q speedscope err'
