# test_limits.sh — the program's resource limits stay the program's: under
# `ulimit -f` (file size), `ulimit -n` (descriptors) and `ulimit -v` (address
# space) a recorded program prints what it prints bare and exits as bare,
# with and without the tracers (-H -s -i); when a limit stops the experiment,
# tally's stderr says so in one line.  tests/progs/limits.c uses the limits.
. "$(dirname "$0")/lib.sh"
cc_prog limits -I"$PROGS" -pthread
cc_prog fdnumbers -pthread
cc_prog fdceiling -pthread
cc_prog manythreads -pthread
cc_prog fdbelow -pthread
cd "$T"

# same_as_bare NAME ULIMIT TALLY-OPTIONS ARGS...: the program's output and
# status under `ulimit ULIMIT`, bare and recorded, are identical.
same_as_bare() {
	name=$1 lim=$2 opts=$3
	shift 3
	sh -c "ulimit $lim && ./limits $*" >"$name.bare" 2>&1
	echo "status $?" >>"$name.bare"
	sh -c "ulimit $lim && \"\$TALLY\" record -o $name.exp $opts -- ./limits $*" >"$name.rec" 2>"$name.err"
	echo "status $?" >>"$name.rec"
	cat "$name.bare" "$name.rec" "$name.err"
	cmp "$name.bare" "$name.rec"
}

# ulimit -f: 200 blocks (100 KiB in dash's 512-byte blocks, 200 KiB in
# bash's); at 10 kHz, 1.5 s of CPU makes more samples than that, and the
# program then writes up to the limit itself.
fsize_case() {
	same_as_bare "fsize$2" "-f 200" "-F 10000 $1" fsize 1.5 &&
	grep -q "^tally record: warning: fsize$2.exp: the program.s file size limit (ulimit -f: [0-9]* KiB) stopped [a-z]*.dat: [1-9][0-9]* samples" "fsize$2.err"
}
check fsize_program_unharmed fsize_case "" ""
check fsize_program_unharmed_tracers fsize_case "-H -s -i" _hsi

# With no file size limit the collector's writes go without the SIGXFSZ
# mask (exp_write_sys.c: 3 system calls per write were 1): a short
# process masks nothing (the build before: twice per write).  The program
# that sets a limit itself (setrlimit, or a raw prlimit64 through syscall())
# and then lets the experiment grow past it lives, as bare: the collector
# masks again from then on.
if need strace fsize_unlimited_writes_unmasked; then
	check fsize_unlimited_writes_unmasked sh -c '
		strace -f -qq -e trace=rt_sigprocmask -o mask.trace "$TALLY" record -o mask.exp -- sh -c "/bin/true; exit 0" >/dev/null 2>&1 &&
		test -s mask.trace && ! grep "XFSZ" mask.trace'
fi
check fsize_set_by_program_unharmed same_as_bare lowered "-c unlimited" "-F 10000" lower 64 1.5
check fsize_set_raw_unharmed same_as_bare lowered_raw "-c unlimited" "-F 10000" lower 64 1.5 raw

# ulimit -v 100000 (KiB): bare, the program gets about 94 MiB; the
# collector's tables are sized by what is used (a 64 MiB stack table and two
# 5 MiB object arrays reserved up front left the program 19 MiB).
as_case() {
	same_as_bare "as$2" "-v 100000" "$1" as 70 && grep -q "allocated 70 of 70 MiB; thread: started" "as$2.rec"
}
check as_program_unharmed as_case "" ""
check as_program_unharmed_tracers as_case "-H -s -i" _hsi

# A thread that calls no malloc gets no malloc arena from the collector: a
# thread's first malloc makes it an arena, 64 MiB of address space, and the
# collector asked pthread_getattr_np for each thread's stack, which mallocs
# a copy of the thread's CPU affinity (16 threads: 1,122,420 KiB of VmSize
# recorded against 133,612 KiB bare).  While 16 threads that burn CPU and
# call no malloc live, the recorded program's VmSize is over the bare
# one's by no more than what the collector had mapped before the first
# thread (the two runs' VmSize there) and 16 MiB (its states, about 108
# KiB a thread, and record windows): one arena is 64 MiB.
vmsize_of() {
	sed -n "s/^vmsize $1: \([0-9]*\) KiB/\1/p" "$2"
}
threads_vm_case() {
	./limits threads 16 >vmt.bare 2>&1
	"$TALLY" record -o "vmt$2.exp" $1 -- ./limits threads 16 >"vmt$2.rec" 2>"vmt$2.err"
	cat vmt.bare "vmt$2.rec" "vmt$2.err"
	b0=$(vmsize_of "before threads" vmt.bare) b16=$(vmsize_of "with 16 threads" vmt.bare)
	t0=$(vmsize_of "before threads" "vmt$2.rec") t16=$(vmsize_of "with 16 threads" "vmt$2.rec")
	test -n "$b0" && test -n "$b16" && test -n "$t0" && test -n "$t16" &&
	echo "over bare: $((t16 - b16)) KiB with 16 threads, $((t0 - b0)) KiB before" &&
	test $((t16 - b16)) -le $((t0 - b0 + 16384))
}
check threads_take_no_arena threads_vm_case "" ""
check threads_take_no_arena_tracers threads_vm_case "-H -s -i" _hsi

# Under `ulimit -v`, a program that starts threads of 32 MiB stacks (no
# malloc in them) until pthread_create fails starts as many recorded as
# bare: the limit is its bare VmSize at start, 8 stacks with their guard
# pages and half a stack more, which the collector's own mappings fit in
# (the build before started 4: the arenas made for the first threads took
# the room of the other four).
# Each thread runs before the next is made, so the count does not hang on
# the machine's load.
max_threads_case() {
	./limits maxthreads 0 >mt.start 2>&1
	b0=$(vmsize_of "before threads" mt.start)
	test -n "$b0" || return 1
	lim=$((b0 + 8 * (32768 + 4) + 16384))
	sh -c "ulimit -v $lim && ./limits maxthreads 32" >"mt$2.bare" 2>&1
	sh -c "ulimit -v $lim && \"\$TALLY\" record -o mt$2.exp $1 -- ./limits maxthreads 32" >"mt$2.rec" 2>"mt$2.err"
	cat "mt$2.bare" "mt$2.rec" "mt$2.err"
	grep -q "^started 8 threads of 32 MiB" "mt$2.bare" &&
	test "$(grep "^started" "mt$2.bare")" = "$(grep "^started" "mt$2.rec")"
}
check as_threads_same_as_bare max_threads_case "" ""
check as_threads_same_as_bare_tracers max_threads_case "-H -s -i" _hsi

# ulimit -S -n 16 (the soft limit only, the hard one higher): the
# collector's descriptors go above the soft limit (raised for the moment of
# the move), where the program's own opens never reach; the program opens
# exactly as many files and pipes as bare, with and without the tracers,
# and tally says nothing about the limit.
soft_case() {
	same_as_bare "soft$2" "-S -n 16" "$1" nofile && ! grep -q "descriptor limit" "soft$2.err"
}
# A bash script of pipelines and command substitutions under the tracers
# (it failed with "pipe error: Too many open files").
cat >pipes.sh <<'EOF2'
for i in 1 2 3; do echo "line $i" | tr a-z A-Z | cat; done
x=$(echo sub | wc -c); echo "sub $x"
EOF2
bash_case() {
	bash -c 'ulimit -S -n 16 && bash pipes.sh' >bash.bare 2>&1
	echo "status $?" >>bash.bare
	bash -c 'ulimit -S -n 16 && "$TALLY" record -o bash.exp -H -s -i -- bash pipes.sh' >bash.rec 2>bash.err
	echo "status $?" >>bash.rec
	cat bash.bare bash.rec bash.err
	grep -q "LINE 3" bash.bare && cmp bash.bare bash.rec && ! grep -q "descriptor limit" bash.err
}
hard=$(sh -c 'ulimit -H -n')
if [ "$hard" = unlimited ] || [ "$hard" -gt 16 ]; then
	check nofile_soft_same_as_bare soft_case "" ""
	check nofile_soft_same_as_bare_tracers soft_case "-H -s -i" _hsi
	check nofile_soft_bash_script_tracers bash_case
else
	for c in nofile_soft_same_as_bare nofile_soft_same_as_bare_tracers nofile_soft_bash_script_tracers; do
		skip $c "the hard descriptor limit is $hard: no room above a soft limit of 16"
	done
fi

# ulimit -n 16 (hard == soft, as bash and dash set it): nothing is above the
# limit, so the collector keeps open only what it cannot open again (its
# directory and the process's clock); its log and record files are opened
# for each use.  The program's shortfall is no more than those, and tally
# record says the limit was reached, with how many were its own.
nofile_case() {
	sh -c "ulimit -n 16 && ./limits nofile" >"nofile$2.bare" 2>&1
	sh -c "ulimit -n 16 && \"\$TALLY\" record -o nofile$2.exp $1 -- ./limits nofile" >"nofile$2.rec" 2>"nofile$2.err"
	cat "nofile$2.bare" "nofile$2.rec" "nofile$2.err"
	bare=$(sed -n 's/^opened \([0-9]*\) files.*/\1/p' "nofile$2.bare")
	rec=$(sed -n 's/^opened \([0-9]*\) files.*/\1/p' "nofile$2.rec")
	ours=$(sed -n "s/.*the program's descriptor limit (ulimit -n: 16) was reached; \([0-9]*\) of them were the collector's.*/\1/p" "nofile$2.err")
	test -n "$bare" && test -n "$rec" && test -n "$ours" && test $((bare - rec)) -le "$ours" &&
	test "$ours" -le 2 && test $(grep -c "descriptor limit" "nofile$2.err") -eq 1
}
# The same for a descendant that samples (so it has made its directory):
# lean, it keeps its directory and its clock, and reaches its process file
# as ../LINEAGE.proc from the directory.  It held its process file too
# before (3: the program opened 9 files where bare opens 12); its log
# still gets its end lines.
desc_nofile_case() {
	sh -c "ulimit -n 16 && sh -c './limits nofile 0.3; exit 0'" >"dnofile$2.bare" 2>&1
	sh -c "ulimit -n 16 && \"\$TALLY\" record -o dnofile$2.exp $1 -- sh -c './limits nofile 0.3; exit 0'" \
		>"dnofile$2.rec" 2>"dnofile$2.err"
	cat "dnofile$2.bare" "dnofile$2.rec" "dnofile$2.err"
	bare=$(sed -n 's/^opened \([0-9]*\) files.*/\1/p' "dnofile$2.bare")
	rec=$(sed -n 's/^opened \([0-9]*\) files.*/\1/p' "dnofile$2.rec")
	log=$(python3 -m tally_proc log "dnofile$2.exp" _f1_x1)
	echo "$log" | grep "^end\|^cpu.end\|^error"
	test -n "$bare" && test -n "$rec" && test $((bare - rec)) -le 2 && test -d "dnofile$2.exp/_f1_x1.exp" &&
	echo "$log" | grep -q "^end.mono_ns: " && echo "$log" | grep -q "^cpu.end_ns: " &&
	"$TALLY" check "dnofile$2.exp"
}
check nofile_descendant_holds_two desc_nofile_case "" ""
check nofile_descendant_holds_two_tracers desc_nofile_case "-H -s -i" _hsi

# The bash script of pipelines under the hard limit, with the tracers: it
# failed with "pipe error: Too many open files" (the collector held 10);
# lean, its output and status are the bare ones.
hard_bash_case() {
	bash -c 'ulimit -n 16 && bash pipes.sh' >hbash$2.bare 2>&1
	echo "status $?" >>hbash$2.bare
	bash -c "ulimit -n 16 && \"\$TALLY\" record -o hbash$2.exp $1 -- bash pipes.sh" >hbash$2.rec 2>hbash$2.err
	echo "status $?" >>hbash$2.rec
	cat hbash$2.bare hbash$2.rec hbash$2.err
	grep -q "LINE 3" hbash$2.bare && cmp hbash$2.bare hbash$2.rec && "$TALLY" check hbash$2.exp
}
check nofile_hard_bash_script hard_bash_case "" ""
check nofile_hard_bash_script_tracers hard_bash_case "-H -s -i" _hsi
check nofile_shortfall_is_said nofile_case "" ""
check nofile_shortfall_is_said_tracers nofile_case "-H -s -i" _hsi

# ulimit -n 16, the program holding every descriptor it can get while it
# runs and as it ends: the collector's claims and log lines then find no
# number free, and are made by a helper task with a copy of the descriptor
# table in which one of the program's is closed.  Nothing is lost (no
# "Lost" line, the log's end lines are there), the check is sound, and the
# one line says the limit was reached, with how many were the collector's.
hold_case() {
	sh -c "ulimit -n 16 && ./limits hold 0.5" >"hold$2.bare" 2>&1
	echo "status $?" >>"hold$2.bare"
	sh -c "ulimit -n 16 && \"\$TALLY\" record -F 4000 -o hold$2.exp $1 -- ./limits hold 0.5" >"hold$2.rec" 2>"hold$2.err"
	echo "status $?" >>"hold$2.rec"
	cat "hold$2.bare" "hold$2.rec" "hold$2.err"
	"$TALLY" report "hold$2.exp" >"hold$2.report" 2>&1
	grep -E "Samples|Lost" "hold$2.report"
	bare=$(sed -n 's/^opened \([0-9]*\) files.*/\1/p' "hold$2.bare")
	rec=$(sed -n 's/^opened \([0-9]*\) files.*/\1/p' "hold$2.rec")
	ours=$(sed -n "s/.*the program's descriptor limit (ulimit -n: 16) was reached; \([0-9]*\) of them were the collector's.*/\1/p" "hold$2.err")
	test -n "$bare" && test -n "$rec" && test -n "$ours" && test $((bare - rec)) -le "$ours" &&
	test "$(tail -n 1 "hold$2.bare")" = "$(tail -n 1 "hold$2.rec")" &&
	test $(grep -c "descriptor limit" "hold$2.err") -eq 1 && ! grep -q "lost" "hold$2.err" &&
	! grep -q "^  Lost" "hold$2.report" && grep -q "^end.mono_ns: " "hold$2.exp/log.txt" &&
	"$TALLY" check "hold$2.exp"
}
check nofile_held_to_the_end_nothing_lost hold_case "" ""
check nofile_held_to_the_end_nothing_lost_tracers hold_case "-H -s -i" _hsi

# ulimit -n 64 (hard == soft: lean), a program that counts on the numbers
# open() gives it (tests/progs/fdnumbers.c: one thread opens and closes
# 100,000 times while another's heap and I/O records make the collector
# claim blocks and copy windows).  The collector opens its files for each
# use aside, in a helper task with a copy of the descriptor table
# (col_fds_aside), so no open of the program's ever finds a number taken by
# ours; opened in place, they took one for an instant (485-1336 of the
# 100,000 opens got another number, at load 11).
numbers_case() {
	sh -c "ulimit -n 64 && ./fdnumbers 100000" >numbers.bare 2>&1
	echo "status $?" >>numbers.bare
	sh -c "ulimit -n 64 && \"\$TALLY\" record -o numbers.exp -H -i -- ./fdnumbers 100000" >numbers.rec 2>numbers.err
	echo "status $?" >>numbers.rec
	cat numbers.bare numbers.rec numbers.err
	grep -q "^0 of 100000 opens elsewhere" numbers.bare && cmp numbers.bare numbers.rec &&
	"$TALLY" check numbers.exp
}
check nofile_hard_open_numbers_as_bare numbers_case

# ulimit -n 64 (lean: record files opened for each use, aside, a helper
# clone each), 200 threads made one after another, each 2 ms of CPU (two
# samples): each thread's first block of samples.dat is a spare mapped
# with an earlier thread's first claim (exp_write.c, next_run), so thread
# starts share a helper.  Helper clones (the kernel's count of clone(2)
# calls without CLONE_THREAD, by perf stat: threads are no helpers, made
# by clone3 from glibc 2.34 and by clone before, or where a seccomp
# profile refuses clone3; the record's fork of the program is one more)
# stay below one per
# four threads; each first claim was a helper before: 217 clones for 200
# threads (load 19).  Not by strace: a traced program's clock is another
# (col_clock.c, traced_by_debugger), its threads live longer and their
# ends read their schedstat aside, one helper each.
export NOT_THREAD='!(clone_flags & 0x10000)'
starts_case() {
	sh -c "ulimit -n 64 && perf stat -x, -e syscalls:sys_enter_clone --filter \"\$NOT_THREAD\" -o starts.perf \"\$TALLY\" record -o starts.exp -- ./manythreads 200 2000" \
		>starts.rec 2>starts.err
	cat starts.rec starts.err starts.perf
	helpers=$(sed -n 's/^\([0-9]*\),.*sys_enter_clone.*/\1/p' starts.perf)
	"$TALLY" report starts.exp >starts.report 2>&1
	threads=$(sed -n 's/^  Threads *\([0-9]*\).*/\1/p' starts.report | head -n 1)
	echo "helpers $helpers threads $threads"
	test -n "$helpers" && test -n "$threads" && test "$threads" -ge 150 && test $((helpers * 4)) -lt "$threads" &&
	"$TALLY" check starts.exp
}
# ulimit -Sn 64 with room above it, a program whose first samples come
# while it has threads (tests/progs/fdbelow.c lists its descriptors below
# the soft limit after a thread ran): samples.dat and stacks.dat, made at
# the first record, go above the limit as the per-thread events do
# (col_fd_keep_above); they stayed at 32 and 33 before, two of the
# program's 64.
below_case() {
	sh -c "ulimit -Sn 64 && ./fdbelow 20" >below$2.bare 2>&1
	sh -c "ulimit -Sn 64 && \"\$TALLY\" record -o below$2.exp $1 -- ./fdbelow 20" >below$2.rec 2>below$2.err
	cat below$2.bare below$2.rec below$2.err
	cmp below$2.bare below$2.rec && "$TALLY" check below$2.exp
}
if [ "$hard" = unlimited ] || [ "$hard" -gt 64 ]; then
	check nofile_soft_record_files_above_limit below_case "" ""
	check nofile_soft_record_files_above_limit_states below_case --states _st
else
	for c in nofile_soft_record_files_above_limit nofile_soft_record_files_above_limit_states; do
		skip $c "the hard descriptor limit is $hard: no room above a soft limit of 64"
	done
fi

# ulimit -Sn 64 with room above it, --states: each thread's event and
# schedstat are copied above the limit by a helper that raises only its
# own; one helper per thread start copies both (col_fds_batch_end): fewer
# than 1.5 clones per thread.  One per descriptor before: 408 clones for
# 200 threads (load 19).
soft_starts_case() {
	sh -c "ulimit -Sn 64 && perf stat -x, -e syscalls:sys_enter_clone --filter \"\$NOT_THREAD\" -o sstarts.perf \"\$TALLY\" record --states -o sstarts.exp -- ./manythreads 200 2000" \
		>sstarts.rec 2>sstarts.err
	cat sstarts.rec sstarts.err sstarts.perf
	helpers=$(sed -n 's/^\([0-9]*\),.*sys_enter_clone.*/\1/p' sstarts.perf)
	"$TALLY" report sstarts.exp >sstarts.report 2>&1
	threads=$(sed -n 's/^  Threads *\([0-9]*\).*/\1/p' sstarts.report | head -n 1)
	echo "helpers $helpers threads $threads"
	test -n "$helpers" && test -n "$threads" && test "$threads" -ge 150 && test $((helpers * 2)) -lt $((threads * 3)) &&
	"$TALLY" check sstarts.exp
}
if ! can perf_clone; then
	for c in nofile_hard_thread_starts_share_a_helper nofile_soft_thread_start_one_helper; do
		skip $c "$why"
	done
else
	check nofile_hard_thread_starts_share_a_helper starts_case
	if [ "$hard" = unlimited ] || [ "$hard" -gt 64 ]; then
		check nofile_soft_thread_start_one_helper soft_starts_case
	else
		skip nofile_soft_thread_start_one_helper "the hard descriptor limit is $hard: no room above a soft limit of 64"
	fi
fi

# ulimit -Sn 64 with room above it (the hard limit higher), a program whose
# threads live at that limit (tests/progs/fdceiling.c: two threads open
# until EMFILE, close one, open again) while its main thread makes threads
# whose --states events the collector opens and moves above the limit.
# The program's limit is never raised for that (a helper that shares the
# table but not the limits makes the copy): no open of the program's gets
# a number at or above 64 (a select() set could not hold it), and no
# getrlimit sees another limit.  With the limit raised across the open,
# 4 and 7 of its opens got 64 or more, 8 and 12 getrlimits saw ours (load 8).
ceiling_case() {
	sh -c "ulimit -Sn 64 && ./fdceiling 1" >ceiling.bare 2>&1
	sh -c "ulimit -Sn 64 && \"\$TALLY\" record -o ceiling.exp --states -- ./fdceiling 1" >ceiling.rec 2>ceiling.err
	cat ceiling.bare ceiling.rec ceiling.err
	grep -q "^0 at or above the soft limit 64, 0 other limits seen" ceiling.bare &&
	grep -q "^0 at or above the soft limit 64, 0 other limits seen" ceiling.rec &&
	"$TALLY" check ceiling.exp
}
if [ "$(sh -c 'ulimit -Hn')" = unlimited ] || [ "$(sh -c 'ulimit -Hn')" -gt 64 ]; then
	check nofile_soft_limit_never_raised_for_the_program ceiling_case
else
	skip nofile_soft_limit_never_raised_for_the_program "the hard descriptor limit leaves no room above 64"
fi
