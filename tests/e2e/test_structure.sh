# test_structure.sh — program structure as the Sun seed maps it (docs/
# structure.md): OpenMP bodies under the function of their parallel region
# on every thread, with <OMP-*> functions for time in the runtime; parts
# split off a function (.cold, .part.N) imputed to it; the lazy PLT resolver as @plt;
# same-named static functions told apart; a stripped binary; signal
# handlers, tail calls and inlined functions.
. "$(dirname "$0")/lib.sh"
cd "$T"

# OpenMP: each phase's share measured by the program itself (process CPU
# time), on 2 and 4 threads, with gcc (libgomp) and clang (libomp), within
# what the run leaves unknown (omp_shares.py: a few sampling periods, the
# workers' CPU across the end marker, and their samples placed by an
# opener's sample on the other side of a region's start or end).  libgomp
# waits actively (its workers spin, so <OMP-idle> has time to check);
# libomp's active wait spins with sched_yield, where sampling by CPU time
# loses part of the spinning threads' time on 2 loaded cores: passive there.
omp_case() {   # omp_case CC THREADS WAIT_POLICY
	cc=$1 n=$2 exe=ompy_$1
	OMP_WAIT_POLICY=$3 OMP_NUM_THREADS=$n "$TALLY" record -o "$exe.$n.exp" \
		./$exe 0.6 >"$exe.$n.out" 2>/dev/null
	"$TALLY" export "$exe.$n.exp" --format collapsed --time ompy_begin-ompy_end >"$exe.$n.txt"
	"$TALLY" export "$exe.$n.exp" --format chrome --time ompy_begin-ompy_end >"$exe.$n.json"
	check omp_${cc}_${n}_threads_user_function_has_the_parallel_work \
		python3 "$E2E/omp_shares.py" "$exe.$n.out" "$exe.$n.txt" "$exe.$n.json" \
		"$(sed -n 's/^clock.hz: //p' "$exe.$n.exp/log.txt")"
}
if cc -O2 -g -fopenmp -o ompy_gcc "$PROGS/ompy.c" 2>/dev/null; then
	omp_case gcc 2 active
	omp_case gcc 4 active
	"$TALLY" export ompy_gcc.2.exp --format collapsed --view machine >machine.txt
	check omp_machine_view_keeps_raw_frames sh -c "grep -q 'GOMP_parallel_loop_nonmonotonic_dynamic;compute \\[clone ._omp_fn.0\\]' machine.txt &&
		! grep -q '<OMP-' machine.txt"
	check omp_barrier_has_its_callers sh -c "\"\$TALLY\" report ompy_gcc.2.exp --callers '<OMP-barrier>' --format csv >cb.csv &&
		grep -q '^[0-9.]*,[0-9.]*,imbalance' cb.csv"
else
	skip omp_gcc "gcc -fopenmp cannot build"
fi
if clang -O2 -g -fopenmp -o ompy_clang "$PROGS/ompy.c" 2>/dev/null; then
	omp_case clang 2 passive
	omp_case clang 4 passive
else
	skip omp_clang "clang -fopenmp (libomp) not installed"
fi

# Outlined parts: work.cold is jumped to from work, so its time is work's too.
cc_prog coldy
if nm coldy | grep -q ' work.cold$'; then
	"$TALLY" record -o cold.exp ./coldy >/dev/null 2>&1
	"$TALLY" export cold.exp --format collapsed >cold.txt
	"$TALLY" export cold.exp --format collapsed --view machine >cold_m.txt
	check cold_part_imputed_to_its_parent shares cold.txt 'incl work 1.0 0.02' \
		'path main;work 1.0 0.02' 'excl work 0.333 0.03'
	check cold_part_keeps_its_own_name sh -c "grep -q ';work;work \[clone .cold\] ' cold.txt"
	check cold_machine_view_as_recorded shares cold_m.txt 'incl work 0.333 0.03'
	check cold_callers_name_the_parent sh -c "\"\$TALLY\" report cold.exp --callers work.cold --format csv | grep -q ',work$'"
else
	skip cold_part "gcc made no work.cold"
fi

# A partial inline: main calls big.part.0 directly (big's test inlined into
# it, a frame `big (inlined)` of its own); the user view needs no imputed
# call then; with --no-inline it imputes big -> big.part.0, as for .cold.
cc_prog party
if nm party | grep -q ' big.part.0$' && nm party | grep -q ' big$'; then
	"$TALLY" record -o part.exp ./party >/dev/null 2>&1
	"$TALLY" export part.exp --format collapsed >part.txt
	"$TALLY" export part.exp --format collapsed --view machine >part_m.txt
	"$TALLY" export part.exp --format collapsed --no-inline >part_n.txt
	"$TALLY" export part.exp --format collapsed --view machine --no-inline >part_mn.txt
	check part_under_its_inlined_head shares part.txt 'path main;big[inlined];big [clone .part.0] 1.0 0.04' \
		'absent big'
	check part_imputed_to_its_parent shares part_n.txt 'path main;big;big [clone .part.0] 1.0 0.04' \
		'incl big 1.0 0.04' 'absent big[inlined]'
	check part_machine_view_as_recorded shares part_m.txt 'path main;big[inlined];big [clone .part.0] 1.0 0.04'
	check part_machine_view_no_inline shares part_mn.txt 'path main;big [clone .part.0] 1.0 0.04'
else
	skip part_imputed_to_its_parent "gcc made no big.part.0 beside big"
fi
# The expert view (Java's) applies the same rules to C code.
check expert_view_keeps_the_rules sh -c '"$TALLY" export cold.exp --format collapsed --view expert >cold_e.txt &&
	cmp cold.txt cold_e.txt'

# Same-named statics: helper (statics_a.c) and helper (statics_b.c).
cc -O2 -g -c -o statics_a.o "$PROGS/statics_a.c"
cp "$PROGS/statics_a.c" statics_b.c
cc -O2 -g -c -o statics_b.o -Drun_a=run_b -DWORK=2 statics_b.c
cc -O2 -g -o statics "$PROGS/statics_main.c" statics_a.o statics_b.o
# Each helper's share is the one the program measured on its thread's
# clock (about 1:2 by the iteration counts; the two copies of the loop
# may run at different speeds where they were placed), within 3 points or
# three of the share's sampling errors, whichever is more (a clean root's
# run of a few hundred samples read 37.2 for the program's 33.6: one
# error is 2.4 points there).  Swapped helpers would be 30 points off.
"$TALLY" record -o st.exp ./statics >st.out 2>/dev/null
check statics_told_apart_by_file sh -c "\"\$TALLY\" report st.exp --format csv >st.csv && \"\$TALLY\" report st.exp --format json >st.json && python3 -c '
import csv
own = {l.split()[1]: float(l.split()[2]) for l in open(\"st.out\") if l.startswith(\"share \")}
import json, math
rows = {r[\"name\"]: float(r[\"excl_cpu_pct\"]) for r in csv.DictReader(open(\"st.csv\"))}
a = [v for k, v in rows.items() if k.startswith(\"helper (\") and k.endswith(\"statics_a.c)\")]
n = json.load(open(\"st.json\"))[\"overview\"][\"samples\"]
p = own[\"a\"]
tol = max(3, 300 * math.sqrt(p * (1 - p) / max(n, 1)))
print(\"tally\", a, \"program\", own, \"samples\", n, \"bound\", round(tol, 2))
assert len([k for k in rows if k.startswith(\"helper\")]) == 2, rows
assert len(a) == 1 and abs(a[0] - 100 * p) < tol, rows'"
check statics_both_found_by_bare_name sh -c "\"\$TALLY\" report st.exp --callers helper | grep -c '^Callers of helper (' | grep -qx 2"
check statics_one_found_by_its_label sh -c "\"\$TALLY\" report st.exp --callers 'helper (statics_a.c)' | grep -c '^Callers of' | grep -qx 1"

# A stripped binary: each function a <static>@0x... region of its own (cut
# at the unwind table's function starts), with callers.
cp statics statics.stripped && strip statics.stripped
"$TALLY" record -o sts.exp ./statics.stripped >sts.out 2>/dev/null
"$TALLY" export sts.exp --format collapsed >sts.txt
check stripped_functions_apart_with_callers sh -c "python3 -c '
st = {}
for l in open(\"sts.txt\"):
    fr, w = l.rsplit(\" \", 1)
    fr = fr.split(\";\")
    st[tuple(fr)] = st.get(tuple(fr), 0) + int(w)
tot = sum(st.values())
leaves = {}
for fr, w in st.items():
    leaves[fr[-1]] = leaves.get(fr[-1], 0) + w / tot
shares = sorted(v for k, v in leaves.items() if k.startswith(\"<static>@0x\") and k.endswith(\"(statics.stripped)\"))
own = sorted(float(l.split()[2]) for l in open(\"sts.out\") if l.startswith(\"share \"))
print(\"tally\", shares[-2:], \"program\", own)
assert len(shares) >= 2 and len(own) == 2 and abs(shares[-1] - own[1]) < 0.03 and abs(shares[-2] - own[0]) < 0.03, leaves
# (a sample may land in the start-up of ld.so, before main: under 1%)
assert all(\"__libc_start_call_main\" in fr for fr in st if st[fr] > 0.01 * tot), st'"

# PLT: with LD_BIND_NOT=1 every call goes through ld.so's lazy resolver,
# which the user view shows as @plt (the seed's rule), the machine view as is.
cc_prog plty -fno-builtin
# Once (load ~3, stop 40) the whole profile was one stack, not reproduced
# in 12 runs: a failure shows the heaviest stacks, what the record said,
# the log's object and loss lines and `tally check`.
LD_BIND_NOT=1 "$TALLY" record -o plt.exp ./plty 2>plt.err
"$TALLY" export plt.exp --format collapsed >plt.txt
"$TALLY" export plt.exp --format collapsed --view machine >plt_m.txt
check plt_lazy_resolver_is_at_plt sh -c "python3 \"\$E2E/profile.py\" plt.txt 'path caller;@plt 0.7 0.3' 'absent _dl_fixup' >plt.verdict && exit 0
	cat plt.err; grep -i 'lost\|drop\|maps\|object\|error' plt.exp/log.txt | tail -n 5; \"\$TALLY\" check plt.exp 2>&1 | tail -n 3
	cat plt.verdict; exit 1"
check plt_machine_view_shows_resolver sh -c "grep -q '_dl_runtime_resolve' plt_m.txt"
# 200 M calls (0.3 s) at 4 kHz: the stub is one jmp, 1-4% of the samples;
# at 30 M (45 ms) a run under load took none in it.
"$TALLY" record -F 4000 -o plt2.exp ./plty 200000000 2>/dev/null
check plt_stub_time_on_the_call sh -c "\"\$TALLY\" annotate plt2.exp caller --disasm --format csv >plt.csv &&
	\"\$TALLY\" report plt2.exp --format csv >plt_f.csv && python3 -c '
import csv
rows = [r for r in csv.DictReader(open(\"plt.csv\")) if r[\"kind\"] == \"insn\"]
call = [r for r in rows if \"labs@plt\" in r[\"instruction\"]]
assert call and float(call[0][\"excl_cpu\"]) > 0, call
fn = [r for r in csv.DictReader(open(\"plt_f.csv\")) if r[\"name\"] == \"caller\"][0]
assert abs(sum(float(r[\"excl_cpu\"]) for r in rows) - float(fn[\"excl_cpu\"])) < 0.0015, fn
assert not [r for r in csv.DictReader(open(\"plt_f.csv\")) if r[\"name\"].endswith(\"@plt\")]'"

# Signals, tail calls, inlining (the seed's "Signals", "Tail-Call
# Optimization", "Inline Functions"): the interrupted code calls <signal
# handler> (glibc's __restore_rt in the machine view), which calls the
# handler; a function jumped to by a tail call is its caller's caller's
# callee; an inlined function is a frame of its own under its host (with
# --no-inline, the seed's: its host's own time, on its own lines).
cc_prog shapes
if objdump -d --no-show-raw-insn shapes | grep -A3 '<via_tail>:' | grep -q 'jmp .*<tail_leaf>'; then
	"$TALLY" record -o sh.exp ./shapes >sh.out 2>/dev/null
	"$TALLY" export sh.exp --format collapsed >sh.txt
	"$TALLY" export sh.exp --format collapsed --view machine >sh_m.txt
	"$TALLY" export sh.exp --format collapsed --no-inline >sh_n.txt
	check signal_tail_inline_as_the_seed python3 "$E2E/shapes.py" sh.out sh.txt sh_n.txt
	# The same with --states, whose handler defers its own signal (a
	# tracer attaching late, col_states.c): the program's handler must
	# not inherit that, or its samples go to the code it interrupted.
	"$TALLY" record --states -F 4000 -o shs.exp ./shapes >shs.out 2>/dev/null
	"$TALLY" export shs.exp --format collapsed >shs.txt
	"$TALLY" export shs.exp --format collapsed --no-inline >shs_n.txt
	check signal_handler_share_with_states python3 "$E2E/shapes.py" shs.out shs.txt shs_n.txt
	check signal_machine_view_shows_trampoline sh -c "grep -Eq ';__restore_rt;(on_tick|in_handler)' sh_m.txt &&
		! grep -q '<signal handler>' sh_m.txt"
	# The handler keeps the interrupted stack above it: work_sig, or what
	# it was calling when the signal came (its clock_gettime: then
	# work_sig is a caller further up; a few samples decide which).
	check signal_handler_has_its_callers sh -c "\"\$TALLY\" report sh.exp --no-inline --callers '<signal handler>' --format csv |
		grep -Eq ',(work_sig|clock_gettime|__vdso_clock_gettime)\$' &&
		\"\$TALLY\" export sh.exp --no-inline --format collapsed | grep -q ';main;work_sig;.*<signal handler>;'"
	# inl_mix's lines (from its head to the next function's): most of
	# host's own time (the rest is cpu(), inlined too, and host's loop)
	first=$(grep -n '^static inline.*inl_mix' "$PROGS/shapes.c" | cut -d: -f1)
	last=$(grep -n '^NOINLINE unsigned host' "$PROGS/shapes.c" | cut -d: -f1)
	check inlined_lines_hold_the_time sh -c "\"\$TALLY\" annotate sh.exp host --no-inline --format csv >host.csv &&
		\"\$TALLY\" report sh.exp --no-inline --format csv >sh_f.csv && python3 -c '
import csv
host = [r for r in csv.DictReader(open(\"sh_f.csv\")) if r[\"name\"] == \"host\"][0]
inl = sum(float(r[\"excl_cpu\"]) for r in csv.DictReader(open(\"host.csv\"))
          if r[\"kind\"] == \"line\" and $first <= int(r[\"line\"]) < $last)
assert inl >= 0.7 * float(host[\"excl_cpu\"]) > 0, (inl, host)'"
else
	skip signal_tail_inline_as_the_seed "gcc made no tail call in via_tail"
fi
