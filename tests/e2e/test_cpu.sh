# test_cpu.sh — clock profiling of unmodified -O2 programs without frame
# pointers: shares known by construction, threads (including one started
# before main), a target with its own SIGPROF handler and timers, deep
# stacks, and the sampled CPU time against the kernel's accounting.
. "$(dirname "$0")/lib.sh"
cc_prog spin
cc_prog threads4 -pthread
cc_prog own_sigprof
cc_prog deep
cc_prog lagsleep
cc_prog heapmix -pthread

cd "$T"
# 3 units (~2.2 s, ~2,200 samples): on a loaded machine the samples fall at
# random phases of the leaves' turns, and a share's sampling error is then
# sqrt(p(1-p)/n): 0.017 with the 750 samples of 1 unit, which failed the
# ±0.03 check once at load 4-6 (leaf_one 0.287); 0.010 with 2,200 (eight runs
# at load 4: 0.327-0.339).
"$TALLY" record -o spin.exp ./spin 3 2>/dev/null
"$TALLY" export spin.exp --format collapsed >spin.txt
check cpu_leaf_shares_one_to_two shares spin.txt \
	'excl leaf_one 0.333 0.03' 'excl leaf_two 0.667 0.03' \
	'path main;parent;leaf_two 0.667 0.03' 'incl parent 1.0 0.01'
check cpu_stacks_reach_start shares spin.txt 'path _start;__libc_start_main 0.99 0.02'

# Sampled CPU time within 5% of the kernel's (the issue's figure is 3%,
# measured in make bench; a test on a shared machine keeps some slack).
check cpu_sampled_matches_kernel sh -c '
	"$TALLY" report spin.exp --format json >spin.json &&
	python3 -c "
import json, sys
o = json.load(open(\"spin.json\"))[\"overview\"]
s, k = o[\"sampled_cpu_s\"] + o[\"collector_cpu_s\"], o[\"kernel_cpu_s\"]
print(\"sampled + collector\", s, \"kernel\", k)
sys.exit(0 if abs(s - k) <= 0.05 * k else 1)"'

# The thread's CPU clock is read (CLOCK_THREAD_CPUTIME_ID: the kernel then
# preempts a thread whose slice is over, where the next tick would) only
# when the thread may have been off its CPU since its last sample
# (col_sample.c, ran_through): at 4 kHz, about once per slice it runs, not
# once per sample as before (4,046 reads for 3,228 samples of heapmix; 429
# for 2,940 with ran_through, load 15).  Half a read per sample allows
# slices of two samples; the reads of tally record and of thread starts
# and ends count too.
if need perf_clock_reads cpu_clock_not_read_per_sample; then
	perf stat -x, -e syscalls:sys_enter_clock_gettime -o reads.perf \
		"$TALLY" record -F 4000 -o reads.exp ./spin 1 >/dev/null 2>&1
	check cpu_clock_not_read_per_sample sh -c '
		"$TALLY" report reads.exp --format json >reads.json &&
		python3 -c "
import json, sys
samples = json.load(open(\"reads.json\"))[\"overview\"][\"samples\"]
reads = [int(l.split(\",\")[0]) for l in open(\"reads.perf\") if \"clock_gettime\" in l][0]
print(\"clock reads\", reads, \"samples\", samples)
sys.exit(0 if samples >= 1000 and reads <= 0.5 * samples else 1)"'
fi

# A clock signal due inside a long system call comes at its end; the thread
# then sleeps 0.85 of a period and runs after_sleep (tests/progs/lagsleep.c).
# Its clock's value may be had without a read only when the kernel's count
# of its context switches proves it never left its CPU (col_sample.c,
# ran_through): a sample in after_sleep then weighs at most the CPU the
# program measured from the call's end to after_sleep's (plus 100 us of
# handler and slack).  The estimate from the wall time between two signals
# charged the sleep as CPU: 33 of 180 samples over 500 us, up to 1.02 ms,
# at load 11.  2% allows a rare untaken sample at the call's end.
"$TALLY" record -F 1000 -o lag.exp ./lagsleep 600 >lag.out 2>/dev/null
"$TALLY" export lag.exp --format speedscope -o lag.json 2>/dev/null
check cpu_sleep_after_late_signal_not_cpu sh -c '
	most=$(awk "/^most_after_syscall_us/ {print \$2 * 1000 + 100000}" lag.out) &&
	python3 "$E2E/sample_weights.py" lag.json after_sleep "$most" 0.02'

# A handler whose clock's value on the way in was estimated (ran_through)
# and that was preempted on its way out reads the clock again: an estimate
# ahead of the read made its cost below 0, and collector.cpu_ns wrapped to
# 1.8e10 s (heap15's build: 2 of 5 runs of heapmix -H at 4 kHz, load 13).
# Three runs: each one's collector time under the kernel's CPU, and sampled
# plus collector within 5% of it.
check cpu_handler_cost_never_below_zero sh -c '
	for i in 1 2 3; do
		"$TALLY" record -H -F 4000 -o hm$i.exp ./heapmix 3000000 2 >/dev/null 2>&1 &&
		"$TALLY" report hm$i.exp --format json >hm$i.json || exit 1
		python3 -c "
import json, sys
o = json.load(open(\"hm$i.json\"))[\"overview\"]
s, c, k = o[\"sampled_cpu_s\"], o[\"collector_cpu_s\"], o[\"kernel_cpu_s\"]
print(\"run $i: sampled\", s, \"collector\", c, \"kernel\", k)
sys.exit(0 if c < k and abs(s + c - k) <= 0.05 * k else 1)" || exit 1
	done'

"$TALLY" record -o thr.exp ./threads4 2>/dev/null
"$TALLY" export thr.exp --format collapsed >thr.txt
"$TALLY" report thr.exp --threads --format csv >thr_k.csv
# Each thread's share against the kernel's CPU of it, from the same run: its
# work (1:2:3:4) moves with what shares its core under load (t4 read 0.397
# for 0.364 in make check).
check cpu_threads_get_their_shares python3 "$E2E/thread_shares.py" thr.txt thr_k.csv \
	"clone3;start_thread" t1 t2 t3 t4
check cpu_thread_from_constructor_profiled python3 "$E2E/thread_shares.py" thr.txt thr_k.csv \
	"clone3;start_thread" ctor_worker
check cpu_thread_stacks_start_at_clone3 sh -c "python3 '$E2E/thread_shares.py' thr.txt thr_k.csv 'clone3;start_thread' t4 ctor_worker &&
	python3 '$E2E/profile.py' thr.txt 'absent tally_thread_start'"
check cpu_threads_view_lists_five_threads sh -c '
	"$TALLY" report thr.exp --threads --format csv >thr.csv && test $(grep -c "^[0-9]" thr.csv) -eq 6 &&
	grep -q ",t4$" thr.csv'

check cpu_target_sigprof_handlers_still_fire sh -c '"$TALLY" record -o own.exp ./own_sigprof 2>/dev/null'
"$TALLY" export own.exp --format collapsed >own.txt 2>/dev/null
check cpu_target_with_own_sigprof_profiled shares own.txt 'incl busy 0.98 0.03'
check cpu_foreign_signals_counted sh -c '
	"$TALLY" report own.exp | grep -q "signals.forwarded"'

"$TALLY" record -o deep.exp ./deep 2>/dev/null
"$TALLY" export deep.exp --format collapsed >deep.txt
check cpu_deep_stack_truncation_marked shares deep.txt \
	'incl <Truncated-stack> 0.97 0.05' 'depth 1000'
check cpu_deep_truncation_counted sh -c '"$TALLY" report deep.exp | grep -q "unwind.truncated"'
