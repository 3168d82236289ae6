# test_losses.sh — every loss has its true cause.  A thread made by the clone
# system call itself (no pthread_create: no interposer sees it) is sampled
# by its thread id; what such threads run before their first signal is
# named as theirs, not as lost samples nor "between samples".
. "$(dirname "$0")/lib.sh"
cc_prog rawclone -I"$PROGS"
cc_prog manythreads -pthread
cc_prog daemonize
cd "$T"

# A thread made by glibc's clone() (CLONE_THREAD, no CLONE_SETTLS: it shares
# its creator's TLS, where the collector finds a thread's state) and one
# made by the clone system call in inline assembly (no glibc clone(): as a
# runtime of its own makes threads) each burn 0.6 s: their clock's signals
# come (the event is inherited), and the handler, seeing that the TLS's
# state is another thread's, finds or makes the thread's own by its id
# (col_rawthread.c).  Each keeps at least 90% of the samples its CPU should
# have, and of that CPU in weights, counting the collector's CPU in the
# thread with them (its handlers' and slot set-up's time is in no sample by
# design, and reported per thread: the overview's Sampled+collector).  At
# load ~20 a raw thread sampled 0.541 s of 0.600 s with 0.058 s of the
# collector's (one handler run of 54.8 ms): the thread's collector CPU and
# the process's longest handler are printed.  Its CPU is the kernel's for the process
# (rusage) less the main thread's (its clock, read at the end), so the
# bound comes from the run's own accounting.  The build before kept 0 of
# 599 (lost.unknown-thread).  Above, the samples exceed the kernel's count
# by at most three sampling errors (1/sqrt(samples) each), and their CPU,
# measured, by at most the kernel's rounding (a period a thread): a
# thread's samples merged into another's, or counted twice, would not.
raw_sampled() {     # EXP: the raw thread sampled
	"$TALLY" report $1 >$1.txt; "$TALLY" report $1 --threads --format csv >$1.csv
	"$TALLY" report $1 --format json >$1.json
	cat $1.csv; sed -n 1,20p $1.txt
	python3 - $1 <<'PY'
import csv, json, sys
exp = sys.argv[1]
o = json.load(open(exp + ".json"))["overview"]
rows = list(csv.DictReader(open(exp + ".csv")))
main = next(r for r in rows if r["start"] == "(main thread)")
others = [r for r in rows if r is not main]
hz = 1000
expect = o["kernel_cpu_s"] - float(main["kernel_cpu"])
got = sum(int(r["samples"]) for r in others)
cpu = sum(float(r["excl_cpu"]) for r in others)
coll = sum(float(r["collector_cpu"]) for r in others)
print("raw thread: %d samples, %.3f s sampled + %.3f s collector's, of %.3f s (%d expected)"
      % (got, cpu, coll, expect, expect * hz))
print("its handlers' p99 %s us; the process's longest handler %.1f us"
      % (" ".join("%.1f" % (int(r["handler_p99_ns"]) / 1e3) for r in others), o.get("handler_max_us", 0)))
assert expect > 0.5, expect
assert got + coll * hz >= 0.9 * expect * hz, (got, coll, expect)
assert cpu + coll >= 0.9 * expect, (cpu, coll, expect)
err = 3 / max(got, 1) ** 0.5
assert got <= expect * hz * (1 + err), (got, expect, err)
# The samples' CPU is measured (each weight the thread's CPU since its last
# sample), not a count: no sampling error, only the kernel's rounding, one
# period a thread at most.
assert cpu <= expect + len(others) / hz, (cpu, expect, len(others))
assert o.get("lost.unknown-thread", 0) == 0, o
PY
}
# rawclone itself reads nothing past its threads' stack top: a guard page
# above it faults any such read, so a program bug shows as SIGSEGV in each
# recorded run below, not as tally's (started at the very top, a raw
# thread's tail call of glibc's syscall() read its absent caller's frame,
# one word past the mapping; with the old start and the guard: SIGSEGV in
# 3 runs of 3).  No check runs the program bare: none could tell of tally.
"$TALLY" record -o raw.exp ./rawclone 0.6 2>raw.err
check raw_clone_thread_sampled raw_sampled raw.exp
"$TALLY" record -o rawasm.exp ./rawclone asm 0.6 2>rawasm.err
check raw_asm_clone_thread_sampled raw_sampled rawasm.exp
check raw_asm_clone_thread_sound sh -c '"$TALLY" check rawasm.exp && grep -q "^thread.raw: " rawasm.exp/log.txt'

# A raw thread's stack is not known to the unwinder: its walk reads each
# word with process_vm_readv, by the pid set at the collector's start and
# in a fork child, not a getpid system call per word (col_unwind.c).  The
# build before: as many getpid calls as reads (2,110 for 2,086).
if need perf_walk_reads raw_thread_walk_no_getpid_per_read; then
	check raw_thread_walk_no_getpid_per_read sh -c '
		perf stat -x, -e syscalls:sys_enter_process_vm_readv,syscalls:sys_enter_getpid -o rg.perf \
			"$TALLY" record -o rg.exp ./rawclone asm 0.3 >/dev/null 2>&1 || exit 1
		cat rg.perf; reads=$(sed -n "s/^\([0-9]*\),.*process_vm_readv.*/\1/p" rg.perf)
		pids=$(sed -n "s/^\([0-9]*\),.*sys_enter_getpid.*/\1/p" rg.perf)
		test "$reads" -ge 100 && test $((pids * 10)) -lt "$reads"'
fi

# A raw thread gets samples only: --states, -c and the tracers find a
# thread's state in TLS, which it shares with its creator.  The overview
# says so in one line when the run asked for any of them, never silently
# (report_overview.c); not in a run that asked for none.  The build
# before: no line.
"$TALLY" record --states -s -o rawst.exp ./rawclone asm 0.3 >/dev/null 2>rawst.err
check raw_thread_unserved_said sh -c '
	"$TALLY" report rawst.exp >rawst.txt; "$TALLY" report rawasm.exp >rawasm.txt; sed -n 1,16p rawst.txt
	grep -q "^  Raw threads  *in 1 process: samples only, --states, the tracers.* events not recorded" rawst.txt &&
	! grep -q "^  Raw threads" rawasm.txt'

# 2,000 raw threads made by inline assembly one after another, each burning
# 0.3 ms of its CPU, as much of main's between (rawclone asmloop).  Each
# thread's inherited clock starts a fresh period, so at the default 1 kHz
# almost none takes a signal: their CPU is named as raw threads' that ran
# no period; the CPU so named is at most what the kernel counted beyond
# the samples and the collector's time.  At -F 10000 they take signals, and
# each gets a state of its own, a gone thread's reused (64 at once): the
# samples and the collector's time explain at least 80% of the kernel's CPU
# (the build before: 50.7%, every raw thread's signal lost) and at most all
# of it and three sampling errors, and the experiment is sound (a kept
# cursor's staging windows once read as damaged).
"$TALLY" record -o rloopasm.exp ./rawclone asmloop 2000 0.3 >rloopasm.out 2>rloopasm.err
check raw_asm_short_threads_named sh -c '
	cat rloopasm.out rloopasm.err; "$TALLY" report rloopasm.exp >rloopasm.txt; sed -n 1,20p rloopasm.txt
	"$TALLY" report rloopasm.exp --format json >rloopasm.json
	python3 - <<PY
import json, re
line = [l for l in open("rloopasm.txt") if "by process" in l][0]
threads = float(open("rloopasm.out").read().split("threads cpu ")[1].split()[0])
m = re.search(r"([0-9.]+) s in threads (made by a raw clone that ran no sampling period|the collector never saw \(made by a raw clone)", line)
assert m, line
print("named", m.group(1), "of the threads own", threads)
assert float(m.group(1)) >= 0.8 * threads, (m.group(1), threads)
o = json.load(open("rloopasm.json"))["overview"]
unexplained = o["kernel_cpu_s"] - o["sampled_cpu_s"] - o["collector_cpu_s"]
print("unexplained by samples and collector", unexplained)
assert float(m.group(1)) <= unexplained + 0.001, (m.group(1), o)
PY'
"$TALLY" record -F 10000 -o rloopfast.exp ./rawclone asmloop 2000 0.3 >rloopfast.out 2>rloopfast.err
check raw_asm_short_threads_sampled_at_high_rate sh -c '
	cat rloopfast.out rloopfast.err; "$TALLY" check rloopfast.exp || exit 1
	"$TALLY" report rloopfast.exp --format json | python3 -c "
import json, sys
o = json.load(sys.stdin)[\"overview\"]
explained = o[\"sampled_cpu_s\"] + o[\"collector_cpu_s\"]
# measured CPU, not counts: no sampling error, the kernel rounding at most
# one period (100 us at 10 kHz) a thread
slack = o[\"threads\"] / 10000
print(\"explained\", explained, \"of\", o[\"kernel_cpu_s\"], \"threads\", o[\"threads\"], \"slack\", slack)
assert explained >= 0.8 * o[\"kernel_cpu_s\"], o
assert explained <= o[\"kernel_cpu_s\"] + slack, o
assert o[\"threads\"] > 100, o"'

# Each thread's life has one THREAD_END, whoever writes it: a raw thread's
# is written by the first to take its slot's end (a new raw thread reusing
# the slot, or the process's end: col_rawthread.c), never by both.  Counted
# in the records of threads.dat (tests/pylib/tally_proc.py): as many ENDs
# as STARTs for every thread id, in the runs above (2,000 raw threads at
# 10 kHz reuse the 64 slots).  The race it closes is a window of a few
# instructions at the process's end: the build before passes too.
ends_once() {
	for e in "$@"; do
		python3 -m tally_proc threads $e | awk -v e=$e '
			$1 == "end" { n[$2]++ } $1 == "start" { s[$2]++ }
			END { for (t in s) if (n[t] != s[t]) { print e ": tid " t ": " s[t] " starts, " n[t] " ends"; bad = 1 }
			      for (t in n) if (!(t in s)) { print e ": tid " t ": an end without a start"; bad = 1 }
			      exit bad }' || return 1
	done
}
check raw_thread_end_written_once ends_once raw.exp rawasm.exp rloopasm.exp rloopfast.exp

# A raw thread's signal asks the seccomp gate once, at its slot's set-up,
# not at every signal (col_rawthread.c keyed()): strace, attached once the
# program runs (a tracer at start would turn the clock to fasync, which
# raw threads do not inherit), counts its system calls.  Each of the raw
# thread's signals reads its robust list once (get_robust_list); prctl
# (PR_GET_SECCOMP) is made at a slot's set-up and by other paths, a few
# times in all.  The build before made one prctl and one more getpid per
# signal: 1,236 prctl for 1,215 get_robust_list.
raw_signal_calls() {
	"$TALLY" record -o rsc.exp ./rawclone asm 1.5 >rsc.out 2>rsc.err &
	rec=$!
	for i in $(seq 100); do
		pid=$(pgrep -P $rec -x rawclone) && break
		sleep 0.1
	done
	test -n "$pid" || { wait $rec; echo "rawclone never seen"; return 1; }
	timeout 60 strace -f -c -o rsc.strace -p $pid 2>rsc.strace.err
	wait $rec; cat rsc.err rsc.strace
	robust=$(awk '$NF == "get_robust_list" { print $4 }' rsc.strace)
	prctl=$(awk '$NF == "prctl" { print $4 }' rsc.strace)
	echo "get_robust_list ${robust:-0}, prctl ${prctl:-0}"
	test "${robust:-0}" -ge 50 && test "${prctl:-0}" -le $((${robust:-0} / 10))
}
if ! can strace_attach; then
	skip raw_thread_signal_no_seccomp_status "$why"
else
	check raw_thread_signal_no_seccomp_status raw_signal_calls
fi

# Ten raw threads one after another, each on the first's thread id (given
# through ns_last_pid, which a pid namespace of one's own lets a user set),
# each burning 20 ms of its CPU: each life with its THREAD_START and its
# THREAD_END (the slot is keyed by the thread's robust list, which the
# kernel resets at every clone: col_rawthread.c).  The build before took
# the ten for one thread: 1 START and 1 END for that id.  How many had the
# id is the program's count (another task may take the id between its
# write of ns_last_pid and its clone: "same tid 9 of 10" failed a land when
# the check asked for 10); fewer than two in a clean run is no reuse,
# skipped.  A record that fails, or a program that ends before its count
# (a crash under the collector), fails both checks: it is never "no reuse".
reuse_k=0 reuse_failed=
if unshare -Urpf --mount-proc sh -c 'echo 300 >/proc/sys/kernel/ns_last_pid' 2>/dev/null; then
	unshare -Urpf --mount-proc "$TALLY" record -o reuse.exp ./rawclone asmreuse 10 20 >reuse.out 2>reuse.err
	reuse_rc=$?
	reuse_k=$(sed -n 's/^same tid \([0-9]*\) of [0-9]* (tid [0-9]*)$/\1/p' reuse.out)
	reuse_tid=$(sed -n 's/^same tid [0-9]* of [0-9]* (tid \([0-9]*\))$/\1/p' reuse.out)
	if [ $reuse_rc -ne 0 ] || [ -z "$reuse_k" ]; then
		reuse_failed="record of rawclone asmreuse exited $reuse_rc, same tid count '$reuse_k' (empty: the program did not reach its end)"
	fi
	reuse_why="the kernel gave no thread id twice ($(grep tids reuse.out))"
else
	reuse_why="no pid namespace of one's own with a writable ns_last_pid (unshare -Urpf --mount-proc)"
fi
export reuse_k reuse_tid reuse_failed
reuse_record_failed() {
	cat reuse.out reuse.err
	echo "$reuse_failed"
	return 1
}
if [ -n "$reuse_failed" ]; then
	check raw_thread_reused_id_lives_apart reuse_record_failed
	check raw_thread_reused_id_rows_apart reuse_record_failed
elif [ "${reuse_k:-0}" -ge 2 ]; then
	check raw_thread_reused_id_lives_apart sh -c '
		cat reuse.out reuse.err
		python3 -m tally_proc threads reuse.exp | sort | uniq -c | tee reuse.count
		grep -q "^ *$reuse_k start $reuse_tid\$" reuse.count && grep -q "^ *$reuse_k end $reuse_tid\$" reuse.count'
	# The analyzer keeps the lives apart too (exp_thread_lives.c): a row
	# per life in --threads, each with its own kernel CPU and no more
	# samples than that CPU's periods and three sampling errors.  The
	# build before: one row, every life's samples (78 for 4 lives of
	# 20 ms) against the last life's CPU (0.019 s).
	check raw_thread_reused_id_rows_apart sh -c '
		"$TALLY" report reuse.exp --threads --format csv >reuse.csv || exit 1
		python3 - <<PY
import csv, os
k, tid = int(os.environ["reuse_k"]), os.environ["reuse_tid"]
rows = [r for r in csv.DictReader(open("reuse.csv")) if r["tid"] == tid]
for r in rows:
    print(r["tid"], r["samples"], r["kernel_cpu"])
assert len(rows) == k, (len(rows), k)
for r in rows:
    n, cpu = int(r["samples"]), float(r["kernel_cpu"])
    assert cpu > 0 and n <= cpu * 1000 + 3 * max(n, 1) ** 0.5 + 1, r
PY'
	# Each life is told apart where a reader meets it: --threads' rows
	# say " (life N)" as the timeline does, and the Chrome trace gives a
	# later life a tid of its own above pid_max's ceiling (4194304), as
	# viewers merge a (pid, tid)'s events into one lane.  The build
	# before: k rows named alike, k thread_name events on one tid.
	check raw_thread_reused_id_named_apart sh -c '
		"$TALLY" report reuse.exp --threads --format csv >reuse_named.csv || exit 1
		"$TALLY" export reuse.exp --format chrome -o reuse.json || exit 1
		python3 - <<PY
import csv, json, os
k, tid = int(os.environ["reuse_k"]), int(os.environ["reuse_tid"])
names = [r["thread"] for r in csv.DictReader(open("reuse_named.csv")) if int(r["tid"]) == tid]
print("rows:", names)
assert len(set(names)) == k and all("(life " in n for n in names), names
ev = json.load(open("reuse.json"))["traceEvents"]
lanes = {e["tid"] for e in ev if e.get("name") == "thread_name" and e["tid"] % 4194304 == tid}
print("trace tids:", sorted(lanes))
assert len(lanes) == k, lanes
PY'
else
	skip raw_thread_reused_id_lives_apart "$reuse_why"
	skip raw_thread_reused_id_rows_apart "$reuse_why"
	skip raw_thread_reused_id_named_apart "$reuse_why"
fi

# A thread that makes and joins 15,000 short threads by raw clone: Linux
# swaps the perf contexts of the creator and a child on a CPU, and the
# child takes the creator's progress through the period as it exits.  The
# collector sees the loss (a sample weighing over 8 periods, or a signal in
# a raw thread) and gives the creator an event that is not inherited, so
# that its children's contexts are not clones (col_clock_keep_apart_sigsafe):
# the creator is sampled for its CPU.  A run whose creator takes no signal
# at all and whose raw threads take none gives it nothing to see (1 run in
# about 8 at load 9); so up to three runs, one of which must have the
# creator sampled.  The build before: 0-49 samples for 0.65 s of its CPU in
# every run, and "cause not seen".
rloop_case() {
	for i in 1 2 3; do
		"$TALLY" record -o rloop$i.exp ./rawclone loop 15000 >rloop$i.out 2>rloop$i.err
		cat rloop$i.out rloop$i.err; "$TALLY" report rloop$i.exp >rloop$i.txt
		cpu=$(sed -n "s/^main cpu //p" rloop$i.out)
		n=$(sed -n "s/^  Samples *\([0-9]*\) .*/\1/p" rloop$i.txt)
		hz=$(sed -n "s/^  Samples *[0-9]* (\([0-9]*\) Hz.*/\1/p" rloop$i.txt)
		echo "run $i: main cpu $cpu s, $n samples at $hz Hz"
		# never above the process's CPU (the kernel's) and three sampling errors
		kcpu=$(sed -n "s/^  Kernel CPU *\([0-9.]*\) s.*/\1/p" rloop$i.txt)
		python3 -c "import sys; sys.exit(0 if $n <= $kcpu * $hz + 3 * max($n, 1) ** 0.5 else 1)" ||
			{ echo "run $i: $n samples for $kcpu s of the kernel's CPU"; return 1; }
		if ! grep -q "could not be sampled" rloop$i.err &&
			python3 -c "import sys; sys.exit(0 if $n >= 0.25 * $cpu * $hz else 1)"; then
			return 0
		fi
	done
	return 1
}
check raw_clone_loop_creator_sampled rloop_case
# The creator is kept apart at its first raw clone (glibc's clone(),
# interposed), before it loses anything: 200 raw threads of about 30 us
# each, too few periods for a sample to show the loss.  The build before
# never kept it apart here (no "clock.apart" in the log).
check raw_clone_creator_kept_apart_at_first_clone sh -c '
	"$TALLY" record -o rfew.exp ./rawclone loop 200 >rfew.out 2>rfew.err; rc=$?
	cat rfew.out rfew.err; test $rc -eq 0 && grep -qx "clock.apart: .*" rfew.exp/log.txt'

# 5,000 short threads (200 us of CPU each, below the 1 ms period): threads.dat
# holds a few records per thread, not a 16 KiB block each (it was 80 MB); the
# CPU the samples miss is named (short threads, thread exits).  The report
# names a cause of at least 10% of the kernel's CPU (report_cpu.c); the
# thread exits' slice is about that (0.149-0.158 s of 1.48-1.50 s), so in
# some runs it is rightly left unnamed, and with the sampled and collector
# parts' own small gaps (1-2%) the explained part is then 0.897 of it (a
# clean root's make check): at least 0.88.
"$TALLY" record -o many.exp ./manythreads 5000 200 2>many.err
check many_threads_file_sized_by_threads sh -c '
	size=$(stat -c %s many.exp/threads.dat); echo threads.dat $size bytes
	test "$size" -le $((5001 * 1024))'
# The main thread, which made the 5,000, has few samples for its CPU: each
# carries the CPU since the one before (its signals wait while the collector
# sets up a thread).  No line says it blocked the sampling signal.
check many_threads_no_blocked_guess sh -c "cat many.err; ! grep -q 'without samples' many.err"
check many_threads_cpu_named sh -c '
	"$TALLY" report many.exp --format json >many.json; "$TALLY" report many.exp | head -20
	python3 - <<PY
import json, re
o = json.load(open("many.json"))["overview"]
assert o["threads"] == 5001, o
line = o["not_sampled_1"]
named = sum(float(x) for x in re.findall(r"([0-9.]+) s (?:as its|in [0-9]+ threads that)", line))
explained = o["sampled_cpu_s"] + o["collector_cpu_s"] + named
print("explained", explained, "of", o["kernel_cpu_s"])
assert explained >= 0.88 * o["kernel_cpu_s"], line
PY'
# The creator is sampled for its own CPU (mostly the clone in
# pthread_create): the kernel's context swap between copies of one inherited
# event took its progress through the period away with each child that ran
# on its CPU and ended (0 samples for its 0.1 s on Linux 6.18, and a blame
# on a raw signal mask).
check many_threads_creator_sampled sh -c '
	"$TALLY" report many.exp --threads --format csv | python3 -c "
import csv, sys
main = next(r for r in csv.DictReader(sys.stdin) if r[\"start\"] == \"(main thread)\")
print(main)
assert float(main[\"excl_cpu\"]) >= 0.5 * float(main[\"kernel_cpu\"]), main"
	! grep -q "could not be sampled" many.err'
# No sample at all (50 threads of 200 us at 100 Hz): the overview still says
# where the kernel's CPU went.
"$TALLY" record -F 100 -o none.exp ./manythreads 50 200 2>/dev/null
check zero_samples_still_accounted sh -c '
	"$TALLY" report none.exp >none.txt; cat none.txt | head -16
	grep -q "^  Samples  *0 " none.txt && grep -q "by process .*threads that each ran less than two" none.txt'

# A daemon still running when tally record returned: its CPU so far is not
# counted by the kernel yet; the overview's base takes what was sampled of
# it, so Sampled+collector stays at most 100% (it read 317%, even 1842%).
"$TALLY" record -o daemon.exp ./daemonize 1.5 "$T/daemon.flag" 2>/dev/null
sleep 0.5
check running_daemon_at_most_100_pct sh -c '
	test ! -e daemon.flag || { echo "the daemon ended already: nothing to check"; exit 0; }
	"$TALLY" report daemon.exp --format json | python3 -c "
import json, sys
o = json.load(sys.stdin)[\"overview\"]
print(o[\"accounted_pct\"], o.get(\"kernel_cpu_compared_s\"))
assert 0 < o[\"accounted_pct\"] <= 100, o"'
for i in $(seq 100); do test -e daemon.flag && break; sleep 0.1; done

# The clock signals a thread until it exits; those after its state ended
# (the thread's last slice, in its THREAD_END CPU time) are no loss: five
# runs of a one-thread program at 10 kHz show no lost.* line (one in two
# showed lost.unknown-thread 1 with the inherited clock).
cc_prog spin
check thread_end_slice_is_no_loss sh -c '
	for i in 1 2 3 4 5; do
		"$TALLY" record -F 10000 -o end$i.exp ./spin 0.05 2>/dev/null || exit 1
		"$TALLY" report end$i.exp >end$i.txt || exit 1
		if grep "lost\." end$i.txt; then exit 1; fi
	done'

# A shell that computes for a while, then execs a program: the exec'd image's
# main thread carries the CPU the process used before the exec (sampled, in
# the shell's image).  tally record said "1 thread ran 0.933 s of CPU without
# samples (the sampling signal blocked?)" of /bin/true; that CPU is not the
# new image's to sample, and nothing is said.
"$TALLY" record -o bx.exp -- bash -c 'i=0; while [ $i -lt 100000 ]; do i=$((i+1)); done; exec /bin/true' \
	>bx.out 2>bx.err; rcbx=$?
check exec_after_cpu_no_blocked_guess sh -c "cat bx.err; test $rcbx = 0 &&
	test \$(python3 -m tally_proc log bx.exp _x1 | sed -n 's/^cpu.start_ns: //p') -ge 50000000 &&
	! grep -q 'without samples' bx.err && ! grep -q 'could not be sampled' bx.err"
