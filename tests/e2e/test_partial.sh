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
