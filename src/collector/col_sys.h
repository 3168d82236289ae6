/* SPDX-License-Identifier: MIT
 *
 * col_sys.h — raw system calls for the collector's own I/O.
 *
 * The collector interposes open/read/write/close and friends for I/O tracing;
 * calls from inside the library to those names would reach its own
 * interposers.  These wrappers go straight to the kernel, and are
 * async-signal-safe.
 */
#ifndef TALLY_COL_SYS_H
#define TALLY_COL_SYS_H

#include <fcntl.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <unistd.h>

static inline ssize_t col_sys_write(int fd, const void *buf, size_t n)
{
	return syscall(SYS_write, fd, buf, n);
}

static inline ssize_t col_sys_read(int fd, void *buf, size_t n)
{
	return syscall(SYS_read, fd, buf, n);
}

static inline ssize_t col_sys_pwrite(int fd, const void *buf, size_t n, off_t off)
{
	return syscall(SYS_pwrite64, fd, buf, n, off);
}

static inline int col_sys_openat(int dirfd, const char *path, int flags, mode_t mode)
{
	return (int)syscall(SYS_openat, dirfd, path, flags, mode);
}

static inline int col_sys_close(int fd)
{
	return (int)syscall(SYS_close, fd);
}

static inline pid_t col_sys_gettid(void)
{
	return (pid_t)syscall(SYS_gettid);
}

#endif
