/* SPDX-License-Identifier: MIT
 *
 * col_clock.c — per-thread CPU-time sampling and the profiling signal handler.
 *
 * Each thread opens its own PERF_COUNT_SW_TASK_CLOCK event (pid 0, any cpu)
 * that signals that very thread every `period` of its CPU time.  Best is a
 * sigtrap event (Linux 5.13+): the kernel queues the SIGTRAP as task work on
 * the return to user mode, which costs half as much as the fasync signal
 * (an irq_work self-interrupt, expensive in a VM) and needs no re-arming;
 * measured in docs/collector.md.  Else the event signals SIGPROF through
 * O_ASYNC/F_SETSIG/F_SETOWN_EX and is re-armed with PERF_EVENT_IOC_REFRESH;
 * where perf_event_open is refused, a POSIX timer on CLOCK_THREAD_CPUTIME_ID
 * does the same at the kernel's tick.  The log says which.  Under a debugger
 * (TracerPid) the SIGTRAP way is skipped: the debugger would stop on each.
 *
 * Each sample weighs the CPU time that really elapsed since the thread's
 * previous sample, read from the clock in the handler: coalesced or late
 * signals then cost no time, and dropped samples pass their time on.
 *
 * The handler is the sequence of style.md §6: save errno; tell our signal
 * from the target's; test-and-set the thread's busy flag; read the clock;
 * unwind from the ucontext; intern the stack; append one SAMPLE; re-arm.
 */
#include <errno.h>
#include <linux/perf_event.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "collector/col_internal.h"
#include "collector/col_sys.h"

#ifndef TRAP_PERF
#define TRAP_PERF 6
#endif
#define SI_PERF_DATA_OFFSET 24       /* siginfo_t._sigfault._perf._data (x86-64) */

enum clock_way { WAY_UNKNOWN, WAY_SIGTRAP, WAY_FASYNC };

static _Atomic int way = WAY_UNKNOWN;     /* decided by the first thread */
static _Atomic int perf_refused;     /* perf_event_open failed once: use timers */

static uint64_t period_ns(void)
{
	return 1000000000ull / (col_proc.opt.hz ? col_proc.opt.hz : 1000);
}

/* Kernel-mode ticks count too when allowed (root, perf_event_paranoid <= 1):
 * a tick inside a system call then signals on the return to user mode, with
 * the stack that made the call.  Otherwise (exclude_kernel, allowed at
 * paranoid 2) the time of system calls rides with the next user-mode sample. */
static _Atomic int exclude_kernel = -1;   /* -1: not yet known */

static int perf_open(uint64_t period, int excl_kernel, bool sigtrap)
{
	struct perf_event_attr a;

	memset(&a, 0, sizeof(a));
	a.type = PERF_TYPE_SOFTWARE;
	a.size = sizeof(a);
	a.config = PERF_COUNT_SW_TASK_CLOCK;
	a.sample_period = period;
	a.disabled = 1;
	a.exclude_kernel = (unsigned)excl_kernel;
	a.exclude_hv = 1;
	if (sigtrap) {
		a.sigtrap = 1;
		a.remove_on_exec = 1;          /* required with sigtrap */
		a.sig_data = (uint64_t)(uintptr_t)&col_proc;
	}
	return (int)syscall(SYS_perf_event_open, &a, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
}

static bool traced_by_debugger(void)
{
	char buf[1024];
	int fd = col_sys_openat(AT_FDCWD, "/proc/self/status", O_RDONLY | O_CLOEXEC, 0);
	ssize_t n = fd >= 0 ? col_sys_read(fd, buf, sizeof(buf) - 1) : 0;

	if (fd >= 0)
		col_sys_close(fd);
	buf[n > 0 ? n : 0] = 0;
	const char *t = strstr(buf, "TracerPid:");
	return t && atoi(t + 10) != 0;
}

/* Open and start the thread's event the best way this system allows; the
 * first thread finds out which and logs it. */
static int open_task_clock(pid_t tid)
{
	int w = atomic_load(&way), excl = atomic_load(&exclude_kernel), fd = -1;

	if (w == WAY_UNKNOWN) {
		static const struct { int way, excl; } tries[] = {
			{ WAY_SIGTRAP, 0 }, { WAY_SIGTRAP, 1 }, { WAY_FASYNC, 0 }, { WAY_FASYNC, 1 },
		};
		bool debugged = traced_by_debugger();
		for (size_t i = 0; i < sizeof(tries) / sizeof(tries[0]) && fd < 0; i++) {
			if (tries[i].way == WAY_SIGTRAP && debugged)
				continue;
			fd = perf_open(period_ns(), tries[i].excl, tries[i].way == WAY_SIGTRAP);
			w = tries[i].way;
			excl = tries[i].excl;
		}
		if (fd < 0)
			return -errno;
		atomic_store(&way, w);
		atomic_store(&exclude_kernel, excl);
		col_log_sigsafe("clock", w == WAY_SIGTRAP ? "perf_event task-clock, sigtrap (SIGTRAP)"
							  : "perf_event task-clock, fasync (SIGPROF)");
		col_log_sigsafe("clock.kernel",
				excl ? "excluded (perf_event_paranoid): system-call time goes to the next sample"
				     : "included: ticks in system calls sample the calling stack");
	} else {
		fd = perf_open(period_ns(), excl, w == WAY_SIGTRAP);
		if (fd < 0)
			return -errno;
	}
	if (w == WAY_SIGTRAP) {
		if (ioctl(fd, PERF_EVENT_IOC_ENABLE, 0) == 0)
			return fd;
	} else {
		struct f_owner_ex owner = { F_OWNER_TID, tid };
		if (fcntl(fd, F_SETFL, O_ASYNC) == 0 && fcntl(fd, F_SETSIG, SIGPROF) == 0 &&
		    fcntl(fd, F_SETOWN_EX, &owner) == 0 && ioctl(fd, PERF_EVENT_IOC_REFRESH, 1) == 0)
			return fd;
	}
	int e = errno;
	col_sys_close(fd);
	return -e;
}

static uint64_t thread_cputime_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

uint64_t col_clock_read_sigsafe(struct col_thread *t)
{
	uint64_t v;

	if (t->perf_fd >= 0 && col_sys_read(t->perf_fd, &v, sizeof(v)) == sizeof(v))
		return v;
	return thread_cputime_ns();
}

void col_clock_start(struct col_thread *t)
{
	char why[64];

	if (!col_proc.opt.hz)
		return;
	if (!atomic_load(&perf_refused)) {
		int fd = open_task_clock(t->tid);
		if (fd >= 0) {
			t->perf_fd = fd;
			t->last_cpu_ns = 0;
			return;
		}
		if (!atomic_exchange(&perf_refused, 1)) {
			strcpy(why, "perf_event_open failed, errno ");
			col_fmt_u64_sigsafe(why + strlen(why), (uint64_t)-fd);
			col_log_sigsafe("clock.fallback", why);
			col_log_sigsafe("clock", "POSIX CPU-time timers (per thread, kernel tick resolution)");
		}
	}
	struct sigevent sev;
	memset(&sev, 0, sizeof(sev));
	sev.sigev_notify = SIGEV_THREAD_ID;
	sev.sigev_signo = SIGPROF;
	sev.sigev_value.sival_ptr = &col_proc;
	sev._sigev_un._tid = t->tid;
	if (timer_create(CLOCK_THREAD_CPUTIME_ID, &sev, &t->timer) != 0)
		return;
	struct itimerspec its;
	its.it_interval.tv_sec = (time_t)(period_ns() / 1000000000u);
	its.it_interval.tv_nsec = (long)(period_ns() % 1000000000u);
	its.it_value = its.it_interval;
	t->last_cpu_ns = thread_cputime_ns();
	t->has_timer = true;
	timer_settime(t->timer, 0, &its, NULL);
}

void col_clock_stop(struct col_thread *t)
{
	if (t->perf_fd >= 0) {
		ioctl(t->perf_fd, PERF_EVENT_IOC_DISABLE, 0);
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

static void rearm(struct col_thread *t)
{
	if (t->perf_fd >= 0 && atomic_load_explicit(&way, memory_order_relaxed) == WAY_FASYNC)
		ioctl(t->perf_fd, PERF_EVENT_IOC_REFRESH, 1);
}

static void take_sample(struct col_thread *t, void *uc)
{
	uint64_t now_cpu = col_clock_read_sigsafe(t);
	uint64_t weight = now_cpu - t->last_cpu_ns;
	int truncated, broken;

	t->last_cpu_ns = now_cpu;
	col_regs_from_ucontext(uc, &t->regs);
	int n = col_unwind_sigsafe(&t->unwind, &t->regs, t->frames, (int)col_proc.opt.max_frames,
				   &truncated, &broken);
	uint32_t id = col_stack_intern_sigsafe(t, t->frames, (uint32_t)n,
					       col_stack_flags_sigsafe(truncated, broken));
	if (!id)
		return;
	struct exp_sample s;
	s.word = 0;
	s.tid = (uint32_t)t->tid;
	s.time_ns = col_now_ns_sigsafe();
	s.stack_id = id;
	int cpu = sched_getcpu();
	s.cpu = cpu < 0 ? 0xffff : (uint16_t)cpu;
	s.flags = 0;
	s.weight_ns = weight;
	if (col_write_sigsafe(t, EXP_FILE_SAMPLES, EXP_REC_SAMPLE, &s, sizeof(s)) == 0) {
		t->samples++;
		col_count_sigsafe(EXP_CTR_SAMPLES, 1);
	}
}

static void on_signal(int sig, siginfo_t *si, void *uc)
{
	int saved_errno = errno;

	if (!col_clock_signal_sigsafe(sig, si)) {
		col_count_sigsafe(EXP_CTR_FOREIGN_SIGNALS, 1);
		col_signal_forward(sig, si, uc);
		errno = saved_errno;
		return;
	}
	struct col_thread *t = col_thread_self_sigsafe();
	if (!t || t->exiting) {
		if (!t)
			col_count_sigsafe(EXP_CTR_NO_THREAD_STATE, 1);
		errno = saved_errno;
		return;
	}
	if (atomic_exchange_explicit(&t->busy, 1, memory_order_acquire)) {
		col_count_sigsafe(EXP_CTR_LOST_REENTRY, 1);
		rearm(t);
		errno = saved_errno;
		return;
	}
	if (atomic_load_explicit(&col_proc.paused, memory_order_relaxed))
		t->last_cpu_ns = col_clock_read_sigsafe(t);   /* time paused counts nowhere */
	else
		take_sample(t, uc);
	rearm(t);
	atomic_store_explicit(&t->busy, 0, memory_order_release);
	errno = saved_errno;
}

void col_clock_install_handler(void)
{
	static const int sigs[] = { SIGTRAP, SIGPROF };
	struct sigaction sa, prev;

	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = on_signal;
	sa.sa_flags = SA_SIGINFO | SA_RESTART;
	sigemptyset(&sa.sa_mask);
	for (size_t i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++)
		if (col_sigaction_real(sigs[i], &sa, &prev) == 0)
			col_signal_take(sigs[i], &prev);
}
