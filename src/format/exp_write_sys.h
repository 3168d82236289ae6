/* SPDX-License-Identifier: MIT
 *
 * exp_write_sys.h — the system calls made by code that writes experiments
 * inside the target (exp_write.c, the collector's own I/O), through one
 * table of pointers.
 *
 * By default they go straight to the kernel: the I/O tracer interposes the
 * libc names, and our own I/O must never be traced.  The collector points
 * `exp_sys` at its table of real functions (collector/col_real.h) when it
 * starts, which is where a test makes any of them fail.  Every function is
 * async-signal-safe and behaves as its libc namesake (-1 and errno on error).
 *
 * Straight to the kernel means exp_syscall() below, not libc's syscall():
 * inside the target, the collector interposes syscall() and mmap() (an
 * exec may go through the one, --data watches the other), and the writer
 * sits beneath the collector, so it never calls a name the collector
 * stands in front of.
 */
#ifndef TALLY_EXP_WRITE_SYS_H
#define TALLY_EXP_WRITE_SYS_H

#include <errno.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>

/* System call `nr` made here, as libc's syscall() makes it (-1 and errno on
 * failure); exp_syscall(NR, ARGS...) pads the arguments to six.  Inline and
 * async-signal-safe.  Elsewhere than on x86-64 (where only the analyzer
 * runs: the collector is x86-64 code), it is libc's syscall(). */
static inline long exp_sys_call6(long nr, long a1, long a2, long a3, long a4, long a5, long a6)
{
#if defined(__x86_64__)
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
#else
	return (syscall)(nr, a1, a2, a3, a4, a5, a6);
#endif
}

#define EXP_SYSCALL_(nr, a1, a2, a3, a4, a5, a6, ...)                                      \
	exp_sys_call6((long)(nr), (long)(a1), (long)(a2), (long)(a3), (long)(a4), (long)(a5), \
		      (long)(a6))
#define exp_syscall(...) EXP_SYSCALL_(__VA_ARGS__, 0, 0, 0, 0, 0, 0, 0)

struct exp_sys {
	int (*openat)(int dirfd, const char *path, int flags, mode_t mode);
	ssize_t (*read)(int fd, void *buf, size_t n);
	ssize_t (*pread)(int fd, void *buf, size_t n, off_t off);
	ssize_t (*write)(int fd, const void *buf, size_t n);
	ssize_t (*pwrite)(int fd, const void *buf, size_t n, off_t off);
	int (*close)(int fd);
	int (*fallocate)(int fd, int mode, off_t off, off_t len);
	void *(*mmap)(void *addr, size_t len, int prot, int flags, int fd, off_t off);
	int (*munmap)(void *addr, size_t len);
	int (*unlinkat)(int dirfd, const char *path, int flags);
	int (*fstat)(int fd, struct stat *st);
};

/* Has a write of ours met the program's file size limit (RLIMIT_FSIZE)?
 * The raw write, pwrite and fallocate never let its SIGXFSZ reach the
 * program; they fail with EFBIG and set this.  Sigsafe. */
int exp_sys_fsize_hit(void);

/* The program may have changed its file size limit (setrlimit, prlimit):
 * read it again before the next write.  The collector's interposers call
 * it before and after each such call.  Sigsafe. */
void exp_sys_fsize_changed(void);

/* The raw system calls, for a static initializer of a struct exp_sys. */
int exp_sys_openat(int dirfd, const char *path, int flags, mode_t mode);
ssize_t exp_sys_read(int fd, void *buf, size_t n);
ssize_t exp_sys_pread(int fd, void *buf, size_t n, off_t off);
ssize_t exp_sys_write(int fd, const void *buf, size_t n);
ssize_t exp_sys_pwrite(int fd, const void *buf, size_t n, off_t off);
int exp_sys_close(int fd);
int exp_sys_fallocate(int fd, int mode, off_t off, off_t len);
void *exp_sys_mmap(void *addr, size_t len, int prot, int flags, int fd, off_t off);
int exp_sys_munmap(void *addr, size_t len);
int exp_sys_unlinkat(int dirfd, const char *path, int flags);
int exp_sys_fstat(int fd, struct stat *st);
#define EXP_SYS_RAW                                                          \
	{ exp_sys_openat, exp_sys_read, exp_sys_pread, exp_sys_write, exp_sys_pwrite, \
	  exp_sys_close, exp_sys_fallocate, exp_sys_mmap, exp_sys_munmap,    \
	  exp_sys_unlinkat, exp_sys_fstat }

/* What the writer calls: the raw table unless redirected (set it before the
 * first exp_writer_open; never NULL). */
extern const struct exp_sys *exp_sys;

/* A call through the table: EXP_SYS(mmap)(...), the writer's mmap, never
 * the collector's interposer of that name (col_real.h says why it is
 * spelled so: COL_REAL). */
#define EXP_SYS(name) (exp_sys->name)

#endif
