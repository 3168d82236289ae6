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
	return COL_REAL(sys.write)(fd, buf, n);
}

static inline ssize_t col_sys_read(int fd, void *buf, size_t n)
{
	return COL_REAL(sys.read)(fd, buf, n);
}

static inline ssize_t col_sys_pwrite(int fd, const void *buf, size_t n, off_t off)
{
	return COL_REAL(sys.pwrite)(fd, buf, n, off);
}

static inline int col_sys_openat(int dirfd, const char *path, int flags, mode_t mode)
{
	return COL_REAL(sys.openat)(dirfd, path, flags, mode);
}

static inline int col_sys_close(int fd)
{
	return COL_REAL(sys.close)(fd);
}

static inline void *col_sys_mmap(void *addr, size_t len, int prot, int flags, int fd, off_t off)
{
	return COL_REAL(sys.mmap)(addr, len, prot, flags, fd, off);
}

static inline int col_sys_munmap(void *addr, size_t len)
{
	return COL_REAL(sys.munmap)(addr, len);
}

static inline int col_sys_fallocate(int fd, int mode, off_t off, off_t len)
{
	return COL_REAL(sys.fallocate)(fd, mode, off, len);
}

static inline int col_sys_fstat(int fd, struct stat *st)
{
	return COL_REAL(sys.fstat)(fd, st);
}

/* The collector's own system calls: col_syscall(NR, ARGS...) (col_real.h),
 * never syscall(), which the collector interposes. */
static inline pid_t col_sys_gettid(void)
{
	return (pid_t)col_syscall(SYS_gettid);
}

#endif
