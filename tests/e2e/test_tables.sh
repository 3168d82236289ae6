# test_tables.sh — the table options of `tally report` and `annotate`:
# --sort by any column, --columns, --percent, -n (sample counts), --lines,
# --pcs, --inverted, recursion folded in --tree, --object, --hide-object,
# --symbol, --name-width, --no-args, --quiet, colour on a terminal (and
# NO_COLOR), the progress line, --human units, annotate --hot with context;
# --objects largest first; a --lines row of two functions names both.
. "$(dirname "$0")/lib.sh"
cc_prog spin
cc_prog cycle2
cc_prog hotloop -O1
cc_prog oneline
cc_prog heapy -pthread
c++ -O2 -g -o "$T/cxx_spin" "$PROGS/cxx_spin.cpp"
cd "$T"
# spin at 10 kHz (~3,000 samples): its 1:2 split checked within 5 points (at
# 1 kHz, 340 samples, leaf_two once had 58.9% under load)
"$TALLY" record -F 10000 -o s.exp ./spin 0.4 2>/dev/null
"$TALLY" record -o c.exp ./cycle2 2>/dev/null
"$TALLY" record -o h.exp ./hotloop 2>/dev/null
"$TALLY" record -o x.exp ./cxx_spin 2>/dev/null
"$TALLY" record -o o.exp ./oneline 2>/dev/null
"$TALLY" record -H -o hy.exp ./heapy 2>/dev/null

csv() { python3 -c "import csv, sys; rows = list(csv.DictReader(open(sys.argv[1]))); $2" "$1"; }

check sort_by_name_incl_and_metric sh -c '
	"$TALLY" report s.exp --sort name --format csv --limit 0 >n.csv &&
	"$TALLY" report s.exp --sort incl --format csv --limit 0 >i.csv &&
	"$TALLY" report s.exp --sort excl.samples -n --format csv --limit 0 >e.csv &&
	python3 -c "
import csv
n = [r[\"name\"] for r in csv.DictReader(open(\"n.csv\"))][1:]
assert n == sorted(n), n
i = [float(r[\"incl_cpu\"]) for r in csv.DictReader(open(\"i.csv\"))][1:]
assert i == sorted(i, reverse=True), i
e = [int(r[\"excl_samples\"]) for r in csv.DictReader(open(\"e.csv\"))][1:]
assert e == sorted(e, reverse=True) and e[0] > 0, e"'
check sort_bad_key_is_usage_error sh -c '"$TALLY" report s.exp --sort bogus 2>/dev/null; test $? -eq 64'
check columns_choose_and_order sh -c '
	"$TALLY" report s.exp --columns name,excl,file --format csv >col.csv &&
	test "$(head -1 col.csv)" = "name,excl_cpu,excl_cpu_pct,file" &&
	grep -q "^leaf_two,.*spin.c:[0-9]*$" col.csv &&
	{ "$TALLY" report s.exp --columns name,bogus 2>err; test $? -eq 64; } && grep -q bogus err'
check percent_only_shares sh -c '
	"$TALLY" report s.exp --percent --format csv >p.csv &&
	test "$(head -1 p.csv)" = "excl_cpu_pct,incl_cpu_pct,name,object,aliases"'
check samples_column_counts_every_sample sh -c '
	"$TALLY" report s.exp -n --format json --limit 0 >j.json && python3 -c "
import json; d = json.load(open(\"j.json\"))
rows = d[\"functions\"]
assert rows[0][\"excl_samples\"] == d[\"overview\"][\"samples\"] > 300, rows[0]
assert sum(r[\"excl_samples\"] for r in rows[1:]) == d[\"overview\"][\"samples\"]"'
check lines_view_hottest_lines sh -c '
	"$TALLY" report s.exp --lines --format csv >l.csv && python3 -c "
import csv; r = list(csv.DictReader(open(\"l.csv\")))
assert r[0][\"function\"] == \"leaf_two\" and r[0][\"location\"] == \"spin.c:24\", r[0]
assert abs(float(r[0][\"excl_cpu_pct\"]) - 66.7) < 5, r[0]
assert r[1][\"location\"] == \"spin.c:23\", r[1]"'
check lines_row_of_two_functions_names_both sh -c '
	"$TALLY" report o.exp --lines --format csv --limit 0 >ol.csv && python3 -c "
import csv
r = [r for r in csv.DictReader(open(\"ol.csv\")) if r[\"location\"] == \"oneline.c:14\"]
assert len(r) == 1 and r[0][\"function\"] in (\"left + right\", \"right + left\"), r"'
check objects_largest_first sh -c '
	"$TALLY" report o.exp --objects --format csv >ob.csv && cat ob.csv && python3 -c "
import csv
r = list(csv.DictReader(open(\"ob.csv\")))
v = [float(x[\"excl_cpu\"]) for x in r if x[\"object\"] != \"<Unknown>\"]
assert len(v) >= 2 and v == sorted(v, reverse=True), r
assert r[0][\"object\"].endswith(\"/oneline\"), r[0]" &&
	"$TALLY" report o.exp --objects --sort name --format csv | python3 -c "
import csv, sys
o = [x[\"object\"] for x in csv.DictReader(sys.stdin)]
assert o == sorted(o), o"'
check pcs_view_hottest_instructions sh -c '
	"$TALLY" report s.exp --pcs --format csv >pc.csv && python3 -c "
import csv; r = list(csv.DictReader(open(\"pc.csv\")))
assert r[0][\"function\"].startswith(\"leaf_two+0x\") and r[0][\"instruction\"], r[0]
assert abs(sum(float(x[\"excl_cpu_pct\"]) for x in r if x[\"function\"].startswith(\"leaf_two\")) - 66.7) < 5"'
check inverted_tree_leaves_first sh -c '
	"$TALLY" report s.exp --inverted --format csv --threshold 0 >inv.csv && python3 -c "
import csv; r = list(csv.DictReader(open(\"inv.csv\")))
top = [x[\"name\"] for x in r if x[\"depth\"] == \"1\"]
assert top[:2] == [\"leaf_two\", \"leaf_one\"], top
kids, at = {}, None
for x in r:
    if x[\"depth\"] == \"1\": at = x[\"name\"]
    elif x[\"depth\"] == \"2\": kids.setdefault(at, []).append(x[\"name\"])
assert kids[\"leaf_two\"] == kids[\"leaf_one\"] == [\"parent\"], kids"'
# (user frames: the kernel's, above each user stack, add rows of their own
# in both trees)
check tree_folds_recursion sh -c '
	"$TALLY" report c.exp --tree --threshold 0 --no-kernel --format csv >f.csv &&
	"$TALLY" report c.exp --tree --threshold 0 --no-fold --no-kernel --format csv >u.csv && python3 -c "
import csv
def paths(f):
    out, path = [], []
    for r in csv.DictReader(open(f)):
        d = int(r[\"depth\"]); path[d:] = [r[\"name\"]]; out.append(list(path))
    return out
f, u = paths(\"f.csv\"), paths(\"u.csv\")
assert all(len(p) == len(set(p)) for p in f), [p for p in f if len(p) != len(set(p))][:2]
assert any(len(p) != len(set(p)) for p in u)
assert len(f) * 5 < len(u), (len(f), len(u))"'
check hide_object_one_frame sh -c '
	"$TALLY" report s.exp --hide-object libc.so.6 --tree --format csv >ho.csv &&
	grep -q ",<libc.so.6>$" ho.csv && ! grep -q "__libc_start_main" ho.csv'
check symbol_keeps_stacks_through_it sh -c '
	"$TALLY" report s.exp --symbol leaf_one --format json >sy.json && python3 -c "
import json; r = json.load(open(\"sy.json\"))[\"functions\"]
names = [x[\"name\"] for x in r]
assert \"leaf_two\" not in names and r[0][\"incl_cpu\"] == [x for x in r if x[\"name\"] == \"leaf_one\"][0][\"incl_cpu\"], r"'
check object_filter_and_unknown_object sh -c '
	"$TALLY" report s.exp --object spin --format csv --limit 0 >ob.csv && grep -q "^[^,]*,[^,]*,[^,]*,100.00,<Total>" ob.csv &&
	{ "$TALLY" report s.exp --object nosuch.so 2>err; test $? -eq 2; } && grep -q nosuch.so err'
check no_args_and_name_width sh -c '
	"$TALLY" report x.exp --no-args --format csv --limit 0 >na.csv &&
	! cut -d, -f5 na.csv | grep -v "^<" | sed "s/ (inlined)\$//" | grep -q "(" &&
	"$TALLY" report x.exp --format csv --limit 0 | cut -d, -f5 | grep -q "::spin(double)" &&
	"$TALLY" report x.exp --name-width 12 --columns excl,name -q >nw.txt &&
	awk "NR > 2 {sub(/^ *[0-9.]+ +[0-9.]+ +/, \"\"); if (length(\$0) > 12) bad = 1} END {exit bad}" nw.txt'
check quiet_no_overview sh -c '
	test "$("$TALLY" report s.exp -q | head -1)" = Functions &&
	"$TALLY" report s.exp | head -1 | grep -q Overview'
if need pty colour_on_a_terminal_not_with_NO_COLOR names_fit_the_terminal progress_line_on_a_terminal_only; then
	check colour_on_a_terminal_not_with_NO_COLOR sh -c '
		script -qec "\"$TALLY\" report s.exp -q" /dev/null >tty.txt && grep -q "$(printf "\033")\[" tty.txt &&
		NO_COLOR=1 script -qec "\"$TALLY\" report s.exp -q" /dev/null >tty2.txt && ! grep -q "$(printf "\033")\[" tty2.txt &&
		"$TALLY" report s.exp -q | grep -vq "$(printf "\033")"'
	# On a terminal, the name column is cut so that a row fits its width
	# (cxx_spin'"'"'s template names are 400 columns wide); on a pipe, whole.
	check names_fit_the_terminal sh -c '
		script -qec "stty cols 80; \"$TALLY\" report x.exp -q --limit 0" /dev/null >fit.txt &&
		sed "s/$(printf "\033")\[[0-9;]*m//g; s/$(printf "\r")\$//" fit.txt >fit2.txt &&
		awk "/^ +[0-9]/ { n++; if (length(\$0) > 80) bad = 1 } END { exit bad || n < 5 }" fit2.txt &&
		grep -q "app::Worker<.*\.\.\." fit2.txt &&
		"$TALLY" report x.exp -q --limit 0 | awk "length(\$0) > 200 { long = 1 } END { exit !long }"'
	# The progress line: on a terminal, once the analysis has taken its delay
	# (1 s; TALLY_PROGRESS_MS here), what it does, erased before the report;
	# nothing before the delay, nothing on a pipe.
	check progress_line_on_a_terminal_only sh -c '
		TALLY_PROGRESS_MS=1 script -qec "\"$TALLY\" report s.exp -q" /dev/null >pr.txt &&
		grep -q "tally report: symbolizing and aggregating s.exp\.\.\.$(printf "\r\033")\[KFunctions" pr.txt &&
		TALLY_PROGRESS_MS=60000 script -qec "\"$TALLY\" report s.exp -q" /dev/null >pr2.txt &&
		! grep -q "tally report:" pr2.txt && grep -q Functions pr2.txt &&
		TALLY_PROGRESS_MS=1 "$TALLY" report s.exp -q 2>pr.err >/dev/null && test ! -s pr.err'
fi
# --human: every time and count of the text table is CSV's value to 3 digits,
# in the unit it names (12,000 samples: the counts in K).
"$TALLY" record -F 20000 -o k.exp ./spin 0.6 2>/dev/null
check human_units_agree_with_csv sh -c '
	"$TALLY" report k.exp --human -n -q --limit 0 >hu.txt &&
	"$TALLY" report k.exp -n --format csv --limit 0 >hu.csv && python3 -c "
import csv, re
unit = {\"s\": 1, \"ms\": 1e-3, \"us\": 1e-6, \"ns\": 1e-9}
mult = {\"K\": 1e3, \"M\": 1e6, \"G\": 1e9}
def num(cell):
    m = re.fullmatch(r\"(-?[\d.]+)(?: (s|ms|us|ns)|([KMG]))?\", cell)
    assert m, cell
    return float(m[1]) * (unit[m[2]] if m[2] else mult[m[3]] if m[3] else 1)
lines = open(\"hu.txt\").read().splitlines()
head = re.split(r\"\s{2,}\", lines[1].strip())
assert head[:4] == [\"Excl. CPU\", \"%\", \"Excl. Samples\", \"%\"], head
exact = {r[\"name\"]: r for r in csv.DictReader(open(\"hu.csv\"))}
seen = set()
for l in lines[2:]:
    cells = re.split(r\"\s{2,}\", l.strip())
    if len(cells) < 9:
        continue
    r = exact[cells[8]]
    for cell, key in zip(cells[0:8:2], (\"excl_cpu\", \"excl_samples\", \"incl_cpu\", \"incl_samples\")):
        want, got = float(r[key]), num(cell)
        # (CSV has ms: a time of under 0.5 ms is 0.000 there)
        assert abs(got - want) <= 0.005 * want + (0.0005 if key.endswith(\"cpu\") else 0), (cells[8], key, cell, want)
        seen |= set(re.findall(r\" (?:s|ms)$|[K]$\", cell))
assert seen >= {\" ms\", \"K\"}, seen
" &&
	"$TALLY" diff s.exp k.exp --human >hd.txt && grep -q "^Excl. CPU A  *Excl. B  *Excl. B-A  " hd.txt && grep -q " ms  " hd.txt &&
	"$TALLY" diff s.exp k.exp | grep -q "^Excl. CPU A s  "'
# annotate --hot -C 1 shows exactly the lines at or above 1% of a total
# (exclusive or inclusive, as the whole annotation measures them) and one
# line around each: which lines those are is the compiler's choice (gcc
# may give the loop's compare to line 13 or 14, or the call's return to
# 22), the program's truth is only that work's time is in lines 13-14.
# --human reaches the overview: heapy allocates 77.8K bytes in 1026 calls,
# in well under a second
check human_overview sh -c '
	"$TALLY" report hy.exp --human -q --threads >/dev/null &&
	"$TALLY" report hy.exp --human >hh.txt && "$TALLY" report hy.exp --format json >hh.json && python3 -c "
import json, re
o = json.load(open(\"hh.json\"))[\"overview\"]
t = open(\"hh.txt\").read()
hb = re.search(r\"^  Heap bytes +([0-9.]+)K\$\", t, re.M)
assert hb and abs(float(hb[1]) * 1e3 - o[\"heap.bytes\"]) <= 0.0051 * o[\"heap.bytes\"], (hb, o[\"heap.bytes\"])
du = re.search(r\"^  Duration +([0-9.]+) (s|ms)\$\", t, re.M)
assert du and o[\"duration_s\"] < 1 and du[2] == \"ms\", du"'
# annotate: a cold line shows blanks, not "0.000 0.00" (CSV keeps zeros)
check annotate_cold_lines_blank sh -c '
	"$TALLY" annotate h.exp work >an.txt && "$TALLY" annotate h.exp work --format csv >an.csv &&
	! grep -Eq "^ *0\.000 +0\.00 +0\.000 +0\.00 " an.txt && grep -Eq "^ *[0-9]+\.[0-9]{3} +[0-9]+\.[0-9]{2} " an.txt &&
	grep -q "^0,0.00,0,0.00,line," an.csv'
check annotate_hot_lines_with_context sh -c '
	"$TALLY" annotate h.exp work --format csv >all.csv &&
	"$TALLY" annotate h.exp work --hot -C 1 --format csv >hot.csv && python3 -c "
import csv
rows = [x for x in csv.DictReader(open(\"all.csv\")) if x[\"kind\"] == \"line\"]
pct = {int(x[\"line\"]): max(float(x[\"excl_cpu_pct\"]), float(x[\"incl_cpu_pct\"])) for x in rows}
last = max(pct)
near = lambda lines: {n for h in lines for n in range(h - 1, h + 2) if 1 <= n <= last}
hot = {n for n, p in pct.items() if p >= 1.005}
maybe = {n for n, p in pct.items() if p >= 0.995}   # the CSV rounds to 0.01%
shown = {int(x[\"line\"]) for x in csv.DictReader(open(\"hot.csv\")) if x[\"kind\"] == \"line\"}
print(\"hot\", sorted(hot), \"shown\", sorted(shown))
work = sum(float(x[\"excl_cpu_pct\"]) for x in rows if 8 <= int(x[\"line\"]) <= 22)
loop = sum(float(x[\"excl_cpu_pct\"]) for x in rows if int(x[\"line\"]) in (13, 14))
assert loop >= 0.95 * work, (loop, work)
assert near(hot) <= shown <= near(maybe), (sorted(near(hot)), sorted(shown))
assert hot & {13, 14} and len(shown) < last / 2, shown" &&
	test $(grep -c ",line," all.csv) -gt 10'
