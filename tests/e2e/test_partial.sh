# test_partial.sh — keep what can be kept: one bad sub-experiment costs only
# itself (a warning naming it, the rest reported, exit status 1: a partial
# report), --process of a good one is not affected; a missing maps.dat or
# log.txt is named; a FIFO where a file was neither hangs nor fails the
# report; a directory is an experiment only if a file in it has a tally
# header.  On copies of tests/data/tree.exp (a founder, _f1, _f2, _f2_x1).
. "$(dirname "$0")/lib.sh"
ROOT=$(cd "$E2E/../.." && pwd)
cd "$T"
fresh() { rm -rf "$1" && cp -r "$ROOT/tests/data/tree.exp" "$1"; }

fresh good
check pristine_tree_reports sh -c '"$TALLY" report good >/dev/null 2>err; test $? -eq 0'

fresh bad
head -c 100 good/_f1.exp/samples.dat >bad/_f1.exp/samples.dat
dd if=/dev/urandom of=bad/_f1.exp/stacks.dat bs=1k count=2 2>/dev/null
check bad_sub_experiment_costs_itself sh -c '
	"$TALLY" report bad --processes >out.txt 2>err; rc=$?; cat err; test $rc -eq 1 &&
	grep -q "_f1.exp" err && grep -q "_f2_x1" out.txt && grep -q "founder" out.txt'
check bad_sub_experiment_other_process_exact sh -c '
	"$TALLY" export good --process _f2_x1 --format collapsed 2>/dev/null | sort >g.txt &&
	"$TALLY" export bad --process _f2_x1 --format collapsed 2>/dev/null | sort >b.txt && cmp g.txt b.txt'

fresh fifo
rm fifo/_f2.exp/samples.dat && mkfifo fifo/_f2.exp/samples.dat
check fifo_neither_hangs_nor_fails sh -c '
	timeout 30 "$TALLY" report fifo --processes >out.txt 2>err; rc=$?; cat err; test $rc -eq 1 &&
	grep -q "_f2.exp/samples.dat: not a regular file" err && grep -q "_f2_x1" out.txt'

fresh nomaps
rm nomaps/_f1.exp/maps.dat
check missing_maps_named sh -c '
	"$TALLY" report nomaps >/dev/null 2>err; test $? -eq 1 &&
	grep -q "nomaps/_f1.exp/maps.dat is missing: its addresses are <Unknown>" err'

fresh nolog
rm nolog/_f2_x1.exp/log.txt
check missing_log_named_process_kept sh -c '
	"$TALLY" report nolog --processes >out.txt 2>err; test $? -eq 1 &&
	grep -q "nolog/_f2_x1.exp/log.txt is missing" err && grep -q "_f2_x1" out.txt'

mkdir -p notexp/_f1.exp && printf "name: value\n" >notexp/log.txt && printf "x: y\n" >notexp/_f1.exp/log.txt
check log_alone_is_not_an_experiment sh -c '
	"$TALLY" report notexp >/dev/null 2>err; test $? -eq 2 && test $(wc -l <err) -eq 1 &&
	grep -q "notexp: not a tally experiment" err'

# counters.dat's version is checked as every file's (before, it was read
# whatever its version, and `tally check` said sound): one a newer tally
# wrote (this reader's version + 1) is said and its counters left out, not
# read as garbage (partial, exit 1); a garbage version is damage named at
# its place.
fresh ctrnew
fresh ctrbad
newer=$(($(sed -n 's/^#define EXP_FORMAT_VERSION  *\([0-9]*\).*/\1/p' "$ROOT/src/format/exp_records.h") + 1))
python3 - ctrnew/counters.dat $newer ctrbad/counters.dat 3735928559 <<'PY'
import struct, sys
for path, version in zip(sys.argv[1::2], sys.argv[2::2]):
    with open(path, 'r+b') as f:
        f.seek(8)
        f.write(struct.pack('<I', int(version)))
PY
check counters_newer_version_said_and_left_out sh -c "
	\"\$TALLY\" report ctrnew >out.txt 2>err; rc=\$?; cat err; test \$rc -eq 1 &&
	grep -q 'ctrnew/counters.dat: written by a newer tally (format $newer): its loss counters left out' err &&
	{ \"\$TALLY\" check ctrnew >chk.txt; test \$? -eq 1; } && cat chk.txt && ! grep -q sound chk.txt"
check counters_garbage_version_is_damage sh -c '
	{ "$TALLY" check ctrbad >chk.txt; test $? -eq 1; } && cat chk.txt &&
	grep -q "ctrbad/counters.dat: at 0x8: format version 3735928559" chk.txt'
