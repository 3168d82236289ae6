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
 * read).  Prints "first_ns NS second_ns NS" per epoll_ctl.
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

	int by_libc = argc > 2 && !strcmp(argv[2], "libc");

	if (n <= 0 || !sets || (argc > 2 && !by_libc))
		return fprintf(stderr, "usage: epollsets N [libc]\n"), 2;
	setrlimit(RLIMIT_NOFILE, &rl);
	if (pipe(a) || pipe(b))
		return perror("pipe"), 1;
	for (int i = 0; i < n; i++)
		if ((sets[i] = by_libc ? epoll_create1(EPOLL_CLOEXEC) : (int)syscall(SYS_epoll_create1, EPOLL_CLOEXEC)) < 0)
			return perror("epoll_create1"), 1;
	double first = add_to_each(sets, n, a[0]);
	double second = add_to_each(sets, n, b[0]);
	printf("first_ns %.0f second_ns %.0f\n", first, second);
	return 0;
}
