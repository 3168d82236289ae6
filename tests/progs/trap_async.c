/* trap_async.c — a probe for lib.sh's `can trap_async`: does this kernel
 * flag a perf SIGTRAP sent while the thread had SIGTRAP blocked
 * (si_perf_flags' TRAP_PERF_FLAG_ASYNC)?  The states' signal way finds a
 * tracer by it (col_signal.h); a kernel without it never says so.
 * Opens a context-switch counter of period 1 with sigtrap on this thread,
 * blocks SIGTRAP, naps (a switch-out: a SIGTRAP sent while blocked), then
 * unblocks and reads the flag in the handler.  Exits 0 if flagged, 1 if the
 * signal came without the flag, 2 if none came, 77 if the counter cannot be
 * opened (no sigtrap, perf_event_paranoid), saying why on stderr. */
#include <linux/perf_event.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#ifndef TRAP_PERF
#define TRAP_PERF 6
#endif

static volatile sig_atomic_t traps, flagged;

static void on_trap(int sig, siginfo_t *si, void *uc)
{
	uint32_t flags;

	(void)sig;
	(void)uc;
	if (si->si_code != TRAP_PERF)
		return;
	memcpy(&flags, (const char *)si + 36, sizeof(flags)); /* si_perf_flags (x86-64) */
	traps++;
	if (flags & 1u) /* TRAP_PERF_FLAG_ASYNC */
		flagged = 1;
}

int main(void)
{
	struct perf_event_attr a;
	struct sigaction sa;
	sigset_t trap;

	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = on_trap;
	sa.sa_flags = SA_SIGINFO;
	sigaction(SIGTRAP, &sa, NULL);
	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	a.type = PERF_TYPE_SOFTWARE;
	a.config = PERF_COUNT_SW_CONTEXT_SWITCHES;
	a.sample_period = 1;
	a.sigtrap = 1;
	a.remove_on_exec = 1;
	a.disabled = 1;
	int fd = (int)syscall(SYS_perf_event_open, &a, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
	if (fd < 0) { /* perf_event_paranoid 2: user space only */
		a.exclude_kernel = 1;
		fd = (int)syscall(SYS_perf_event_open, &a, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
	}
	if (fd < 0)
		return perror("trap_async: perf_event_open (sigtrap)"), 77;
	sigemptyset(&trap);
	sigaddset(&trap, SIGTRAP);
	sigprocmask(SIG_BLOCK, &trap, NULL);
	if (syscall(SYS_ioctl, fd, PERF_EVENT_IOC_ENABLE, 0) != 0)
		return perror("trap_async: enable"), 77;
	struct timespec nap = { 0, 2000000 };
	nanosleep(&nap, NULL);
	syscall(SYS_ioctl, fd, PERF_EVENT_IOC_DISABLE, 0);
	sigprocmask(SIG_UNBLOCK, &trap, NULL);
	close(fd);
	if (!traps)
		return fprintf(stderr, "trap_async: no SIGTRAP came at a switch\n"), 2;
	if (!flagged)
		return fprintf(stderr, "trap_async: a SIGTRAP sent while blocked came without "
				       "TRAP_PERF_FLAG_ASYNC (a kernel before 6.0)\n"), 1;
	return 0;
}
