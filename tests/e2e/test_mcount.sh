# test_mcount.sh — libtally-mcount: exact arc counts from -pg and
# -finstrument-functions programs run under `tally record`, across threads
# (where glibc's mcount loses arcs), compilers and entry points (mcount,
# __fentry__), with arguments in vector registers intact; no gmon.out; arcs
# kept after SIGKILL and in forked children; and a program linked with
# -ltally-mcount recording on its own.
. "$(dirname "$0")/lib.sh"
cd "$T"

# $ARC FILE CALLER CALLEE: the count of an arc in `export --format arcs`.
export ARC="python3 $E2E/arc.py"

cc -O2 -g -pg -pthread -o pg_threads "$PROGS/pg_threads.c"
"$TALLY" record -o thr.exp ./pg_threads >/dev/null 2>&1
"$TALLY" export thr.exp --format arcs >thr.arcs 2>err
check mcount_threads_exact_counts sh -c "test \$(\$ARC thr.arcs worker step) -eq 8000000"
check mcount_no_gmon_out test ! -e gmon.out
rm -f gmon.out
./pg_threads >/dev/null 2>&1
glibc=$(gprof -b -q ./pg_threads gmon.out 2>/dev/null | awk '/^\[[0-9]+\].* step \[/ {print $5; exit}')
echo "    (worker -> step: tally 8000000 exact; glibc's mcount counted ${glibc:-?})"
check mcount_thread_start_routine_has_real_caller sh -c "awk -F'\t' '\$2 == \"worker\"' thr.arcs | grep -q start_thread"

for variant in "gcc -pg" "gcc -pg -mfentry" "gcc -finstrument-functions" "clang -pg"; do
	name=$(echo "$variant" | tr -c 'a-z\n' _)
	set -- $variant
	compiler=$1
	shift
	if ! command -v "$compiler" >/dev/null; then
		skip "mcount_args_intact_$name" "$compiler not installed"
		continue
	fi
	"$compiler" -O2 -g "$@" -o "args_$name" "$PROGS/pg_args.c"
	check "mcount_args_intact_$name" sh -c "
		\"\$TALLY\" record -o args_$name.exp ./args_$name >/dev/null 2>&1 &&
		\"\$TALLY\" export args_$name.exp --format arcs | awk -F'\t' '\$1 == \"main\" && \$2 == \"mix\" && \$3 == 1 {f = 1} END {exit !f}'"
done

cc -O2 -g -finstrument-functions -o pg_timed "$PROGS/pg_timed.c"
"$TALLY" record -o timed.exp ./pg_timed >/dev/null 2>&1
"$TALLY" export timed.exp --format arcs >timed.arcs
check mcount_cyg_counts sh -c "test \$($ARC timed.arcs main fast) -eq 1000 && test \$($ARC timed.arcs main slow) -eq 5 &&
	test \$($ARC timed.arcs rec rec) -eq 5"

cc -O2 -g -pg -o forever_pg "$PROGS/forever.c"
"$TALLY" record -o kill.exp ./forever_pg >out 2>/dev/null &
rec=$!
for i in $(seq 50); do grep -q running out 2>/dev/null && break; sleep 0.1; done
kill_exp KILL kill.exp
wait $rec
check mcount_arcs_survive_sigkill sh -c "\"\$TALLY\" export kill.exp --format arcs | awk -F'\t' '\$1 == \"main\" && \$2 == \"burn\" && \$3 > 10 {f = 1} END {exit !f}'"

cat >fork_pg.c <<'C'
#include <sys/wait.h>
#include <unistd.h>
__attribute__((noinline, noipa)) int child_fn(int x) { return x + 1; }
__attribute__((noinline, noipa)) int parent_fn(int x) { return x + 2; }
int main(void)
{
	int x = 0;
	pid_t p = fork();
	if (p == 0) {
		for (int i = 0; i < 300; i++)
			x = child_fn(x);
		_exit(x == 300 ? 0 : 1);
	}
	for (int i = 0; i < 200; i++)
		x = parent_fn(x);
	int st;
	waitpid(p, &st, 0);
	return WEXITSTATUS(st) + (x != 400);
}
C
cc -O2 -g -pg -o fork_pg fork_pg.c
"$TALLY" record -o fork.exp ./fork_pg >/dev/null 2>&1
check mcount_fork_child_has_own_arcs sh -c "test -f fork.exp/_f1.exp/arcs.dat &&
	\"\$TALLY\" export fork.exp --format arcs | awk -F'\t' '\$2 == \"child_fn\" {c += \$3} \$2 == \"parent_fn\" {p += \$3} END {exit !(c == 300 && p == 200)}'"

lib="${TALLY_BUILD:-$(dirname "$TALLY")/..}/lib"
cc -O2 -g -pg -o linked_pg "$PROGS/spin.c" -L"$lib" -ltally-mcount -Wl,-rpath,"$lib"
mkdir -p standalone
check mcount_linked_program_records_itself sh -c "cd standalone && ../linked_pg 0.1 2>err && test -d tally.1.exp &&
	grep -q 'recording this run' err && test ! -e gmon.out &&
	\"\$TALLY\" export tally.1.exp --format arcs | awk -F'\t' '\$1 == \"main\" && \$2 == \"parent\" && \$3 == 1 {f = 1} END {exit !f}'"
