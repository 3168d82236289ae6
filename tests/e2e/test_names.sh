# test_names.sh — names round-trip: every function name a view prints is
# accepted by --callers and annotate; two libraries with the same basename
# are told apart by path (their same-named function, and their stripped
# <static>@0x... regions, whose names already carry the object); a
# mistyped name gets the nearest names; an alias (__qsort_r) names its
# function everywhere; a clone is shown readably and found by its link name;
# gfortran's ENTRY body master.0.work_ is work_ [entry master].
. "$(dirname "$0")/lib.sh"
cd "$T"
mkdir -p a b
cc -O2 -g -DLIB -fPIC -shared -o a/libsame.so "$PROGS/samename.c" && strip a/libsame.so
cc -O2 -g -DLIB -fPIC -shared -o b/libsame.so "$PROGS/samename.c" && strip b/libsame.so
cc -O2 -g -o samename "$PROGS/samename.c" -ldl
"$TALLY" record -o s.exp ./samename "$T" 2>/dev/null
"$TALLY" report s.exp --format csv --limit 0 >f.csv
python3 -c '
import csv
for r in csv.DictReader(open("f.csv")):
    print(r["name"])' >names.txt

check same_basename_told_apart_by_path sh -c "
	grep -qx 'same_work ($T/a/libsame.so)' names.txt && grep -qx 'same_work ($T/b/libsame.so)' names.txt &&
	grep -q '^<static>@0x[0-9a-f]* ($T/a/libsame.so)\$' names.txt &&
	grep -q '^<static>@0x[0-9a-f]* ($T/b/libsame.so)\$' names.txt && ! grep -q ') (' names.txt"
check every_printed_name_accepted_by_callers sh -c '
	n=0; while IFS= read -r name; do
		"$TALLY" report s.exp --callers "$name" >out.txt 2>err.txt || { echo "refused: $name"; cat err.txt; exit 1; }
		grep -qF "Callers of $name" out.txt || { echo "not shown: $name"; exit 1; }
		n=$((n + 1))
	done <names.txt; test $n -ge 5'
check callers_by_basename_finds_both sh -c '
	"$TALLY" report s.exp --callers "same_work (libsame.so)" >both.txt &&
	test $(grep -c "^Callers of same_work" both.txt) -eq 2'
check callers_by_path_end_finds_one sh -c '
	"$TALLY" report s.exp --callers "same_work (b/libsame.so)" >one.txt &&
	test $(grep -c "^Callers of same_work" one.txt) -eq 1 && grep -q "b/libsame.so" one.txt'
check annotate_accepts_printed_name sh -c '
	"$TALLY" annotate s.exp --disasm "$(grep -m1 "^<static>" names.txt)" >ann.txt && grep -q "Disassembly of" ann.txt'
check mistyped_name_gets_suggestions sh -c '
	"$TALLY" report s.exp --callers same_wrok >/dev/null 2>err; test $? -ne 0 &&
	test $(wc -l <err) -eq 1 && grep -q "nearest: .same_work" err'
check annotate_mistyped_name_gets_suggestions sh -c '
	"$TALLY" annotate s.exp mian >/dev/null 2>err; test $? -ne 0 && grep -q "nearest: .main." err'
check nothing_near_says_where_to_look sh -c '
	"$TALLY" report s.exp --callers zzzzqqqq >/dev/null 2>err; grep -q "see --functions" err'
check tree_names_accepted sh -c '
	"$TALLY" report s.exp --tree --format csv | python3 -c "
import csv, sys
for r in csv.DictReader(sys.stdin):
    print(r[\"name\"].strip())" | grep -v "^<Total>" >tree.txt && test -s tree.txt &&
	while IFS= read -r name; do
		"$TALLY" report s.exp --callers "$name" >/dev/null 2>&1 || { echo "refused: $name"; exit 1; }
	done <tree.txt'
check process_label_accepted sh -c '
	pid=$(sed -n "s/^pid: //p" s.exp/log.txt) &&
	"$TALLY" report s.exp --process "[samename $pid]" >p.txt && grep -q same_work p.txt'

# Aliases and clones (docs/structure.md, "Names"): glibc's qsort_r is also
# __qsort_r: one row, its aliases shown in --callers, the JSON and annotate,
# and the alias accepted wherever a function is named; gcc's clone of field()
# shown as C++ clones are, and found by its link name.
cc_prog aliasy
"$TALLY" record -o al.exp ./aliasy 2>/dev/null >/dev/null
clone=$(nm aliasy | sed -n 's/.* t \(field\.[a-z]*\.[0-9]*\)$/\1/p')
check alias_names_the_function_in_callers sh -c '
	"$TALLY" report al.exp --callers __qsort_r >alc.txt && grep -q "^Callers of qsort_r\$" alc.txt &&
	grep -Eq "^ +[0-9.]+ +[0-9.]+ +main\$" alc.txt && grep -Eq "qsort_r +.*__qsort_r" alc.txt'
check alias_in_json_and_annotate sh -c '
	"$TALLY" report al.exp --format json | python3 -c "
import json, sys
f = [f for f in json.load(sys.stdin)[\"functions\"] if f[\"name\"] == \"qsort_r\"]
assert len(f) == 1 and \"__qsort_r\" in f[0][\"aliases\"].split(\", \"), f" &&
	"$TALLY" annotate al.exp __qsort_r >ala.txt && grep -q "^Source of qsort_r" ala.txt &&
	grep -q "aliases: .*__qsort_r" ala.txt'
if [ -n "$clone" ]; then
	readable="field [clone .${clone#field.}]"
	check clone_shown_readably sh -c "\"\$TALLY\" report al.exp --format csv >alf.csv && python3 -c '
import csv
names = [r[\"name\"] for r in csv.DictReader(open(\"alf.csv\"))]
assert \"$readable\" in names and not [n for n in names if n.startswith(\"field.\")], names'"
	check clone_found_by_link_name sh -c "\"\$TALLY\" report al.exp --callers $clone | grep -qxF 'Callers of $readable'"
else
	skip clone_shown_readably "gcc made no clone of field"
fi

# gfortran's body shared by a subroutine's ENTRY points (master.0.work_):
# shown as the subroutine it is, marked, and found by that name.
if command -v gfortran >/dev/null; then
	cat >ent.f90 <<'F'
      subroutine work(n, r)
      integer n, i
      double precision r
      r = 0
      do i = 1, n
        r = r + sqrt(dble(i))
      end do
      return
      entry work2(n, r)
      r = 1
      do i = 1, n
        r = r + sqrt(dble(i))
      end do
      return
      end
      program main
      double precision r
      call work(50000000, r)
      call work2(50000000, r)
      print *, r
      end
F
	gfortran -O2 -fno-inline -o ent ent.f90 && "$TALLY" record -o ent.exp ./ent >/dev/null 2>&1
	if nm ent | grep -q ' master\.0\.work_'; then
		check fortran_entry_master_named sh -c '
			"$TALLY" report ent.exp --format csv --limit 0 >ent.csv &&
			grep -q ",work_ \[entry master\]" ent.csv && ! grep -q "master \[clone" ent.csv &&
			"$TALLY" report ent.exp --callers "work_ [entry master]" -q >/dev/null'
	else
		skip fortran_entry_master_named "gfortran made no master.0.work_ body"
	fi
else
	skip fortran_entry_master_named "no gfortran"
fi

# Two builds of one program at one path (rebuilt between two runs), merged:
# a row each, told apart by build-id (the first four bytes), each accepted
# by --callers.
mkdir -p rebuilt
cat >rebuilt.c <<'C'
#include <stdlib.h>
volatile unsigned long sink;
__attribute__((noinline)) void spin(unsigned long n)
{
	for (unsigned long i = 0; i < n; i++)
		sink += i * STEP;
}
int main(void) { spin(60000000UL); return 0; }
C
bid() { readelf -n "$1" | sed -n 's/.*Build ID: \(........\).*/\1/p'; }
cc -O1 -g -DSTEP=1 -o rebuilt/prog rebuilt.c && b1=$(bid rebuilt/prog) &&
	"$TALLY" record -o rb1.exp rebuilt/prog 2>/dev/null
cc -O1 -g -DSTEP=3 -o rebuilt/prog rebuilt.c && b2=$(bid rebuilt/prog) &&
	"$TALLY" record -o rb2.exp rebuilt/prog 2>/dev/null
check two_builds_told_apart_by_build_id sh -c "
	\"\$TALLY\" report rb1.exp rb2.exp --format csv --limit 0 >rb.csv && python3 -c '
import csv, sys
rows = [r for r in csv.DictReader(open(\"rb.csv\")) if r[\"name\"].startswith(\"spin\")]
names = sorted(r[\"name\"] for r in rows)
print(names)
assert names == sorted([\"spin (build $b1)\", \"spin (build $b2)\"]) and \"$b1\" != \"$b2\", names
assert all(float(r[\"excl_cpu\"]) > 0 for r in rows), rows' &&
	\"\$TALLY\" report rb1.exp rb2.exp --callers 'spin (build $b1)' | grep -q '^Callers of spin (build $b1)'"
