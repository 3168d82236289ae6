/* SPDX-License-Identifier: MIT
 *
 * col_sys.h — the collector's own I/O, through the table of real functions
 * (col_real.h: raw system calls by default, so that the I/O tracer never
 * sees them).  Async-signal-safe.  Layer 0, with col_real.
 */
#ifndef TALLY_COL_SYS_H
#define TALLY_COL_SYS_H

#include <errno.h>
#include <fcntl.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <unistd.h>

#include "collector/col_real.h"

static inline ssize_t col_sys_write(int fd, const void *buf, size_t n)
{
	return col_real.sys.write(fd, buf, n);
}

static inline ssize_t col_sys_read(int fd, void *buf, size_t n)
{
	return col_real.sys.read(fd, buf, n);
}

static inline ssize_t col_sys_pwrite(int fd, const void *buf, size_t n, off_t off)
{
	return col_real.sys.pwrite(fd, buf, n, off);
}

static inline int col_sys_openat(int dirfd, const char *path, int flags, mode_t mode)
{
	return col_real.sys.openat(dirfd, path, flags, mode);
}

static inline int col_sys_close(int fd)
{
	return col_real.sys.close(fd);
}

static inline void *col_sys_mmap(void *addr, size_t len, int prot, int flags, int fd, off_t off)
{
	return col_real.sys.mmap(addr, len, prot, flags, fd, off);
}

static inline int col_sys_munmap(void *addr, size_t len)
{
	return col_real.sys.munmap(addr, len);
}

static inline int col_sys_fallocate(int fd, int mode, off_t off, off_t len)
{
	return col_real.sys.fallocate(fd, mode, off, len);
}

static inline int col_sys_fstat(int fd, struct stat *st)
{
	return col_real.sys.fstat(fd, st);
}

/* System call `nr` made here, as libc's syscall() makes it (-1 and errno on
 * failure).  The collector's own calls use col_syscall(NR, ARGS...), never
 * syscall(): the collector interposes that (col_interpose_exec.c: an exec
 * may go through it), and its own calls must not pass through the top
 * layer. */
static inline long col_sys_call6(long nr, long a1, long a2, long a3, long a4, long a5, long a6)
{
	long rc;
	register long r10 __asm__("r10") = a4;
	register long r8 __asm__("r8") = a5;
	register long r9 __asm__("r9") = a6;

	__asm__ volatile("syscall"
			 : "=a"(rc)
			 : "a"(nr), "D"(a1), "S"(a2), "d"(a3), "r"(r10), "r"(r8), "r"(r9)
			 : "rcx", "r11", "memory");
	if (rc < 0 && rc > -4096) {
		errno = (int)-rc;
		return -1;
	}
	return rc;
}

#define COL_SYSCALL_(nr, a1, a2, a3, a4, a5, a6, ...)                                      \
	col_sys_call6((long)(nr), (long)(a1), (long)(a2), (long)(a3), (long)(a4), (long)(a5), \
		      (long)(a6))
#define col_syscall(...) COL_SYSCALL_(__VA_ARGS__, 0, 0, 0, 0, 0, 0, 0)

static inline pid_t col_sys_gettid(void)
{
	return (pid_t)col_syscall(SYS_gettid);
}

#endif
