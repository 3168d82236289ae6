# test_gprof_timed.sh — `tally report --gprof=timed`: the gprof paper's first
# timing method for -finstrument-functions programs: each call's time from
# entry to exit, the runtime's own time taken out, against the program's
# own clock; a function's time counted once under recursion; the samples
# in the runtime kept apart as <instrumentation runtime>; and a clear
# refusal for an experiment with no timed call.
. "$(dirname "$0")/lib.sh"
cd "$T"

cc -O2 -g -finstrument-functions -o cyg_runtime "$PROGS/cyg_runtime.c"
"$TALLY" record -o rt.exp ./cyg_runtime >rt.out 2>/dev/null
"$TALLY" report rt.exp --gprof=timed --format csv >rt.csv 2>rt.err
check gprof_timed_against_the_programs_clock python3 "$E2E/timed.py" rt.csv rt.out
check gprof_timed_text_says_how sh -c "\"\$TALLY\" report rt.exp --gprof=timed >rt.txt &&
	grep -q '^time per arc: timed from entry to exit' rt.txt &&
	grep -q 'Each call counts its time from entry to exit' rt.txt && grep -q ' tiny \[' rt.txt"
check gprof_timed_json_method sh -c "\"\$TALLY\" report rt.exp --gprof=timed --format json | python3 -c '
import json, sys
d = json.load(sys.stdin)
s = json.dumps(d)
assert \"\\\"timed\\\"\" in s, s[:300]'"

# The CPU samples taken in the runtime are its own: in every view they are
# <instrumentation runtime>'s, called by the instrumented functions, and
# the runtime's clock reads are not the program's (it has a few hundred).
check instrumentation_runtime_kept_apart sh -c "\"\$TALLY\" report rt.exp --format csv >rt_f.csv && python3 -c '
import csv
rows = {r[\"name\"]: r for r in csv.DictReader(open(\"rt_f.csv\"))}
total = float(rows[\"<Total>\"][\"excl_cpu\"])
rt = float(rows[\"<instrumentation runtime>\"][\"excl_cpu\"])
clk = float(rows.get(\"clock_gettime\", {}).get(\"incl_cpu\", 0))
assert rt >= 0.5 * total and clk <= 0.05 * total, (rt, clk, total)' &&
	\"\$TALLY\" report rt.exp --callers '<instrumentation runtime>' --format csv | grep -q ',many\$'"

# rec() recurses 5 deep around a 10 ms sleep: only the outermost call counts,
# so the recursive arc carries nothing and rec's time is main's call of it.
cc -O2 -g -finstrument-functions -o pg_timed "$PROGS/pg_timed.c"
"$TALLY" record -o pt.exp ./pg_timed >/dev/null 2>&1
"$TALLY" report pt.exp --gprof=timed --format csv >pt.csv
check gprof_timed_recursion_counted_once python3 -c "
import csv
rows = list(csv.reader(open('pt.csv')))
arcs = [r for r in rows if len(r) == 7 and r[0] in ('main', 'rec') and r[2] == 'rec']
rr = [r for r in arcs if r[0] == 'rec']
mr = [r for r in arcs if r[0] == 'main']
assert rr and int(rr[0][5]) + int(rr[0][6]) == 0, rr
assert mr and 10e6 <= int(mr[0][5]) + int(mr[0][6]) < 100e6, mr
slow = [r for r in rows if len(r) == 7 and r[0] == 'main' and r[2] == 'slow']
assert slow and int(slow[0][5]) + int(slow[0][6]) >= 100e6 - 1e6, slow"

cc -O2 -g -o plain "$PROGS/spin.c"
"$TALLY" record -o plain.exp ./plain 0.1 >/dev/null 2>&1
check gprof_timed_refused_without_timed_calls sh -c "! \"\$TALLY\" report plain.exp --gprof=timed >o 2>e &&
	test \$(wc -l <e) -eq 1 && grep -q 'no call was timed in this experiment' e"
