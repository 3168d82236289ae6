/* SPDX-License-Identifier: MIT
 *
 * exp_write_sys.c — the raw system calls behind exp_write_sys.h.
 * Sigsafe file: no stdio, no malloc.
 */
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "format/exp_write_sys.h"

int exp_sys_openat(int dirfd, const char *path, int flags, mode_t mode)
{
	return (int)syscall(SYS_openat, dirfd, path, flags, mode);
}

ssize_t exp_sys_read(int fd, void *buf, size_t n)
{
	return syscall(SYS_read, fd, buf, n);
}

ssize_t exp_sys_pread(int fd, void *buf, size_t n, off_t off)
{
	return syscall(SYS_pread64, fd, buf, n, off);
}

ssize_t exp_sys_write(int fd, const void *buf, size_t n)
{
	return syscall(SYS_write, fd, buf, n);
}

ssize_t exp_sys_pwrite(int fd, const void *buf, size_t n, off_t off)
{
	return syscall(SYS_pwrite64, fd, buf, n, off);
}

int exp_sys_close(int fd)
{
	return (int)syscall(SYS_close, fd);
}

int exp_sys_fallocate(int fd, int mode, off_t off, off_t len)
{
	return (int)syscall(SYS_fallocate, fd, mode, off, len);
}

void *exp_sys_mmap(void *addr, size_t len, int prot, int flags, int fd, off_t off)
{
	return mmap(addr, len, prot, flags, fd, off);
}

int exp_sys_munmap(void *addr, size_t len)
{
	return munmap(addr, len);
}

int exp_sys_unlinkat(int dirfd, const char *path, int flags)
{
	return (int)syscall(SYS_unlinkat, dirfd, path, flags);
}

int exp_sys_fstat(int fd, struct stat *st)
{
	return (int)syscall(SYS_fstat, fd, st);
}

static const struct exp_sys raw = EXP_SYS_RAW;
const struct exp_sys *exp_sys = &raw;
