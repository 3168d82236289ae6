/* SPDX-License-Identifier: MIT
 *
 * polly.c — event-loop-heavy: N calls each of poll and epoll_wait on a
 * pipe that is always ready, and of select on the same pipe with a timeout
 * of 0 (which the tracer does not time), the calls an
 * event loop makes most and that block nowhere, for the cost the I/O
 * tracer adds to each (tracers/io_wait.c times them and records only a
 * wait that blocked).  Prints a checksum.  usage: polly N
 */
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/epoll.h>
#include <sys/select.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 1000000;
	unsigned long sum = 0;
	int fds[2], ep = epoll_create1(0);
	struct epoll_event ev = { .events = EPOLLIN };

	if (pipe(fds) || write(fds[1], "x", 1) != 1 || ep < 0 ||
	    epoll_ctl(ep, EPOLL_CTL_ADD, fds[0], &ev))
		return 1;
	for (long i = 0; i < n; i++) {
		struct pollfd v = { .fd = fds[0], .events = POLLIN };
		fd_set rd;
		struct timeval now = { 0, 0 };
		FD_ZERO(&rd);
		FD_SET(fds[0], &rd);
		sum += (unsigned long)poll(&v, 1, -1);
		sum += (unsigned long)epoll_wait(ep, &ev, 1, -1);
		sum += (unsigned long)select(fds[0] + 1, &rd, NULL, NULL, &now);
	}
	printf("checksum %lu\n", sum);
	return 0;
}
