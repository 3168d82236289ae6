/* SPDX-License-Identifier: MIT
 *
 * io_fdname.c — descriptor names for libtally-io.so (see io.h): which
 * descriptors have had a name recorded since they were last closed, the
 * FD_NAME record (from the path a call gave, or /proc/self/fd), and the
 * count of closes and replacements a buffered stream checks its
 * descriptor's kind against.  Called from io.c, io_stdio.c, io_record.c,
 * io_wait.c and io_buffered.c in any thread; the bits are atomic.
 */
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "tracers/io.h"

#define IO_NAMED_FDS 65536            /* descriptors whose name we track */

/* Bit fd: a name was recorded for fd since it was last closed. */
static _Atomic uint64_t named[IO_NAMED_FDS / 64];

static bool is_named(int fd)
{
	return fd >= 0 && fd < IO_NAMED_FDS &&
	       (atomic_load_explicit(&named[fd / 64], memory_order_relaxed) >> (fd % 64) & 1);
}

static void set_named(int fd)
{
	if (fd >= 0 && fd < IO_NAMED_FDS)
		atomic_fetch_or_explicit(&named[fd / 64], 1ull << (fd % 64), memory_order_relaxed);
}

/* Descriptors closed or replaced so far in the process (io_fd_changes). */
static _Atomic uint32_t fd_changes;

uint32_t io_fd_changes(void)
{
	return atomic_load_explicit(&fd_changes, memory_order_relaxed);
}

void io_fd_closed(int first, int last)
{
	if (first < 0)
		return;
	atomic_fetch_add_explicit(&fd_changes, 1, memory_order_relaxed);
	io_flow_forget(first, last);
	for (int fd = first; fd <= last && fd < IO_NAMED_FDS; fd++) {
		if (fd % 64 == 0 && last - fd >= 63) {
			atomic_store_explicit(&named[fd / 64], 0, memory_order_relaxed);
			fd += 63;
		} else {
			atomic_fetch_and_explicit(&named[fd / 64], ~(1ull << (fd % 64)),
						  memory_order_relaxed);
		}
	}
}

void io_name_fd(int fd, const char *path, uint64_t since_ns)
{
	char buf[4096];
	union {
		struct exp_fd_name f;
		char bytes[sizeof(struct exp_fd_name) + 40];
	} r;

	if (fd < 0)
		return;
	if (!path) {
		char link[64];
		snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
		ssize_t n = readlink(link, buf, sizeof(buf) - 1);
		if (n <= 0)
			return;
		buf[n] = 0;
	} else if (path[0] != '/' && getcwd(buf, sizeof(buf) - 1)) {
		size_t n = strlen(buf);
		snprintf(buf + n, sizeof(buf) - n, "/%s", path);
	} else {
		snprintf(buf, sizeof(buf), "%s", path);
	}
	/* The record is small; a long name keeps its last 36 bytes. */
	size_t len = strlen(buf);
	const char *name = len > 36 ? buf + len - 36 : buf;
	memset(&r, 0, sizeof(r));
	r.f.fd = fd;
	r.f.time_ns = since_ns;
	strcpy(r.f.name, name);
	uint32_t rlen = (uint32_t)((sizeof(struct exp_fd_name) + strlen(name) + 1 + 7) & ~7u);
	io_flow_forget(fd, fd);     /* a new name: what it reads from too */
	if (tally__trace_event(EXP_FILE_IO, EXP_REC_FD_NAME, &r, rlen, 0, 0, 0) == 0)
		set_named(fd);
}

void io_name_unnamed(int fd, uint64_t since_ns)
{
	if (fd >= 0 && !is_named(fd))
		io_name_fd(fd, NULL, since_ns);
}
