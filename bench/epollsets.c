/* SPDX-License-Identifier: MIT
 *
 * epollsets.c — the I/O tracer's read of an epoll set's list (issue 25:
 * io_wait.c reads /proc/self/fdinfo/N once, at the first epoll_ctl or
 * wait it sees on a set it did not see made, for what was added before it
 * could see).  Makes N epoll sets and two pipes; adds the first pipe to
 * each set (the tracer's first sight of each: one fdinfo read each for a
 * set it did not see made), then the second pipe to each (no read),
 * timing each pass with its own clock.  Under `tally record -i` the first
 * pass's excess over the second, per set, is the read's cost.  The sets
 * are made by raw system calls (as a runtime's may be: not seen made), or
 * with `libc` by libc's epoll_create1 (interposed: seen made, never
 * read).  Prints "first_ns NS second_ns NS first_cpu_ns NS second_cpu_ns
 * NS" per epoll_ctl: each pass's wall time, and its CPU time, which a
 * loaded machine does not stretch (at load 24, bare: 34-94 us of wall
 * per set, 0.9-1.1 us of CPU).
 * usage: epollsets N [libc]
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

static double now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

/* The CPU time of this thread, and of the helper tasks the collector
 * reads aside in (CLONE_VM | CLONE_VFORK, no CLONE_THREAD) as far as the
 * kernel gives it (RUSAGE_CHILDREN, once reaped: at 2,000 sets it added
 * nothing measurable, the thread's clock holds the read). */
static double cpu_ns(void)
{
	struct timespec ts;
	struct rusage ru;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	getrusage(RUSAGE_CHILDREN, &ru);
	return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec +
	       1e3 * ((double)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1e6 +
		      (double)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec));
}

/* Add fd to each set; the pass's wall time and CPU time per set. */
static void add_to_each(const int *sets, int n, int fd, double *wall, double *cpu)
{
	struct epoll_event ev = { .events = EPOLLIN };
	double t0 = now_ns(), c0 = cpu_ns();

	for (int i = 0; i < n; i++)
		if (epoll_ctl(sets[i], EPOLL_CTL_ADD, fd, &ev))
			perror("epoll_ctl"), exit(1);
	*cpu = (cpu_ns() - c0) / n;
	*wall = (now_ns() - t0) / n;
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 0;
	struct rlimit rl = { (rlim_t)n + 64, (rlim_t)n + 64 };
	int a[2], b[2], *sets = calloc((size_t)n + 1, sizeof(int));

	int by_libc = argc > 2 && !strcmp(argv[2], "libc");

	if (n <= 0 || !sets || (argc > 2 && !by_libc))
		return fprintf(stderr, "usage: epollsets N [libc]\n"), 2;
	setrlimit(RLIMIT_NOFILE, &rl);
	if (pipe(a) || pipe(b))
		return perror("pipe"), 1;
	for (int i = 0; i < n; i++)
		if ((sets[i] = by_libc ? epoll_create1(EPOLL_CLOEXEC) : (int)syscall(SYS_epoll_create1, EPOLL_CLOEXEC)) < 0)
			return perror("epoll_create1"), 1;
	double first, second, first_cpu, second_cpu;
	add_to_each(sets, n, a[0], &first, &first_cpu);
	add_to_each(sets, n, b[0], &second, &second_cpu);
	printf("first_ns %.0f second_ns %.0f first_cpu_ns %.0f second_cpu_ns %.0f\n", first, second, first_cpu,
	       second_cpu);
	return 0;
}
