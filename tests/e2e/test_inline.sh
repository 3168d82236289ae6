#!/bin/sh
# test_inline.sh — inlined calls as frames of their own (docs/symbols.md,
# "Inlined calls"): shares known by construction in C (inliny.c: host 1/4,
# outer 1/4, inner 1/2 on main;host;outer;inner) in the tree, the function
# table, callers-callees, HTML and the exports, --no-inline restoring the
# host's view; and a C++ program of templates and lambdas (inline_sort.cpp)
# whose chains match the source and perf's (`perf report --inline`).
. "$(dirname "$0")/lib.sh"
cc_prog inliny
cd "$T"

# 2 units: ~1,500 samples at 100 Hz; the sampling error of a 1/4 share is
# then 0.011, well inside ±0.04.
"$TALLY" record -o i.exp ./inliny 2 2>/dev/null
"$TALLY" export i.exp --format collapsed >i.txt
"$TALLY" export i.exp --format collapsed --no-inline >i_n.txt
check inline_c_frames_have_their_shares shares i.txt \
	'excl host 0.25 0.04' 'excl outer[inlined] 0.25 0.04' 'excl inner[inlined] 0.5 0.04' \
	'path main;host;outer[inlined];inner[inlined] 0.5 0.04' 'incl outer[inlined] 0.75 0.04'
check inline_c_no_inline_is_the_hosts shares i_n.txt \
	'excl host 1.0 0.01' 'absent outer[inlined]' 'absent inner[inlined]'
check inline_c_machine_view_too sh -c '
	"$TALLY" export i.exp --format collapsed --view machine >i_m.txt &&
	python3 "$E2E/profile.py" i_m.txt "path main;host;outer[inlined];inner[inlined] 0.5 0.04"'

# The function table charges an inlined function's own lines to it;
# callers-callees and the tree name the inlined frames; a bare name finds
# them.
check inline_c_function_table sh -c '
	"$TALLY" report i.exp --format csv >f.csv && python3 -c "
import csv
rows = {r[\"name\"]: r for r in csv.DictReader(open(\"f.csv\"))}
t = float(rows[\"<Total>\"][\"excl_cpu\"])
for name, excl, incl in ((\"host\", 0.25, 1.0), (\"outer (inlined)\", 0.25, 0.75), (\"inner (inlined)\", 0.5, 0.5)):
    r = rows[name]
    e, i = float(r[\"excl_cpu\"]) / t, float(r[\"incl_cpu\"]) / t
    print(name, round(e, 3), round(i, 3))
    assert abs(e - excl) <= 0.04 and abs(i - incl) <= 0.04, (name, e, i)
assert rows[\"inner (inlined)\"][\"object\"] == \"inliny\", rows[\"inner (inlined)\"]"'
check inline_c_callers_callees sh -c '
	"$TALLY" report i.exp --callers inner --format csv >c.csv && cat c.csv &&
	test "$(sed -n 2p c.csv | cut -d, -f3)" = "outer (inlined)" &&
	test "$(sed -n 5p c.csv | cut -d, -f5)" = "inner (inlined)" &&
	"$TALLY" report i.exp --callers "outer (inlined)" --format csv >c2.csv &&
	test "$(sed -n 2p c2.csv | cut -d, -f3)" = host &&
	test "$(sed -n 8p c2.csv | cut -d, -f3)" = "inner (inlined)"'
check inline_c_tree sh -c '
	"$TALLY" report i.exp --tree -q >tree.txt && grep -A1 "^ *[0-9.]* *[0-9.]* *[0-9.]* *[0-9.]*  *host\$" tree.txt | grep -q "outer (inlined)\$"'
check inline_c_annotate_its_own_lines sh -c '
	"$TALLY" annotate i.exp "inner (inlined)" --format csv >a.csv && python3 -c "
import csv
rows = [r for r in csv.DictReader(open(\"a.csv\")) if r[\"kind\"] == \"line\"]
inner = [r for r in rows if \"INLINE void inner(\" in r[\"text\"]][0]
print(\"inner line\", inner[\"excl_cpu_pct\"])
assert abs(float(inner[\"excl_cpu_pct\"]) - 50) <= 4, inner"'
check inline_c_no_args_keeps_the_mark sh -c '
	"$TALLY" report i.exp --no-args --format csv | grep -q ",inner (inlined),"'
# (the page's data is packed: tests/pylib/tally_page.py prints its JSON)
check inline_c_html_and_exports sh -c '
	"$TALLY" html i.exp -o i.html && python3 "$E2E/../pylib/tally_page.py" i.html >i.page &&
	grep -q "\"inner (inlined)\"" i.page &&
	"$TALLY" export i.exp --format speedscope -o i.speedscope && grep -q "\"inner (inlined)\"" i.speedscope &&
	"$TALLY" export i.exp --format callgrind -o i.callgrind && grep -q "inner (inlined)" i.callgrind &&
	"$TALLY" html i.exp --no-inline -o i_n.html && python3 "$E2E/../pylib/tally_page.py" i_n.html >i_n.page &&
	! grep -q "\"inner (inlined)\"" i_n.page'

if ! command -v c++ >/dev/null; then
	skip inline_cxx "no C++ compiler"
	exit 0
fi
c++ -O2 -g -o inline_sort "$PROGS/inline_sort.cpp"
"$TALLY" record -o s.exp ./inline_sort 2>/dev/null >/dev/null
"$TALLY" export s.exp --format collapsed >s.txt
check inline_cxx_chains_as_the_source python3 "$E2E/inline_chains.py" s.txt
check inline_cxx_most_time_is_inlined python3 -c '
import csv, subprocess
rows = list(csv.DictReader(subprocess.run(["'"$TALLY"'", "report", "s.exp", "--format", "csv"],
                                          capture_output=True, text=True, check=True).stdout.splitlines()))
t = float(rows[0]["excl_cpu"])
inl = sum(float(r["excl_cpu"]) for r in rows if r["name"].endswith(" (inlined)"))
lt = [r for r in rows if r["name"] == "Key::operator<(Key const&) const (inlined)"][0]
print("inlined", inl / t, "Key::operator<", float(lt["excl_cpu"]) / t)
assert inl / t >= 0.5 and float(lt["excl_cpu"]) > 0, (inl, t)'

# perf's chains: perf record -g with DWARF unwinding works with software
# events; its `script --inline` prints the inlined calls at each pc.
if ! command -v perf >/dev/null; then
	skip inline_cxx_chains_as_perf "perf not installed"
elif ! perf record -q -e cpu-clock --call-graph dwarf -o p.data ./inline_sort >/dev/null 2>perf.err; then
	skip inline_cxx_chains_as_perf "perf record failed: $(head -n 1 perf.err)"
else
	perf script -i p.data --inline -F ip,sym --dsos inline_sort >p.txt 2>/dev/null
	if ! grep -q "(inlined)" p.txt; then
		skip inline_cxx_chains_as_perf "perf script --inline shows no inlined frames here"
	else
		check inline_cxx_chains_as_perf python3 "$E2E/inline_chains.py" s.txt p.txt
	fi
fi
