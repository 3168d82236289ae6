# test_exec.sh — no signal of the collector's outlives its image: execs that
# pass no exec function of libc's keep the program alive under sampling at
# 4 kHz (a sigtrap event that overflowed in kernel mode during the exec used
# to signal the new image, whose SIGTRAP is at its default again: status
# 133).  fork + syscall(SYS_execve) x100, execveat() x50, fexecve() x50, a
# process exec'ing itself through syscall(SYS_execve) x20, and a dynamically
# linked Go program (os/exec children x100, syscall.Exec of itself x20),
# each new image followed into its sub-experiment; a dynamically linked Go
# program without cgo (its runtime replaces our handler by its own system
# calls) is sampled from outside and lives.  A chroot before the exec
# (root only): no loader lines on the program's stderr, one true line each in
# the log and from record.  A seccomp filter that kills (or fails)
# perf_event_open: the program lives, sampled by POSIX timers, and record
# says why.
. "$(dirname "$0")/lib.sh"
cc_prog rawexec
cd "$T"

# children_ok EXP MODE N [OPTIONS [PROGRAM]]: every child exited 0 and
# each exec is followed.
children_ok() {
	"$TALLY" record -F 4000 ${4:-} -o "$1" ./${5:-rawexec} "$2" "$3" >out.$2 2>err.$2
	rc=$?
	cat out.$2 err.$2
	test $rc -eq 0 && grep -qx "bad 0 of $3" out.$2 &&
		test "$(python3 -m tally_proc lineages "$1" | grep -c "^_f[0-9]*_x1$")" -eq "$3"
}
check exec_raw_syscall_children_live children_ok a.exp raw 100
check exec_execveat_children_live children_ok b.exp at 50
check exec_fexecve_children_live children_ok c.exp fexec 50

# With --states too: the context-switch events' SIGTRAP (root: one at each
# resume) must not reach a new image either.
check exec_raw_syscall_states_children_live children_ok as.exp raw 50 --states

# An execve by the syscall instruction itself (inline assembly): nothing to
# interpose.  The collector finds `mov $59, %eax ... syscall` in the
# program's code (at start for a program of at most 1 MiB of code; before
# the first fork for a bigger one, rawexec_pad) and leaves the kernel out
# of its events (100 of 100 children died of SIGTRAP at 4 kHz before); the
# log says why.
cc -O2 -g -DRAWEXEC_PAD_KIB=1536 -o "$T/rawexec_pad" "$PROGS/rawexec.c"
cc -O2 -g -DRAWEXEC_PAD_KIB=512 -o "$T/rawexec_mid" "$PROGS/rawexec.c"
asm_ok() {
	children_ok "$@" && grep -q "^clock.kernel: excluded (the program makes its own system calls" "$1/log.txt"
}
check exec_inline_asm_children_live asm_ok e.exp asm 100
check exec_inline_asm_states_children_live asm_ok es.exp asm 50 --states
check exec_inline_asm_big_program_children_live sh -c '
	"$TALLY" record -F 4000 -o ep.exp ./rawexec_pad asm 50 >out.pad 2>err.pad; rc=$?; cat out.pad err.pad
	test $rc -eq 0 && grep -qx "bad 0 of 50" out.pad &&
	grep -q "^clock.kernel: included" ep.exp/log.txt &&
	python3 -m tally_proc log ep.exp _f1 | grep -q "^clock.kernel: excluded (the program makes its own system calls"'
# A program of 512 KiB of code that execs itself by inline assembly, never
# forking: searched at start since the search scans 16 bytes at a time
# (it was searched only up to 256 KiB at start, and its next image died of
# SIGTRAP, status 133).
check exec_inline_asm_self_mid_program_lives sh -c '
	"$TALLY" record -F 4000 -o em.exp ./rawexec_mid asmself 20 >out.mid 2>err.mid; rc=$?; cat out.mid err.mid
	test $rc -eq 0 && grep -qx "asmself done" out.mid &&
	grep -q "^clock.kernel: excluded (the program makes its own system calls" em.exp/log.txt'
check exec_raw_syscall_self_lives sh -c '
	"$TALLY" record -F 4000 -o d.exp ./rawexec self 20 >out 2>err; rc=$?; cat out err
	test $rc -eq 0 && grep -qx "self done" out && test "$(python3 -m tally_proc lineages d.exp | grep -c "^_x")" -eq 20 &&
	grep -q "^exec: /proc/self/exe" d.exp/log.txt'

# chroot, then exec a dynamically linked program there: the collector is not
# in the new root, so the exec goes without tally's preload (no loader lines
# on the program's stderr), one line in the log and one from record say so.
if [ "$(id -u)" != 0 ]; then
	skip exec_chroot_drops_preload "chroot needs root"
else
	cc_prog chrooter
	cc_prog newroot_hello
	mkdir -p newroot
	cp newroot_hello newroot/hello
	for lib in $(ldd newroot_hello | grep -o '/[^ ]*'); do
		mkdir -p "newroot$(dirname "$lib")" && cp -L "$lib" "newroot$lib"
	done
	check exec_chroot_program_runs_alone sh -c '
		./chrooter newroot /hello >out.c0 2>err.c0; rc=$?; cat out.c0 err.c0
		test $rc -eq 0 && grep -qx "hello from the new root" out.c0 && test ! -s err.c0'
	check exec_chroot_drops_preload sh -c '
		"$TALLY" record -o k.exp ./chrooter newroot /hello >out.c1 2>err.c1; rc=$?; cat out.c1 err.c1
		test $rc -eq 0 && grep -qx "hello from the new root" out.c1 &&
		! grep -q "ld.so\|preloaded" out.c1 err.c1 &&
		grep -qx "exec: /hello: the collector is not reachable from this root (chroot?): not profiled" k.exp/log.txt &&
		test "$(grep -c "1 exec.d program not profiled: /hello (the collector is not reachable" err.c1)" -eq 1'
fi

# A seccomp filter that forbids perf_event_open (killing the caller, or
# failing the call), or that kills clone and clone3 (a probe process of the
# collector's killed the program at its first clock open): the program
# lives and keeps its exit status, is sampled by POSIX timers, and record
# says why in one line.
cc_prog seccomper -lpthread
cc_prog spin
for how in kill_process kill_thread errno kill_clone; do
	check exec_seccomp_${how}_program_lives sh -c '
		./seccomper '$how' ./spin 0.3 >/dev/null 2>&1 || exit 1
		"$TALLY" record -o s_'$how'.exp ./seccomper '$how' ./spin 0.3 >out.s 2>err.s; rc=$?; cat err.s
		test $rc -eq 0 && test "$(grep -c "sampled by POSIX CPU-time timers" err.s)" -eq 1 &&
		! grep -q "could not grow" err.s &&
		python3 -m tally_proc log s_'$how'.exp _x1 | grep -q "^clock.fallback: " &&
		"$TALLY" export s_'$how'.exp --format collapsed | grep -q ";main"'
done
check exec_seccomp_kill_says_seccomp sh -c 'python3 -m tally_proc log s_kill_process.exp _x1 |
	grep -q "^clock.fallback: perf_event_open not tried under a seccomp filter"'
# A program that installs the filter itself, after the collector started,
# then makes a thread: the thread's own events (-c, --states) are not
# opened under it (the collector asks the kernel again, PR_GET_SECCOMP),
# and the log says why (killed by SIGSYS before: the status was read once).
for what in counters states; do
	opt=--states && test $what = states || opt="-c page-faults/100"
	check exec_seccomp_self_installed_${what}_thread_lives sh -c '
		"$TALLY" record '"$opt"' -o self.exp ./seccomper kill_process --thread >out.t 2>err.t; rc=$?
		cat out.t err.t; grep "^error" self.exp/log.txt
		test $rc -eq 0 && grep -qx "thread done" out.t &&
		grep -q "^error: .*not tried under a seccomp filter" self.exp/log.txt; rc=$?; rm -rf self.exp; exit $rc'
done
# Run with SIGCHLD ignored (a supervisor or a shell may pass that on), the
# kernel reaped what tally record started: it failed with "wait4: No child
# processes" (and under a filter, its probe's wait spun for ever).  It
# waits for its children now, and the program still finds SIGCHLD ignored,
# as bare.
IGN='import signal, os, sys; signal.signal(signal.SIGCHLD, signal.SIG_IGN); os.execvp(sys.argv[1], sys.argv[1:])'
check exec_sigchld_ignored_recorded_as_given sh -c '
	python3 -c "$0" grep SigIgn /proc/self/status >ign.bare &&
	timeout 60 python3 -c "$0" "$TALLY" record -o ign.exp grep SigIgn /proc/self/status >ign.rec 2>ign.err; rc=$?
	cat ign.bare ign.rec ign.err; test $rc -eq 0 && cmp ign.bare ign.rec && "$TALLY" check ign.exp >/dev/null &&
	if grep -q "^Seccomp_filters:" /proc/self/status; then
		timeout 60 python3 -c "$0" ./seccomper allow_perf "$TALLY" record -o igs.exp ./spin 0.2 >/dev/null 2>igs.err; rc=$?
		cat igs.err; test $rc -eq 0 && grep -q "^seccomp: under 1 inherited filter; a probe child making perf_event_open lived" igs.exp/log.txt
	fi' "$IGN"

# tally record itself under a filter (a sandbox runs it): it probes the
# filter in children of its own (cli_seccomp.c) and the program inherits
# its result.  One that allows perf_event_open keeps perf sampling (timers
# before: "not tried under a seccomp filter"); one that kills it is named
# as such; a filter the program adds after start is not trusted, and its
# thread's events (-c, --states) are not opened under it.
if ! grep -q "^Seccomp_filters:" /proc/self/status; then
	for n in inherited_allowing_filter_keeps_perf killing_filter_kernel_data_said inherited_killing_filter_named \
		inherited_killing_filter_counters_launcher_lives added_after_inherited_counters_thread_lives \
		added_after_inherited_states_thread_lives added_after_inherited_counters_prctl_thread_lives \
		trusted_filter_numbers_as_bare raw_thread_no_robust_list_call; do
		skip exec_seccomp_$n "no Seccomp_filters in /proc/self/status (kernel < 5.9)"
	done
else
	check exec_seccomp_inherited_allowing_filter_keeps_perf sh -c '
		./seccomper allow_perf "$TALLY" record -o ia.exp ./spin 0.3 >out.ia 2>err.ia; rc=$?; cat err.ia
		grep "^seccomp\|^clock" ia.exp/log.txt
		test $rc -eq 0 && ! grep -q "POSIX" err.ia && grep -q "^clock: perf_event task-clock" ia.exp/log.txt &&
		! grep -q "^clock.fallback" ia.exp/log.txt &&
		grep -qx "seccomp: under 1 inherited filter; a probe child making perf_event_open lived, clone lived, get/set_robust_list lived" ia.exp/log.txt &&
		"$TALLY" export ia.exp --format collapsed | grep -q ";main"'
	# What needs perf events of tally record's own is said, not dropped:
	# --kernel warns, --data names its source and why (before: -K was
	# off and --data had no data.source line, without a word).
	check exec_seccomp_killing_filter_kernel_data_said sh -c '
		./seccomper kill_process "$TALLY" record --kernel --data -o kd.exp ./spin 0.2 >out.kd 2>err.kd; rc=$?; cat err.kd
		test $rc -eq 0 && grep -q "warning: --kernel: no kernel frames: .*seccomp filter" err.kd &&
		grep -q "^data.source: clock samples .*seccomp filter" kd.exp/log.txt'
	check exec_seccomp_inherited_killing_filter_named sh -c '
		./seccomper kill_process "$TALLY" record -o ik.exp ./spin 0.3 >out.ik 2>err.ik; rc=$?; cat err.ik
		test $rc -eq 0 && test "$(grep -c "sampled by POSIX CPU-time timers" err.ik)" -eq 1 &&
		grep -q "^seccomp: under 1 inherited filter; a probe child making perf_event_open killed (signal 31), clone lived" ik.exp/log.txt &&
		grep -q "^clock.fallback: perf_event_open not tried under a seccomp filter that kills it" ik.exp/log.txt'
	# tally record's own perf_event_open (-c's check of the counters) is
	# not made under such a filter either: killed by SIGSYS before (159).
	check exec_seccomp_inherited_killing_filter_counters_launcher_lives sh -c '
		./seccomper kill_process "$TALLY" record -c page-faults/100 -o ikc.exp ./spin 0.3 >out.ikc 2>err.ikc
		rc=$?; cat err.ikc; grep "^error" ikc.exp/log.txt
		test $rc -eq 0 && grep -q "^error: page-faults: .*not tried under a seccomp filter" ikc.exp/log.txt'
	for what in counters states counters_prctl; do
		opt=--states && test $what = states || opt="-c page-faults/100"
		how=kill_process && test $what != counters_prctl || how=kill_process_prctl
		check exec_seccomp_added_after_inherited_${what}_thread_lives sh -c '
			./seccomper allow_perf "$TALLY" record '"$opt"' -o add.exp ./seccomper '$how' --thread >out.a 2>err.a
			rc=$?; cat out.a err.a; grep "^error\|^seccomp" add.exp/log.txt
			test $rc -eq 0 && grep -qx "thread done" out.a &&
			grep -q "^seccomp: perf_event_open made" add.exp/log.txt &&
			grep -q "^error: .*not tried under a seccomp filter" add.exp/log.txt; rc=$?; rm -rf add.exp; exit $rc'
	done
	# Under a filter tally record probed safe, the collector's own
	# one-use opens go aside (col_fds_aside), each asking first whether a
	# clone is safe: that read /proc/thread-self/status in place, taking
	# the program's lowest number while another thread opened (fdnumbers
	# `exec`: its exec interposer peeks at the file aside).  The count is
	# read once per process now, and a filter the program adds is seen at
	# its prctl or syscall() (col_interpose_seccomp.c).  Before: 955 and
	# 1,416 of 100,000 opens elsewhere (load 15); 0 and 0 now.
	cc_prog fdnumbers -pthread
	check exec_seccomp_trusted_filter_numbers_as_bare sh -c '
		./fdnumbers 100000 exec >tf.bare 2>&1 || exit 1
		./seccomper allow_perf "$TALLY" record -o tf.exp ./fdnumbers 100000 exec >tf.rec 2>tf.err; rc=$?
		cat tf.bare tf.rec tf.err
		test $rc -eq 0 && grep -qx "0 of 100000 opens elsewhere" tf.rec &&
		grep -q "^seccomp: under 1 inherited filter; .*clone lived" tf.exp/log.txt'
	# A thread made by a raw clone under a filter tally record probed
	# (perf sampling kept) that kills get_robust_list, a call no program of
	# ours makes: tally record's probe child dies of it (EXP_SECCOMP_ROBUST
	# not passed), and the raw thread's slot is keyed by its tid alone.
	# Before, the handler's get_robust_list killed the program (status
	# 159) at the raw thread's first sample.
	cc_prog rawclone -I"$PROGS"
	check exec_seccomp_raw_thread_no_robust_list_call sh -c '
		./seccomper kill_getrobust ./rawclone asm 0.3 >/dev/null 2>&1 || exit 1
		./seccomper kill_getrobust "$TALLY" record -o rr.exp ./rawclone asm 0.3 >rr.out 2>rr.err; rc=$?
		cat rr.err; test $rc -eq 0 && "$TALLY" report rr.exp -q --format csv | grep -q ",raw_work,rawclone," &&
		grep -q "^seccomp: .*get/set_robust_list killed (signal 31)" rr.exp/log.txt'
fi
# The overview names the fallback and its cause (issue 23, item 17), in the
# process that had it, and blames no signal the program blocked.
check exec_seccomp_overview_names_the_fallback sh -c '
	"$TALLY" report s_errno.exp >rep.s 2>&1 &&
	grep -q "^  Clock fallback .*POSIX CPU-time timers in 1 of 2 processes: perf_event_open not tried under a seccomp filter" rep.s &&
	"$TALLY" report s_kill_clone.exp | grep -q "^  Clock fallback .*not tried under a seccomp filter" &&
	! grep -q "blocked" rep.s'

# Go: built with cgo, so that it is dynamically linked and preloaded.
if ! command -v go >/dev/null 2>&1; then
	for n in without_cgo_sampled_from_outside without_cgo_refusal_names_its_cause net_cgo_preloaded \
		os_exec_children_live self_exec_lives clock_says_why_kernel_excluded; do
		skip exec_go_$n "go is not installed (golang-go)"
	done
	exit 0
fi
# Go without cgo, linked dynamically (the external linker): its runtime
# sets its handlers by its own rt_sigaction, replacing the collector's, and
# the clock's SIGTRAP then killed it ("SIGTRAP: trace trap", exit 2, on
# 8e10f05).  tally record samples it from outside, as a static program,
# and says why: it lives, its children too, and spin() has the samples.
mkdir gonc && cp "$PROGS/gonocgo/main.go" "$PROGS/gonocgo/go.mod" gonc/
if ! (cd gonc && CGO_ENABLED=1 GOCACHE="$T/gocache" GOPATH="$T/gopath" GOFLAGS=-mod=mod \
	GOTOOLCHAIN=local go build -ldflags=-linkmode=external -o ../gonocgo . >../gonc.log 2>&1); then
	skip exec_go_without_cgo_sampled_from_outside "go build -linkmode=external failed: $(tail -n 1 gonc.log)"
	skip exec_go_without_cgo_refusal_names_its_cause "go build -linkmode=external failed: $(tail -n 1 gonc.log)"
elif ! readelf -lW gonocgo | grep -q INTERP || readelf --dyn-syms gonocgo | grep -q _cgo_; then
	skip exec_go_without_cgo_sampled_from_outside "go did not build a dynamic program without cgo"
	skip exec_go_without_cgo_refusal_names_its_cause "go did not build a dynamic program without cgo"
else
	check exec_go_without_cgo_sampled_from_outside sh -c '
		"$TALLY" record -o gn.exp ./gonocgo 20 >out.gn 2>err.gn; rc=$?; cat out.gn; tail -3 err.gn
		test $rc -eq 0 && grep -qx "bad 0 of 20" out.gn &&
		grep "^collector.mode: outside mode: a Go program without cgo" gn.exp/log.txt &&
		"$TALLY" export gn.exp --format collapsed >gn.folded &&
		python3 "$E2E/profile.py" gn.folded "incl main.spin 0.75 0.25"'
	# An option that needs the collector inside is refused with the
	# program's own cause (it said "a program without a dynamic loader
	# cannot load it", false for this one, before).
	check exec_go_without_cgo_refusal_names_its_cause sh -c '
		"$TALLY" record -H -o gnh.exp ./gonocgo 1 >out.gnh 2>err.gnh; rc=$?; cat err.gnh
		test $rc -eq 64 && test ! -e gnh.exp && grep -q "is a Go program without cgo" err.gnh &&
		! grep -q "without a dynamic loader" err.gnh'
fi

# ... and one with cgo by the net package alone, built by Go's own linker
# (only _cgo_panic and _cgo_topofstack exported, no x_cgo_init): preloaded,
# not sampled from outside (a first form of the test above looked for
# x_cgo_init alone and sent it outside).
mkdir gonet && cp "$PROGS/gonet/main.go" "$PROGS/gonet/go.mod" gonet/
if ! (cd gonet && CGO_ENABLED=1 GOCACHE="$T/gocache" GOPATH="$T/gopath" GOFLAGS=-mod=mod \
	GOTOOLCHAIN=local go build -o ../gonet_bin . >../gonet.log 2>&1); then
	skip exec_go_net_cgo_preloaded "go build failed: $(tail -n 1 gonet.log)"
elif ! readelf -lW gonet_bin | grep -q INTERP || ! readelf --dyn-syms gonet_bin | grep -q _cgo_; then
	skip exec_go_net_cgo_preloaded "go did not build a dynamic program with cgo"
else
	check exec_go_net_cgo_preloaded sh -c '
		"$TALLY" record -o gnet.exp ./gonet_bin >out.gnet 2>err.gnet; rc=$?; cat out.gnet err.gnet
		grep "^collector.mode\|^clock:" gnet.exp/log.txt
		test $rc -eq 0 && grep -qx "done" out.gnet && ! grep -q "^collector.mode: outside" gnet.exp/log.txt &&
		grep -q "^clock: " gnet.exp/log.txt'
fi

mkdir go && cp "$PROGS/goexec/main.go" "$PROGS/goexec/go.mod" go/
if ! (cd go && CGO_ENABLED=1 GOCACHE="$T/gocache" GOPATH="$T/gopath" GOFLAGS=-mod=mod \
	GOTOOLCHAIN=local go build -o ../goexec . >../go.log 2>&1); then
	for n in os_exec_children_live self_exec_lives clock_says_why_kernel_excluded; do
		skip exec_go_$n "go build with cgo failed: $(tail -n 1 go.log)"
	done
	exit 0
fi
if ! readelf -lW goexec | grep -q INTERP; then
	for n in os_exec_children_live self_exec_lives clock_says_why_kernel_excluded; do
		skip exec_go_$n "go built a static program (no cgo?)"
	done
	exit 0
fi
check exec_go_os_exec_children_live sh -c '
	"$TALLY" record -F 4000 -o g.exp ./goexec 100 >out.g 2>err.g; rc=$?; cat out.g err.g
	test $rc -eq 0 && grep -qx "bad 0 of 100" out.g &&
	test "$(python3 -m tally_proc lineages g.exp | grep -c "^_f[0-9]*_x1$")" -eq 100 &&
	"$TALLY" report -q g.exp >/dev/null'
check exec_go_self_exec_lives sh -c '
	"$TALLY" record -F 4000 -o h.exp ./goexec self 20 >out.h 2>err.h; rc=$?; cat out.h err.h
	test $rc -eq 0 && grep -qx "self done" out.h && test "$(python3 -m tally_proc lineages h.exp | grep -c "^_x")" -eq 20'
check exec_go_clock_says_why_kernel_excluded \
	grep -q "^clock.kernel: excluded (the program makes its own system calls" h.exp/log.txt
