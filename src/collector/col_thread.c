/* SPDX-License-Identifier: MIT
 *
 * col_thread.c — per-thread collector state, and following thread creation.
 *
 * Every thread the target creates with pthread_create (either symbol version:
 * our unversioned definition binds to pthread_create@GLIBC_2.2.5 and @2.34)
 * starts in thread_start below, which sets up the thread's state and clock
 * before calling the target's start routine, and tears them down when the
 * routine returns or the thread calls pthread_exit (a cleanup handler).  The
 * state lives in its own mmap'd pages, published through an initial-exec TLS
 * pointer that the signal handler reads.
 */
#include <pthread.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <time.h>

#include "collector/col_internal.h"
#include "collector/col_objects.h"
#include "collector/col_sys.h"

static __thread struct col_thread *self __attribute__((tls_model("initial-exec")));
static __thread int attaching __attribute__((tls_model("initial-exec")));
static _Atomic int entry_caller_logged;   /* per process: reset after fork */

struct col_thread *col_thread_self_sigsafe(void)
{
	return self;
}

struct col_thread *col_enter(void)
{
	struct col_thread *t = self;

	if (!t || attaching || atomic_exchange_explicit(&t->busy, 1, memory_order_acquire))
		return NULL;
	return t;
}

void col_leave(struct col_thread *t)
{
	atomic_store_explicit(&t->busy, 0, memory_order_release);
}

int col_write_sigsafe(struct col_thread *t, enum exp_file_kind file, uint32_t type,
		      const void *rec, uint32_t len)
{
	if (exp_record_append_sigsafe(&col_proc.file[file], &t->cursor[file], type, rec, len) == 0)
		return 0;
	col_count_sigsafe(file == EXP_FILE_SAMPLES ? EXP_CTR_LOST_BUFFER : EXP_CTR_LOST_EVENTS, 1);
	return -1;
}

static uint64_t thread_cputime_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static void stack_bounds(struct col_thread *t)
{
	pthread_attr_t attr;
	void *addr;
	size_t size;

	if (pthread_getattr_np(pthread_self(), &attr) != 0)
		return;
	if (pthread_attr_getstack(&attr, &addr, &size) == 0) {
		t->unwind.stack_lo = (uint64_t)(uintptr_t)addr;
		t->unwind.stack_hi = (uint64_t)(uintptr_t)addr + size;
	}
	pthread_attr_destroy(&attr);
}

struct col_thread *col_thread_attach(uint64_t start_routine, pid_t creator)
{
	if (self || !col_proc.active)
		return self;
	attaching = 1;
	struct col_thread *t = mmap(NULL, sizeof(*t), PROT_READ | PROT_WRITE,
				    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (t == MAP_FAILED) {
		attaching = 0;
		return NULL;
	}
	t->tid = col_sys_gettid();
	t->perf_fd = -1;
	stack_bounds(t);

	struct exp_thread_start rec;
	memset(&rec, 0, sizeof(rec));
	rec.tid = (uint32_t)t->tid;
	rec.time_ns = col_now_ns_sigsafe();
	rec.start_routine = start_routine;
	rec.creator_tid = (uint32_t)creator;
	prctl(PR_GET_NAME, rec.name, 0, 0, 0);
	atomic_store(&t->busy, 1);
	self = t;
	attaching = 0;
	col_write_sigsafe(t, EXP_FILE_THREADS, EXP_REC_THREAD_START, &rec, sizeof(rec));
	col_clock_start(t);
	atomic_store_explicit(&t->busy, 0, memory_order_release);
	return t;
}

void col_thread_detach(void)
{
	struct col_thread *t = self;

	if (!t)
		return;
	/* A profiling signal arriving from here on finds the thread busy. */
	while (atomic_exchange(&t->busy, 1))
		;
	t->exiting = true;
	col_clock_stop(t);
	struct exp_thread_end rec = { 0, (uint32_t)t->tid, col_now_ns_sigsafe(),
				      thread_cputime_ns(), t->samples };
	col_write_sigsafe(t, EXP_FILE_THREADS, EXP_REC_THREAD_END, &rec, sizeof(rec));
	for (int i = 0; i < EXP_FILE_COUNT_; i++)
		exp_cursor_release_sigsafe(&t->cursor[i]);
	self = NULL;
	munmap(t, sizeof(*t));
}

void col_thread_reset_after_fork(void)
{
	struct col_thread *t = self;

	atomic_store(&entry_caller_logged, 0);
	if (!t)
		return;
	/* The inherited clock and blocks belong to the parent's thread and
	 * files: drop them without writing; the child attaches afresh. */
	if (t->perf_fd >= 0)
		col_sys_close(t->perf_fd);
	for (int i = 0; i < EXP_FILE_COUNT_; i++)
		exp_cursor_release_sigsafe(&t->cursor[i]);
	self = NULL;
	munmap(t, sizeof(*t));
}

/* ---- pthread_create ---------------------------------------------------- */

struct start_arg {
	void *(*fn)(void *);
	void *arg;
	pid_t creator;
	_Atomic int used;
};

#define START_POOL 256
static struct start_arg pool[START_POOL];

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
 * which the analyzer puts in the wrapper's place (arcs of -pg programs). */
static void log_entry_caller(uint64_t pc)
{
	static const char hex[] = "0123456789abcdef";
	char buf[20];
	int n = 0;

	if (atomic_exchange(&entry_caller_logged, 1))
		return;
	for (int shift = 60; shift >= 0; shift -= 4)
		if (n || (pc >> shift) & 15 || shift == 0)
			buf[n++] = hex[(pc >> shift) & 15];
	buf[n] = 0;
	col_log_sigsafe("thread.entry.caller_pc", buf);
}

static void *tally_thread_start(void *p)
{
	struct start_arg *a = p;
	void *(*fn)(void *) = a->fn;
	void *arg = a->arg;
	pid_t creator = a->creator;
	void *ret;

	atomic_store(&a->used, 0);
	col_thread_attach((uint64_t)(uintptr_t)fn, creator);
	log_entry_caller((uint64_t)(uintptr_t)__builtin_return_address(0));
	col_objects_rescan(0);        /* objects loaded behind our back (NSS, ...) */
	pthread_cleanup_push(thread_cleanup, NULL);
	ret = fn(arg);
	pthread_cleanup_pop(1);
	return ret;
}

COL_API int pthread_create(pthread_t *th, const pthread_attr_t *attr, void *(*fn)(void *), void *arg)
{
	static int (*real)(pthread_t *, const pthread_attr_t *, void *(*)(void *), void *);
	if (!real)
		real = col_real("pthread_create");
	col_ensure_init();
	struct start_arg *a = col_proc.active ? start_arg_get() : NULL;
	if (!a)
		return real(th, attr, fn, arg);
	a->fn = fn;
	a->arg = arg;
	a->creator = col_sys_gettid();
	int rc = real(th, attr, tally_thread_start, a);
	if (rc != 0)
		atomic_store(&a->used, 0);
	return rc;
}
