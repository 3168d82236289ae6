/* SPDX-License-Identifier: MIT
 *
 * col_clock.c — a thread's CPU-time clock, which signals it every period of
 * its CPU time (the handler is col_sample.c).
 *
 * A PERF_COUNT_SW_TASK_CLOCK event (pid 0, any cpu) signals the thread it
 * counts every `period` of its CPU time.  Best is a sigtrap event (Linux
 * 5.13+): the kernel queues the SIGTRAP as task work on the return to user
 * mode, which costs half as much as the fasync signal (an irq_work
 * self-interrupt, expensive in a VM) and needs no re-arming; measured in
 * docs/collector.md.  A sigtrap event is opened once per process, by its
 * first thread, with inherit and inherit_thread: each thread the process
 * creates gets its own copy from the kernel at clone, signalling that
 * thread.  One event opened by each thread for itself costs the same per
 * sample, but far more per context switch: a program whose threads sleep
 * and wake tens of thousands of times a second (OpenMP barriers with
 * passive waits) ran 3-4x its CPU time with them, about 1.0x with the
 * inherited one (docs/collector.md, "Threads that sleep and wake").  Such
 * a thread has no fd of its own: its CPU time is read from its thread CPU
 * clock, and stopping the clock (exec, the size limit) stops the process's
 * event, every thread's copy with it.  Else the event signals SIGPROF through
 * O_ASYNC/F_SETSIG/F_SETOWN_EX and is re-armed with PERF_EVENT_IOC_REFRESH;
 * where perf_event_open is refused, a POSIX timer on CLOCK_THREAD_CPUTIME_ID
 * does the same at the kernel's tick.  The log says which.  Under a debugger
 * (TracerPid) the SIGTRAP way is skipped: the debugger would stop on each.
 *
 * Called at thread start and end (col_thread.c), around exec
 * (col_interpose_exec.c), and from the handler (read, re-arm, is it ours).
 * Sigsafe file.
 */
#include <errno.h>
#include <linux/perf_event.h>
#include <sched.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "collector/col_clock.h"
#include "collector/col_fds.h"
#include "collector/col_log.h"
#include "collector/col_real.h"
#include "collector/col_runtime.h"
#include "collector/col_state.h"
#include "collector/col_sys.h"
#include "collector/col_time.h"
#include "format/exp_events.h"

#ifndef TRAP_PERF
#define TRAP_PERF 6
#endif
#define SI_PERF_DATA_OFFSET 24       /* siginfo_t._sigfault._perf._data (x86-64) */

enum clock_way { WAY_UNKNOWN, WAY_SIGTRAP, WAY_FASYNC };

static _Atomic int way = WAY_UNKNOWN;     /* decided by the first thread */
static _Atomic int perf_refused;     /* perf_event_open failed once: use timers */
static int proc_fd = -1;             /* sigtrap: the process's event, inherited by its threads */

static uint64_t period_ns(void)
{
	return 1000000000ull / (col_proc.opt.hz ? col_proc.opt.hz : 1000);
}

uint64_t col_clock_period_ns(void)
{
	return col_proc.opt.hz ? period_ns() : 0;
}

int col_clock_signal(void)
{
	if (!col_proc.opt.hz)
		return 0;
	if (!atomic_load(&perf_refused) && atomic_load(&way) == WAY_SIGTRAP)
		return SIGTRAP;
	return atomic_load(&way) == WAY_UNKNOWN && !atomic_load(&perf_refused) ? 0 : SIGPROF;
}

/* A thread starts with its creator's signal mask (a program that blocks
 * every signal around pthread_create, as xz does): the clock's signal is
 * unblocked in it, with the real function (the interposed ones would do it
 * too, col_interpose_sigmask.c). */
static void unblock_signal(void)
{
	sigset_t set;
	int sig = col_clock_signal();

	if (!sig || !col_real.pthread_sigmask)
		return;
	sigemptyset(&set);
	sigaddset(&set, sig);
	COL_REAL(pthread_sigmask)(SIG_UNBLOCK, &set, NULL);
}

/* Kernel-mode ticks count too when allowed (root, perf_event_paranoid <= 1):
 * a tick inside a system call then signals on the return to user mode, with
 * the stack that made the call.  Otherwise (exclude_kernel, allowed at
 * paranoid 2) the time of system calls rides with the next user-mode sample.
 * Also excluded where the program's exec cannot be seen (an attached
 * process: its calls were bound before the collector came; a program that
 * execs by its own system calls, col_runtime.h): a tick inside execve would
 * leave a signal pending that kills the next image at its first
 * instruction, and a user-mode tick is delivered before the next system
 * call begins. */
static _Atomic int exclude_kernel = -1;   /* -1: not yet known */

/* The event of thread `pid` (0: the caller); with `inherit` (sigtrap only)
 * the threads it creates get a copy that signals them. */
static int perf_open(uint64_t period, int excl_kernel, bool sigtrap, pid_t pid, bool inherit)
{
	const struct exp_event clock = { .name = "task-clock", .type = PERF_TYPE_SOFTWARE,
					 .config = PERF_COUNT_SW_TASK_CLOCK, .period = period };
	struct perf_event_attr a;

	exp_event_attr(&clock, excl_kernel, sigtrap, &a);     /* as a counter's (-c) */
	if (sigtrap) {
		a.sig_data = (uint64_t)(uintptr_t)&col_proc;
		a.inherit = inherit;
		a.inherit_thread = inherit;
	}
	return col_real.perf_event_open(&a, pid, -1, -1, PERF_FLAG_FD_CLOEXEC);
}

static bool traced_by_debugger(void)
{
	int tracer, seccomp;

	col_real_proc_status(&tracer, &seccomp);
	return tracer > 0;
}

void col_clock_log_way(void)
{
	int w = atomic_load(&way), excl = atomic_load(&exclude_kernel);
	struct col_log_batch b;             /* one write (a line alone is four system calls) */

	if (w == WAY_UNKNOWN)
		return;
	b.n = 0;
	col_log_batch_add(&b, "clock", w == WAY_SIGTRAP ? "perf_event task-clock, sigtrap (SIGTRAP)"
							: "perf_event task-clock, fasync (SIGPROF)");
	if (w == WAY_SIGTRAP && !col_proc.attached)
		col_log_batch_add(&b, "clock.threads", "one event per process, inherited by each thread it creates");
	col_log_batch_add(&b, "clock.kernel",
			!excl ? "included: ticks in system calls sample the calling stack"
			: col_proc.attached
				? "excluded (attached: the program's exec is not seen, and a tick in the kernel "
				  "during it would signal the next image): system-call time goes to the next sample"
			: col_runtime_raw_syscalls()
				? "excluded (the program makes its own system calls, exec included: a tick in "
				  "the kernel could signal the next image): system-call time goes to the next sample"
				: "excluded (perf_event_paranoid): system-call time goes to the next sample");
	col_log_batch_write(&b);
}

/* Open and start the event of thread `tid` (`pid` 0 when it is the caller)
 * the best way this system allows; the first thread finds out which and
 * logs it. */
struct perf_args {
	uint64_t period;
	int excl_kernel;
	bool sigtrap, inherit;
	pid_t pid;
};

static int perf_open_of(void *arg)
{
	const struct perf_args *a = arg;

	return perf_open(a->period, a->excl_kernel, a->sigtrap, a->pid, a->inherit);
}

/* perf_open, its descriptor above the program's limit at once
 * (col_fd_open_above), before it is enabled or given its owner: a program
 * thread's open meanwhile gets the number it gets bare, unless it comes
 * during the move (col_fd_open_above). */
static int perf_open_above(uint64_t period, int excl_kernel, bool sigtrap, pid_t pid, bool inherit)
{
	struct perf_args a = { period, excl_kernel, sigtrap, inherit, pid };

	return col_fd_open_above(perf_open_of, &a);
}

static int open_task_clock(pid_t tid, pid_t pid, bool inherit)
{
	int w = atomic_load(&way), excl = atomic_load(&exclude_kernel), fd = -1;

	if (w == WAY_UNKNOWN) {
		static const struct { int way, excl; } tries[] = {
			{ WAY_SIGTRAP, 0 }, { WAY_SIGTRAP, 1 }, { WAY_FASYNC, 0 }, { WAY_FASYNC, 1 },
		};
		bool debugged = traced_by_debugger(), raw = col_runtime_raw_syscalls();
		for (size_t i = 0; i < sizeof(tries) / sizeof(tries[0]) && fd < 0; i++) {
			if ((tries[i].way == WAY_SIGTRAP && debugged) || (tries[i].excl == 0 && (raw || col_proc.attached)))
				continue;
			fd = perf_open_above(period_ns(), tries[i].excl, tries[i].way == WAY_SIGTRAP, pid,
					     inherit);
			w = tries[i].way;
			excl = tries[i].excl;
		}
		if (fd < 0)
			return -errno;
		atomic_store(&way, w);
		atomic_store(&exclude_kernel, excl);
		col_clock_log_way();
	} else {
		/* A fork child of a program found to exec by its own system
		 * calls only before that fork (col_runtime.h): its own clock
		 * leaves the kernel out. */
		if (!excl && col_runtime_raw_syscalls()) {
			excl = 1;
			atomic_store(&exclude_kernel, 1);
			col_clock_log_way();
		}
		fd = perf_open_above(period_ns(), excl, w == WAY_SIGTRAP, pid, inherit);
		if (fd < 0)
			return -errno;
	}
	if (w == WAY_SIGTRAP) {
		if (col_real.ioctl(fd, PERF_EVENT_IOC_ENABLE, 0) == 0)
			return fd;
	} else {
		struct f_owner_ex owner = { F_OWNER_TID, tid };
		if (COL_REAL(fcntl)(fd, F_SETFL, O_ASYNC) == 0 && COL_REAL(fcntl)(fd, F_SETSIG, SIGPROF) == 0 &&
		    COL_REAL(fcntl)(fd, F_SETOWN_EX, &owner) == 0 && col_real.ioctl(fd, PERF_EVENT_IOC_REFRESH, 1) == 0)
			return fd;
	}
	int e = errno;
	col_sys_close(fd);
	return -e;
}

/* Linux swaps the perf contexts of a thread and a child holding a clone of
 * them when one switches to the other on a CPU (perf_event_context_sched_out),
 * and the period's progress goes with the swap; a child that exits takes it
 * away.  A thread that creates and joins threads in a loop by raw clone
 * (no pthread_create, so no catch-up: col_sample_catch_up) took 6-42
 * samples for 0.65 s of CPU.  A child's context is a clone only if every
 * event of its creator's was inherited; so the creator, once found losing
 * (col_sample.c: a sample weighing over KEEP_APART_PERIODS periods, or a
 * signal in a thread the collector never met, whose creator is taken to be
 * the process's first thread), is given one event that is not: a dummy,
 * disabled, counting nothing.  It is mapped (its control page only) and its
 * descriptor closed, aside (col_fds_aside): the mapping holds it, and no
 * number of the program's is taken, even for an instant.  Not for every
 * thread from the start: the swap is what makes a switch between two
 * threads of a process on one CPU cheap (tests without it: bench/switchy.c
 * pinned to one CPU, 0.30 s of CPU with the swap, 1.25 s without).
 * Nothing lost if it fails. */
struct keep_apart {
	pid_t tid;
};

static int open_apart(void *p)
{
	const struct keep_apart *k = p;
	const struct exp_event dummy = { .name = "dummy", .type = PERF_TYPE_SOFTWARE,
					 .config = PERF_COUNT_SW_DUMMY };
	struct perf_event_attr a;

	exp_event_attr(&dummy, 1, false, &a);     /* disabled, user mode, no signal */
	int fd = (int)col_syscall(SYS_perf_event_open, &a, k->tid, -1, -1, PERF_FLAG_FD_CLOEXEC);
	if (fd < 0)
		return -1;
	void *page = col_sys_mmap(NULL, 4096, PROT_READ, MAP_SHARED, fd, 0);
	col_sys_close(fd);
	return page == MAP_FAILED ? -1 : 0;
}

void col_clock_keep_apart_sigsafe(pid_t tid)
{
	static _Atomic pid_t done[64];
	struct keep_apart k = { tid };

	if (atomic_load(&way) != WAY_SIGTRAP)
		return;
	for (int i = 0; i < 64; i++) {
		pid_t cur = atomic_load(&done[i]);
		if (cur == tid)
			return;
		if (!cur && atomic_compare_exchange_strong(&done[i], &cur, tid))
			break;
		if (cur == tid)
			return;
		if (i == 63)
			return;                /* enough threads kept apart */
	}
	/* A thread met again returned above: the seccomp question (a
	 * system call or two) is asked once per thread kept apart. */
	if (col_real_perf_forbidden())
		return;
	int rc = col_fds_use(open_apart, &k);
	col_log_sigsafe(rc == 0 ? "clock.apart" : "clock.apart.failed", rc == 0 ? "a thread that lost its clock's "
			"progress to the threads it makes has them apart" : "could not keep a thread's children apart");
}

int col_clock_open_for(pid_t tid, bool *inherits)
{
	int fd = open_task_clock(tid, tid, true);

	*inherits = atomic_load(&way) == WAY_SIGTRAP;
	return fd;
}

uint64_t col_clock_read_sigsafe(struct col_thread *t)
{
	uint64_t v;

	if (t->perf_fd >= 0 && col_sys_read(t->perf_fd, &v, sizeof(v)) == sizeof(v))
		return v;
	return col_thread_cputime_ns_sigsafe();
}

void col_clock_start(struct col_thread *t)
{
	char why[64];

	if (!col_proc.opt.hz)
		return;
	if (!atomic_load(&perf_refused) && proc_fd >= 0) {
		/* A thread created since the process's event was opened has
		 * its copy (or this thread's failed exec stopped it: again). */
		col_real.ioctl(proc_fd, PERF_EVENT_IOC_ENABLE, 0);
		t->inherited_clock = true;
		t->first_period = true;
		t->last_cpu_ns = col_thread_cputime_ns_sigsafe();
		unblock_signal();
		return;
	}
	if (!atomic_load(&perf_refused)) {
		int fd = open_task_clock(t->tid, 0, true);
		if (fd >= 0 && atomic_load(&way) == WAY_SIGTRAP) {
			col_fd_keep(fd, &proc_fd, NULL);   /* out of the program's way */
			t->inherited_clock = true;
			t->first_period = true;
			t->last_cpu_ns = col_thread_cputime_ns_sigsafe();
			unblock_signal();
			return;
		}
		if (fd >= 0) {
			col_fd_keep(fd, &t->perf_fd, NULL);   /* out of the program's way */
			t->last_cpu_ns = 0;
			unblock_signal();
			return;
		}
		if (!atomic_exchange(&perf_refused, 1)) {
			strcpy(why, "perf_event_open failed, errno ");
			col_fmt_u64_sigsafe(why + strlen(why), (uint64_t)-fd);
			const char *forbidden = col_real_perf_forbidden();
			col_log_sigsafe("clock.fallback", forbidden ? forbidden : why);
			col_log_sigsafe("clock", "POSIX CPU-time timers (per thread, kernel tick resolution)");
		}
	}
	struct sigevent sev;
	memset(&sev, 0, sizeof(sev));
	sev.sigev_notify = SIGEV_THREAD_ID;
	sev.sigev_signo = SIGPROF;
	sev.sigev_value.sival_ptr = &col_proc;
	sev._sigev_un._tid = t->tid;
	if (col_real.timer_create(CLOCK_THREAD_CPUTIME_ID, &sev, &t->timer) != 0) {
		col_log_error_sigsafe("clock: timer_create", errno, "this thread is not sampled");
		return;
	}
	struct itimerspec its;
	its.it_interval.tv_sec = (time_t)(period_ns() / 1000000000u);
	its.it_interval.tv_nsec = (long)(period_ns() % 1000000000u);
	its.it_value = its.it_interval;
	t->last_cpu_ns = col_thread_cputime_ns_sigsafe();
	t->has_timer = true;
	unblock_signal();
	if (col_real.timer_settime(t->timer, 0, &its, NULL) != 0)
		col_log_error_sigsafe("clock: timer_settime", errno, "this thread is not sampled");
}

void col_clock_stop(struct col_thread *t)
{
	if (t->inherited_clock) {
		/* An ending thread's copy ends with it; an exec stops the
		 * process's event (a failed one starts it again). */
		if (!t->exiting && proc_fd >= 0)
			col_real.ioctl(proc_fd, PERF_EVENT_IOC_DISABLE, 0);
		t->inherited_clock = false;
	}
	if (t->perf_fd >= 0) {
		col_real.ioctl(t->perf_fd, PERF_EVENT_IOC_DISABLE, 0);
		col_fd_forget(t->perf_fd);
		col_sys_close(t->perf_fd);
		t->perf_fd = -1;
	}
	if (t->has_timer) {
		timer_delete(t->timer);
		t->has_timer = false;
	}
}

/* Is this signal from our clock (this thread's, or a late one from a clock
 * already stopped)? */
bool col_clock_signal_sigsafe(int sig, const siginfo_t *si)
{
	if (sig == SIGTRAP) {
		uint64_t data;
		memcpy(&data, (const char *)si + SI_PERF_DATA_OFFSET, sizeof(data));
		return si->si_code == TRAP_PERF && data == (uint64_t)(uintptr_t)&col_proc;
	}
	if (si->si_code == POLL_HUP || si->si_code == POLL_IN)
		return true;
	return si->si_code == SI_TIMER && si->si_value.sival_ptr == &col_proc;
}

void col_clock_pause_sigsafe(struct col_thread *t)
{
	static const struct itimerspec zero;

	if (t->perf_fd >= 0)
		col_real.ioctl(t->perf_fd, PERF_EVENT_IOC_DISABLE, 0);
	if (t->inherited_clock && proc_fd >= 0)
		col_real.ioctl(proc_fd, PERF_EVENT_IOC_DISABLE, 0);   /* every thread's */
	if (t->has_timer)
		col_real.timer_settime(t->timer, 0, &zero, NULL);
}

uint64_t col_clock_read_other_sigsafe(const struct col_thread *t, bool *known)
{
	uint64_t v;
	struct timespec ts;
	/* The CPU clock of thread tid of this process (glibc's
	 * pthread_getcpuclockid: MAKE_THREAD_CPUCLOCK(tid, CPUCLOCK_SCHED)). */
	clockid_t id = (clockid_t)((~(unsigned)t->tid << 3) | 6);

	*known = true;
	if (t->perf_fd >= 0 && col_sys_read(t->perf_fd, &v, sizeof(v)) == sizeof(v))
		return v;
	if (t->inherited_clock && clock_gettime(id, &ts) == 0)
		return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
	*known = false;
	return 0;
}

void col_clock_after_fork(void)
{
	if (proc_fd >= 0) {              /* the parent's event: the child opens its own */
		col_fd_forget(proc_fd);
		col_sys_close(proc_fd);
		proc_fd = -1;
	}
}

void col_clock_rearm_sigsafe(struct col_thread *t)
{
	if (t->perf_fd >= 0 && atomic_load_explicit(&way, memory_order_relaxed) == WAY_FASYNC)
		col_real.ioctl(t->perf_fd, PERF_EVENT_IOC_REFRESH, 1);
}
