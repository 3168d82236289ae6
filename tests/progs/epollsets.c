/* epollsets.c — epoll sets made every way a program makes them, each given
 * a pipe to watch: N by epoll_create1, N by epoll_create (libc's, which the
 * I/O tracer sees), and one by a raw system call (which it cannot see).
 * Prints "raw FD" for the last.
 * usage: epollsets N */
#include <stdio.h>
#include <stdlib.h>
#include <sys/epoll.h>
#include <sys/syscall.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 20, p[2];
	struct epoll_event ev = { .events = EPOLLIN };

	if (pipe(p) != 0)
		return perror("pipe"), 1;
	for (int i = 0; i < 2 * n + 1; i++) {
		int ep = i < n ? epoll_create1(EPOLL_CLOEXEC)
		       : i < 2 * n ? epoll_create(1)
		       : (int)syscall(SYS_epoll_create1, EPOLL_CLOEXEC);
		if (ep < 0)
			return perror("epoll_create"), 1;
		if (epoll_ctl(ep, EPOLL_CTL_ADD, p[0], &ev) != 0)
			return perror("epoll_ctl"), 1;
		if (i == 2 * n)
			printf("raw %d\n", ep);
	}
	return 0;
}
