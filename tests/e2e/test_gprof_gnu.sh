# test_gprof_gnu.sh — `tally gprof PROGRAM GMON...` checked against GNU gprof
# on the same binaries and gmon.out files: the shared workloads trap.pg,
# recursion.pg, calls.pg and cxx.pg (from $WORKLOADS, default
# /work/shared/workloads)
# and our 2- and 3-member cycles (tests/progs/cycle2.c, cycle3.c).  For each:
# stdout is byte for byte `gprof -b`'s (what was read is said on stderr),
# and, independently of layout, the parsed numbers (flat rows, every caller,
# callee and member line, cycle membership) are equal.  Also: several runs
# summed as `gprof -s` sums them, two runs giving exactly double counts, and
# one-line errors with file and offset for corrupt or disagreeing files.
. "$(dirname "$0")/lib.sh"
cd "$T"

if ! command -v gprof >/dev/null; then
	skip gprof_gnu "GNU gprof (binutils) not installed"
	exit 0
fi

# canon.py LISTING: the numbers of a gprof -b listing, one record per line,
# sorted; indexes [N] dropped (compared separately by the exact diff).
cat >canon.py <<'PY'
import re, sys
text = open(sys.argv[1]).read()
text = text[text.index('Flat profile:'):]
flat, graph = text.split('\tCall graph', 1)
graph = graph.split('Index by function name')[0].split('called     name\n', 1)[1]
out = []
for l in flat.split('\n'):
    m = re.match(r'^\s*(\d+\.\d\d)\s+(\d+\.\d\d)\s+(\d+\.\d\d)\s+(?:(\d+)\s+(\d+\.\d\d)\s+(\d+\.\d\d)\s+)?(\S.*)$', l)
    if m:
        out.append('flat %s: %s' % (m.group(7), ' '.join(g or '-' for g in m.groups()[:6])))
name = lambda s: re.sub(r' \[\d+\]$', '', s.strip())
for block in graph.split('-----------------------------------------------'):
    lines = [l for l in block.split('\n') if l.strip()]
    prim = [i for i, l in enumerate(lines) if l.startswith('[')]
    if not prim:
        continue
    p = prim[0]
    m = re.match(r'^\[\d+\]\s+(\d+\.\d)\s+(\d+\.\d\d)\s+(\d+\.\d\d)\s+(.*)$', lines[p])
    rest = m.group(4)
    c = re.match(r'^(\d+(?:\+\d+)?)?\s*(\S.*)$', rest)
    who = name(c.group(2))
    out.append('entry %s: %s %s %s %s' % (who, m.group(1), m.group(2), m.group(3), c.group(1) or '-'))
    for i, l in enumerate(lines):
        if i == p:
            continue
        role = 'caller' if i < p else 'callee'
        f = l.split()
        if l.strip() == '<spontaneous>':
            out.append('%s %s: spontaneous' % (role, who))
            continue
        nums = []
        while f and re.match(r'^[\d.+/]+$', f[0]):
            nums.append(f.pop(0))
        out.append('%s %s: %s %s' % (role, who, name(' '.join(f)), ' '.join(nums)))
print('\n'.join(sorted(out)))
PY

# same NAME PROGRAM GMON...: tally gprof vs gprof -b on the same files.
same() {
	name=$1
	prog=$2
	shift 2
	"$TALLY" gprof "$prog" "$@" >"$name.tally" 2>"$name.err" || return 1
	if [ $# -gt 1 ]; then
		gprof -b -s "$prog" "$@" && gprof -b "$prog" gmon.sum >"$name.gnu" || return 1
	else
		gprof -b "$prog" "$1" >"$name.gnu" || return 1
	fi
	grep -q "^tally gprof: $prog, .* arc records; time per arc propagated from call counts" \
		"$name.err" || return 1
	python3 canon.py "$name.tally" >"$name.canon.tally" &&
	python3 canon.py "$name.gnu" >"$name.canon.gnu" &&
	test -s "$name.canon.gnu" || return 1
	if [ "$MODE" = numbers ]; then
		diff "$name.canon.gnu" "$name.canon.tally"
	else
		cmp "$name.gnu" "$name.tally" || { diff "$name.gnu" "$name.tally" | head -8; false; }
	fi
}

# run PROGRAM OUT ARGS...: run a -pg program, keep its gmon.out as OUT.
run() {
	prog=$1
	out=$2
	shift 2
	rm -f gmon.out
	"./$prog" "$@" >/dev/null && mv gmon.out "$out"
}

WORKLOADS=${WORKLOADS:-/work/shared/workloads}
progs=""
if [ -f "$WORKLOADS/trap.c" ]; then
	for w in trap recursion calls; do
		cc -O2 -g -Wall -pg -o "$w.pg" "$WORKLOADS/$w.c" && progs="$progs $w"
	done
	run trap.pg trap.out 0.5
	run recursion.pg recursion.out 0.5
	run calls.pg calls.out 0.2
else
	skip gprof_gnu_workloads "no workloads in $WORKLOADS"
fi
for c in cycle2 cycle3; do
	cc -O2 -g -pg -o "$c.pg" "$PROGS/$c.c"
	run "$c.pg" "$c.out" 3
	progs="$progs $c"
done

for p in $progs; do
	MODE=text check "gprof_gnu_${p}_listing_identical" same "$p" "$p.pg" "$p.out"
	MODE=numbers check "gprof_gnu_${p}_numbers_equal" same "$p" "$p.pg" "$p.out"
done

# Ties on time: gprof numbers every symbol of its table, printed or not
# (data_start, etext, crt helpers), by time, then names without '_' first,
# then calls, then name.  A run too short for samples leaves every function
# tied at zero: main (no calls, not printed) is numbered after the unprinted
# symbols that sort before it, and shown with that number as f's caller.
cat >ties.c <<'C'
#include <stdio.h>
__attribute__((noinline)) int f(int x) { __asm__ volatile(""); return x + 1; }
__attribute__((noinline)) int g(int x) { __asm__ volatile(""); return f(x) * 2; }
int main(void) { int s = 0; for (int i = 0; i < 3; i++) s += f(i); printf("%d\n", s + g(1)); return 0; }
C
cc -O2 -g -pg -o ties.pg ties.c && run ties.pg ties.out
# ties_same: identical, and main's [N] is past the printed entries' (gprof
# numbered unprinted symbols before it: the case the rule decides).
ties_same() {
	same ties ties.pg ties.out || return 1
	n=$(grep -c '^\[' ties.gnu)
	m=$(grep -o 'main \[[0-9]*\]' ties.gnu | head -1 | tr -dc 0-9)
	echo "printed $n, main [$m]"
	test -n "$m" && test "$m" -gt "$n"
}
MODE=text check gprof_gnu_ties_listing_identical ties_same

# C++: demangled names, sorted by their mangled names as gprof sorts them.
if [ -f "$WORKLOADS/cxx.cc" ] && command -v g++ >/dev/null; then
	g++ -O2 -g -Wall -pg -o cxx.pg "$WORKLOADS/cxx.cc" && run cxx.pg cxx.out 0.3
	MODE=text check gprof_gnu_cxx_listing_identical same cxx cxx.pg cxx.out
	MODE=numbers check gprof_gnu_cxx_numbers_equal same cxx cxx.pg cxx.out
fi

# Summing runs, as gprof -s does: three files, one of them twice.
run cycle2.pg cycle2b.out 2
MODE=text check gprof_gnu_sum_of_runs_identical same sum cycle2.pg cycle2.out cycle2b.out cycle2.out
MODE=numbers check gprof_gnu_sum_of_runs_numbers_equal same sum cycle2.pg cycle2.out cycle2b.out cycle2.out

# The same run twice: every call count exactly doubles.
check gprof_two_runs_double_counts sh -c '
	"$TALLY" gprof cycle3.pg cycle3.out --format json >one.json &&
	"$TALLY" gprof cycle3.pg cycle3.out cycle3.out --format json >two.json && python3 -c "
import json
one, two = json.load(open(\"one.json\")), json.load(open(\"two.json\"))
arcs = lambda d: {(a[\"caller\"], a[\"callee\"]): a[\"count\"] for a in d[\"arcs\"]}
a1, a2 = arcs(one), arcs(two)
assert a1 and a1.keys() == a2.keys(), (a1, a2)
assert all(a2[k] == 2 * a1[k] for k in a1), (a1, a2)
assert a1[(\"top1\", \"x\")] == 300 and a1[(\"z\", \"p\")] == 1600, a1
calls = {r[\"name\"]: r[\"called\"] for r in two[\"graph\"]}
assert calls[\"x\"] == 3200 and calls[\"<cycle 2 as a whole>\"] == 800, calls"'

# csv: the flat table's self times add up to the samples.
check gprof_csv_flat_sums_to_samples sh -c '
	"$TALLY" gprof cycle2.pg cycle2.out --format csv >c.csv && python3 -c "
import csv, io
text = open(\"c.csv\").read().split(\"\n\n\")
flat = [s for s in text if s.startswith(\"index,pct_time\")][0]
rows = list(csv.DictReader(io.StringIO(flat)))
total = sum(int(r[\"self_ns\"]) for r in rows)
assert rows and abs(total - int(rows[-1][\"cumulative_ns\"])) <= len(rows), total"'

# Corrupt and disagreeing input: exit 2, one line naming the file and offset.
head -c 100 cycle2.out >cut.out
check gprof_truncated_file_one_line_error sh -c '
	"$TALLY" gprof cycle2.pg cut.out >/dev/null 2>err; test $? -eq 2 &&
	test $(wc -l <err) -eq 1 && grep -q "cut.out: offset 0x14: truncated histogram bins" err'
printf 'gmon\001\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000\007' >badtag.out
check gprof_unknown_tag_error sh -c '
	"$TALLY" gprof cycle2.pg badtag.out >/dev/null 2>err; test $? -eq 2 &&
	grep -q "badtag.out: offset 0x14: unknown record tag 7" err'
check gprof_histograms_of_other_program_error sh -c '
	"$TALLY" gprof cycle2.pg cycle2.out cycle3.out >/dev/null 2>err; test $? -eq 2 &&
	grep -q "cycle3.out: offset 0x14: histogram" err && grep -q "cycle2.out" err'
check gprof_missing_default_gmon_out sh -c '
	rm -f gmon.out; "$TALLY" gprof cycle2.pg 2>err >/dev/null; test $? -eq 2 &&
	grep -q "gmon.out: No such file" err'
check gprof_usage_without_program sh -c '"$TALLY" gprof 2>/dev/null; test $? -eq 64'
