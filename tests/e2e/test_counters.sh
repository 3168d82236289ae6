# test_counters.sh — counter profiling (tally record -c EVENT[/PERIOD]):
# page faults of a program touching N fresh pages attributed to the touching
# function; several counters at once; the one-line refusal of a hardware
# event where the machine has no PMU, before the target starts; bad -c
# arguments.
. "$(dirname "$0")/lib.sh"
cd "$T"
cc_prog faulty
cc_prog states_mutex -pthread
INCL="python3 $E2E/incl.py"
N=20000

"$TALLY" record -c page-faults -o faults.exp ./faulty $N >/dev/null 2>&1
"$TALLY" export faults.exp --format collapsed --metric page-faults >pf.txt
check counters_page_faults_at_the_touching_function sh -c "
	got=\$($INCL pf.txt touch_pages); echo touch_pages \$got of $N
	test \$((got * 100)) -ge \$(($N * 95)) && test \$got -le \$(($N + $N / 50))"
check counters_page_faults_few_elsewhere sh -c "test \$($INCL pf.txt other_work) -le 20"
check counters_in_the_overview sh -c "\"\$TALLY\" report faults.exp >ov.txt && grep -q '^Counters' ov.txt &&
	grep -Eq '^  page-faults +[0-9]+' ov.txt"
check counters_definition_logged grep -q '^counter: page-faults' faults.exp/log.txt

"$TALLY" record -c minor-faults/10 -o minor.exp ./faulty $N >/dev/null 2>&1
"$TALLY" export minor.exp --format collapsed --metric minor-faults >mf.txt
# Every 10th fault is a sample of 10 (read from the counter): the total is exact.
check counters_period_weighs_events sh -c "
	got=\$($INCL mf.txt touch_pages); echo touch_pages \$got of $N
	test \$((got * 100)) -ge \$(($N * 95)) && test \$got -le \$(($N + $N / 50)) &&
	test \$(grep -c . mf.txt) -ge 1"

# Two counters at once: faults and context switches (root counts the latter
# in the kernel; a user at perf_event_paranoid 2 counts none).
"$TALLY" record -c page-faults -c context-switches -o two.exp ./states_mutex 6 5 >/dev/null 2>&1
"$TALLY" export two.exp --format collapsed --metric context-switches >cs.txt
if need root counters_context_switches_at_blocking_calls; then
	check counters_context_switches_at_blocking_calls sh -c "
		test \$($INCL cs.txt take_lock) -ge 2 && test \$($INCL cs.txt nap) -ge 10"
fi
check counters_two_metrics sh -c "\"\$TALLY\" report two.exp --metric page-faults,context-switches >two.txt &&
	grep -q 'Excl. page-faults' two.txt && grep -q 'Excl. context-switches' two.txt"

# A hardware event without a PMU: one line, exit 2, before the target runs.
if can pmu; then
	skip counters_cycles_refused_without_pmu "this machine has a CPU PMU"
	skip counters_cycles_target_never_ran "this machine has a CPU PMU"
else
	"$TALLY" record -c cycles -o cyc.exp -- sh -c "touch $T/ran" >cyc.out 2>cyc.err
	rc=$?
	check counters_cycles_refused_without_pmu sh -c "cat cyc.err; test $rc -eq 2 &&
		test \$(wc -l <cyc.err) -eq 1 && grep -q 'no hardware performance counters' cyc.err &&
		grep -q 'page-faults' cyc.err && grep -q 'cycles' cyc.err"
	check counters_cycles_target_never_ran sh -c "test ! -e $T/ran && test ! -e cyc.exp"
fi
"$TALLY" record -c bogus -- true >/dev/null 2>bogus.err
rc=$?
check counters_unknown_event_refused sh -c "cat bogus.err; test $rc -eq 64 && test \$(wc -l <bogus.err) -eq 1 &&
	grep -q \"unknown event 'bogus'\" bogus.err && grep -q 'page-faults' bogus.err"
"$TALLY" record -c page-faults/0 -- true >/dev/null 2>period.err
rc=$?
check counters_bad_period_refused sh -c "cat period.err; test $rc -eq 64 && grep -q 'period' period.err"
check counters_metric_by_event_name sh -c "\"\$TALLY\" report faults.exp --metric page-faults,faults >m.txt 2>&1 &&
	grep -q 'Excl. page-faults' m.txt"

# Hardware counters and dataspace profiling, past the PMU: a synthetic
# experiment (tests/progs/hwcgen.c) with counts known by construction.
"$TALLY_BUILD/tests/hwcgen" hwc.exp >hwc.out
check counters_ipc_and_mpki_overall sh -c "\"\$TALLY\" report hwc.exp --format json | python3 -c '
import json, sys
c = json.load(sys.stdin)[\"counters\"]
print(c)
assert c[\"cycles\"] == 4000 * 1000003 and c[\"instructions\"] == 4500 * 1000003, c
assert abs(c[\"ipc\"] - 1.125) < 1e-3 and abs(c[\"cache-misses_mpki\"] - 1070000 * 1000 / (4500 * 1000003)) < 1e-3, c
'"
check counters_ipc_by_function sh -c "\"\$TALLY\" report hwc.exp --counters --format json | python3 -c '
import json, sys
rows = {r[\"name\"]: r for r in json.load(sys.stdin)[\"counters\"]}
print(rows)
assert rows[\"gen_hot\"][\"ipc\"] == \"0.500\" and rows[\"gen_cold\"][\"ipc\"] == \"3.000\", rows
assert rows[\"gen_hot\"][\"excl_cache-misses\"] == 650000 and rows[\"gen_cold\"][\"excl_cache-misses\"] == 420000
'"
check dataspace_objects_by_construction sh -c "\"\$TALLY\" report hwc.exp --data-objects --format json | python3 -c '
import json, sys
rows = {r[\"name\"]: r for r in json.load(sys.stdin)[\"data_objects\"]}
want = {\"<Total>\": 1070, \"gen_grid\": 600, \"<Scalars>\": 300, \"gen_table\": 40, \"<Heap: 2K-4K bytes>\": 20,
        \"<Heap: gen_alloc>\": 50, \"<Stack>\": 30, \"<Unknown: no address>\": 20, \"<Unknown: anonymous>\": 10,
        \"{struct gen_entry}.hot\": 40}
for k, n in want.items():
    assert rows[k][\"samples\"] == n and rows[k][\"events\"] == n * 1000, (k, rows.get(k))
assert rows[\"gen_grid\"][\"size\"] == 65536 * 8 and rows[\"gen_grid\"][\"object\"] == \"hwcgen\"
assert rows[\"gen_grid\"][\"top_function\"] == \"gen_hot\" and abs(rows[\"gen_grid\"][\"top_pct\"] - 83.33) < 0.01
assert rows[\"<Scalars>\"][\"top_function\"] == \"gen_cold\" and rows[\"<Heap: gen_alloc>\"][\"size\"] == 4096
assert rows[\"{struct gen_entry}.hot\"][\"size\"] == 4 and \"{struct gen_entry}.cold\" not in rows
assert rows[\"{struct gen_entry}.hot\"][\"depth\"] == 1 and rows[\"gen_table\"][\"depth\"] == 0, rows[\"{struct gen_entry}.hot\"]
assert len(rows) == len(want), sorted(rows)
'"
# The data source of each precise sample (DATA_SAMPLE_SRC, as the collector
# writes them): per object, the share of its samples each level served;
# a column only for the levels some sample has.
check dataspace_objects_by_level_served sh -c "\"\$TALLY\" report hwc.exp --data-objects --format json | python3 -c '
import json, sys
rows = {r[\"name\"]: r for r in json.load(sys.stdin)[\"data_objects\"]}
g, c, t = rows[\"gen_grid\"], rows[\"<Scalars>\"], rows[\"<Total>\"]
assert abs(g[\"from_l1\"] - 100 * 400 / 600) < 0.01 and abs(g[\"from_dram\"] - 100 * 100 / 600) < 0.01, g
assert g[\"from_llc\"] == 0 and c[\"from_llc\"] == 100 and c[\"from_l1\"] == 0, c
assert rows[\"gen_table\"][\"from_l1\"] == 0 and abs(t[\"from_l1\"] - 100 * 400 / 1070) < 0.01, t
assert not any(k in g for k in (\"from_l2\", \"from_lfb\", \"from_remote\", \"from_unknown\")), sorted(g)
'"
# The page: the precise table as --data-objects gives it, levels included,
# in the Data objects tab (a page of precise samples alone shows the tab).
"$TALLY" html hwc.exp -o hwc.html >/dev/null 2>&1
"$TALLY" report hwc.exp --data-objects --format json >ob.json 2>/dev/null
check dataspace_html_embeds_precise_table python3 -c "
import json
from tally_page import page_json
D = json.loads(page_json(open('hwc.html').read()))
got = D['dataPrecise']['data_objects']
want = [r for r in json.load(open('ob.json'))['data_objects'] if r['counter'] != 'cpu']
print(got[:2])
assert got == want and 'from_l1' in got[1], got[:2]"
if need browser dataspace_precise_table_in_chromium; then
	check dataspace_precise_table_in_chromium sh -c "
		timeout 100 node \"$E2E/../js/check_dataobj.mjs\" hwc.html >hr.json && python3 -c \"
import json
r = json.load(open('hr.json'))
print(r.get('precise_heads'), r.get('precise', [])[:2])
assert r['tab_shown'] and not r['errors'], r
assert r['precise_heads'][-3:] == ['% L1', '% LLC', '% DRAM'], r['precise_heads']
g = [row for row in r['precise'] if 'gen_grid' in row][0]
assert g[-3:] == ['66.67', '0.00', '16.67'], g\""
fi
check dataspace_samples_count_at_their_code sh -c "\"\$TALLY\" export hwc.exp --format collapsed --metric cache-misses >cm.txt &&
	test \$($INCL cm.txt gen_hot) -eq 650000 && test \$($INCL cm.txt gen_cold) -eq 420000"
check dataspace_nothing_without_precise_samples sh -c "\"\$TALLY\" report faults.exp --data-objects | grep -q 'No data objects'"

# What counted after the last overflow (the COUNTER_END total less the
# samples) is <Counts after the last overflow>, a root of its own: at period
# 1000, 2500 touched pages (and the start-up's faults) give two or three
# samples; the metric's total is the counter's own, at least the 2500.
"$TALLY" record -c page-faults/1000 -o rest.exp ./faulty 2500 >/dev/null 2>&1
"$TALLY" export rest.exp --format collapsed --metric page-faults >rest.txt
check counters_rest_after_last_overflow sh -c "cat rest.txt | cut -c1-100 | tail -4
	rest=\$($INCL rest.txt '<Counts after the last overflow>'); total=\$(awk '{s += \$NF} END {print s}' rest.txt)
	echo rest \$rest total \$total; test \$rest -gt 0 && test \$rest -lt 1100 && test \$total -ge 2500 &&
	test \$($INCL rest.txt touch_pages) -le 2500"
