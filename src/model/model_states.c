/* SPDX-License-Identifier: MIT
 *
 * model_states.c — thread states (`tally record --states`): where each
 * thread's wall-clock time went, by state and call stack.  Called once per
 * process by model_build.c.
 *
 *   - CPU: each clock sample's weight is split into cpu.user and
 *     cpu.system by the thread's CPU_SPLIT records: the samples of a window
 *     between two splits share its system fraction (the kernel's tick-based
 *     split, made exact in total by its scaling to the precise run time);
 *   - off the CPU: each STATE interval is wait.cpu for its runnable part and,
 *     for the rest, wait.lock, wait.io, wait.sleep or wait.stopped by what
 *     it blocked in: the functions of its stack, from the leaf out (a futex
 *     wait inside pthread_mutex_lock is a lock, read() on a pipe I/O,
 *     nanosleep a sleep); a blocked interval whose stack names no such
 *     function is a sleep when it left in a system call, I/O when it left
 *     in user code and the thread's page faults grew (a fault that blocked:
 *     its I/O, a page being read), else stopped (SIGSTOP or a debugger
 *     stops a thread on its way back to user code);
 *   - wall is their sum, at the same stacks;
 *   - an interval that began inside the collector's own handler
 *     (EXP_STATE_COLLECTOR: its record write waited for the disk) is
 *     tally's time, not the program's: left out, summed in
 *     states_collector_ns for the overview.
 * An interval recorded without a stack of its own (the ring way,
 * docs/states.md) is shown at <Unknown> and counted a sleep when the thread
 * blocked; a preemption takes the stack of the thread's next clock sample.
 */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "format/exp_thread_lives.h"
#include "model/model_build_int.h"

enum reason { R_UNKNOWN, R_LOCK, R_IO, R_SLEEP, R_STOPPED };

/* Functions a thread blocks in, by what it waits for: glibc's names, with
 * leading underscores, "libc_", "GI_" and a trailing "64" taken off. */
static const struct {
	const char *name;
	enum reason r;
} blocking[] = {
	{ "pthread_mutex_lock", R_LOCK }, { "pthread_mutex_timedlock", R_LOCK },
	{ "pthread_mutex_clocklock", R_LOCK }, { "pthread_rwlock_rdlock", R_LOCK },
	{ "pthread_rwlock_wrlock", R_LOCK }, { "pthread_rwlock_timedrdlock", R_LOCK },
	{ "pthread_rwlock_timedwrlock", R_LOCK }, { "pthread_rwlock_clockrdlock", R_LOCK },
	{ "pthread_rwlock_clockwrlock", R_LOCK }, { "pthread_cond_wait", R_LOCK },
	{ "pthread_cond_timedwait", R_LOCK }, { "pthread_cond_clockwait", R_LOCK },
	{ "pthread_barrier_wait", R_LOCK }, { "pthread_join", R_LOCK },
	{ "pthread_timedjoin_np", R_LOCK }, { "pthread_clockjoin_np", R_LOCK },
	{ "sem_wait", R_LOCK }, { "sem_timedwait", R_LOCK }, { "sem_clockwait", R_LOCK },
	{ "new_sem_wait", R_LOCK }, { "lll_lock_wait", R_LOCK }, { "lll_lock_wait_private", R_LOCK },
	{ "flockfile", R_LOCK }, { "futex_wait", R_LOCK }, { "futex_abstimed_wait_common", R_LOCK },
	{ "futex_abstimed_wait", R_LOCK }, { "futex_abstimed_wait_cancelable", R_LOCK },
	{ "flock", R_LOCK }, { "lockf", R_LOCK }, { "mtx_lock", R_LOCK }, { "mtx_timedlock", R_LOCK },
	{ "cnd_wait", R_LOCK }, { "cnd_timedwait", R_LOCK }, { "thrd_join", R_LOCK },
	{ "read", R_IO }, { "pread", R_IO }, { "readv", R_IO }, { "preadv", R_IO }, { "preadv2", R_IO },
	{ "write", R_IO }, { "pwrite", R_IO }, { "writev", R_IO }, { "pwritev", R_IO },
	{ "pwritev2", R_IO }, { "recv", R_IO }, { "recvfrom", R_IO }, { "recvmsg", R_IO },
	{ "recvmmsg", R_IO }, { "send", R_IO }, { "sendto", R_IO }, { "sendmsg", R_IO },
	{ "sendmmsg", R_IO }, { "poll", R_IO }, { "ppoll", R_IO }, { "select", R_IO },
	{ "pselect", R_IO }, { "pselect6", R_IO }, { "epoll_wait", R_IO }, { "epoll_pwait", R_IO },
	{ "epoll_pwait2", R_IO }, { "accept", R_IO }, { "accept4", R_IO }, { "connect", R_IO },
	{ "open", R_IO }, { "openat", R_IO }, { "open_nocancel", R_IO }, { "close", R_IO },
	{ "fsync", R_IO }, { "fdatasync", R_IO }, { "sync", R_IO }, { "syncfs", R_IO },
	{ "sync_file_range", R_IO }, { "msync", R_IO }, { "sendfile", R_IO },
	{ "splice", R_IO }, { "tee", R_IO }, { "copy_file_range", R_IO }, { "io_getevents", R_IO },
	{ "io_uring_enter", R_IO }, { "getdents", R_IO }, { "read_nocancel", R_IO },
	{ "write_nocancel", R_IO }, { "ioctl", R_IO }, { "fcntl", R_IO },
	{ "nanosleep", R_SLEEP }, { "clock_nanosleep", R_SLEEP }, { "clock_nanosleep_time64", R_SLEEP },
	{ "usleep", R_SLEEP }, { "sleep", R_SLEEP }, { "pause", R_SLEEP }, { "sigsuspend", R_SLEEP },
	{ "sigwait", R_SLEEP }, { "sigwaitinfo", R_SLEEP }, { "sigtimedwait", R_SLEEP },
	{ "wait", R_SLEEP }, { "waitpid", R_SLEEP }, { "wait3", R_SLEEP }, { "wait4", R_SLEEP },
	{ "waitid", R_SLEEP }, { "system", R_SLEEP }, { "msgrcv", R_SLEEP }, { "semop", R_SLEEP },
	{ "semtimedop", R_SLEEP },
};

/* What a function of this name waits for, if it is a blocking one. */
static enum reason reason_of_name(const char *name)
{
	char base[64];
	size_t n;

	while (*name == '_')
		name++;
	if (!strncmp(name, "libc_", 5) || !strncmp(name, "GI_", 3))
		name = strchr(name, '_') + 1;
	while (*name == '_')
		name++;
	n = strcspn(name, "(.@");           /* arguments, .part.0 clones, @plt, @@GLIBC */
	if (n == 0 || n >= sizeof(base))
		return R_UNKNOWN;
	memcpy(base, name, n);
	base[n] = 0;
	if (n > 2 && !strcmp(base + n - 2, "64"))
		base[n - 2] = 0;
	for (size_t i = 0; i < sizeof(blocking) / sizeof(blocking[0]); i++)
		if (!strcmp(base, blocking[i].name))
			return blocking[i].r;
	return R_UNKNOWN;
}

/* What the stack of entry `e` blocked in: its innermost blocking function
 * of user code (the kernel's frames above it, kernel.dat's chain at the
 * switch, do not change the reason: the same names mean other things
 * there). */
static enum reason reason_of_entry(const struct model *m, const struct model_entry *e)
{
	for (uint32_t i = e->n; i-- > 0;) {
		const struct model_func *f = &m->funcs[e->funcs[i]];
		if (f->object && !strcmp(f->object, MODEL_KERNEL_OBJECT))
			continue;
		enum reason r = reason_of_name(f->name);
		if (r != R_UNKNOWN)
			return r;
	}
	return R_UNKNOWN;
}

/* A thread's life's CPU splits and clock samples, each sorted by time (a
 * reused id has several lives, exp_thread_lives.h). */
struct by_thread {
	uint32_t tid;
	const struct exp_cpu_split **splits;
	size_t nsplits;
	const struct exp_sample **samples;
	size_t nsamples;
	uint64_t weights, off;            /* its samples' CPU, its intervals' length */
	double scale;                     /* of its samples' CPU in the states (below) */
};

struct ctx {
	const struct exp_proc *p;
	struct by_thread *threads;        /* life k of p->threads at k, then ids without one */
	size_t nthreads;
	const struct exp_cpu_split **split_pool;
	const struct exp_sample **sample_pool;
	uint8_t *reason;                  /* per entry: enum reason + 1, 0 not yet known */
	size_t nreason;
};

static int cmp_split(const void *a, const void *b)
{
	const struct exp_cpu_split *x = *(const struct exp_cpu_split *const *)a;
	const struct exp_cpu_split *y = *(const struct exp_cpu_split *const *)b;

	if (x->tid != y->tid)
		return x->tid < y->tid ? -1 : 1;
	return x->time_ns < y->time_ns ? -1 : x->time_ns > y->time_ns;
}

static int cmp_sample(const void *a, const void *b)
{
	const struct exp_sample *x = *(const struct exp_sample *const *)a;
	const struct exp_sample *y = *(const struct exp_sample *const *)b;

	if (x->tid != y->tid)
		return x->tid < y->tid ? -1 : 1;
	return x->time_ns < y->time_ns ? -1 : x->time_ns > y->time_ns;
}

/* Thread tid's life at `at`, NULL if none yet. */
static struct by_thread *thread_of(struct ctx *x, uint32_t tid, uint64_t at)
{
	const struct exp_thread_ev *life = exp_thread_life(x->p, tid, at);

	if (life)
		return &x->threads[life - x->p->threads];
	for (size_t i = x->p->nthreads; i < x->nthreads; i++)
		if (x->threads[i].tid == tid)
			return &x->threads[i];
	return NULL;
}

/* The thread of `tid` at `at`, added if new (room was made for every one). */
static struct by_thread *thread_add(struct ctx *x, uint32_t tid, uint64_t at)
{
	struct by_thread *t = thread_of(x, tid, at);

	if (!t) {
		t = &x->threads[x->nthreads++];
		t->tid = tid;
		t->scale = 1;
	}
	return t;
}

/* The scale of a thread's samples in the states.  The switch records are
 * exact about when the thread was off a CPU; its task clock also runs
 * through part of the kernel's switching work on each side of a switch
 * (perf's own bookkeeping, a few microseconds in a VM), which the records
 * count as off.  So that the states add up to the thread's lifetime, the
 * samples' CPU is scaled to the time the records leave on the CPU when it
 * is more; the difference is in model.switch_overhead_ns. */
static void scale_threads(struct ctx *x, const struct exp_proc *p)
{
	for (size_t i = 0; i < x->nthreads; i++) {
		struct by_thread *t = &x->threads[i];
		uint64_t life = 0;           /* this life's (an id without one: none) */
		if (i < p->nthreads) {
			uint64_t start = p->threads[i].start_ns;
			uint64_t end = p->threads[i].end_ns ? p->threads[i].end_ns : p->end_ns;
			if (start && end > start)
				life = end - start;
		}
		if (!t->off || !t->weights || life <= t->off)
			continue;
		double on = (double)(life - t->off);
		if (on < (double)t->weights)
			t->scale = on / (double)t->weights;
	}
}

/* Index the process's splits and samples by thread.  0 or -1. */
static int index_threads(struct ctx *x, const struct exp_proc *p)
{
	x->split_pool = malloc((p->nsplits + 1) * sizeof(*x->split_pool));
	x->sample_pool = malloc((p->nsamples + 1) * sizeof(*x->sample_pool));
	x->threads = calloc(p->nthreads + p->nsplits + p->nsamples + p->nstates + 1, sizeof(*x->threads));
	if (!x->split_pool || !x->sample_pool || !x->threads)
		return -1;
	x->p = p;
	for (size_t k = 0; k < p->nthreads; k++)
		x->threads[k] = (struct by_thread){ .tid = p->threads[k].tid, .scale = 1 };
	x->nthreads = p->nthreads;
	for (size_t i = 0; i < p->nsplits; i++)
		x->split_pool[i] = &p->splits[i];
	for (size_t i = 0; i < p->nsamples; i++)
		x->sample_pool[i] = &p->samples[i];
	qsort(x->split_pool, p->nsplits, sizeof(*x->split_pool), cmp_split);
	qsort(x->sample_pool, p->nsamples, sizeof(*x->sample_pool), cmp_sample);
	for (size_t i = 0; i < p->nsplits; i++) {
		struct by_thread *t = thread_add(x, x->split_pool[i]->tid, x->split_pool[i]->time_ns);
		if (!t->splits)
			t->splits = &x->split_pool[i];
		t->nsplits++;
	}
	for (size_t i = 0; i < p->nsamples; i++) {
		struct by_thread *t = thread_add(x, x->sample_pool[i]->tid, x->sample_pool[i]->time_ns);
		if (!t->samples)
			t->samples = &x->sample_pool[i];
		t->nsamples++;
		t->weights += x->sample_pool[i]->weight_ns;
	}
	for (size_t i = 0; i < p->nstates; i++)
		thread_add(x, p->states[i].tid, p->states[i].off_ns)->off += p->states[i].on_ns - p->states[i].off_ns;
	scale_threads(x, p);
	return 0;
}

/* The first of the n records (sorted by time) at or after `time`.  Both
 * kinds indexed here have their time_ns at offset 8. */
static size_t first_at(const void *const *recs, size_t n, uint64_t time)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		uint64_t t;
		memcpy(&t, (const char *)recs[mid] + 8, sizeof(t));
		if (t < time)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* The system share of a sample at `time` of thread t, in [0, 1]: its
 * window's, from the split written with it (or the next) and the one
 * before.  0 if the thread has no splits. */
static double system_share(const struct by_thread *t, uint64_t time)
{
	if (!t || !t->nsplits)
		return 0;
	size_t k = first_at((const void *const *)t->splits, t->nsplits, time);
	if (k == t->nsplits)
		k--;
	const struct exp_cpu_split *s = t->splits[k];
	uint64_t u0 = 0, s0 = 0;
	if (k > 0) {
		u0 = t->splits[k - 1]->user_ns;
		s0 = t->splits[k - 1]->system_ns;
	}
	uint64_t du = s->user_ns > u0 ? s->user_ns - u0 : 0, ds = s->system_ns > s0 ? s->system_ns - s0 : 0;
	return du + ds ? (double)ds / (double)(du + ds) : 0;
}

/* model_add, and the thread's time in this state at this stack. */
static int add(struct build *b, struct proc_ctx *c, const struct model_options *o, uint32_t tid,
	       uint64_t t, uint32_t stack, enum model_metric mm, uint64_t value, long *entry_out)
{
	struct model *m = b->m;
	long e;
	bool inserted;

	if (model_add(b, c, o, tid, t, stack, mm, value, &e))
		return -1;
	if (entry_out)
		*entry_out = e;
	if (!value)
		return 0;
	uint64_t thread = (uint64_t)(model_thread_for(b, c, tid, t) - m->threads);
	uint64_t key = (thread + 1) << 36 | (uint64_t)(mm - MODEL_WALL) << 32 | (uint64_t)e;
	uint64_t *v = model_map_put(&b->state_stack_of, key, 0, &inserted);
	if (!v)
		return -1;
	if (inserted) {
		if (exp_grow(&m->state_stacks, &b->cap_state_stacks, m->nstate_stacks, sizeof(*m->state_stacks)))
			return -1;
		m->state_stacks[m->nstate_stacks] = (struct model_state_stack){ (uint32_t)thread, (uint32_t)e, mm, 0 };
		*v = ++m->nstate_stacks;
	}
	m->state_stacks[*v - 1].ns += value;
	return 0;
}

static int add_cpu(struct build *b, struct proc_ctx *c, const struct model_options *o, struct ctx *x)
{
	const struct exp_proc *p = c->p;

	for (size_t i = 0; i < p->nsamples; i++) {
		const struct exp_sample *s = &p->samples[i];
		if (!model_keep(c, o, s->tid, s->time_ns))
			continue;
		const struct by_thread *t = thread_of(x, s->tid, s->time_ns);
		uint64_t w = (uint64_t)((double)s->weight_ns * t->scale + 0.5);
		uint64_t sys = (uint64_t)(system_share(t, s->time_ns) * (double)w + 0.5);
		if (w > s->weight_ns)
			w = s->weight_ns;
		if (sys > w)
			sys = w;
		b->m->switch_overhead_ns += s->weight_ns - w;
		if (add(b, c, o, s->tid, s->time_ns, s->stack_id, MODEL_WALL, w, NULL) ||
		    add(b, c, o, s->tid, s->time_ns, s->stack_id, MODEL_CPU_USER, w - sys, NULL) ||
		    add(b, c, o, s->tid, s->time_ns, s->stack_id, MODEL_CPU_SYSTEM, sys, NULL))
			return -1;
	}
	return 0;
}

/* The stack an interval is shown at: its own; without one (the ring way),
 * a preemption's is the thread's next sample's (preemptions strike where
 * the CPU time goes, as samples do), a block's is unknown (0). */
static uint32_t stack_of(const struct exp_state *st, struct ctx *x)
{
	if (st->stack_id || !(st->flags & EXP_STATE_NO_STACK) || !(st->flags & EXP_STATE_PREEMPTED))
		return st->stack_id;
	const struct by_thread *t = thread_of(x, st->tid, st->off_ns);
	if (!t->nsamples)
		return 0;
	size_t k = first_at((const void *const *)t->samples, t->nsamples, st->on_ns);
	return t->samples[k < t->nsamples ? k : t->nsamples - 1]->stack_id;
}

static enum model_metric blocked_metric(struct build *b, struct ctx *x, long e, const struct exp_state *st)
{
	struct model *m = b->m;
	enum reason r = R_UNKNOWN;

	if (!(st->flags & EXP_STATE_NO_STACK)) {
		if ((size_t)e >= x->nreason) {
			size_t n = m->nentries + 64;
			uint8_t *grown = realloc(x->reason, n);
			if (grown) {
				memset(grown + x->nreason, 0, n - x->nreason);
				x->reason = grown;
				x->nreason = n;
			}
		}
		if ((size_t)e < x->nreason) {
			if (!x->reason[e])
				x->reason[e] = (uint8_t)(reason_of_entry(m, &m->entries[e]) + 1);
			r = (enum reason)(x->reason[e] - 1);
		} else {
			r = reason_of_entry(m, &m->entries[e]);
		}
		if (r == R_UNKNOWN)
			r = st->flags & EXP_STATE_SYSCALL ? R_SLEEP : st->flags & EXP_STATE_FAULTED ? R_IO : R_STOPPED;
	}
	return r == R_LOCK ? MODEL_WAIT_LOCK : r == R_IO ? MODEL_WAIT_IO : r == R_STOPPED ? MODEL_WAIT_STOPPED
											 : MODEL_WAIT_SLEEP;
}

static int add_states(struct build *b, struct proc_ctx *c, const struct model_options *o, struct ctx *x)
{
	const struct exp_proc *p = c->p;

	for (size_t i = 0; i < p->nstates; i++) {
		const struct exp_state *st = &p->states[i];
		if (!model_keep(c, o, st->tid, st->off_ns))
			continue;
		if (st->flags & EXP_STATE_COLLECTOR) {
			/* tally's own (a record write that waited for the disk):
			 * not the program's, said in the overview */
			b->m->states_collector_ns += st->on_ns - st->off_ns;
			continue;
		}
		uint32_t stack = stack_of(st, x);
		uint64_t len = st->on_ns - st->off_ns, unknown = b->m->unknown_stacks;
		long e;
		/* Each part at its end: the blocked part ends at the wake-up, the
		 * runnable part at the switch-in (views over time draw an event as
		 * the `value` ns before its time). */
		if (add(b, c, o, st->tid, st->on_ns, stack, MODEL_WALL, len, &e) ||
		    add(b, c, o, st->tid, st->on_ns - st->runnable_ns, stack, blocked_metric(b, x, e, st),
			len - st->runnable_ns, NULL) ||
		    add(b, c, o, st->tid, st->on_ns, stack, MODEL_WAIT_CPU, st->runnable_ns, NULL))
			return -1;
		if (!stack)
			b->m->unknown_stacks = unknown;    /* not a missing record: none was taken */
	}
	return 0;
}

int model_build_states(struct build *b, struct proc_ctx *c, const struct model_options *o)
{
	const struct exp_proc *p = c->p;
	struct ctx x = { 0 };
	int rc = -1;

	if (!p->nstates && !p->nsplits)
		return 0;
	if (index_threads(&x, p) == 0 && add_cpu(b, c, o, &x) == 0)
		rc = add_states(b, c, o, &x);
	free(x.threads);
	free(x.split_pool);
	free(x.sample_pool);
	free(x.reason);
	return rc;
}
