/* SPDX-License-Identifier: MIT
 *
 * model_critical.c — the critical path across threads and processes
 * (`tally report --critical-path`, from a run recorded with -s): the chain
 * of work that determined the root process's wall time.  model_build.c
 * calls model_critical_plan once per experiment, before its processes are
 * built: the walk, over the records of all of them (a symbol space is
 * per process, and freed once it is built), gives a plan of pieces (a
 * running stretch, or a wait's part at the wait's stack); then
 * model_build_critical, once per process after model_blame.c, charges that
 * process its pieces, in the walk's order, into model.crit.
 *
 * Walked backwards from the end of the root's main thread.  On thread T at time
 * t, the latest wait of T granted before t (model_critical_waits.c: sync
 * waits, and reads of pipes, FIFOs, sockets and eventfds, each with the
 * thread that ended it) ends a running segment (grant, t] of T; then the
 * path goes to the waiter's waker at the wake-up (a join's thread at its
 * end, a mutex's holder at the grant, a condition variable's or
 * semaphore's signaller at its signal, a barrier's last arrival at its
 * arrival, the writer a read waited for at its write, the reader a write
 * into a full channel waited for at its read), the time from the wake-up to the grant being the
 * wait's (but a joined thread's end that read its schedstat aside kept the
 * joiner waiting for tally until that read: <collector: thread end>); a wait without a known waker stays on the waiter, as time of the
 * waiting function.  The waker may be in another process of the
 * experiment (a channel's other end, a child reaped: model_critical_waits.c).
 * Before T's first such wait, the path goes back to T's creator at T's
 * start; a process's main thread, to the image before its exec or to its
 * parent at the fork (the thread that forked).  So the segments tile the root's main thread's lifetime:
 * the path's total is its wall time.  Processes that outlive it are
 * counted (model.crit_outlived), not walked.
 *
 * A running segment's parts off the CPU (--states: blocked in a call -s
 * does not trace, asleep, preempted) are on the path at the stack where T
 * left the CPU, as waiting; the rest is shared among the stacks of T's
 * clock samples in it, by their weight: each function on a stack gets it once
 * (inclusive), its leaf exclusive too; <Total> gets every segment; a
 * segment without a sample is <not sampled>.
 *
 * Without --states what was off the CPU is not known: a sample's weight is
 * the CPU T used since its previous sample, and the wall time between may
 * be T preempted (running, as the program sees it) or asleep in a call no
 * tracer sees.  Shared as above, one sample in a mostly sleeping segment
 * took all of it.  So a segment's samples get at most their CPU (and one
 * period more, the tail after the last) times T's stretch, the rest is
 * <not sampled>.  T's stretch is twice its own ratio of running wall time
 * (its life less its recorded waits) to its sampled CPU, how far the
 * machine's load stretched its running (twice: a segment may have been
 * loaded more than the average), but at most CRIT_STRETCH_MAX times the
 * process's (the ratio of the thread at the middle of the process's
 * sampled CPU): a thread that mostly sleeps in calls no tracer sees has a
 * ratio far above the others', and is cut to that.  What it cannot know: a
 * thread that sleeps as much as it runs keeps a stretch within that bound,
 * and its sleep goes to its samples; a segment whose running was stretched
 * more than twice its thread's average loses the excess to <not sampled>.
 *
 * A thread whose schedstat was read at its end (THREAD_SCHED: its CPU
 * and its wait for a CPU, the kernel's), or that never slept (THREAD_SWITCHES:
 * no voluntary context switch, so its running wall time was all CPU and
 * waiting for one; the collector reads schedstat for a short thread only
 * if it slept) needs no guess: its stretch is
 * exactly its ratio of CPU and run delay to its sampled CPU, so its
 * samples stand for what it ran or waited to run, and the rest of its
 * segments, off the CPU, is <off CPU> (waiting: asleep or blocked in a
 * call no tracer sees; where is --states').  A segment whose wait for a
 * CPU was above the thread's average loses the excess to <off CPU> too,
 * but <off CPU> takes at most the thread's own time off the CPU, its life
 * less its CPU, its wait for a CPU and its recorded waits (a thread that
 * never sleeps loses nothing to it, however uneven its load).
 *
 * What it cannot know: waits below the -s threshold are not records
 * (their time counts as running), nor reads without -i; a wait in poll or
 * epoll_wait names no waker.  --thread and --time do not apply.
 */
#include <stdlib.h>
#include <string.h>

#include "format/exp_thread_lives.h"
#include "model/model_build_int.h"

struct walk {
	struct build *b;
	struct proc_ctx *c;
	const struct model_options *o;
	const struct crit_wait *waits;   /* the process's, by (tid, grant) */
	size_t nwaits;
	size_t *samples;           /* p->samples indexes by (tid, time) */
	size_t *states;            /* p->states indexes by (tid, off_ns) (--states) */
	uint32_t not_sampled;      /* the function <not sampled> */
	uint32_t off_cpu;          /* the function <off CPU> (schedstat, without --states) */
	uint32_t tally_end;        /* the function <collector: thread end> */
	double stretch;            /* without --states: the process's (see the top;
	                              0: share all, as with --states) */
	struct tstretch *tstretch; /* ... each thread's, by index in p->threads */
};

#define CRIT_STRETCH_MAX 4.0       /* a thread's stretch, at most this times the process's */

/* The index in p->threads of thread tid's life at `at` (a reused id has
 * several, exp_thread_lives.h), p->nthreads if none. */
static size_t life_index(const struct exp_proc *p, uint32_t tid, uint64_t at)
{
	const struct exp_thread_ev *t = exp_thread_life(p, tid, at);

	return t ? (size_t)(t - p->threads) : p->nthreads;
}

/* Is `at` within life k of p (its end 0: not known)? */
static bool in_life(const struct exp_proc *p, size_t k, uint32_t tid, uint64_t at)
{
	if (k >= p->nthreads)
		return false;
	const struct exp_thread_ev *t = &p->threads[k];
	return t->tid == tid && at >= t->start_ns && (!t->end_ns || at <= t->end_ns);
}

/* A thread's ratio of running wall time to sampled CPU. */
struct tstretch {
	double ratio;
	uint64_t cpu;
	double sched;              /* (CPU + run delay) / sampled CPU, from THREAD_SCHED; 0: none */
	uint64_t off_left;         /* ... and what <off CPU> may still take of it: its life
	                              less its CPU, run delay and recorded waits */
};
static double stretch_at(struct walk *w, uint32_t tid, uint64_t at, struct tstretch **sched);

static int cmp_state(const void *a, const void *b, void *arg)
{
	const struct exp_state *s = arg;
	const struct exp_state *x = &s[*(const size_t *)a], *y = &s[*(const size_t *)b];

	if (x->tid != y->tid)
		return x->tid < y->tid ? -1 : 1;
	return x->off_ns < y->off_ns ? -1 : x->off_ns > y->off_ns;
}

static int cmp_sample(const void *a, const void *b, void *arg)
{
	const struct exp_sample *s = arg;
	const struct exp_sample *x = &s[*(const size_t *)a], *y = &s[*(const size_t *)b];

	if (x->tid != y->tid)
		return x->tid < y->tid ? -1 : 1;
	return x->time_ns < y->time_ns ? -1 : x->time_ns > y->time_ns;
}

/* Add ns to function f's row: inclusive, and exclusive if `leaf`; waiting
 * if `wait`. */
static int crit_row(struct build *b, uint32_t f, uint64_t ns, bool leaf, bool wait)
{
	struct model *m = b->m;
	size_t i;

	for (i = 0; i < m->ncrit && m->crit[i].func != f; i++)
		;
	if (i == m->ncrit) {
		if (exp_grow(&m->crit, &b->cap_crit, m->ncrit, sizeof(*m->crit)))
			return -1;
		memset(&m->crit[i], 0, sizeof(m->crit[i]));
		m->crit[i].func = f;
		m->ncrit++;
	}
	m->crit[i].ns += ns;
	if (leaf)
		m->crit[i].excl_ns += ns;
	if (wait)
		m->crit[i].wait_ns += ns;
	return 0;
}

/* Add ns of the stack of entry e (-1: of function f alone) to the path:
 * <Total>, each function on it once (inclusive), its leaf (exclusive). */
static int crit_add(struct build *b, long e, uint32_t f, uint64_t ns, bool wait)
{
	const struct model_entry *x = e >= 0 ? &b->m->entries[e] : NULL;

	b->m->crit_path_ns += ns;
	if (crit_row(b, MODEL_TOTAL, ns, false, wait))
		return -1;
	if (!x || !x->n)
		return crit_row(b, x ? b->unknown : f, ns, true, wait);
	for (uint32_t k = 0; k < x->n; k++) {
		bool seen = false;
		for (uint32_t j = k + 1; j < x->n && !seen; j++)
			seen = x->funcs[j] == x->funcs[k];
		if (!seen && crit_row(b, x->funcs[k], ns, k == x->n - 1, wait))
			return -1;
	}
	return 0;
}

/* A stretch of the path on thread tid, for the timeline: joined to the
 * previous one when they meet on one thread. */
static int crit_seg(struct walk *w, uint32_t tid, uint64_t from, uint64_t to, bool wait)
{
	struct model *m = w->b->m;

	if (to <= from)
		return 0;
	if (m->ncrit_segs) {
		struct model_crit_seg *l = &m->crit_segs[m->ncrit_segs - 1];
		if (l->proc == w->c->index && l->tid == tid && l->wait == wait && l->start_ns == to) {
			l->start_ns = from;
			return 0;
		}
	}
	if (exp_grow(&m->crit_segs, &w->b->cap_crit_segs, m->ncrit_segs, sizeof(*m->crit_segs)))
		return -1;
	m->crit_segs[m->ncrit_segs++] = (struct model_crit_seg){ w->c->index, tid, from, to, wait, 0 };
	return 0;
}

/* First index in the sorted array idx[0..n) whose record (tid, time) is
 * after (tid, t): time_of gives a record's time. */
static size_t after(const size_t *idx, size_t n, uint32_t tid, uint64_t t, const void *recs, size_t size)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		const char *r = (const char *)recs + idx[mid] * size;
		uint32_t rtid;
		uint64_t rt;
		memcpy(&rtid, r + 4, 4);
		memcpy(&rt, r + 8, 8);
		if (rtid < tid || (rtid == tid && rt <= t))
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* The parts of (a, e] thread tid spent off the CPU (--states: blocked in
 * a call -s does not trace, sleeping, preempted) on the path at the stack
 * where it left the CPU, as waiting; their total.  (uint64_t)-1 if out of
 * memory. */
static uint64_t off_cpu(struct walk *w, uint32_t tid, uint64_t a, uint64_t e)
{
	const struct exp_proc *p = w->c->p;
	uint64_t sum = 0;

	if (!w->states)
		return 0;
	/* a thread's intervals do not overlap: by off_ns, their ends ascend */
	for (size_t k = after(w->states, p->nstates, tid, e, p->states, sizeof(*p->states)); k > 0; k--) {
		const struct exp_state *s = &p->states[w->states[k - 1]];
		if (s->tid != tid || s->on_ns <= a)
			break;
		uint64_t from = s->off_ns > a ? s->off_ns : a, to = s->on_ns < e ? s->on_ns : e;
		if (to <= from)
			continue;
		long en = s->stack_id ? model_entry_for(w->b, w->c, s->stack_id, s->off_ns, w->o) : -1;
		if (s->stack_id && en < 0)
			return (uint64_t)-1;
		if (crit_add(w->b, en, w->not_sampled, to - from, true))
			return (uint64_t)-1;
		sum += to - from;
	}
	return sum;
}

/* Without --states, of `on` (a running segment's time less its parts off
 * the CPU) what its samples cannot stand for: more than their CPU (`cpu`
 * ns, the last sample's `last`: the tail after it) stretched as the
 * thread's running was (stretch_at).  That goes to <off CPU> for a thread
 * with schedstat (at most what it was off the CPU, its off_left), else to
 * <not sampled>.  Returns what went, or (uint64_t)-1 if out of memory. */
static uint64_t beyond_samples(struct walk *w, uint32_t tid, uint64_t at, uint64_t on, uint64_t cpu,
			       uint64_t last)
{
	struct tstretch *sched = NULL;
	double k = w->stretch ? stretch_at(w, tid, at, &sched) : 0;
	/* the kernel's ratio holds the tail after a thread's last sample
	 * already; a guessed one gets a period more for it */
	double most = k * (double)(sched ? cpu : cpu + last);

	if (k <= 0 || most >= (double)on)
		return 0;
	uint64_t rest = on - (uint64_t)most;
	if (sched) {                    /* at most what the thread was off the CPU */
		rest = rest < sched->off_left ? rest : sched->off_left;
		sched->off_left -= rest;
	}
	if (rest && crit_add(w->b, -1, sched ? w->off_cpu : w->not_sampled, rest, sched != NULL))
		return (uint64_t)-1;
	if (sched)   /* the timeline's stretch (running's crit_seg) holds it */
		w->b->m->crit_segs[w->b->m->ncrit_segs - 1].off_ns += rest;
	return rest;
}

/* The running segment (a, e] of thread tid: its parts off the CPU at their
 * stacks (off_cpu), what its samples cannot stand for (beyond_samples),
 * the rest shared among its samples' leaf functions. */
static int running(struct walk *w, uint32_t tid, uint64_t a, uint64_t e)
{
	const struct exp_proc *p = w->c->p;
	uint64_t total = 0;

	if (e <= a)
		return 0;
	if (crit_seg(w, tid, a, e, false))
		return -1;
	uint64_t off = off_cpu(w, tid, a, e);
	if (off == (uint64_t)-1)
		return -1;
	uint64_t on = e - a > off ? e - a - off : 0;
	if (!on)
		return 0;
	size_t from = after(w->samples, p->nsamples, tid, a, p->samples, sizeof(*p->samples));
	size_t to = after(w->samples, p->nsamples, tid, e, p->samples, sizeof(*p->samples));
	uint64_t cpu = 0;
	for (size_t i = from; i < to; i++) {
		total += p->samples[w->samples[i]].weight_ns ? p->samples[w->samples[i]].weight_ns : 1;
		cpu += p->samples[w->samples[i]].weight_ns;
	}
	if (!total)
		return crit_add(w->b, -1, w->not_sampled, on, false);
	uint64_t cut = beyond_samples(w, tid, e, on, cpu, p->samples[w->samples[to - 1]].weight_ns);
	if (cut == (uint64_t)-1)
		return -1;
	on -= cut;
	uint64_t given = 0;
	for (size_t i = from; i < to; i++) {
		const struct exp_sample *s = &p->samples[w->samples[i]];
		long en = model_entry_for(w->b, w->c, s->stack_id, s->time_ns, w->o);
		if (en < 0)
			return -1;
		uint64_t wt = s->weight_ns ? s->weight_ns : 1;
		uint64_t part = i + 1 == to ? on - given
					    : (uint64_t)((double)on * (double)wt / (double)total);
		given += part;
		if (crit_add(w->b, en, 0, part, false))
			return -1;
	}
	return 0;
}


static int cmp_tstretch(const void *a, const void *b)
{
	const struct tstretch *x = a, *y = b;

	return x->ratio < y->ratio ? -1 : x->ratio > y->ratio;
}

uint64_t model_critical_sched_busy(const struct exp_thread_ev *th)
{
	uint64_t delay = th->run_delay_ns > th->start_wait_ns ? th->run_delay_ns - th->start_wait_ns : 0;
	/* Its CPU up to its end (THREAD_END's, taken before tally's end of
	 * the thread: a schedstat read by a helper during that end has some
	 * of it), less the collector's before the end: its work after END
	 * is in neither. */
	uint64_t cpu = th->end_ns && th->cpu_ns && th->cpu_ns < th->sched_cpu_ns ? th->cpu_ns : th->sched_cpu_ns;
	uint64_t before_end = th->collector_ns > th->collector_after_end_ns
				      ? th->collector_ns - th->collector_after_end_ns : 0;
	uint64_t own = cpu > before_end ? cpu - before_end : 0;

	if (!th->sched_cpu_ns)
		return 0;
	return own + (uint64_t)((double)delay * (double)own / (double)th->sched_cpu_ns);
}

/* Without --states (see the top): each thread's stretch into w->tstretch
 * (by index in p->threads), the process's in w->stretch; both 0 when no
 * sample has a weight (an older writer).  0, or -1 out of memory. */
static int stretch_of(struct walk *w)
{
	const struct exp_proc *p = w->c->p;
	struct tstretch *t = calloc(p->nthreads + 1, sizeof(*t)), *sorted = calloc(p->nthreads + 1, sizeof(*t));
	uint64_t *waited = calloc(p->nthreads + 1, sizeof(*waited)), *last = calloc(p->nthreads + 1, sizeof(*last));
	uint64_t all = 0;
	size_t n = 0;
	int rc = -1;

	if (!t || !sorted || !waited || !last)
		goto out;
	for (size_t i = 0, k = 0; i < p->nsamples; i++) {    /* by (tid, time) */
		const struct exp_sample *s = &p->samples[w->samples[i]];
		if (!in_life(p, k, s->tid, s->time_ns))
			k = life_index(p, s->tid, s->time_ns);
		if (k >= p->nthreads)
			continue;
		t[k].cpu += s->weight_ns;
		last[k] = s->time_ns;
	}
	for (size_t i = 0; i < w->nwaits; i++) {
		size_t k = life_index(p, w->waits[i].tid, w->waits[i].req_ns);
		if (k < p->nthreads)
			waited[k] += w->waits[i].time_ns - w->waits[i].req_ns;
	}
	for (size_t k = 0; k < p->nthreads; k++) {
		const struct exp_thread_ev *th = &p->threads[k];
		uint64_t end = th->end_ns > last[k] ? th->end_ns : last[k];
		if (!t[k].cpu || end <= th->start_ns)
			continue;
		uint64_t run = end - th->start_ns > waited[k] ? end - th->start_ns - waited[k] : 0;
		t[k].ratio = (double)run / (double)t[k].cpu;
		if (t[k].ratio < 1)
			t[k].ratio = 1;
		if (th->has_sched && th->sched_cpu_ns) {
			uint64_t busy = model_critical_sched_busy(th);
			t[k].sched = (double)busy / (double)t[k].cpu;
			if (t[k].sched < 1)
				t[k].sched = 1;
			t[k].off_left = run > busy ? run - busy : 0;
			w->b->m->crit_sched_threads++;
		} else if (th->has_switches && !th->voluntary_switches) {
			/* it never slept: its running wall time was all on a
			 * CPU or waiting for one (THREAD_SWITCHES) */
			t[k].sched = t[k].ratio;
			t[k].off_left = 0;
			w->b->m->crit_sched_threads++;
		} else {
			w->b->m->crit_guess_threads++;
		}
		sorted[n++] = t[k];
		all += t[k].cpu;
	}
	w->stretch = 0;
	if (n) {
		/* the ratio of the thread at the middle of the process's CPU */
		uint64_t acc = 0;
		qsort(sorted, n, sizeof(*sorted), cmp_tstretch);
		for (size_t i = 0; i < n && !w->stretch; i++)
			if ((acc += sorted[i].cpu) * 2 >= all)
				w->stretch = sorted[i].ratio;
	}
	w->tstretch = t;
	t = NULL;
	rc = 0;
out:
	free(t);
	free(sorted);
	free(waited);
	free(last);
	return rc;
}

/* The stretch for thread tid's running (see the top): its schedstat's
 * (*sched set), else twice its own (a segment may have been loaded more
 * than the thread's average), at most CRIT_STRETCH_MAX times the
 * process's. */
static double stretch_at(struct walk *w, uint32_t tid, uint64_t at, struct tstretch **sched)
{
	size_t k = life_index(w->c->p, tid, at);

	if (k < w->c->p->nthreads && w->tstretch[k].sched > 0) {
		*sched = &w->tstretch[k];
		return w->tstretch[k].sched;
	}
	double r = k < w->c->p->nthreads ? 2 * w->tstretch[k].ratio : 0;
	return r < CRIT_STRETCH_MAX * w->stretch ? r : CRIT_STRETCH_MAX * w->stretch;
}

/* Process p's thread tid at `at` (a reused tid names several): the life
 * exp_thread_life gives, by binary search (a scan per path step was
 * quadratic in threads); NULL if none or no p. */
static const struct exp_thread_ev *thread_of(const struct exp_proc *p, uint32_t tid, uint64_t at)
{
	return p ? exp_thread_life(p, tid, at) : NULL;
}

/* A piece of the path, walked over the records (plan_walk) and charged to
 * its process as that is built (model_build_critical): a running stretch
 * (from, to] of thread tid, or a wait's part, at the stack of the wait
 * (stack_id, as of time stack_ns). */
struct crit_piece {
	uint32_t proc, tid;
	uint64_t from, to;
	uint64_t stack_ns;
	uint32_t stack_id;
	bool wait;
	bool tally_end;            /* tally's end of a joined thread (<collector: thread end>) */
};

struct crit_plan {
	const struct exp_proc **procs;   /* the experiment's processes, [0] the root */
	size_t nprocs;
	size_t root;                     /* the latest image of [0]'s exec chain */
	struct crit_wait *waits;         /* by (proc, tid, grant) */
	size_t nwaits;
	size_t *first;                   /* proc j's waits: [first[j], first[j + 1]) */
	size_t *idx;                     /* 0, 1, ...: for after() */
	struct crit_piece *v;            /* the pieces, latest first */
	size_t n, cap;
	struct model_proc_index ix;      /* procs by pid, parent, lineage */
	uint32_t *mine;                  /* piece indexes by process, in the walk's order: */
	size_t *pfirst;                  /* proc j's in mine[pfirst[j] .. pfirst[j + 1]) */
	size_t next;                     /* the process model_build_critical expects next */
};

static int piece(struct crit_plan *pl, uint32_t proc, uint32_t tid, uint64_t from, uint64_t to, bool wait,
		 uint32_t stack_id, uint64_t stack_ns)
{
	if (to <= from)
		return 0;
	if (exp_grow(&pl->v, &pl->cap, pl->n, sizeof(*pl->v)))
		return -1;
	pl->v[pl->n++] = (struct crit_piece){ proc, tid, from, to, stack_ns, stack_id, wait, false };
	return 0;
}

/* The wake-up of a join (cur's wait s) from thread `next`'s end to the
 * grant, as pieces.  A thread whose end read its schedstat aside
 * (THREAD_SCHED after its END: a helper's clone, ~0.1 ms) was tally's
 * until that read's time: that part is <collector: thread end>, on the
 * joined thread, and the rest the joiner's wait.  0 or -1. */
static int join_wake(struct crit_plan *pl, uint32_t j, uint32_t jn, const struct exp_thread_ev *cur,
		     const struct crit_wait *s, const struct exp_thread_ev *next)
{
	uint64_t at = s->wake_ns, tally = at;

	if (s->kind == EXP_SYNC_JOIN && next->end_ns == at && next->has_sched && next->sched_ns > at)
		tally = next->sched_ns < s->time_ns ? next->sched_ns : s->time_ns;
	if (s->time_ns > tally && piece(pl, j, cur->tid, tally, s->time_ns, true, s->stack_id, s->time_ns))
		return -1;
	if (tally > at) {
		if (piece(pl, jn, next->tid, at, tally, true, 0, 0))
			return -1;
		pl->v[pl->n - 1].tally_end = true;
	}
	return 0;
}

/* Process j's main thread (its first of no creator), or NULL. */
static const struct exp_thread_ev *main_thread(const struct exp_proc *p)
{
	for (size_t i = 0; p && i < p->nthreads; i++)
		if (!p->threads[i].creator_tid && !p->threads[i].start_routine)
			return &p->threads[i];
	return NULL;
}

/* Who made process *j's main thread `th` (at its start): for an image
 * after an exec, the image before it (its thread of the same id); for a
 * forked child, its parent at the fork, on the thread that forked (the
 * child's fork.tid), else (an older experiment, or a child that exec'd
 * before writing anything, whose fork image is not recorded) on its main
 * thread if that lived then, else on one that did.  An image not in the
 * experiment is passed over to its parent.  *j set; NULL: none (the
 * root). */
static const struct exp_thread_ev *maker_of(struct crit_plan *pl, size_t *j, const struct exp_thread_ev *th)
{
	const char *l = pl->procs[*j]->lineage;
	size_t len = strlen(l);
	uint32_t forker = pl->procs[*j]->fork_tid;   /* only for the image's own fork */

	while (len > 0) {
		size_t cut = len;
		while (cut > 0 && l[cut - 1] != '_')
			cut--;
		if (!cut)
			return NULL;
		bool exec = l[cut] == 'x';
		if (exec || len < strlen(l))
			forker = 0;    /* not this image's fork */
		len = cut - 1;
		size_t k = model_proc_by_lineage(&pl->ix, l, len);
		if (k == pl->nprocs)
			continue;
		const struct exp_proc *p = pl->procs[k];
		const struct exp_thread_ev *t = exec ? thread_of(p, th->tid, th->start_ns)
					   : forker ? thread_of(p, forker, th->start_ns) : NULL;
		if (t && !exec && (t->start_ns > th->start_ns || (t->end_ns && t->end_ns < th->start_ns)))
			t = NULL;      /* the forker's id, but not alive then: another life of it */
		if (!t && (t = main_thread(p)) && (t->start_ns > th->start_ns || (t->end_ns && t->end_ns < th->start_ns)))
			for (size_t i = 0; i < p->nthreads; i++)
				if (p->threads[i].start_ns <= th->start_ns &&
				    (!p->threads[i].end_ns || p->threads[i].end_ns >= th->start_ns))
					t = &p->threads[i];
		*j = k;
		return t;
	}
	return NULL;
}

/* Is process j an image of the root's own exec chain: the root's pid, its
 * lineage the root's followed by `_xN` parts only. */
static bool in_root_chain(const struct crit_plan *pl, size_t j)
{
	const struct exp_proc *r = pl->procs[0], *p = pl->procs[j];

	return p->pid == r->pid && model_lineage_after(p->lineage, r->lineage, false);
}

/* The image the walk starts on: the latest of the root's exec chain (a
 * root that execs, as `sh -c 'cmd'` may, records nothing more in the image
 * before; its program runs in the image after). */
static size_t root_image(const struct crit_plan *pl)
{
	size_t root = 0;

	for (size_t j = 1; j < pl->nprocs; j++)
		if (in_root_chain(pl, j) && pl->procs[j]->start_ns > pl->procs[root]->start_ns)
			root = j;
	return root;
}

/* The end of the root image's main thread: its THREAD_END, else its
 * process's end (a process that ends by _exit, as a shell may, writes none
 * for its main thread); 0: not known. */
static uint64_t root_end(const struct crit_plan *pl)
{
	const struct exp_thread_ev *root = main_thread(pl->procs[pl->root]);

	return !root ? 0 : root->end_ns ? root->end_ns : pl->procs[pl->root]->end_ns;
}

/* The walk (see the top), over the records of the plan's processes: its
 * pieces into pl->v, latest first; unknown waits and the wall into the
 * model. */
static int plan_walk(struct build *b, struct crit_plan *pl)
{
	size_t j = pl->root, steps = 0, limit = 4 * pl->nwaits + 16;
	const struct exp_thread_ev *cur = main_thread(pl->procs[j]);

	for (size_t k = 0; k < pl->nprocs; k++)
		limit += 4 * pl->procs[k]->nthreads;
	uint64_t t = root_end(pl);

	if (!cur || t <= cur->start_ns)
		return 0;
	b->m->crit_wall_ns += t - cur->start_ns;
	while (cur && steps++ < limit) {
		size_t lo = pl->first[j], k = lo + after(pl->idx + lo, pl->first[j + 1] - lo, cur->tid, t, pl->waits,
							  sizeof(*pl->waits));
		const struct crit_wait *s = k > lo ? &pl->waits[k - 1] : NULL;
		if (s && (s->tid != cur->tid || s->time_ns <= cur->start_ns))
			s = NULL;
		if (!s) {
			if (piece(pl, (uint32_t)j, cur->tid, cur->start_ns, t, false, 0, 0))
				return -1;
			t = cur->start_ns;
			cur = cur->creator_tid ? thread_of(pl->procs[j], cur->creator_tid, cur->start_ns) : maker_of(pl, &j, cur);
			continue;
		}
		if (piece(pl, (uint32_t)j, cur->tid, s->time_ns, t, false, 0, 0))
			return -1;
		const struct exp_thread_ev *next = s->waker_tid && s->waker_proc < pl->nprocs
							   ? thread_of(pl->procs[s->waker_proc], s->waker_tid, s->wake_ns) : NULL;
		uint64_t at = s->wake_ns, req = s->req_ns;
		if (next && next->start_ns < at) {
			/* the wake-up: from the waker's end, release or signal to the grant */
			if (join_wake(pl, (uint32_t)j, s->waker_proc, cur, s, next))
				return -1;
			t = at;
			cur = next;
			j = s->waker_proc;
		} else {
			uint64_t from = req > cur->start_ns ? req : cur->start_ns;
			if (piece(pl, (uint32_t)j, cur->tid, from, s->time_ns, true, s->stack_id, s->time_ns))
				return -1;
			if (s->kind < MODEL_CRIT_KINDS)
				b->m->crit_unknown_ns[s->kind] += s->time_ns - from;
			t = from;
		}
	}
	if (steps >= limit)
		b->m->crit_cut = true;
	return 0;
}

/* The processes that ended after the root's main thread (their time after
 * it is on no path), into the model: by model_proc_end.  The root's own
 * images are the root. */
static void outlived(struct build *b, const struct crit_plan *pl)
{
	uint64_t root = root_end(pl);

	for (size_t j = 0; root && j < pl->nprocs; j++) {
		if (in_root_chain(pl, j))
			continue;
		uint64_t end = model_proc_end(pl->procs[j]);
		if (end > root) {
			b->m->crit_outlived++;
			if (end - root > b->m->crit_outlived_ns)
				b->m->crit_outlived_ns = end - root;
		}
	}
}

static int cmp_pid(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : x > y;
}

/* The processes other than the root the path went through (on[j]), by
 * pid: a child's images before and after its exec are one process. */
static uint32_t crossed(const struct crit_plan *pl, const bool *on)
{
	uint32_t *pid = malloc(pl->nprocs * sizeof(*pid)), n = 0, distinct = 0;

	if (!pid)
		return 0;
	for (size_t j = 0; j < pl->nprocs; j++)
		if (on[j] && !in_root_chain(pl, j))
			pid[n++] = pl->procs[j]->pid;
	qsort(pid, n, sizeof(*pid), cmp_pid);
	for (uint32_t i = 0; i < n; i++)
		distinct += !i || pid[i] != pid[i - 1];
	free(pid);
	return distinct;
}

/* The pieces' indexes grouped by process, each group in the walk's order
 * (a counting sort), so that building a process reads its own pieces, not
 * every process's. */
static int pieces_by_proc(struct crit_plan *pl)
{
	if (!(pl->pfirst = calloc(pl->nprocs + 1, sizeof(*pl->pfirst))) ||
	    !(pl->mine = malloc(pl->n * sizeof(*pl->mine))))
		return -1;
	for (size_t i = 0; i < pl->n; i++)
		pl->pfirst[pl->v[i].proc + 1]++;
	for (size_t j = 0; j < pl->nprocs; j++)
		pl->pfirst[j + 1] += pl->pfirst[j];
	size_t *at = malloc((pl->nprocs + 1) * sizeof(*at));
	if (!at)
		return -1;
	memcpy(at, pl->pfirst, (pl->nprocs + 1) * sizeof(*at));
	for (size_t i = 0; i < pl->n; i++)
		pl->mine[at[pl->v[i].proc]++] = (uint32_t)i;
	free(at);
	return 0;
}

void model_critical_plan_free(struct build *b)
{
	struct crit_plan *pl = b->crit_plan;

	if (!pl)
		return;
	free(pl->procs);
	free(pl->waits);
	free(pl->first);
	free(pl->idx);
	free(pl->v);
	free(pl->mine);
	free(pl->pfirst);
	model_proc_index_free(&pl->ix);
	free(pl);
	b->crit_plan = NULL;
}

int model_critical_plan(struct build *b, const struct exp_proc *const *procs, size_t n)
{
	struct crit_plan *pl;
	bool any = false;

	model_critical_plan_free(b);
	for (size_t j = 0; j < n && !any; j++)
		any = procs[j]->nsync || procs[j]->nio || procs[j]->nfdwaits;
	if (!n || !any)
		return 0;
	if (!(pl = b->crit_plan = calloc(1, sizeof(*pl))) || !(pl->procs = malloc(n * sizeof(*pl->procs))) ||
	    !(pl->first = calloc(n + 1, sizeof(*pl->first))))
		goto oom;
	memcpy(pl->procs, procs, n * sizeof(*procs));
	pl->nprocs = n;
	pl->root = root_image(pl);
	if (model_proc_index_build(&pl->ix, pl->procs, n) ||
	    model_critical_waits(procs, n, &pl->ix, &pl->waits, &pl->nwaits))
		goto oom;
	if (!pl->nwaits)
		return 0;
	if (!(pl->idx = malloc(pl->nwaits * sizeof(*pl->idx))))
		goto oom;
	for (size_t i = 0; i < pl->nwaits; i++) {
		pl->idx[i] = i;
		pl->first[pl->waits[i].proc + 1]++;
	}
	for (size_t j = 0; j < n; j++)
		pl->first[j + 1] += pl->first[j];
	if (plan_walk(b, pl))
		goto oom;
	if (!pl->n)
		return 0;
	b->m->crit_procs++;
	outlived(b, pl);
	bool *on = calloc(n, sizeof(*on));
	if (!on)
		goto oom;
	for (size_t i = 0; i < pl->n; i++)
		on[pl->v[i].proc] = true;
	b->m->crit_crossed += crossed(pl, on);
	free(on);
	if (pieces_by_proc(pl))
		goto oom;
	return 0;
oom:
	model_critical_plan_free(b);
	return -1;
}

/* Charge process c its pieces of the plan, in the walk's order. */
int model_build_critical(struct build *b, struct proc_ctx *c, const struct model_options *o)
{
	struct crit_plan *pl = b->crit_plan;
	const struct exp_proc *p = c->p;
	struct walk w = { .b = b, .c = c, .o = o };
	size_t j = pl ? pl->next : 0;
	int rc = -1;

	if (!pl || !pl->mine)
		return 0;
	if (j >= pl->nprocs || pl->procs[j] != p)   /* not in the plan's order: look */
		for (j = 0; j < pl->nprocs && pl->procs[j] != p; j++)
			;
	if (j == pl->nprocs)
		return 0;
	pl->next = j + 1;
	if (pl->pfirst[j] == pl->pfirst[j + 1])
		return 0;
	w.waits = pl->waits + pl->first[j];
	w.nwaits = pl->first[j + 1] - pl->first[j];
	w.samples = malloc((p->nsamples + 1) * sizeof(*w.samples));
	w.states = p->nstates ? malloc(p->nstates * sizeof(*w.states)) : NULL;
	if (!w.samples || (p->nstates && !w.states))
		goto out;
	for (size_t i = 0; i < p->nstates; i++)
		w.states[i] = i;
	if (p->nstates)
		qsort_r(w.states, p->nstates, sizeof(*w.states), cmp_state, p->states);
	for (size_t i = 0; i < p->nsamples; i++)
		w.samples[i] = i;
	qsort_r(w.samples, p->nsamples, sizeof(*w.samples), cmp_sample, p->samples);
	w.not_sampled = model_func_by_name(b, "<not sampled>", "", MODEL_FUNC_ARTIFICIAL);
	w.off_cpu = model_func_by_name(b, "<off CPU>", "", MODEL_FUNC_ARTIFICIAL);
	w.tally_end = model_func_by_name(b, "<collector: thread end>", "", MODEL_FUNC_ARTIFICIAL);
	if (!p->nstates && stretch_of(&w))
		goto out;
	if (w.stretch > b->m->crit_stretch)
		b->m->crit_stretch = w.stretch;
	for (size_t k = pl->pfirst[j]; k < pl->pfirst[j + 1]; k++) {
		const struct crit_piece *x = &pl->v[pl->mine[k]];
		if (x->tally_end) {   /* tally's: neither the program's run nor its wait */
			if (crit_add(b, -1, w.tally_end, x->to - x->from, false) ||
			    crit_seg(&w, x->tid, x->from, x->to, true))
				goto out;
			continue;
		}
		if (!x->wait) {
			if (running(&w, x->tid, x->from, x->to))
				goto out;
			continue;
		}
		long en = model_entry_for(b, c, x->stack_id, x->stack_ns, o);
		if (en < 0 || crit_add(b, en, 0, x->to - x->from, true) || crit_seg(&w, x->tid, x->from, x->to, true))
			goto out;
	}
	rc = 0;
out:
	free(w.samples);
	free(w.states);
	free(w.tstretch);
	return rc;
}
