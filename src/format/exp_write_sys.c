/* SPDX-License-Identifier: MIT
 *
 * exp_write_sys.c — the raw system calls behind exp_write_sys.h, each made
 * with exp_syscall (never libc's syscall() or mmap(): the header says why).
 * Sigsafe file: no stdio, no malloc.
 *
 * The calls that make a file longer (write, pwrite, fallocate) run with
 * SIGXFSZ blocked in the calling thread: past the program's file size limit
 * (RLIMIT_FSIZE, `ulimit -f`) the kernel fails them with EFBIG and sends
 * SIGXFSZ to the thread, whose default action kills the program.  The limit
 * is the program's; our files take what it leaves, and when one reaches it
 * the caller sees EFBIG (exp_sys_fsize_hit() says it was the limit) while
 * the signal, ours, is taken back before the mask is restored.  Without a
 * limit (RLIMIT_FSIZE infinite, read once, again after the program sets a
 * limit: exp_sys_fsize_changed) no call can raise the signal, and the two
 * masks are left out: 3 system calls per write were 1.
 */
#include <errno.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <sys/resource.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "format/exp_write_sys.h"

int exp_sys_openat(int dirfd, const char *path, int flags, mode_t mode)
{
	return (int)exp_syscall(SYS_openat, dirfd, path, flags, mode);
}

ssize_t exp_sys_read(int fd, void *buf, size_t n)
{
	return exp_syscall(SYS_read, fd, buf, n);
}

ssize_t exp_sys_pread(int fd, void *buf, size_t n, off_t off)
{
	return exp_syscall(SYS_pread64, fd, buf, n, off);
}

static _Atomic int fsize_hit;

int exp_sys_fsize_hit(void)
{
	return atomic_load_explicit(&fsize_hit, memory_order_relaxed);
}

/* The program's file size limit: a generation (bits 2 and up: each change
 * adds 4) and what is known of it in that generation (low bits: 0 not
 * known, 1 none, RLIM_INFINITY, 2 a limit).  An answer read before a
 * change is kept only if no change came meanwhile (compare and swap from
 * the generation it was read in): else a thread that read "none" just
 * before the program set a limit could store it over the change, and our
 * writes would then go unmasked under a limit (SIGXFSZ kills the program). */
static _Atomic unsigned fsize_limit;

void exp_sys_fsize_changed(void)
{
	unsigned v = atomic_load_explicit(&fsize_limit, memory_order_acquire);

	while (!atomic_compare_exchange_weak_explicit(&fsize_limit, &v, (v & ~3u) + 4, memory_order_acq_rel,
						      memory_order_acquire))
		;
}

/* Does the program have a file size limit?  Read at the first call after
 * a change (one system call); until an answer is kept, as if it had one. */
static bool fsize_limited(void)
{
	unsigned seen = atomic_load_explicit(&fsize_limit, memory_order_acquire);
	struct rlimit rl;

	if (seen & 3)
		return (seen & 3) == 2;
	unsigned known = exp_syscall(SYS_prlimit64, 0, RLIMIT_FSIZE, NULL, &rl) == 0 && rl.rlim_cur == RLIM_INFINITY
				 ? 1
				 : 2;
	atomic_compare_exchange_strong_explicit(&fsize_limit, &seen, seen | known, memory_order_acq_rel,
						memory_order_acquire);
	return known == 2;
}

/* System call `nr` with SIGXFSZ blocked in this thread; a SIGXFSZ it raised
 * (EFBIG) is taken back, unless one was already pending for the program.
 * Without a file size limit, the call alone. */
static long growing(long nr, long a, long b, long c, long d)
{
	unsigned long xfsz = 1ul << (SIGXFSZ - 1), old = 0, pending = 0;
	struct timespec zero = { 0, 0 };

	if (!fsize_limited())
		return exp_syscall(nr, a, b, c, d);
	exp_syscall(SYS_rt_sigprocmask, SIG_BLOCK, &xfsz, &old, sizeof(xfsz));
	if (old & xfsz)                        /* the program's own may be pending */
		exp_syscall(SYS_rt_sigpending, &pending, sizeof(pending));
	long r = exp_syscall(nr, a, b, c, d);
	int e = errno;
	if (r < 0 && e == EFBIG) {
		atomic_store_explicit(&fsize_hit, 1, memory_order_relaxed);
		if (!(pending & xfsz))
			exp_syscall(SYS_rt_sigtimedwait, &xfsz, NULL, &zero, sizeof(xfsz));
	}
	exp_syscall(SYS_rt_sigprocmask, SIG_SETMASK, &old, NULL, sizeof(old));
	errno = e;
	return r;
}

ssize_t exp_sys_write(int fd, const void *buf, size_t n)
{
	return growing(SYS_write, fd, (long)buf, (long)n, 0);
}

ssize_t exp_sys_pwrite(int fd, const void *buf, size_t n, off_t off)
{
	return growing(SYS_pwrite64, fd, (long)buf, (long)n, (long)off);
}

int exp_sys_close(int fd)
{
	return (int)exp_syscall(SYS_close, fd);
}

int exp_sys_fallocate(int fd, int mode, off_t off, off_t len)
{
	return (int)growing(SYS_fallocate, fd, mode, (long)off, (long)len);
}

void *exp_sys_mmap(void *addr, size_t len, int prot, int flags, int fd, off_t off)
{
	return (void *)exp_syscall(SYS_mmap, addr, len, prot, flags, fd, off);
}

int exp_sys_munmap(void *addr, size_t len)
{
	return (int)exp_syscall(SYS_munmap, addr, len);
}

int exp_sys_unlinkat(int dirfd, const char *path, int flags)
{
	return (int)exp_syscall(SYS_unlinkat, dirfd, path, flags);
}

int exp_sys_fstat(int fd, struct stat *st)
{
	return (int)exp_syscall(SYS_fstat, fd, st);
}

static const struct exp_sys raw = EXP_SYS_RAW;
const struct exp_sys *exp_sys = &raw;
