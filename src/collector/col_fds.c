/* SPDX-License-Identifier: MIT
 *
 * col_fds.c — the collector's own descriptors (see col_fds.h).
 *
 * A bitmap says which descriptors are ours; beside it, for each, where its
 * number is kept (so that a move can update it) and the count of uses in
 * progress.  Registration runs in normal context and in the signal handler
 * (a record file reopened after a program replaced it); the tables are
 * static and updated with atomics.  Raw system calls: fcntl and close here
 * must not be our own interposers.
 */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdint.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "collector/col_fds.h"
#include "collector/col_sys.h"

static _Atomic uint64_t ours[COL_FDS_MAX / 64];
static int *_Atomic where_of[COL_FDS_MAX];
static _Atomic int *_Atomic users_of[COL_FDS_MAX];
static _Atomic int high = -1;          /* where ours start */

/* The first number for ours: COL_FDS_HIGH below the soft limit, or below
 * 1024 when the limit is higher (select() and programs that size tables by
 * the limit are then unaffected). */
static int high_start(void)
{
	int h = atomic_load_explicit(&high, memory_order_relaxed);
	struct rlimit rl;

	if (h >= 0)
		return h;
	if (col_syscall(SYS_prlimit64, 0, RLIMIT_NOFILE, NULL, &rl) != 0)
		rl.rlim_cur = 1024;
	rlim_t lim = rl.rlim_cur < 1024 ? rl.rlim_cur : 1024;
	h = lim > 2 * COL_FDS_HIGH ? (int)lim - COL_FDS_HIGH : (int)lim / 2;
	if (h < 3)
		h = 3;
	atomic_store(&high, h);
	return h;
}

static void mark(int fd, bool on)
{
	if (on)
		atomic_fetch_or(&ours[fd / 64], 1ull << (fd % 64));
	else
		atomic_fetch_and(&ours[fd / 64], ~(1ull << (fd % 64)));
}

bool col_fd_ours(int fd)
{
	return fd >= 0 && fd < COL_FDS_MAX &&
	       (atomic_load_explicit(&ours[fd / 64], memory_order_acquire) >> (fd % 64) & 1);
}

/* Ours above the program's soft limit: the limit is raised (at most this
 * far, and never past the hard limit) for the F_DUPFD and put back at once.
 * A descriptor above the soft limit stays valid; the program's own opens
 * can never reach it, so it opens exactly as many as without tally. */
#define COL_FDS_ABOVE 256

static atomic_flag raising = ATOMIC_FLAG_INIT;

/* A copy of `fd` above the soft limit, close-on-exec (with `move` false,
 * `fd` itself if it is above already), or -1 when the hard limit leaves no
 * room (`ulimit -n N` sets both), the limit is too high for our table, or a
 * raise is already under way (a signal handler that interrupted one must
 * not take the raised limit for the program's).  Sigsafe. */
static int dup_above(int fd, bool move)
{
	struct rlimit rl, up, now;
	int n = -1;

	if (atomic_flag_test_and_set(&raising))
		return -1;
	if (col_syscall(SYS_prlimit64, 0, RLIMIT_NOFILE, NULL, &rl) != 0)
		rl.rlim_cur = rl.rlim_max = 0;
	if (!move && rl.rlim_cur && (rlim_t)fd >= rl.rlim_cur) {
		n = fd;                        /* above already */
	} else if (rl.rlim_cur < rl.rlim_max && rl.rlim_cur < COL_FDS_MAX - COL_FDS_ABOVE) {
		up = rl;
		up.rlim_cur = rl.rlim_max - rl.rlim_cur > COL_FDS_ABOVE ? rl.rlim_cur + COL_FDS_ABOVE : rl.rlim_max;
		if (col_syscall(SYS_prlimit64, 0, RLIMIT_NOFILE, &up, NULL) == 0) {
			n = (int)col_syscall(SYS_fcntl, fd, F_DUPFD_CLOEXEC, (long)rl.rlim_cur);
			/* Put the program's limit back; if one of its threads set
			 * another meanwhile, that one is the program's. */
			if (col_syscall(SYS_prlimit64, 0, RLIMIT_NOFILE, &rl, &now) == 0 &&
			    (now.rlim_cur != up.rlim_cur || now.rlim_max != up.rlim_max))
				col_syscall(SYS_prlimit64, 0, RLIMIT_NOFILE, &now, NULL);
		}
	}
	atomic_flag_clear(&raising);
	return n;
}

/* A copy of `fd` out of the program's way: above its soft limit if the
 * hard limit allows, else at a free number from our start (or anywhere),
 * close-on-exec. */
static int dup_high(int fd)
{
	int n = dup_above(fd, true);

	if (n < 0)
		n = (int)col_syscall(SYS_fcntl, fd, F_DUPFD_CLOEXEC, high_start());
	return n >= 0 ? n : (int)col_syscall(SYS_fcntl, fd, F_DUPFD_CLOEXEC, 0);
}

int col_fd_keep(int fd, int *where, _Atomic int *users)
{
	if (fd < 0)
		return fd;
	int n = dup_above(fd, false);
	if (n < 0 && fd < high_start())
		n = (int)col_syscall(SYS_fcntl, fd, F_DUPFD_CLOEXEC, high_start());
	if (n >= 0 && n != fd) {
		col_syscall(SYS_close, fd);
		fd = n;
	}
	if (fd < COL_FDS_MAX) {
		atomic_store(&where_of[fd], where);
		atomic_store(&users_of[fd], users);
		mark(fd, true);
	}
	__atomic_store_n(where, fd, __ATOMIC_RELEASE);
	return fd;
}

void col_fd_forget(int fd)
{
	if (fd < 0 || fd >= COL_FDS_MAX)
		return;
	mark(fd, false);
	atomic_store(&where_of[fd], NULL);
	atomic_store(&users_of[fd], NULL);
}

int col_fd_evict(int fd)
{
	if (!col_fd_ours(fd))
		return 0;
	int *where = atomic_load(&where_of[fd]);
	_Atomic int *users = atomic_load(&users_of[fd]);
	int n = dup_high(fd);
	if (n < 0 || !where)
		return -1;
	col_fd_keep(n, where, users);          /* the owner sees the new number */
	col_fd_forget(fd);
	/* Uses that took the old number before the move end before the program
	 * may reuse it (a signal handler of this very thread cannot be among
	 * them for long: bounded). */
	for (int spins = 0; users && atomic_load(users) > 0 && spins < 100000; spins++)
		sched_yield();
	return 0;
}

int col_fd_next(int from, int to)
{
	if (from < 0)
		from = 0;
	for (int fd = from; fd <= to && fd < COL_FDS_MAX;) {
		uint64_t word = atomic_load_explicit(&ours[fd / 64], memory_order_acquire) >> (fd % 64);
		if (word)
			return fd + __builtin_ctzll(word) <= to ? fd + __builtin_ctzll(word) : -1;
		fd = (fd / 64 + 1) * 64;
	}
	return -1;
}

int col_fd_count(void)
{
	int n = 0;

	for (int i = 0; i < COL_FDS_MAX / 64; i++)
		n += __builtin_popcountll(atomic_load_explicit(&ours[i], memory_order_relaxed));
	return n;
}
