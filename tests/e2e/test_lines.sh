# test_lines.sh — annotation as the Sun seed describes it (docs/structure.md,
# "Annotation"): per-line costs known by construction (linecost.c), the
# whole file, `##` hot lines, the special line for instructions without line
# numbers, recursion counted once per line, disassembly with source
# interleaved and summing to the function's exclusive time, sources found
# through --source-path and the compilation directory, compiler commentary,
# and report --lines / --pcs.
. "$(dirname "$0")/lib.sh"
cd "$T"
mkdir -p src build moved
cp "$PROGS/linecost.c" "$PROGS/linecost_nog.c" src/
cc -O2 -c -o build/nog.o src/linecost_nog.c
# Built from build/ with a relative path: DWARF names ../src/linecost.c,
# relative to the compilation directory.
(cd build && cc -O2 -g -fsave-optimization-record -o linecost ../src/linecost.c nog.o)
"$TALLY" record -F 10000 -o lc.exp ./build/linecost 2 2>/dev/null   # 10 kHz: ~4,000 samples
"$TALLY" annotate lc.exp lines --format csv >lines.csv
"$TALLY" report lc.exp --format csv >funcs.csv

check annotate_lines_reproduce_known_costs python3 -c '
import csv
rows = [r for r in csv.DictReader(open("lines.csv")) if r["kind"] == "line"]
f = [r for r in csv.DictReader(open("funcs.csv")) if r["name"] == "lines"][0]
fex = float(f["excl_cpu"])
by = {r["text"].split("/* ")[-1].rstrip(" */"): float(r["excl_cpu"]) for r in rows if r["text"].endswith(" */") and "/* LINE_" in r["text"]}
for name, share in (("LINE_A", 1/6), ("LINE_B", 2/6), ("LINE_C", 3/6)):
    got = by[name] / fex
    print(name, round(got, 4), "want", round(share, 4))
    assert abs(got - share) <= 0.03, (name, got, share)'
check annotate_shows_the_whole_file python3 -c '
import csv
rows = [r for r in csv.DictReader(open("lines.csv")) if r["kind"] == "line"]
assert rows[0]["line"] == "1" and len(rows) == len(open("src/linecost.c").read().splitlines()), len(rows)
main = [r for r in rows if "lines(n);" in r["text"]][0]
assert float(main["incl_cpu"]) > 0, main'
check annotate_marks_hot_lines python3 -c '
import csv
rows = {r["text"].split("/* ")[-1].rstrip(" */"): r for r in csv.DictReader(open("lines.csv")) if "/* LINE_" in r["text"]}
assert rows["LINE_C"]["hot"] == "##" and rows["LINE_A"]["hot"] == "", rows'
check annotate_commentary_beside_its_line python3 -c '
import csv
rows = list(csv.DictReader(open("lines.csv")))
i = [k for k, r in enumerate(rows) if "/* LINE_C */" in r["text"]][0]
notes = []
while rows[i - 1]["kind"] == "commentary":
    i -= 1
    notes.append(rows[i]["text"])
assert notes and all(n.lstrip().startswith("// ") for n in notes), notes'

"$TALLY" annotate lc.exp rec --format csv >rec.csv
check annotate_recursion_counted_once_per_line python3 -c '
import csv
rows = [r for r in csv.DictReader(open("rec.csv")) if r["kind"] == "line"]
f = [r for r in csv.DictReader(open("funcs.csv")) if r["name"] == "rec"][0]
call = [r for r in rows if "/* LINE_R */" in r["text"]][0]
lo = [int(r["line"]) for r in rows if "unsigned long rec(" in r["text"]][0]
hi = [int(r["line"]) for r in rows if "return r + x;" in r["text"]][0]
top = max(float(r["incl_cpu_pct"]) for r in rows if lo <= int(r["line"]) <= hi)
print("rec incl", f["incl_cpu_pct"], "call line", call["incl_cpu_pct"], "max line", top)
assert 0 < float(call["incl_cpu_pct"]) < float(f["incl_cpu_pct"]) and top <= float(f["incl_cpu_pct"]) + 0.01'

"$TALLY" annotate lc.exp rec --disasm --format csv >dis.csv
check disasm_sums_to_exclusive python3 -c '
import csv
rows = [r for r in csv.DictReader(open("dis.csv")) if r["kind"] in ("insn", "undecoded")]
f = [r for r in csv.DictReader(open("funcs.csv")) if r["name"] == "rec"][0]
s, want = sum(float(r["excl_cpu"]) for r in rows), float(f["excl_cpu"])
print("sum", s, "function", want)
assert abs(s - want) <= max(0.003, 0.02 * want)'
check disasm_source_interleaved_by_the_seeds_rule python3 -c '
import csv
shown, first = set(), None
for r in csv.DictReader(open("dis.csv")):
    if r["kind"] == "source":
        shown.add(int(r["line"]))
        first = first or int(r["line"])
    elif r["kind"] == "insn" and first and int(r["line"]) >= first:
        missing = [n for n in range(first, int(r["line"]) + 1) if n not in shown]
        assert not missing, (r, missing)
assert shown and any("/* LINE_R */" in r["instruction"] for r in csv.DictReader(open("dis.csv")) if r["kind"] == "source")'
check disasm_call_targets_named sh -c "grep -q 'call 0x[0-9a-f]* <rec>' dis.csv && grep -Eq 'j[a-z]+ 0x[0-9a-f]+ <rec\+0x[0-9a-f]+>' dis.csv"

check annotate_instructions_without_line_numbers sh -c "\"\$TALLY\" annotate lc.exp nolines --format csv >nl.csv && python3 -c '
import csv
rows = list(csv.DictReader(open(\"nl.csv\")))
assert len(rows) == 1 and rows[0][\"kind\"] == \"nolines\" and float(rows[0][\"excl_cpu\"]) > 0, rows
assert rows[0][\"text\"] == \"nolines -- <instructions without line numbers>\", rows'"

# Sources: from another directory through the compilation directory; moved
# away, only through --source-path.
check annotate_finds_source_through_comp_dir sh -c "cd / && \"\$TALLY\" annotate '$T/lc.exp' lines | head -1 | grep -q 'src/linecost.c\$'"
mv src/linecost.c moved/
check annotate_source_path_finds_moved_file sh -c "
	\"\$TALLY\" annotate lc.exp lines | head -1 | grep -q 'not found' &&
	\"\$TALLY\" annotate lc.exp lines --source-path /nonexistent:moved | grep -q 'LINE_C'"

check report_lines_hottest_first sh -c "\"\$TALLY\" report lc.exp --lines --source-path moved --format csv >hl.csv && python3 -c '
import csv
rows = list(csv.DictReader(open(\"hl.csv\")))
assert rows[0][\"location\"] == \"linecost.c:18\" and \"LINE_C\" in rows[0][\"text\"], rows[0]
assert any(r[\"function\"] == \"nolines\" and r[\"location\"].startswith(\"<instructions\") for r in rows)'"
check report_pcs_hottest_first sh -c "\"\$TALLY\" report lc.exp --pcs --format csv >hp.csv && python3 -c '
import csv
rows = list(csv.DictReader(open(\"hp.csv\")))
assert rows[0][\"function\"].startswith(\"lines+0x\") and rows[0][\"instruction\"], rows[0]
assert float(rows[0][\"excl_cpu\"]) >= float(rows[1][\"excl_cpu\"])'"
