/* SPDX-License-Identifier: MIT
 *
 * col_interpose_fd.c — the program cannot close or replace the collector's
 * descriptors (col_fds.h).
 *
 * close, dup and fcntl of one of ours fail with EBADF, as on a descriptor
 * that is not open (which, for the program, it is not); close_range and
 * closefrom close the program's around ours; dup2 and dup3 onto one of ours
 * first move ours elsewhere, then do what was asked.  Everything else goes
 * to the next definition (the I/O tracer's when it is loaded, so that it
 * still records the call; else libc's).  Any thread, normal context (or a
 * signal handler of the program's: nothing here waits on a lock).  A vfork
 * child has a descriptor table of its own (ours close at its exec): it may
 * do what it likes with it, and nothing of ours moves.  Top layer.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdint.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "collector/col_fds.h"
#include "collector/col_real.h"
#include "collector/col_state.h"
#include "collector/col_sys.h"

/* The next definition of `name` (col_real.h, COL_REAL_CHAIN). */
#define NEXT(name) (col_real_table()->chain.name)

/* Is `fd` ours, here?  (In a vfork child, nothing is.) */
static bool ours(int fd)
{
	return col_fd_ours(fd) && !col_in_vfork_child();
}

static int not_open(void)
{
	errno = EBADF;
	return -1;
}

COL_API int close(int fd)
{
	if (ours(fd))
		return not_open();
	if (!col_real_table())         /* a close while the table resolves */
		return (int)col_syscall(SYS_close, fd);
	return NEXT(close)(fd);
}

/* Close [first, last] except ours: the gaps between them, in order. */
static int close_around(unsigned first, unsigned last, int flags)
{
	int rc = 0;

	while (first <= last) {
		int to = last > (unsigned)INT32_MAX ? INT32_MAX : (int)last;
		int mine = first > (unsigned)INT32_MAX || col_in_vfork_child() ? -1 : col_fd_next((int)first, to);
		if (mine < 0)
			return NEXT(close_range)(first, last, flags) != 0 ? -1 : rc;
		if ((unsigned)mine > first && NEXT(close_range)(first, (unsigned)mine - 1, flags) != 0)
			rc = -1;
		first = (unsigned)mine + 1;
		if (!first)
			break;
	}
	return rc;
}

COL_API int close_range(unsigned first, unsigned last, int flags)
{
	if (flags & CLOSE_RANGE_CLOEXEC)    /* ours are close-on-exec already */
		return NEXT(close_range)(first, last, flags);
	return close_around(first, last, flags);
}

COL_API void closefrom(int first)
{
	if (first < 0)
		first = 0;
	int mine = col_in_vfork_child() ? -1 : col_fd_next(first, INT32_MAX);
	if (mine < 0) {
		NEXT(closefrom)(first);
		return;
	}
	/* Up to and past our last one, then everything after it. */
	int last = mine;
	for (int next; (next = col_fd_next(last + 1, INT32_MAX)) >= 0;)
		last = next;
	close_around((unsigned)first, (unsigned)last, 0);
	NEXT(closefrom)(last + 1);
}

COL_API int dup(int fd)
{
	if (ours(fd))
		return not_open();
	return NEXT(dup)(fd);
}

/* Before the program's descriptor goes to `to`: ours leaves it. */
static int make_room(int to)
{
	if (ours(to) && col_fd_evict(to) != 0) {
		errno = EBUSY;
		return -1;
	}
	return 0;
}

COL_API int dup2(int fd, int to)
{
	if (ours(fd))
		return not_open();
	if (make_room(to) != 0)
		return -1;
	return NEXT(dup2)(fd, to);
}

COL_API int dup3(int fd, int to, int flags)
{
	if (ours(fd))
		return not_open();
	if (make_room(to) != 0)
		return -1;
	return NEXT(dup3)(fd, to, flags);
}

/* fcntl's third argument, whatever its type, is one register wide. */
#define FCNTL_BODY(name)                                                     \
	do {                                                                 \
		va_list ap;                                                  \
		va_start(ap, cmd);                                           \
		long arg = va_arg(ap, long);                                 \
		va_end(ap);                                                  \
		if (ours(fd))                                         \
			return not_open();                                   \
		return NEXT(name)(fd, cmd, arg);                             \
	} while (0)

COL_API int fcntl(int fd, int cmd, ...)
{
	FCNTL_BODY(fcntl);
}

COL_API int fcntl64(int fd, int cmd, ...)
{
	FCNTL_BODY(fcntl64);
}
