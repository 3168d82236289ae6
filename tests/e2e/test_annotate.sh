# test_annotate.sh — `tally annotate` (source lines and instructions with
# their metrics) and `tally export --format pprof`.
. "$(dirname "$0")/lib.sh"
cd "$T"
cc_prog spin
cc_prog heapy -pthread
# At 4 kHz (~2,000 samples): a share of 2/3 is then within 4 points by 3.8
# standard deviations of its sampling error (at 1 kHz, 1.9: a clean root
# saw 71.24 for 66.7)
"$TALLY" record -F 4000 -o a.exp ./spin 0.5 2>/dev/null

check annotate_source_line_has_the_time sh -c "\"\$TALLY\" annotate a.exp leaf_two --format csv >src.csv && python3 -c '
import csv
rows = list(csv.DictReader(open(\"src.csv\")))
hot = max(rows, key=lambda r: float(r[\"excl_cpu_pct\"]))
assert float(hot[\"excl_cpu_pct\"]) > 60 and \"WORK\" in hot[\"text\"], hot'"
check annotate_disasm_calls_carry_inclusive_time sh -c "\"\$TALLY\" annotate a.exp parent --disasm --format csv >dis.csv && python3 -c '
import csv
rows = list(csv.DictReader(open(\"dis.csv\")))
calls = {r[\"instruction\"].rsplit(\"<\", 1)[-1].rstrip(\">\"): float(r[\"incl_cpu_pct\"]) for r in rows if r[\"instruction\"].startswith(\"call\")}
assert abs(calls[\"leaf_two\"] - 66.7) < 4 and abs(calls[\"leaf_one\"] - 33.3) < 4, calls'"
check annotate_unknown_function_fails sh -c "\"\$TALLY\" annotate a.exp nosuch 2>err; test \$? -eq 2 && grep -q nosuch err"

check pprof_export_decodes_to_the_same_stacks sh -c "\"\$TALLY\" export a.exp --format pprof -o a.pb.gz &&
	python3 \"\$E2E/pprof_dump.py\" a.pb.gz | sed -n 's/^cpu //p' >pp.txt &&
	\"\$TALLY\" export a.exp --format collapsed >co.txt && python3 -c '
def load(f):
    d = {}
    for l in open(f):
        s, w = l.rsplit(None, 1)
        d[s] = d.get(s, 0) + int(w)
    return d
a, b = load(\"pp.txt\"), load(\"co.txt\")
assert a == b, (a, b)'"
"$TALLY" record -H -o h.exp ./heapy 2>/dev/null
check pprof_export_has_every_metric sh -c "\"\$TALLY\" export h.exp --format pprof -o h.pb.gz &&
	python3 \"\$E2E/pprof_dump.py\" h.pb.gz >h.txt && grep -q '^heap.bytes .*main;keep 3000$' h.txt &&
	grep -q '^heap.leak .*thread_leak 555$' h.txt && grep -q '^heap.count .*main;churn 1000$' h.txt"

# A source file that is there but cannot be read is said with its own
# errno, not shown as an empty file (fread's error was taken for the end;
# before: "Source of leaf_two: .../spin.c" and empty lines) nor as not
# found: the program's source is replaced by a directory after the run.
mkdir -p gone && cp "$PROGS/spin.c" gone/ && (cd gone && cc -O2 -g -o spin spin.c) &&
	"$TALLY" record -o gone.exp ./gone/spin 0.2 >/dev/null 2>&1 && rm gone/spin.c && mkdir gone/spin.c
check annotate_unreadable_source_names_its_errno sh -c '
	"$TALLY" annotate gone.exp leaf_two >dir.txt 2>&1; head -3 dir.txt
	grep -q "^Source of leaf_two: .*/gone/spin.c: not shown: Is a directory (lines with metrics only)" dir.txt'
