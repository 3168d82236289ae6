# test_cli_small.sh — the command line says what is wrong instead of
# printing nothing: a script without "#!" runs with /bin/sh (as execvp and
# the shells run it, not 126); record's option errors say "tally record:"
# in one line; two views at once are refused; a thread, call arcs or a
# metric that the experiment does not have is named, with how to get it;
# <Total>'s callees and --no-args on pseudo-functions; "did you mean" for
# a mistyped command, option or metric.
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
	{ "$TALLY" report s.exp --tree --states --threads >/dev/null 2>err; test $? -eq 64; } &&
	grep -q -- "--tree and --states are two views" err && ! grep -q null err'
check same_view_twice_is_fine sh -c '"$TALLY" report s.exp --tree --tree >/dev/null'
check unknown_thread_named sh -c '
	"$TALLY" report s.exp --thread 99999 >/dev/null 2>err; test $? -eq 2 &&
	grep -q -- "--thread 99999: no such thread" err'
check arcs_without_pg_said sh -c '
	"$TALLY" export s.exp --format arcs >out 2>err; test $? -eq 2 && test ! -s out &&
	grep -q "no call arcs .*-pg" err'
# <Total> calls every stack's root: its callees add up to it (they were an
# empty list), and --no-args leaves pseudo-functions' names whole (they
# were all "<...>").
check total_callees_are_the_roots sh -c '
	"$TALLY" report s.exp --callers "<Total>" -q --format csv >tc.csv &&
	python3 - tc.csv <<PY
import sys
parts = open(sys.argv[1]).read().strip().split("\n\n")
total = float(parts[1].splitlines()[1].split(",")[2])
rows = [l.split(",") for l in parts[2].splitlines()[1:]]
assert any(r[2] == "_start" for r in rows), rows
assert abs(sum(float(r[0]) for r in rows) - total) <= 0.0015 * len(rows), (rows, total)
PY'
cat >deep.c <<'C'
static volatile long s;
__attribute__((noinline)) long rec(int n)
{
	if (n == 0)
		for (long i = 0; i < 100000000; i++)
			s += i;
	else
		s += rec(n - 1);
	return s;
}
int main(void) { return (int)rec(3000) & 0; }
C
cc -O1 -fno-optimize-sibling-calls -o deep deep.c && "$TALLY" record -o deep.exp ./deep 2>/dev/null
check no_args_keeps_pseudo_function_names sh -c '
	"$TALLY" report deep.exp -q --no-args --format csv >na.csv &&
	grep -q ",<Truncated-stack>," na.csv && ! grep -q "<\.\.\.>" na.csv'
check metric_not_recorded_said sh -c '
	"$TALLY" report s.exp --metric heap.bytes >/dev/null 2>err; test $? -eq 2 &&
	grep -q -- "--metric heap.bytes: no heap events: record with -H" err &&
	{ "$TALLY" export s.exp --format collapsed --metric io.bytes >/dev/null 2>err; test $? -eq 2; } &&
	grep -q "record with -i" err'

# The bash completion asks the tally it completes (tally __complete), so it
# offers what the tables hold: the newest views and record options, the
# states metrics, the export formats, and the values of an option whose
# value is optional (--gprof=timed), the word split at '=' or not.
ROOT=$(cd "$E2E/../.." && pwd)
complete_words() {   # complete_words WORD... : what <TAB> after them offers
	PATH=$(dirname "$TALLY"):$PATH bash -c '. "$0"; COMP_WORDS=(tally "$@"); COMP_CWORD=$#; _tally
		printf "%s\n" "${COMPREPLY[@]}"' "$ROOT/scripts/tally.bash" "$@"
}
completion() {
	complete_words report s.exp --st | grep -qx -- --states &&
	complete_words report s.exp --co | grep -qx -- --counters &&
	complete_words report s.exp --da | grep -qx -- --data-objects &&
	complete_words record --cou | grep -qx -- --counter &&
	complete_words record --ja | grep -qx -- --java &&
	complete_words report s.exp --metric wait. | grep -qx wait.io &&
	complete_words export s.exp --format c | grep -qx callgrind &&
	complete_words report s.exp --gprof = ti | grep -qx timed &&
	test "$(complete_words report s.exp --gprof = | wc -l)" -eq 3 &&
	complete_words report s.exp --errors=b | grep -qx -- --errors=bins &&
	complete_words html s.exp --errors = | grep -qx samples &&
	test "$(complete_words rep)" = report
}
if command -v bash >/dev/null; then
	check bash_completion_from_the_tables completion
else
	skip bash_completion_from_the_tables "no bash"
fi

# A mistyped command, option or metric gets a "did you mean", from the
# tables (an adjacent swap is one edit), and a metric the metrics the
# experiment has (its log's options line); annotate without a function
# says so.
check did_you_mean_command_option_metric sh -c '
	"$TALLY" reprot s.exp 2>e1; test $? -eq 64 && head -1 e1 | grep -q "unknown command .reprot. (did you mean .report.?)" &&
	{ "$TALLY" report s.exp --fucntions 2>e2; test $? -eq 64; } && grep -q "unknown option --fucntions (did you mean --functions?)" e2 &&
	{ "$TALLY" report s.exp --metric heap 2>e3; test $? -eq 64; } &&
	grep -q "did you mean heap.bytes, heap.count, heap.leak?" e3 && grep -q "all metrics: cpu, .*wait.stopped" e3 &&
	grep -q "s.exp has: cpu, samples; all metrics" e3 &&
	{ "$TALLY" export s.exp --format collapsed --metric heap 2>e7; test $? -eq 64; } && grep -q "s.exp has: cpu, samples;" e7 &&
	{ "$TALLY" report s.exp --metric cpu.sys 2>e4; test $? -eq 64; } && grep -q "did you mean cpu.system?" e4 &&
	{ "$TALLY" report s.exp --zzzzzz 2>e5; test $? -eq 64; } && ! grep -q "did you mean" e5 &&
	{ "$TALLY" annotate s.exp 2>e6; test $? -eq 64; } && grep -q "which function?" e6'

# --callers of a function the profile lacks fails before printing anything;
# html without -o names the page after the experiment; pprof goes to a
# file or pipe on stdout (not a terminal).
check callers_unknown_prints_nothing sh -c '
	"$TALLY" report s.exp --callers nosuchfn >cu.txt 2>cu.err; test $? -eq 2 &&
	! test -s cu.txt && grep -q "no function named .nosuchfn." cu.err'
check time_past_the_end_said sh -c '
	"$TALLY" report s.exp --time 10-20 >te.txt 2>te.err; test $? -eq 64 &&
	grep -q "the run lasted [0-9.]* s: nothing was recorded from 10.000 s on" te.err &&
	"$TALLY" report s.exp --time 0-20 -q >/dev/null'
# An experiment a newer tally wrote (its files' format version one past
# ours) is refused, naming the versions this tally reads: not read as an
# empty profile with damaged places
check newer_format_refused sh -c '
	rm -rf new.exp && cp -r s.exp new.exp && python3 -c "
import glob, struct
n = 0
for p in glob.glob(\"new.exp/**/*.dat\", recursive=True):
    b = bytearray(open(p, \"rb\").read())
    v = struct.unpack_from(\"<I\", b, 8)[0] if len(b) >= 12 else 0
    if 0 < v < 100:
        struct.pack_into(\"<I\", b, 8, v + 1); open(p, \"wb\").write(b); n += 1
assert n, n" &&
	{ "$TALLY" report new.exp >nw.txt 2>nw.err; test $? -eq 2; } && cat nw.err &&
	grep -q "format version [0-9]* is newer than this tally reads (versions [0-9]* to [0-9]*)" nw.err &&
	test "$(wc -l <nw.err)" -eq 1'
check html_default_name sh -c '
	rm -f s.html && "$TALLY" html s.exp 2>h.err && grep -q "wrote s.html" h.err &&
	grep -q "tally-data" s.html'
check pprof_to_stdout_file_or_pipe sh -c '
	"$TALLY" export s.exp --format pprof >s.pb.gz && gzip -t s.pb.gz &&
	test "$("$TALLY" export s.exp --format pprof | gzip -dc | wc -c)" -gt 100'
