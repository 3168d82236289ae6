/* SPDX-License-Identifier: MIT
 *
 * col_state.c — the process's and the threads' collector state (see
 * col_state.h).  Sigsafe file: read by the signal handler.
 */
#include <sys/mman.h>

#include "collector/col_state.h"
#include "collector/col_sys.h"

struct col_process col_proc = { .dirfd = -1, .log_fd = -1, .rank = -1 };

__thread struct col_thread *col_self_tls __attribute__((tls_model("initial-exec")));
__thread bool col_attaching_tls __attribute__((tls_model("initial-exec")));
static __thread bool ended __attribute__((tls_model("initial-exec")));

void col_count_sigsafe(enum exp_counter c, uint64_t n)
{
	_Atomic uint64_t *ctr = col_proc.counters;

	if (ctr)
		atomic_fetch_add_explicit(&ctr[c], n, memory_order_relaxed);
}

struct col_thread *col_thread_self_sigsafe(void)
{
	return col_self_tls;
}

void col_thread_set_self(struct col_thread *t)
{
	col_self_tls = t;
}

void col_thread_set_ended(void)
{
	ended = true;
}

bool col_thread_ended_sigsafe(void)
{
	return ended;
}

void col_thread_set_attaching(bool on)
{
	col_attaching_tls = on;
}

struct col_thread *col_thread_new_sigsafe(pid_t tid)
{
	struct col_thread *t = col_sys_mmap(NULL, sizeof(*t), PROT_READ | PROT_WRITE,
					    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (t == MAP_FAILED)
		return NULL;
	t->tid = tid;
	t->perf_fd = -1;
	t->live_slot = -1;
	return t;
}

bool col_in_vfork_child(void)
{
	struct col_thread *t = col_self_tls;

	return t && atomic_load_explicit(&t->vfork_child, memory_order_relaxed);
}

static void (*_Atomic deferred_fn)(struct col_thread *t);

void col_on_deferred(void (*fn)(struct col_thread *t))
{
	atomic_store(&deferred_fn, fn);
}

struct col_thread *col_enter_attached(struct col_thread *t)
{
	/* Attached: restored if it was taken already (by an outer col_enter,
	 * which marked it too, or by a signal handler). */
	int was = atomic_load_explicit(&t->entered, memory_order_relaxed);
	atomic_store_explicit(&t->entered, 1, memory_order_relaxed);
	if (atomic_exchange_explicit(&t->busy, 1, memory_order_acquire)) {
		atomic_store_explicit(&t->entered, was, memory_order_relaxed);
		return NULL;
	}
	return t;
}

void col_leave_deferred(struct col_thread *t)
{
	void (*fn)(struct col_thread *) = atomic_load(&deferred_fn);

	if (fn)
		fn(t);
}

void col_leave_untaken(struct col_thread *t)
{
	atomic_store_explicit(&t->deferred, 0, memory_order_relaxed);
	atomic_signal_fence(memory_order_seq_cst);
	atomic_store_explicit(&t->busy, 0, memory_order_release);
	atomic_store_explicit(&t->entered, 0, memory_order_relaxed);
}

void col_cost_outside(struct col_thread *t, uint64_t ns)
{
	if (!t)
		return;
	t->collector_ns += ns;
	t->pending_ns += ns;
	col_count_sigsafe(EXP_CTR_COLLECTOR_NS, ns);
}
