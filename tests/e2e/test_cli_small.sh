# test_cli_small.sh — the command line says what is wrong instead of
# printing nothing: a script without "#!" runs with /bin/sh (as execvp and
# the shells run it, not 126); record's option errors say "tally record:"
# in one line; two views at once are refused; a thread, call arcs or a
# metric that the experiment does not have is named, with how to get it.
. "$(dirname "$0")/lib.sh"
cc_prog spin
cd "$T"

printf 'echo from-script\n./spin 0.05\nexit 5\n' >noshebang.sh
chmod +x noshebang.sh
check script_without_shebang_runs_with_sh sh -c '
	out=$("$TALLY" record -o ns.exp ./noshebang.sh 2>/dev/null); rc=$?;
	test $rc -eq 5 && test "$out" = from-script &&
	"$TALLY" export ns.exp --format collapsed | grep -q leaf_two'
check record_unknown_option_one_line sh -c '
	"$TALLY" record --bogus ./spin 2>err; test $? -eq 64 && test $(wc -l <err) -eq 1 &&
	grep -q "^tally record: unknown option --bogus" err'
check record_unknown_short_option sh -c '
	"$TALLY" record -Q ./spin 2>err; test $? -eq 64 && grep -q "^tally record: unknown option -Q" err'
check record_missing_value sh -c '
	"$TALLY" record ./spin -o 2>/dev/null >/dev/null; "$TALLY" record -F 2>err; test $? -eq 64 &&
	grep -q "^tally record: -F needs a value" err'

"$TALLY" record -o s.exp ./spin 0.1 2>/dev/null
check annotate_unknown_option sh -c '
	"$TALLY" annotate s.exp main --bogus 2>err; test $? -eq 64 && grep -q "unknown option --bogus" err'
check two_views_refused sh -c '
	"$TALLY" report s.exp --tree --threads >/dev/null 2>err; test $? -eq 64 &&
	grep -q -- "--tree and --threads are two views" err'
check newest_views_are_views_too sh -c '
	"$TALLY" report s.exp --states --tree >/dev/null 2>err; test $? -eq 64 &&
	grep -q -- "--states and --tree are two views" err &&
	"$TALLY" report s.exp --tree --states --threads >/dev/null 2>err; test $? -eq 64 &&
	grep -q -- "--tree and --states are two views" err && ! grep -q null err'
check same_view_twice_is_fine sh -c '"$TALLY" report s.exp --tree --tree >/dev/null'
check unknown_thread_named sh -c '
	"$TALLY" report s.exp --thread 99999 >/dev/null 2>err; test $? -eq 2 &&
	grep -q -- "--thread 99999: no such thread" err'
check arcs_without_pg_said sh -c '
	"$TALLY" export s.exp --format arcs >out 2>err; test $? -eq 2 && test ! -s out &&
	grep -q "no call arcs .*-pg" err'
check metric_not_recorded_said sh -c '
	"$TALLY" report s.exp --metric heap.bytes >/dev/null 2>err; test $? -eq 2 &&
	grep -q -- "--metric heap.bytes: no heap events: record with -H" err &&
	"$TALLY" export s.exp --format collapsed --metric io.bytes >/dev/null 2>err; test $? -eq 2 &&
	grep -q "record with -i" err'
