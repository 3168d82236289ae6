/* SPDX-License-Identifier: MIT
 *
 * epollsets.c — the I/O tracer's read of an epoll set's list (issue 25:
 * io_wait.c reads /proc/self/fdinfo/N once, at the first epoll_ctl or
 * wait it sees on a set, for what was added before it could see).  Makes
 * N epoll sets (by raw system calls, as a runtime's would be) and two
 * pipes; adds the first pipe to each set (the tracer's first sight of
 * each: one fdinfo read each), then the second pipe to each (no read),
 * timing each pass with its own clock.  Under `tally record -i` the first
 * pass's excess over the second, per set, is the read's cost.  Prints
 * "first_ns NS second_ns NS" per epoll_ctl.  usage: epollsets N
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
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

static double add_to_each(const int *sets, int n, int fd)
{
	struct epoll_event ev = { .events = EPOLLIN };
	double t0 = now_ns();

	for (int i = 0; i < n; i++)
		if (epoll_ctl(sets[i], EPOLL_CTL_ADD, fd, &ev))
			return perror("epoll_ctl"), exit(1), 0;
	return (now_ns() - t0) / n;
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 0;
	struct rlimit rl = { (rlim_t)n + 64, (rlim_t)n + 64 };
	int a[2], b[2], *sets = calloc((size_t)n + 1, sizeof(int));

	if (n <= 0 || !sets)
		return fprintf(stderr, "usage: epollsets N\n"), 2;
	setrlimit(RLIMIT_NOFILE, &rl);
	if (pipe(a) || pipe(b))
		return perror("pipe"), 1;
	for (int i = 0; i < n; i++)
		if ((sets[i] = (int)syscall(SYS_epoll_create1, EPOLL_CLOEXEC)) < 0)
			return perror("epoll_create1"), 1;
	double first = add_to_each(sets, n, a[0]);
	double second = add_to_each(sets, n, b[0]);
	printf("first_ns %.0f second_ns %.0f\n", first, second);
	return 0;
}
