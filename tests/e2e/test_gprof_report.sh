# test_gprof_report.sh — the gprof view of experiments (`tally report
# --gprof`) and the arc exports (`tally export --format arcs|callgrind`).
#
#  - a plain program (no -pg): the stack method without counts; f's time
#    measured half under main, half under g (tests/progs/gp_trap.c);
#  - the same program built with -pg, recorded with the -pg runtime
#    (libtally-mcount): exact counts, the measured 50/50 beside gprof's
#    0/100 (--gprof=propagate), two experiments merged doubling every count;
#    the gprof_pg_* cases need that runtime: without it they fail saying so;
#  - cycles found in sampled stacks (tests/progs/cycle2.c);
#  - the callgrind export read back by callgrind_annotate: its totals, self
#    and inclusive costs per function equal the experiment's own.
. "$(dirname "$0")/lib.sh"
cd "$T"

cc_prog gp_trap
cc_prog cycle2
cc -O2 -g -pg -o gp_trap.pg "$PROGS/gp_trap.c"
"$TALLY" record -o plain.exp ./gp_trap 2>/dev/null
"$TALLY" record -o cyc.exp ./cycle2 2 2>/dev/null
"$TALLY" record -o pg.exp ./gp_trap.pg 2>/dev/null
"$TALLY" record -o pg2.exp ./gp_trap.pg 2>/dev/null
rm -f gmon.out

# arcs JSON-FILE: {(caller, callee): arc} of a --gprof --format json report.
cat >gp.py <<'PY'
import json, sys
def load(path):
    d = json.load(open(path))
    arcs = {(a['caller'], a['callee']): a for a in d['arcs']}
    graph = {r['name']: r for r in d['graph']}
    return d, arcs, graph
PY

check gprof_report_states_measured_method sh -c '
	"$TALLY" report plain.exp --gprof >p.txt &&
	grep -q "^time per arc: measured from [0-9]* sampled call stacks$" p.txt &&
	grep -q "^call counts: none" p.txt && grep -q "^Flat profile:" p.txt &&
	grep -q "Call graph" p.txt && grep -q "Index by function name" p.txt'
check gprof_report_stack_method_splits_f_half_half sh -c '
	"$TALLY" report plain.exp --gprof --format json >p.json && python3 -c "
import sys; sys.path.insert(0, \".\"); from gp import load
d, arcs, graph = load(\"p.json\")
assert d[\"gprof\"][\"method\"] == \"stacks\" and d[\"gprof\"][\"call_counts\"] == \"none\", d[\"gprof\"]
mf, gf = arcs[(\"main\", \"f\")], arcs[(\"g\", \"f\")]
assert \"count\" not in mf, mf
f = graph[\"f\"][\"self_ns\"]
share = mf[\"self_ns\"] / f
assert 0.45 < share < 0.55 and abs(mf[\"self_ns\"] + gf[\"self_ns\"] - f) <= 1, (mf, gf, f)
assert abs(arcs[(\"main\", \"g\")][\"children_ns\"] - gf[\"self_ns\"]) <= 1
assert all(r[\"pct_time\"] <= 100.0 for r in d[\"graph\"]), d[\"graph\"]"'
check gprof_report_bad_method_is_usage_error sh -c '
	"$TALLY" report plain.exp --gprof=guess >/dev/null 2>&1; test $? -eq 64'
check gprof_export_arcs_said_without_runtime sh -c '
	"$TALLY" export plain.exp --format arcs >p.arcs 2>err; test $? -eq 2 && test ! -s p.arcs &&
	grep -q "no call arcs" err'

check gprof_report_cycle_from_stacks sh -c '
	"$TALLY" report cyc.exp --gprof >c.txt &&
	grep -q "<cycle 1 as a whole>" c.txt && grep -q "even <cycle 1>" c.txt &&
	grep -q "odd <cycle 1>" c.txt && ! grep -q "down <cycle" c.txt &&
	"$TALLY" report cyc.exp --gprof --format json >c.json && python3 -c "
import sys; sys.path.insert(0, \".\"); from gp import load
d, arcs, graph = load(\"c.json\")
cyc = graph[\"<cycle 1 as a whole>\"]
total = d[\"gprof\"][\"total\"]
assert 0 < cyc[\"self_ns\"] + cyc[\"children_ns\"] <= total, (cyc, total)
assert graph[\"even\"][\"cycle\"] == graph[\"odd\"][\"cycle\"] == 1 and graph[\"leaf\"][\"cycle\"] == 0
inner = arcs[(\"even\", \"odd\")]
assert inner[\"self_ns\"] == inner[\"children_ns\"] == 0, inner
into = arcs[(\"run_a\", \"even\")][\"self_ns\"] + arcs[(\"run_a\", \"even\")][\"children_ns\"]
assert 0.15 < into / (cyc[\"self_ns\"] + cyc[\"children_ns\"]) < 0.35, into"'

# ---- the -pg runtime (libtally-mcount) -----------------------------------
# Each pg_* case fails with this message when the experiment has no arcs.
need_runtime() {
	test -s pg.exp/arcs.dat || { echo "no arcs recorded: the -pg runtime (libtally-mcount) is missing"; return 1; }
}

pg_export_arcs() {
	need_runtime && "$TALLY" export pg.exp --format arcs >pg.arcs && python3 -c "
rows = [l.rstrip('\n').split('\t') for l in open('pg.arcs')]
arcs = {(a, b): int(n) for a, b, n in rows}
assert arcs[('main', 'f')] == 20 and arcs[('main', 'g')] == 20 and arcs[('g', 'f')] == 200000, arcs"
}
check gprof_pg_export_arcs_exact pg_export_arcs

pg_report() {
	need_runtime && "$TALLY" report pg.exp --gprof >pg.txt &&
	grep -q '  200000/200020 *g \[' pg.txt &&
	"$TALLY" report pg.exp --gprof --format json >pg.json && python3 -c "
import sys; sys.path.insert(0, '.'); from gp import load
d, arcs, graph = load('pg.json')
assert d['gprof']['call_counts'] == 'exact'
mf, gf = arcs[('main', 'f')], arcs[('g', 'f')]
assert mf['count'] == 20 and gf['count'] == 200000 and graph['f']['called'] == 200020
share = mf['self_ns'] / graph['f']['self_ns']
assert 0.43 < share < 0.57, share"
}
check gprof_pg_report_counts_and_measured_split pg_report

pg_propagate() {
	need_runtime && "$TALLY" report pg.exp --gprof=propagate >pp.txt &&
	grep -q "^time per arc: propagated from call counts (gprof's average-call-time assumption)$" pp.txt &&
	"$TALLY" report pg.exp --gprof=propagate --format json >pp.json && python3 -c "
import sys; sys.path.insert(0, '.'); from gp import load
d, arcs, graph = load('pp.json')
assert d['gprof']['method'] == 'propagate'
f = graph['f']['self_ns']
assert abs(arcs[('main', 'f')]['self_ns'] - f * 20 / 200020) <= 1, arcs[('main', 'f')]
assert abs(arcs[('g', 'f')]['self_ns'] - f * 200000 / 200020) <= 1"
}
check gprof_pg_propagate_gives_gprof_split pg_propagate

pg_merge() {
	need_runtime && "$TALLY" report pg.exp --gprof --format json >one.json &&
	"$TALLY" report pg.exp pg2.exp --gprof --format json >two.json && python3 -c "
import sys; sys.path.insert(0, '.'); from gp import load
_, one, g1 = load('one.json')
_, two, g2 = load('two.json')
for k in [('main', 'f'), ('main', 'g'), ('g', 'f')]:
    assert two[k]['count'] == 2 * one[k]['count'], (k, one[k], two[k])
assert g2['f']['called'] == 400040, g2['f']"
}
check gprof_pg_two_experiments_double_counts pg_merge

# ---- callgrind -------------------------------------------------------------
# costs.py COLLAPSED SELF INCL: per function, self and inclusive ns from the
# collapsed stacks (once per stack) against callgrind_annotate's function
# lists without and with --inclusive=yes, and the program totals.
cat >costs.py <<'PY'
import re, sys
excl, incl, total = {}, {}, 0
for l in open(sys.argv[1]):
    stack, w = l.rsplit(None, 1)
    frames, w = stack.split(';'), int(w)
    total += w
    excl[frames[-1]] = excl.get(frames[-1], 0) + w
    for f in set(frames):
        incl[f] = incl.get(f, 0) + w
def annotate(path):
    got, prog, section = {}, None, False
    for l in open(path):
        if 'file:function' in l:
            section = True
            continue
        m = re.match(r'^\s*([\d,]+|\.) (?:\([^)]*\))?\s+(\S.*)$', l)
        if not m:
            continue
        v = 0 if m.group(1) == '.' else int(m.group(1).replace(',', ''))
        if m.group(2).startswith('PROGRAM TOTALS'):
            prog = v
        elif section:
            fn = re.sub(r' \[.*\]$', '', m.group(2)).split(':', 1)[1]
            got[fn] = got.get(fn, 0) + v
    return prog, got
prog, self_ = annotate(sys.argv[2])
prog2, incl_ = annotate(sys.argv[3])
assert prog == prog2 == total, (prog, prog2, total)
for f in ('f', 'g', 'main'):
    assert self_.get(f, 0) == excl.get(f, 0), (f, self_.get(f), excl.get(f))
    assert incl_[f] == incl[f], (f, incl_[f], incl[f])
print('callgrind: total %d ns, f self %d, main incl %d' % (total, self_['f'], incl_['main']))
PY

# callgrind EXP: export (every metric: CPU_ns and Samples here), annotate
# CPU_ns from another directory (callgrind_annotate
# strips the current directory from some file names only), compare.
callgrind() {
	"$TALLY" export "$1.exp" --format callgrind -o "$1.cg" &&
	"$TALLY" export "$1.exp" --format collapsed >"$1.folded" &&
	mkdir -p elsewhere && (cd elsewhere &&
	callgrind_annotate --auto=no --threshold=100 --show=CPU_ns --sort=CPU_ns "../$1.cg" \
		>"../$1.self" 2>"../$1.warn" &&
	callgrind_annotate --auto=no --threshold=100 --show=CPU_ns --sort=CPU_ns --inclusive=yes "../$1.cg" \
		>"../$1.incl" 2>>"../$1.warn") &&
	test ! -s "$1.warn" && python3 costs.py "$1.folded" "$1.self" "$1.incl"
}

callgrind_calls() {
	need_runtime && grep -A1 '^cfn=([0-9]*) f$' pg.cg | grep -q '^calls=20 ' &&
	grep -q '^calls=200000 ' pg.cg && grep -q '^events: CPU_ns Samples$' pg.cg
}

if command -v callgrind_annotate >/dev/null; then
	check gprof_callgrind_annotate_totals_plain callgrind plain
	check gprof_callgrind_annotate_totals_pg callgrind pg
	check gprof_callgrind_exact_calls callgrind_calls
else
	skip gprof_callgrind "callgrind_annotate (valgrind) not installed"
fi
