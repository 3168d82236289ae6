/* SPDX-License-Identifier: MIT
 *
 * sigfloor.c — a diagnostic preload for the overhead benchmark: tally's
 * sampling *mechanism* with nothing else.  It opens a PERF_COUNT_SW_TASK_CLOCK
 * event on the main thread (period 1 ms of its CPU time, or SIGFLOOR_HZ)
 * and, as SIGFLOOR_MODE says:
 *   sigtrap (default)  the kernel sends SIGTRAP to the thread at each
 *                      overflow (perf_event_attr.sigtrap), as tally does;
 *   fasync             SIGPROF through O_ASYNC/F_SETSIG/F_SETOWN_EX, the
 *                      handler re-arming with PERF_EVENT_IOC_REFRESH (tally's
 *                      fallback before Linux 5.13);
 *   nosignal           overflows and no signal at all: the timer alone.
 * The handler does nothing else: no unwinding, no writing.  The wall time of
 * a program run under it, over the bare program, is the floor the kernel and
 * the machine (here a VM) put under any collector that samples this way:
 * what tally adds above it is its own.
 *
 * Built by bench/run.sh as build/bench/bin/libsigfloor.so; used as
 *   env LD_PRELOAD=.../libsigfloor.so PROGRAM ARGS
 * At exit it prints the number of signals taken to stderr.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <linux/perf_event.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <unistd.h>

static int fd = -1;
static volatile unsigned long signals;

static void on_signal(int sig, siginfo_t *si, void *uc)
{
	(void)sig, (void)si, (void)uc;
	signals++;
	if (sig == SIGPROF)
		ioctl(fd, PERF_EVENT_IOC_REFRESH, 1);
}

static void report(void)
{
	fprintf(stderr, "sigfloor: %lu signals\n", signals);
}

__attribute__((constructor)) static void start(void)
{
	struct perf_event_attr a;
	struct sigaction sa;
	const char *hz = getenv("SIGFLOOR_HZ"), *mode = getenv("SIGFLOOR_MODE");
	long f = hz ? atol(hz) : 1000;
	bool fasync = mode && !strcmp(mode, "fasync");
	bool nosignal = mode && !strcmp(mode, "nosignal");

	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = on_signal;
	sa.sa_flags = SA_SIGINFO | SA_RESTART;
	sigaction(fasync ? SIGPROF : SIGTRAP, &sa, NULL);
	memset(&a, 0, sizeof(a));
	a.type = PERF_TYPE_SOFTWARE;
	a.size = sizeof(a);
	a.config = PERF_COUNT_SW_TASK_CLOCK;
	a.sample_period = 1000000000ull / (unsigned long long)(f > 0 ? f : 1000);
	a.disabled = 1;
	a.exclude_hv = 1;
	if (!fasync && !nosignal) {
		a.sigtrap = 1;
		a.remove_on_exec = 1;
	}
	fd = (int)syscall(SYS_perf_event_open, &a, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
	if (fd < 0) {
		perror("sigfloor: perf_event_open");
		return;
	}
	if (fasync) {
		struct f_owner_ex owner = { F_OWNER_TID, (pid_t)syscall(SYS_gettid) };
		if (fcntl(fd, F_SETFL, O_ASYNC) != 0 || fcntl(fd, F_SETSIG, SIGPROF) != 0 ||
		    fcntl(fd, F_SETOWN_EX, &owner) != 0 || ioctl(fd, PERF_EVENT_IOC_REFRESH, 1) != 0) {
			perror("sigfloor: arming the event");
			return;
		}
	} else if (ioctl(fd, PERF_EVENT_IOC_ENABLE, 0) != 0) {
		perror("sigfloor: enabling the event");
		return;
	}
	atexit(report);
}
