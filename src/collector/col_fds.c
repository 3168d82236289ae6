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
#include <signal.h>
#include <stdint.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "collector/col_fds.h"
#include "collector/col_real.h"
#include "collector/col_state.h"
#include "collector/col_sys.h"

static _Atomic uint64_t ours[COL_FDS_MAX / 64];
static int *_Atomic where_of[COL_FDS_MAX];
static _Atomic int *_Atomic users_of[COL_FDS_MAX];
static _Atomic int high = -1;          /* where ours start */
/* The calling thread's batch (col_fds_batch_begin), or NULL. */
static __thread struct col_fds_batch *batch_tls __attribute__((tls_model("initial-exec")));

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

/* The program's descriptor limit (0 and 0 if it cannot be read). */
static void limit_read(struct rlimit *rl)
{
	if (col_syscall(SYS_prlimit64, 0, RLIMIT_NOFILE, NULL, rl) != 0)
		rl->rlim_cur = rl->rlim_max = 0;
}

/* Raise the soft limit from the program's *rl by COL_FDS_ABOVE (at most
 * to the hard one): true, with ours in *up, if it was raised (then
 * `raising` is held until limit_restore); false if the hard limit leaves
 * no room, the limit is too high for our table, or a raise is already
 * under way (a signal handler that interrupted one must not take the
 * raised limit for the program's). */
static bool limit_raise(const struct rlimit *rl, struct rlimit *up)
{
	if (!(rl->rlim_cur < rl->rlim_max && rl->rlim_cur < COL_FDS_MAX - COL_FDS_ABOVE) ||
	    atomic_flag_test_and_set(&raising))
		return false;
	*up = *rl;
	up->rlim_cur = rl->rlim_max - rl->rlim_cur > COL_FDS_ABOVE ? rl->rlim_cur + COL_FDS_ABOVE : rl->rlim_max;
	if (col_syscall(SYS_prlimit64, 0, RLIMIT_NOFILE, up, NULL) == 0)
		return true;
	atomic_flag_clear(&raising);
	return false;
}

/* Put the program's limit back; if one of its threads set another
 * meanwhile, that one is the program's. */
static void limit_restore(const struct rlimit *rl, const struct rlimit *up)
{
	struct rlimit now;

	if (col_syscall(SYS_prlimit64, 0, RLIMIT_NOFILE, rl, &now) == 0 &&
	    (now.rlim_cur != up->rlim_cur || now.rlim_max != up->rlim_max))
		col_syscall(SYS_prlimit64, 0, RLIMIT_NOFILE, &now, NULL);
	atomic_flag_clear(&raising);
}

static bool helper_run(int (*main_fn)(void *), void *s, unsigned long flags);

/* A copy of `fd` above the soft limit, close-on-exec (with `move` false,
 * `fd` itself if it is above already), or -1 when the limit cannot be
 * raised (limit_raise; `ulimit -n N` sets both).  Sigsafe. */
static int dup_above(int fd, bool move)
{
	struct rlimit rl, up;
	int n = -1;

	limit_read(&rl);
	if (!move && rl.rlim_cur && (rlim_t)fd >= rl.rlim_cur)
		return fd;                     /* above already */
	/* With threads, the program's limit is never raised: one of its
	 * threads at the limit would get a number at or above it (a select()
	 * set overflows) and a getrlimit would see ours.  None is made here
	 * (the caller's copy goes below the limit); col_fd_open_above's goes
	 * above it by a helper (dup_above_aside). */
	if (atomic_load_explicit(&col_proc.threaded, memory_order_relaxed))
		return -1;
	if (limit_raise(&rl, &up)) {
		n = (int)col_syscall(SYS_fcntl, fd, F_DUPFD_CLOEXEC, (long)rl.rlim_cur);
		limit_restore(&rl, &up);
	}
	return n;
}

struct raise_many {
	int n;
	const int *fd;
	int *copy;
	int to;
};

/* The helper of dup_above_aside and col_fds_batch_end: its own process,
 * sharing the program's descriptor table (CLONE_FILES) but not its limits,
 * raises its own soft limit once and copies every descriptor above the
 * program's (-1 for one that could not be). */
static int raise_many_main(void *p)
{
	struct raise_many *r = p;
	struct rlimit rl, up;

	limit_read(&rl);
	up = rl;
	up.rlim_cur = rl.rlim_max - rl.rlim_cur > COL_FDS_ABOVE ? rl.rlim_cur + COL_FDS_ABOVE : rl.rlim_max;
	bool raised = col_syscall(SYS_prlimit64, 0, RLIMIT_NOFILE, &up, NULL) == 0;
	for (int i = 0; i < r->n; i++)
		r->copy[i] = raised ? (int)col_syscall(SYS_fcntl, r->fd[i], F_DUPFD_CLOEXEC, (long)r->to) : -1;
	return 0;
}

/* A copy of `fd` above the program's soft limit, close-on-exec, made by a
 * helper task that shares the descriptor table (CLONE_FILES) but not the
 * limits, so that the program's limit is never raised; -1 if the hard
 * limit leaves no room or no helper may be cloned.  Sigsafe; never run
 * from another helper (its stack is the helper's). */
static int dup_above_aside(int fd)
{
	struct rlimit rl;
	int copy = -1;

	limit_read(&rl);
	struct raise_many r = { 1, &fd, &copy, (int)rl.rlim_cur };
	if (rl.rlim_cur < rl.rlim_max && rl.rlim_cur < COL_FDS_MAX - COL_FDS_ABOVE &&
	    helper_run(raise_many_main, &r, CLONE_VM | CLONE_VFORK | CLONE_FILES))
		return copy;
	return -1;
}

/* Is `fd` among the first n of list? */
static bool listed(const int *list, int n, int fd)
{
	for (int i = 0; i < n; i++)
		if (list[i] == fd)
			return true;
	return false;
}

/* Uses that took a moved descriptor's old number before the move end
 * before the program may reuse it (a signal handler of this very thread
 * cannot be among them for long: bounded). */
static void wait_users(_Atomic int *users)
{
	for (int spins = 0; users && atomic_load(users) > 0 && spins < 100000; spins++)
		sched_yield();
}

void col_fds_batch_begin(struct col_fds_batch *b)
{
	atomic_store(&b->n, 0);
	batch_tls = atomic_load_explicit(&col_proc.threaded, memory_order_relaxed) ? b : NULL;
}

void col_fds_batch_end(struct col_fds_batch *b)
{
	uint64_t all = ~0ull, old;
	struct rlimit rl;
	int fd[COL_FDS_BATCH], copy[COL_FDS_BATCH];

	if (batch_tls != b)
		return;
	/* No handler of this thread's may add to it or use one of them
	 * while they move. */
	col_syscall(SYS_rt_sigprocmask, SIG_SETMASK, &all, &old, sizeof(all));
	batch_tls = NULL;
	int n = atomic_load(&b->n);
	if (n > COL_FDS_BATCH)
		n = COL_FDS_BATCH;
	/* Still ours and kept (col_fd_keep): a failed open's caller closed
	 * it, and the number may be the program's since), each number once:
	 * one kept, given up (closed, forgotten) and opened again in the same
	 * start is in the batch twice, and moved for the first entry the
	 * second has no owner left to store through. */
	int k = 0;
	for (int i = 0; i < n; i++)
		if (col_fd_ours(b->fd[i]) && atomic_load(&where_of[b->fd[i]]) && !listed(fd, k, b->fd[i]))
			fd[k++] = b->fd[i];
	limit_read(&rl);
	struct raise_many r = { k, fd, copy, (int)rl.rlim_cur };
	if (k > 0 && rl.rlim_cur < rl.rlim_max && rl.rlim_cur < COL_FDS_MAX - COL_FDS_ABOVE &&
	    helper_run(raise_many_main, &r, CLONE_VM | CLONE_VFORK | CLONE_FILES)) {
		for (int i = 0; i < k; i++) {
			if (copy[i] < 0)
				continue;
			int *where = atomic_load(&where_of[fd[i]]);
			_Atomic int *users = atomic_load(&users_of[fd[i]]);
			if (!where) {                          /* no owner since: nothing to move */
				col_syscall(SYS_close, copy[i]);
				continue;
			}
			/* The old number let go before the new one is
			 * registered: a fork by another thread in between
			 * leaves its child no number of ours whose owner
			 * (a thread state its fork handler unmaps) is gone,
			 * which a later dup2 onto it would store through; at
			 * worst the child keeps the copy open, unregistered
			 * (rev-collector finding 10). */
			col_fd_forget(fd[i]);
			col_fd_keep(copy[i], where, users);    /* the owner sees the new number */
			wait_users(users);                     /* as col_fd_evict */
			col_syscall(SYS_close, fd[i]);
		}
	}
	col_syscall(SYS_rt_sigprocmask, SIG_SETMASK, &old, NULL, sizeof(old));
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

/* *fd replaced by its copy n (closed), if n is one. */
static void move_to(int *fd, int n)
{
	if (n >= 0 && n != *fd) {
		col_syscall(SYS_close, *fd);
		*fd = n;
	}
}

/* A thread start's batch (col_fds_batch_begin/end): with threads, the
 * descriptors opened to keep wait at our start below the limit, and one
 * helper copies them all above it at the end.  The thread's own: a signal
 * handler of the thread that opens one meanwhile takes its own index. */
/* Add `fd` to the calling thread's batch: true if it waits there. */
static bool batch_add(int fd)
{
	struct col_fds_batch *b = batch_tls;

	if (!b)
		return false;
	int i = atomic_fetch_add(&b->n, 1);
	if (i >= COL_FDS_BATCH) {
		atomic_fetch_sub(&b->n, 1);
		return false;
	}
	b->fd[i] = fd;
	return true;
}

int col_fd_open_above(int (*open_fn)(void *arg), void *arg)
{
	/* Opened at the program's own limit, not a raised one: while the
	 * soft limit is raised, a program thread at its limit gets a number
	 * at or above it (FD_SET overflow) and getrlimit sees ours, so the
	 * raise covers only the F_DUPFD, never the open. */
	int fd = open_fn(arg);
	int saved = errno;

	if (fd < 0) {
		errno = saved;
		return fd;
	}
	if (!atomic_load_explicit(&col_proc.threaded, memory_order_relaxed)) {
		/* One thread: the limit raised for the one F_DUPFD (else, no
		 * room above it: `ulimit -n N` sets both, from our start). */
		int n = dup_above(fd, true);
		if (n < 0 && fd < high_start())
			n = (int)col_syscall(SYS_fcntl, fd, F_DUPFD_CLOEXEC, high_start());
		move_to(&fd, n);
	} else {
		/* Threads: out of the low numbers by one F_DUPFD below the
		 * limit, then above it by a helper that raises only its own
		 * limit (dup_above_aside: a clone, which the program's threads
		 * may wait on the CPU for; the low number is free by then). */
		if (fd < high_start())
			move_to(&fd, (int)col_syscall(SYS_fcntl, fd, F_DUPFD_CLOEXEC, high_start()));
		if (!batch_add(fd))
			move_to(&fd, dup_above_aside(fd));
	}
	errno = saved;
	return fd;
}

int col_fd_keep_above(int fd, int *where, _Atomic int *users)
{
	/* One thread: col_fd_keep raises the limit itself for the copy. */
	if (fd >= 0 && atomic_load_explicit(&col_proc.threaded, memory_order_relaxed)) {
		if (fd < high_start())
			move_to(&fd, (int)col_syscall(SYS_fcntl, fd, F_DUPFD_CLOEXEC, high_start()));
		if (!batch_add(fd))
			move_to(&fd, dup_above_aside(fd));
	}
	return col_fd_keep(fd, where, users);
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
	wait_users(users);
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

static _Atomic bool lean;
static uint64_t dir_dev, dir_ino;      /* the directory's identity */

void col_fds_dir_opened(void)
{
	struct stat st;

	dir_dev = dir_ino = 0;
	if (col_proc.dirfd >= 0 && col_sys_fstat(col_proc.dirfd, &st) == 0) {
		dir_dev = (uint64_t)st.st_dev;
		dir_ino = (uint64_t)st.st_ino;
	}
}

bool col_fds_go_lean(void)
{
	struct rlimit rl;

	if (col_syscall(SYS_prlimit64, 0, RLIMIT_NOFILE, NULL, &rl) == 0 &&
	    !(rl.rlim_cur < rl.rlim_max && rl.rlim_cur < COL_FDS_MAX - COL_FDS_ABOVE))
		atomic_store(&lean, true);
	return atomic_load(&lean);
}

/* Is `fd` the experiment's directory? */
static bool is_dir(int fd)
{
	struct stat st;

	return fd >= 0 && col_sys_fstat(fd, &st) == 0 && (uint64_t)st.st_dev == dir_dev &&
	       (uint64_t)st.st_ino == dir_ino;
}

int col_fds_dir(void)
{
	static atomic_flag busy = ATOMIC_FLAG_INIT;
	int fd = __atomic_load_n(&col_proc.dirfd, __ATOMIC_ACQUIRE);

	if (!dir_ino || is_dir(fd))
		return fd;
	/* In the helper of col_fds_aside (another process, a copy of the
	 * table): a descriptor for its own use, never kept. */
	bool helper = col_syscall(SYS_getpid) != col_proc.pid;
	if (!helper) {
		while (atomic_flag_test_and_set(&busy))
			col_syscall(SYS_sched_yield);
		fd = __atomic_load_n(&col_proc.dirfd, __ATOMIC_ACQUIRE);
		if (is_dir(fd)) {              /* another thread did it */
			atomic_flag_clear(&busy);
			return fd;
		}
	}
	int n = col_sys_openat(AT_FDCWD, col_proc.dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC, 0);
	int rc = n < 0 ? -errno : n;
	if (n >= 0 && !is_dir(n)) {
		col_sys_close(n);
		rc = -ESTALE;
	} else if (n >= 0 && !helper) {
		col_fd_forget(fd);             /* the program's now: left alone */
		rc = col_fd_keep(n, &col_proc.dirfd, NULL);
		col_count_sigsafe(EXP_CTR_FDS_REPLACED, 1);
	}
	if (!helper)
		atomic_flag_clear(&busy);
	return rc;
}

bool col_fds_lean(void)
{
	return atomic_load_explicit(&lean, memory_order_relaxed);
}

struct aside {
	int (*fn)(void *arg);
	void *arg;
	int rc;
};

/* The helper: run the work; if it found no number free, close the first
 * descriptor that is the program's (in the helper's own copy of the table)
 * and run it again. */
static int aside_main(void *p)
{
	struct aside *s = p;

	s->rc = s->fn(s->arg);
	if (s->rc != -EMFILE && s->rc != -ENFILE)
		return 0;
	for (int fd = 0; fd < COL_FDS_MAX; fd++)
		if (!col_fd_ours(fd) && col_syscall(SYS_fcntl, fd, F_GETFD) >= 0) {
			col_syscall(SYS_close, fd);
			s->rc = s->fn(s->arg);
			break;
		}
	return 0;
}

/* Run main_fn(s) in a helper task cloned with `flags` (CLONE_VM and
 * CLONE_VFORK and perhaps CLONE_FILES; never CLONE_THREAD, so it has its
 * own limits) and wait for it: true if it ran.  Never under a seccomp
 * filter that may kill a clone it does not expect (unless tally record
 * probed it safe: col_real.c). */
static bool helper_run(int (*main_fn)(void *), void *s, unsigned long flags)
{
	/* The helper's stack is here: this frame outlives it (CLONE_VFORK). */
	char stack[COL_FDS_ASIDE_STACK] __attribute__((aligned(16)));
	uint64_t all = ~0ull, old;

	if (col_real_clone_forbidden() || !col_real.clone)
		return false;
	/* No signal may run a handler in the helper (it has the program's
	 * handlers and memory, but is not the program). */
	if (col_syscall(SYS_rt_sigprocmask, SIG_SETMASK, &all, &old, sizeof(all)) != 0)
		return false;
	/* glibc's clone, past our interposer (no CLONE_THREAD: it would only
	 * pass the call on); the table is resolved by now but for a first
	 * call, where the helper is done without. */
	/* The thread sleeps while its helper runs: those voluntary context
	 * switches are tally's, not the program's (col_sched.c). */
	/* A raw-clone thread shares its creator's TLS: its state is the
	 * creator's, and its switches are not (counted only for the caller). */
	struct col_thread *t = col_thread_self_sigsafe();
	if (t && t->tid != col_sys_gettid())
		t = NULL;
	struct rusage before, after;
	bool counted = t && col_syscall(SYS_getrusage, RUSAGE_THREAD, &before) == 0;
	long pid = COL_REAL(clone)(main_fn, stack + sizeof(stack), (int)flags, s);
	if (pid > 0)       /* exit signal 0: reaped here, never seen by the program's wait() */
		col_syscall(SYS_wait4, pid, NULL, __WCLONE, NULL);
	if (counted && col_syscall(SYS_getrusage, RUSAGE_THREAD, &after) == 0 && after.ru_nvcsw > before.ru_nvcsw)
		t->collector_switches += (uint64_t)(after.ru_nvcsw - before.ru_nvcsw);
	col_syscall(SYS_rt_sigprocmask, SIG_SETMASK, &old, NULL, sizeof(old));
	return pid > 0;
}

int col_fds_aside(int (*fn)(void *arg), void *arg, bool needed)
{
	struct aside s = { fn, arg, COL_FDS_NO_HELPER };
	int saved = errno;

	/* A single thread: none can open a file while this one is here (and a
	 * clone costs ~40 us of CPU, an open ~3); the descriptor is lost as
	 * such, not the program, where no helper may be cloned. */
	if (!needed && !atomic_load_explicit(&col_proc.threaded, memory_order_relaxed))
		return COL_FDS_NO_HELPER;
	if (!helper_run(aside_main, &s, CLONE_VM | CLONE_VFORK))
		s.rc = COL_FDS_NO_HELPER;
	errno = saved;
	return s.rc;
}

/* Populate the pages of [p, p + len): one system call, where touching them
 * is a page fault each (12-17 us in a VM).  Nothing lost if it fails. */
static void populate(void *p, size_t len)
{
	uintptr_t lo = (uintptr_t)p & ~(uintptr_t)4095, hi = ((uintptr_t)p + len + 4095) & ~(uintptr_t)4095;

	col_syscall(SYS_madvise, lo, hi - lo, MADV_POPULATE_WRITE);
}

void col_fds_prefault(void)
{
	struct rlimit rl;
	int first = high_start();

	if (col_syscall(SYS_prlimit64, 0, RLIMIT_NOFILE, NULL, &rl) == 0 && rl.rlim_cur < rl.rlim_max &&
	    rl.rlim_cur < COL_FDS_MAX - COL_FDS_ABOVE)
		first = (int)rl.rlim_cur;       /* dup_above's */
	if (first < 0 || first >= COL_FDS_MAX - 64)
		return;
	populate(&where_of[first], 64 * sizeof(where_of[0]));
	populate(&users_of[first], 64 * sizeof(users_of[0]));
}

void col_fds_tables(uintptr_t *lo, uintptr_t *hi)
{
	uintptr_t a = (uintptr_t)where_of, b = (uintptr_t)users_of;

	*lo = a < b ? a : b;
	*hi = (a < b ? b + sizeof(users_of) : a + sizeof(where_of));
}

int col_fds_use(int (*fn)(void *arg), void *arg)
{
	int rc = col_fds_aside(fn, arg, false);

	if (rc != COL_FDS_NO_HELPER)
		return rc;             /* the helper already tried with one to spare */
	rc = fn(arg);
	if (rc == -EMFILE || rc == -ENFILE) {
		int again = col_fds_aside(fn, arg, true);
		if (again != COL_FDS_NO_HELPER)
			rc = again;
	}
	return rc;
}

struct shared_map {
	const char *path;
	uint64_t off;
	size_t len;
	void *p;
};

/* Raw system calls only (col_fds_aside).  0 or -errno. */
static int map_shared(void *arg)
{
	struct shared_map *m = arg;
	int fd = col_sys_openat(AT_FDCWD, m->path, O_RDWR | O_CLOEXEC, 0);

	if (fd < 0)
		return -errno;
	/* Bytes the file does not hold would be a SIGBUS at their first
	 * touch (a counters.dat whose first write failed). */
	struct stat st;
	if (col_sys_fstat(fd, &st) != 0 || (uint64_t)st.st_size < m->off + m->len) {
		col_sys_close(fd);
		return -EINVAL;
	}
	void *p = col_sys_mmap(NULL, m->len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, (off_t)m->off);
	int rc = p == MAP_FAILED ? -errno : 0;
	col_sys_close(fd);
	m->p = rc ? NULL : p;
	return rc;
}

void *col_fds_map_shared_here(const char *path, uint64_t off, size_t len, int *error)
{
	struct shared_map m = { path, off, len, NULL };
	int rc = map_shared(&m);

	*error = rc < 0 ? -rc : 0;
	return rc < 0 ? NULL : m.p;
}

void *col_fds_map_shared(const char *path, uint64_t off, size_t len, int *error)
{
	struct shared_map m = { path, off, len, NULL };
	int rc = col_fds_use(map_shared, &m);

	*error = rc < 0 ? -rc : 0;
	return rc < 0 ? NULL : m.p;
}

struct read_each {
	const char *path;
	char *buf;
	size_t len;
	int (*chunk)(void *arg, const char *buf, size_t n);
	void *arg;
};

/* Raw system calls only (col_fds_aside).  0 or -errno. */
static int read_each(void *p)
{
	struct read_each *r = p;
	int fd = col_sys_openat(AT_FDCWD, r->path, O_RDONLY | O_NONBLOCK | O_CLOEXEC, 0);
	ssize_t n;
	int rc = 0;

	if (fd < 0)
		return -errno;
	while ((n = col_sys_read(fd, r->buf, r->len)) > 0 && (rc = r->chunk(r->arg, r->buf, (size_t)n)) == 0)
		;
	if (n < 0 && rc == 0)
		rc = -errno;
	col_sys_close(fd);
	return rc < 0 ? rc : 0;
}

int col_fds_read_each(const char *path, char *buf, size_t len, int (*chunk)(void *arg, const char *buf, size_t n),
		      void *arg)
{
	struct read_each r = { path, buf, len, chunk, arg };

	return col_fds_use(read_each, &r);
}

struct read_whole {
	const char *path;
	char *buf;
	size_t len, got;
};

/* Raw system calls only (col_fds_aside).  0 or -errno. */
static int read_whole(void *p)
{
	struct read_whole *w = p;
	int fd = col_sys_openat(AT_FDCWD, w->path, O_RDONLY | O_NONBLOCK | O_CLOEXEC, 0);
	ssize_t n = 0;

	w->got = 0;
	if (fd < 0)
		return -errno;
	while (w->got + 1 < w->len && (n = col_sys_read(fd, w->buf + w->got, w->len - 1 - w->got)) > 0)
		w->got += (size_t)n;
	int rc = n < 0 ? -errno : 0;
	col_sys_close(fd);
	return rc;
}

ssize_t col_fds_read(const char *path, char *buf, size_t len)
{
	struct read_whole w = { path, buf, len, 0 };

	if (len == 0)
		return -EINVAL;
	int rc = col_fds_use(read_whole, &w);
	buf[rc < 0 ? 0 : w.got] = 0;
	return rc < 0 ? rc : (ssize_t)w.got;
}
