/* SPDX-License-Identifier: MIT
 *
 * col_interpose_thread.c — pthread_create(), interposed, so that every
 * thread the target creates is profiled from its first instruction.
 *
 * Our unversioned definition binds to pthread_create@GLIBC_2.2.5 and @2.34
 * alike, which behave alike (posix_spawn's versions do not: a limit that
 * col_interpose_spawn.c states).  The new thread starts in the wrapper below (its symbol is
 * EXP_THREAD_WRAPPER, which the analyzer hides from stacks), which sets up
 * the thread's state and clock before calling the target's start routine,
 * and tears them down when the routine returns or the thread calls
 * pthread_exit (a cleanup handler).  Called from any thread of the target.
 */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdarg.h>
#include <stdatomic.h>

#include "collector/col_clock.h"
#include "collector/col_init.h"
#include "collector/col_log.h"
#include "collector/col_mem.h"
#include "collector/col_objects.h"
#include "collector/col_real.h"
#include "collector/col_sample.h"
#include "collector/col_state.h"
#include "collector/col_sys.h"
#include "collector/col_thread.h"
#include "collector/col_time.h"
#include "format/exp_launch.h"

struct start_arg {
	void *(*fn)(void *);
	void *arg;
	pid_t creator;
	uint64_t created_ns;           /* when pthread_create was called */
	_Atomic int used;
};

#define START_POOL 256
static struct start_arg pool[START_POOL];
static _Atomic pid_t entry_caller_logged_by;   /* the process that logged it */

static struct start_arg *start_arg_get(void)
{
	for (int i = 0; i < START_POOL; i++)
		if (!atomic_exchange(&pool[i].used, 1))
			return &pool[i];
	struct start_arg *a = col_alloc(sizeof(*a));   /* pool exhausted: rare */
	if (a)
		atomic_store(&a->used, 1);
	return a;
}

static void thread_cleanup(void *unused)
{
	(void)unused;
	col_thread_detach();
}

/* Where the thread library calls a start routine: the caller of our wrapper,
 * which the analyzer puts in the wrapper's place (arcs of -pg programs).
 * Once per process. */
static void log_entry_caller(uint64_t pc)
{
	char buf[20];

	if (atomic_exchange(&entry_caller_logged_by, col_proc.pid) == col_proc.pid)
		return;
	col_fmt_x64_sigsafe(buf, pc);
	col_log_sigsafe("thread.entry.caller_pc", buf);
}

static void *thread_wrapper(void *p) __asm__(EXP_THREAD_WRAPPER);
static void *thread_wrapper(void *p)
{
	struct start_arg *a = p;
	void *(*fn)(void *) = a->fn;
	void *arg = a->arg;
	pid_t creator = a->creator;
	uint64_t created_ns = a->created_ns;
	void *ret;

	atomic_store(&a->used, 0);
	struct col_thread *t = col_thread_attach((uint64_t)(uintptr_t)fn, creator);
	if (t)
		t->created_ns = created_ns;
	log_entry_caller((uint64_t)(uintptr_t)__builtin_return_address(0));
	col_objects_rescan(0);        /* objects loaded behind our back (NSS, ...) */
	pthread_cleanup_push(thread_cleanup, NULL);
	col_thread_routine_starts();
	ret = fn(arg);
	pthread_cleanup_pop(1);
	return ret;
}

COL_API int pthread_create(pthread_t *th, const pthread_attr_t *attr, void *(*fn)(void *), void *arg)
{
	int (*real)(pthread_t *, const pthread_attr_t *, void *(*)(void *), void *) =
		col_real_table()->pthread_create;

	col_ensure_init();
	struct start_arg *a = col_proc.active ? start_arg_get() : NULL;
	if (!a)
		return real(th, attr, fn, arg);
	a->fn = fn;
	a->arg = arg;
	a->creator = col_sys_gettid();
	a->created_ns = col_now_ns_sigsafe();
	/* From here another thread may open files: the collector's one-use
	 * descriptors go aside (col_fds_aside).  Said before the thread runs,
	 * not by the thread itself (col_thread.c live_add): the creator's
	 * next sample may create a record file while the new thread opens
	 * (fdatexit blocked: samples.dat made in place at number 3 in 2 of 5
	 * straced runs, the new thread's opens elsewhere meanwhile). */
	atomic_store(&col_proc.threaded, true);
	int rc = real(th, attr, thread_wrapper, a);
	if (rc != 0)
		atomic_store(&a->used, 0);
	int saved_errno = errno;
	col_sample_catch_up();
	errno = saved_errno;
	return rc;
}

/* glibc's clone(), interposed: a thread it makes (CLONE_THREAD) passes no
 * pthread_create, and its creator loses its clock's progress to each such
 * child that exits (col_clock.c, col_clock_keep_apart_sigsafe).  The
 * creator is kept apart at its first such clone, before any loss; the
 * collector otherwise waits for a sample to show the loss, and a creator
 * that took none was never found (rawclone loop 15000: no sample at all
 * in 3 of 8 runs at load 3).  pthread_create does not come here: glibc
 * calls its own internal clone.  The arguments after `arg` are passed on
 * as glibc's clone reads them, whatever the flags. */
COL_API int clone(int (*fn)(void *), void *stack, int flags, void *arg, ...)
{
	va_list ap;

	va_start(ap, arg);
	pid_t *parent_tid = va_arg(ap, pid_t *);
	void *tls = va_arg(ap, void *);
	pid_t *child_tid = va_arg(ap, pid_t *);
	va_end(ap);
	/* Resolved already but for a first call (col_fds_aside's helpers
	 * come here too, from the signal handler). */
	const struct col_real *r = col_real.clone ? &col_real : col_real_table();
	if (!r || !r->clone) {
		errno = ENOSYS;
		return -1;
	}
	if ((flags & CLONE_THREAD) && col_proc.active) {
		int saved_errno = errno;
		atomic_store(&col_proc.threaded, true);
		col_clock_keep_apart_sigsafe(col_sys_gettid());
		errno = saved_errno;
	}
	return r->clone(fn, stack, flags, arg, parent_tid, tls, child_tid);
}
