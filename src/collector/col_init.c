/* SPDX-License-Identifier: MIT
 *
 * col_init.c — starting the collector in a process: options, the experiment
 * directory and its files, the main thread, and the end of the process.
 *
 * `tally record` runs the target with LD_PRELOAD=libtally-collector.so and
 * the variables of format/exp_launch.h: TALLY_EXP, the experiment directory
 * to write (absolute), and TALLY_OPTIONS, the options (exp_launch_decode).
 * Our constructor, or whichever interposer runs first, calls
 * col_ensure_init().  A process that inherited the variables from a parent
 * process writes a sub-experiment instead (col_descend.c decides its name).
 */
#include <elf.h>
#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "collector/col_control.h"
#include "collector/col_dyn.h"
#include "collector/col_counters.h"
#include "collector/col_descend.h"
#include "collector/col_files.h"
#include "collector/col_fds.h"
#include "collector/col_heap.h"
#include "collector/col_init.h"
#include "collector/col_log.h"
#include "collector/col_objects.h"
#include "collector/col_psample.h"
#include "collector/col_rawthread.h"
#include "collector/col_real.h"
#include "collector/col_sample.h"
#include "collector/col_stacks.h"
#include "collector/col_sys.h"
#include "collector/col_state.h"
#include "collector/col_thread.h"
#include "collector/col_time.h"
#include "format/exp_launch.h"

static _Atomic int init_state;          /* 0 not yet, 1 running, 2 done */

/* Fault in the collector's own writable data at once (madvise): the
 * pages start() and the end of the process touch anyway (a short process
 * touched 15), each a page fault of 12-17 us of CPU here (a VM), against
 * about 1 us each populated.  Its whole writable segment past RELRO, less
 * the tables that only some processes use, a page or two of each if at
 * all: those indexed by descriptor (1 MiB) and the heap tracer's owners'
 * (64 KiB, -H only; it was 16 of the 41 pages populated).  Nothing is lost
 * if the kernel cannot (before Linux 5.14). */
static void prefault_own_data(void)
{
	extern const ElfW(Ehdr) __ehdr_start;
	const uintptr_t page = 4096, base = (uintptr_t)&__ehdr_start;
	const ElfW(Phdr) *ph = (const ElfW(Phdr) *)(base + __ehdr_start.e_phoff);
	uintptr_t lo = 0, hi = 0, relro = 0, skip[2][2];

	for (int i = 0; i < __ehdr_start.e_phnum; i++) {
		if (ph[i].p_type == PT_LOAD && (ph[i].p_flags & PF_W)) {
			lo = base + ph[i].p_vaddr;
			hi = lo + ph[i].p_memsz;
		} else if (ph[i].p_type == PT_GNU_RELRO) {
			relro = base + ph[i].p_vaddr + ph[i].p_memsz;
		}
	}
	if (relro > lo)
		lo = relro;
	lo = (lo + page - 1) & ~(page - 1);
	hi = (hi + page - 1) & ~(page - 1);
	col_fds_tables(&skip[0][0], &skip[0][1]);
	col_heap_tables(&skip[1][0], &skip[1][1]);
	if (skip[1][0] < skip[0][0]) {
		uintptr_t a = skip[0][0], b = skip[0][1];
		skip[0][0] = skip[1][0], skip[0][1] = skip[1][1];
		skip[1][0] = a, skip[1][1] = b;
	}
	/* The pages between the tables (a table's own partial pages are
	 * populated: they hold its neighbours too). */
	uintptr_t at = lo;
	for (int i = 0; i < 2; i++) {
		uintptr_t tlo = (skip[i][0] + page - 1) & ~(page - 1), thi = skip[i][1] & ~(page - 1);
		if (tlo < at || thi > hi || tlo >= thi)
			continue;              /* not inside, overlapping, or under a page */
		if (tlo > at)
			col_syscall(SYS_madvise, at, tlo - at, MADV_POPULATE_WRITE);
		at = thi;
	}
	if (hi > at)
		col_syscall(SYS_madvise, at, hi - at, MADV_POPULATE_WRITE);
	col_fds_prefault();
}

/* Start collecting in this process, from the inherited environment. */
static void start(void)
{
	const char *dir = getenv(EXP_ENV_EXP);

	if (!dir || !*dir || col_proc.active)
		return;
	uint64_t cpu0 = col_thread_cputime_ns_sigsafe();
	col_proc.entry_cpu_ns = col_process_cputime_ns_sigsafe();
	prefault_own_data();
	col_real_table();
	col_proc.pid = getpid();
	col_unwind_set_pid(col_proc.pid);
	col_time_init();
	col_proc.start_ns = col_now_ns_sigsafe();
	const char *opts = getenv(EXP_ENV_OPTIONS);
	int bad_options = exp_launch_decode(opts, &col_proc.opt);
	col_real_seccomp_probed((int)col_proc.opt.seccomp_filters, col_proc.opt.seccomp_safe);
	col_counters_configure(getenv(EXP_ENV_COUNTERS));
	/* Passed on to exec'd programs even when they get a cleaned environment. */
	const char *v = getenv(EXP_ENV_PRELOAD);
	snprintf(col_proc.preload, sizeof(col_proc.preload), "%s", v ? v : "");
	snprintf(col_proc.options, sizeof(col_proc.options), "%s", opts ? opts : "");
	/* Read once, for the descendant's placing, the log and every scan of
	 * the objects (it was three times per process). */
	ssize_t exe_len = readlink("/proc/self/exe", col_proc.exe, sizeof(col_proc.exe) - 1);
	col_proc.exe[exe_len > 0 ? exe_len : 0] = 0;
	if (col_descend_place(dir) != 0)
		return;
	/* The exec'ing vfork child's collector work is the collector's time,
	 * not the program's "loading, constructors". */
	col_proc.entry_cpu_ns -= col_proc.exec_cost_ns;
	if (!col_proc.opt.follow)
		col_descend_stop_following();
	if (col_open_experiment() != 0)
		return;
	if (col_proc.slot_off)
		col_descend_publish();
	/* The start's lines and records (the thread's start, the clock's
	 * way, who the process is, its first process sample) in one write. */
	col_log_hold_sigsafe();
	col_stacks_init();
	col_control_init();
	col_proc.active = true;
	if (col_proc.opt.hz || col_proc.opt.states || col_proc.nevents)
		col_sample_install();
	/* All of this is the collector's CPU time, on the main thread: what
	 * runs before its clock starts is counted here, what runs after also
	 * leaves its first sample's weight (col_cost_outside; the scan of the
	 * objects counts itself). */
	uint64_t cpu1 = col_thread_cputime_ns_sigsafe();
	/* The clock runs from within the thread's set-up: what follows is no
	 * sample of the program's (a signal meanwhile is deferred, then
	 * dropped), through the objects' first scan. */
	struct col_thread *held = col_thread_attach_held();
	struct col_thread *self = held ? held : col_thread_self_sigsafe();
	if (self) {
		self->collector_ns += cpu1 - cpu0 + col_proc.exec_cost_ns;
		col_count_sigsafe(EXP_CTR_COLLECTOR_NS, cpu1 - cpu0 + col_proc.exec_cost_ns);
	}
	uint64_t cpu2 = col_thread_cputime_ns_sigsafe();
	col_log_start(col_proc.lineage[0] ? "exec" : col_proc.rank_from ? "launcher" : "tally record");
	if (bad_options)
		col_log_sigsafe("warning", "TALLY_OPTIONS: items not understood were ignored");
	if (col_proc.opt.seccomp_filters > 0 && !col_real_perf_forbidden())
		col_log_sigsafe("seccomp", "perf_event_open made: this thread runs under the filters tally "
					   "record probed, where the call lived");
	col_rawthread_install();     /* its fork child handler first */
	col_descend_install();
	col_psample_now_sigsafe(self, col_now_ns_sigsafe());
	col_cost_outside(self, col_thread_cputime_ns_sigsafe() - cpu2);
	col_objects_init(held);
	col_log_flush_sigsafe();
	col_files_let_go();
	if (held)
		col_leave_untaken(held);
}

int col_start_here(const char *dir)
{
	static atomic_flag once = ATOMIC_FLAG_INIT;

	if (col_proc.active)
		return 0;
	if (atomic_flag_test_and_set(&once))
		return -1;
	setenv(EXP_ENV_EXP, dir, 1);
	start();
	return col_proc.active ? 0 : -1;
}

bool col_ready(void)
{
	return atomic_load_explicit(&init_state, memory_order_acquire) == 2;
}

void col_ensure_init(void)
{
	int expected = 0;

	if (atomic_load_explicit(&init_state, memory_order_acquire) == 2)
		return;
	if (!atomic_compare_exchange_strong(&init_state, &expected, 1))
		return;     /* done, or running in this thread (a nested call) or another */
	start();
	atomic_store_explicit(&init_state, 2, memory_order_release);
}

/* glibc calls the constructors of .init_array with the program's argc,
 * argv and environment (as the ELF ABI's DT_INIT_ARRAY convention allows). */
__attribute__((constructor(101))) static void col_constructor(int argc, char **argv, char **envp)
{
	(void)envp;
	if (atomic_load_explicit(&init_state, memory_order_acquire) == 0 && argc > 0 && argv) {
		col_proc.argc = argc;
		col_proc.argv = argv;
	}
	col_ensure_init();
}

__attribute__((destructor)) static void col_destructor(void)
{
	if (!col_proc.active || col_proc.pid != getpid())
		return;
	atomic_store(&col_proc.ending, true);
	/* What follows is the collector's own work, never a sample of the
	 * program's (a clock signal in it is deferred, not taken). */
	col_thread_hold_for_end();
	col_dyn_at_exit();
	col_files_check_nofile();
	/* The end lines and the last records (the process sample, the
	 * threads' ends and costs) in one write (col_log_hold_sigsafe). */
	col_log_hold_sigsafe();
	struct col_log_batch end;
	end.n = 0;
	col_log_batch_u64(&end, "end.mono_ns", col_now_ns_sigsafe());
	col_log_batch_u64(&end, "cpu.end_ns", col_process_cputime_ns_sigsafe());
	col_log_batch_write(&end);
	col_psample_now_sigsafe(col_thread_self_sigsafe(), col_now_ns_sigsafe());
	col_thread_end_others();
	col_rawthread_end_all(col_thread_self_sigsafe());
	col_thread_detach();
	col_files_free_spares();
	col_log_flush_sigsafe();
}
