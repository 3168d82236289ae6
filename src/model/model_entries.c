/* SPDX-License-Identifier: MIT
 *
 * model_entries.c — aggregation: each event's value goes to its entry, its
 * process, its thread and the total (model_build_int.h lists the files).
 *
 * An event's entry is looked up by (stack id, epoch): the epoch counts the
 * load-object map changes before the event, so a stack whose pcs were a
 * plugin at one time and another plugin at the same address later becomes
 * two entries.  A new (stack, epoch) is made into an entry once, by
 * model_entry_new (below: model_java.c or model_frames.c); an OpenMP worker's entry is then placed
 * by time (model_omp.c).
 */
#include <stdlib.h>
#include <string.h>

#include "format/exp_thread_lives.h"
#include "model/model_build_int.h"

/* A sample adds two metrics to one entry: the second is looked up here. */
static long remember(struct proc_ctx *c, uint64_t key, long e)
{
	c->last_key = key;
	c->last_entry = e;
	return e;
}

/* The entry of stack_id: a JVM's stack through model_java.c's views, any
 * other (or what the JVM's leaves as native) by the frame rules. */
long model_entry_new(struct build *b, struct proc_ctx *c, uint32_t stack_id, unsigned op,
		     uint64_t time_ns, const struct model_options *o)
{
	uint64_t pcs[EXP_MAX_FRAMES];
	uint16_t sflags = 0;
	int got = exp_stack_frames(c->p, stack_id, pcs, EXP_MAX_FRAMES, &sflags);
	uint32_t n = got > 0 ? (uint32_t)got : 0, nj = 0;

	/* The kernel's frames, leaf side (kernel.dat); not in a JVM's stacks
	 * (whose Java frames are tagged pcs of the same upper half). */
	uint32_t nk = 0;
	while ((sflags & EXP_STACK_KERNEL) && nk < n && pcs[nk] >= EXP_KERNEL_ADDR_MIN)
		nk++;
	if (nk && (o->no_kernel || c->jvm || nk == n)) {
		memmove(pcs, pcs + nk, (n - nk) * sizeof(*pcs));
		n -= nk;
		nk = 0;
	}
	if (nk)
		return model_entry_native(b, c, pcs, n, sflags, got < 0, op, time_ns, o);

	while (nj < n && EXP_JAVA_IS_FRAME(pcs[nj]))
		nj++;
	if (c->jvm && !op) {
		long e = model_java_entry(b, c, pcs, n, nj, sflags, time_ns, o);
		if (e != -2)
			return e;
	}
	return model_entry_native(b, c, pcs + nj, n - nj, sflags, got < 0, op, time_ns, o);
}

/* The entry for an event with this stack at this time, with MPI function
 * `op` as its leaf if op > 0; -1 if out of memory. */
/* The key of c->entry_of for an event with this stack, MPI function and time. */
static uint64_t entry_key(const struct proc_ctx *c, uint32_t stack_id, unsigned op, uint64_t time_ns)
{
	return ((uint64_t)stack_id << 32 | (uint64_t)model_epoch_of(c, time_ns) << 8 | op) + 1;
}

static long entry_for_op(struct build *b, struct proc_ctx *c, uint32_t stack_id, unsigned op,
			 uint64_t time_ns, const struct model_options *o)
{
	uint64_t key = entry_key(c, stack_id, op, time_ns);
	bool inserted;

	if (key == c->last_key)
		return c->last_entry;
	uint64_t *v = model_map_put(&c->entry_of, key, 0, &inserted);
	if (!v)
		return -1;
	if (!inserted)
		return remember(c, key, (long)*v - 1);
	long e = model_entry_new(b, c, stack_id, op, time_ns, o);
	/* A JVM's entry may be an older one with the same frames (merged already). */
	if (e >= 0 && o->merge_procs && b->m->entries[e].proc != MODEL_PROC_MERGED)
		e = model_entry_merge(b, e);
	v = model_map_get(&c->entry_of, key);
	*v = (uint64_t)(e + 1);
	return e < 0 ? e : remember(c, key, e);
}

/* The memo of stack_id at time_ns: its entry for the epoch of time_ns, made
 * on first use; NULL if out of memory or the stack id is not the
 * process's (then model_entry_for's map answers). */
static struct stack_memo *memo_of(struct build *b, struct proc_ctx *c, uint32_t stack_id,
				  uint64_t time_ns, const struct model_options *o)
{
	if (stack_id >= c->p->nstacks)
		return NULL;
	if (!c->memo && !(c->memo = calloc(c->p->nstacks, sizeof(*c->memo))))
		return NULL;
	struct stack_memo *sm = &c->memo[stack_id];
	uint32_t epoch = (uint32_t)model_epoch_of(c, time_ns);
	if (sm->entry && sm->epoch == epoch)
		return sm;
	long e = entry_for_op(b, c, stack_id, 0, time_ns, o);
	if (e < 0)
		return NULL;
	const struct model_entry *en = &b->m->entries[e];
	sm->entry = (uint32_t)e + 1;
	sm->epoch = epoch;
	sm->flags = (en->flags & MODEL_ENTRY_FILTERED) |
		    (en->omp == MODEL_OMP_WORKER ? STACK_MEMO_WORKER : 0);
	return sm;
}

long model_entry_for(struct build *b, struct proc_ctx *c, uint32_t stack_id, uint64_t time_ns,
		     const struct model_options *o)
{
	const struct stack_memo *sm = memo_of(b, c, stack_id, time_ns, o);

	return sm ? (long)sm->entry - 1 : entry_for_op(b, c, stack_id, 0, time_ns, o);
}

/* A new thread of the model for tid in c's process, its life `src` (NULL:
 * none recorded); NULL without memory. */
static struct model_thread *new_thread(struct build *b, struct proc_ctx *c, uint32_t tid,
				       const struct exp_thread_ev *src)
{
	struct model *m = b->m;

	if (exp_grow(&m->threads, &b->cap_threads, m->nthreads, sizeof(*m->threads)))
		return NULL;
	struct model_thread *t = &m->threads[m->nthreads++];
	memset(t, 0, sizeof(*t));
	t->proc = c->index;
	t->tid = tid;
	t->src = src;
	if (src && src->start_routine) {
		struct frame fr;
		model_frame_resolve(b, c, src->start_routine, false, src->start_ns, &fr);
		t->routine = fr.func;
	}
	return t;
}

struct model_thread *model_thread_of_life(struct build *b, struct proc_ctx *c, size_t life)
{
	const struct exp_thread_ev *src = &c->p->threads[life];
	struct model *m = b->m;
	bool inserted;

	uint64_t *v = model_map_put(&c->thread_of, (uint64_t)src->tid + 1, 0, &inserted);
	if (!v)
		return NULL;
	uint32_t last = inserted ? 0 : (uint32_t)*v;      /* the tid's last life so far: index + 1 */
	while (last && m->threads[last - 1].next_life)
		last = m->threads[last - 1].next_life;
	struct model_thread *t = new_thread(b, c, src->tid, src);
	if (!t)
		return NULL;
	uint32_t index = (uint32_t)(t - m->threads);
	if (last) {
		m->threads[last - 1].next_life = index + 1;
		t->life = m->threads[last - 1].life + 1;
	}
	else
		*model_map_get(&c->thread_of, (uint64_t)src->tid + 1) = index + 1;
	return t;
}

struct model_thread *model_thread_for(struct build *b, struct proc_ctx *c, uint32_t tid, uint64_t at)
{
	struct model *m = b->m;
	bool inserted;

	if (c->last_tid == tid + 1)
		return &m->threads[c->last_thread];
	uint64_t *v = model_map_put(&c->thread_of, (uint64_t)tid + 1, 0, &inserted);
	if (!v)
		return NULL;
	if (inserted) {            /* a thread that left no record of its own */
		struct model_thread *t = new_thread(b, c, tid, exp_thread_life(c->p, tid, at));
		if (!t)
			return NULL;
		*model_map_get(&c->thread_of, (uint64_t)tid + 1) = (uint64_t)(t - m->threads) + 1;
		return t;
	}
	struct model_thread *first = &m->threads[*v - 1];
	if (!first->next_life) {   /* one life: remembered for the next look-up */
		c->last_tid = tid + 1;
		c->last_thread = (uint32_t)*v - 1;
		return first;
	}
	/* A reused id: the life that had started by `at`, else the first
	 * (exp_thread_lives.h's rule, on the id's own lives: no search of
	 * every thread per sample). */
	struct model_thread *best = NULL, *earliest = first;
	for (struct model_thread *t = first;; t = &m->threads[t->next_life - 1]) {
		uint64_t start = t->src ? t->src->start_ns : 0;
		if (start < (earliest->src ? earliest->src->start_ns : 0))
			earliest = t;
		if (start <= at && (!best || start >= (best->src ? best->src->start_ns : 0)))
			best = t;
		if (!t->next_life)
			return best ? best : earliest;
	}
}

bool model_keep(const struct proc_ctx *c, const struct model_options *o, uint32_t tid, uint64_t t)
{
	if (o->ntids) {
		bool found = false;
		for (size_t i = 0; i < o->ntids && !found; i++)
			found = o->tids[i] == tid;
		if (!found)
			return false;
	}
	if (o->has_time) {
		uint64_t rel = t > c->base_ns ? t - c->base_ns : 0;
		if (rel < o->from_ns || rel >= o->to_ns)
			return false;
	}
	return true;
}

static int add_at(struct build *b, struct proc_ctx *c, const struct model_options *o, uint32_t tid,
		  uint64_t t, long e, enum model_metric mm, uint64_t value, long *entry_out)
{
	struct model *m = b->m;
	struct model_thread *th = model_thread_for(b, c, tid, t);

	if (e < 0 || !th)
		return -1;
	if (entry_out)
		*entry_out = e;
	if (m->entries[e].flags & MODEL_ENTRY_FILTERED)
		return 0;
	if (model_entry_add_value(m, &m->entries[e], mm, value))
		return -1;
	m->procs[c->index].v[mm] += value;
	if (mm == MODEL_CPU && (m->entries[e].flags & MODEL_ENTRY_IN_MPI))
		m->procs[c->index].cpu_in_mpi += value;
	m->total[mm] += value;
	m->present |= 1u << mm;
	th->v[mm] += value;
	if (!th->first_ns || t < th->first_ns)
		th->first_ns = t;
	if (t > th->last_ns)
		th->last_ns = t;
	if (o->keep_events && mm != MODEL_SAMPLES) {     /* a sample's event is its cpu's */
		if (exp_grow(&m->events, &b->cap_events, m->nevents, sizeof(*m->events)))
			return -1;
		/* a rank's on rank 0's clock; the thread's first and last stay on its own */
		m->events[m->nevents++] = (struct model_event){
			model_clock_align(&m->procs[c->index].clock, t), value, (uint32_t)(th - m->threads), (uint32_t)e, (uint32_t)mm };
	}
	return 0;
}

static int add(struct build *b, struct proc_ctx *c, const struct model_options *o, uint32_t tid,
	       uint64_t t, uint32_t stack_id, unsigned op, enum model_metric mm, uint64_t value,
	       long *entry_out)
{
	long e = model_omp_place(b, c, entry_for_op(b, c, stack_id, op, t, o), t);

	return add_at(b, c, o, tid, t, e, mm, value, entry_out);
}

int model_add_entry(struct build *b, struct proc_ctx *c, const struct model_options *o, uint32_t tid,
		    uint64_t t, long e, enum model_metric mm, uint64_t value)
{
	return add_at(b, c, o, tid, t, e, mm, value, NULL);
}

/* Samples ahead of the one counted whose memo (MEMO_AHEAD) and sums
 * (ACC_AHEAD) are prefetched, or for a stack not seen yet its slot in
 * c->entry_of: each is indexed by stack or entry, anywhere in arrays of a
 * call-heavy experiment's hundreds of thousands of stacks, a cache miss. */
#define MEMO_AHEAD 16
#define ACC_AHEAD 8

int model_samples_reserve(struct build *b, struct proc_ctx *c, const struct model_options *o)
{
	const struct exp_proc *p = c->p;
	struct model *m = b->m;
	size_t distinct = 0;

	if (!p->nsamples || !p->nstacks)
		return 0;
	if (!c->memo && !(c->memo = calloc(p->nstacks, sizeof(*c->memo))))
		return -1;
	for (size_t i = 0; i < p->nsamples; i++) {
		uint32_t id = p->samples[i].stack_id;
		if (i + MEMO_AHEAD < p->nsamples && p->samples[i + MEMO_AHEAD].stack_id < p->nstacks)
			exp_prefetch(&c->memo[p->samples[i + MEMO_AHEAD].stack_id]);
		if (id < p->nstacks && !(c->memo[id].flags & STACK_MEMO_SEEN)) {
			c->memo[id].flags |= STACK_MEMO_SEEN;
			distinct++;
		}
	}
	if (model_map_reserve(&c->entry_of, distinct))
		return -1;
	/* each sample kept is an event (model_add_sample) */
	if (o->keep_events && m->nevents + p->nsamples > b->cap_events) {
		size_t cap = m->nevents + p->nsamples;
		struct model_event *ev = exp_big_realloc(m->events, m->nevents * sizeof(*ev), cap * sizeof(*ev));
		if (!ev)
			return -1;
		m->events = ev;
		b->cap_events = cap;
	}
	size_t want = m->nentries + distinct + 64;
	if (want <= b->cap_entries)
		return 0;
	if (want < 2 * b->cap_entries)
		want = 2 * b->cap_entries;
	struct model_entry *e = realloc(m->entries, want * sizeof(*e));
	if (!e)
		return -1;
	m->entries = e;
	b->cap_entries = want;
	return 0;
}

/* Room in b->acc for entry e; 0, or -1 if out of memory. */
static int acc_room(struct build *b, size_t e)
{
	if (e < b->cap_acc)
		return 0;
	size_t cap = b->cap_acc ? b->cap_acc : 1024;
	while (cap <= e)
		cap *= 2;
	struct sample_acc *a = realloc(b->acc, cap * sizeof(*a));
	if (!a)
		return -1;
	memset(a + b->cap_acc, 0, (cap - b->cap_acc) * sizeof(*a));
	b->acc = a;
	b->cap_acc = cap;
	return 0;
}

/* A sample is counted where model_add would count its two metrics, cpu and
 * samples, but its entry's and the process's sums wait for
 * model_samples_flush: per sample, one memo look-up and one 16-byte sum. */
int model_add_sample(struct build *b, struct proc_ctx *c, const struct model_options *o,
		     const struct exp_sample *s)
{
	struct model *m = b->m;

	if (!model_keep(c, o, s->tid, s->time_ns) ||
	    (c->data_filter && !model_map_get(&c->data_keep, model_data_sample_key(s->tid, s->time_ns))))
		return 0;
	const struct stack_memo *sm = memo_of(b, c, s->stack_id, s->time_ns, o);
	long e = sm ? (long)sm->entry - 1 : entry_for_op(b, c, s->stack_id, 0, s->time_ns, o);
	bool filtered;
	if (e >= 0 && (!sm || (sm->flags & STACK_MEMO_WORKER))) {
		e = model_omp_place(b, c, e, s->time_ns);
		filtered = e >= 0 && (m->entries[e].flags & MODEL_ENTRY_FILTERED);
	} else {
		filtered = sm && (sm->flags & MODEL_ENTRY_FILTERED);
	}
	struct model_thread *th = model_thread_for(b, c, s->tid, s->time_ns);
	if (e < 0 || !th)
		return -1;
	m->samples++;
	th->samples++;
	if (filtered)
		return 0;
	if (acc_room(b, (size_t)e))
		return -1;
	struct sample_acc *a = &b->acc[e];
	if (!a->samples) {
		if (exp_grow(&b->touched, &b->cap_touched, b->ntouched, sizeof(*b->touched)))
			return -1;
		b->touched[b->ntouched++] = (uint32_t)e;
	}
	a->cpu_ns += s->weight_ns;
	a->samples++;
	th->v[MODEL_CPU] += s->weight_ns;
	th->v[MODEL_SAMPLES]++;
	if (!th->first_ns || s->time_ns < th->first_ns)
		th->first_ns = s->time_ns;
	if (s->time_ns > th->last_ns)
		th->last_ns = s->time_ns;
	if (o->keep_events) {              /* a sample's event is its cpu's */
		if (exp_grow(&m->events, &b->cap_events, m->nevents, sizeof(*m->events)))
			return -1;
		/* a rank's on rank 0's clock, as add_at's */
		m->events[m->nevents++] = (struct model_event){
			model_clock_align(&m->procs[c->index].clock, s->time_ns), s->weight_ns,
			(uint32_t)(th - m->threads), (uint32_t)e, MODEL_CPU };
	}
	return 0;
}

int model_add_samples(struct build *b, struct proc_ctx *c, const struct model_options *o)
{
	const struct exp_proc *p = c->p;

	for (size_t i = 0; i < p->nsamples; i++) {
		if (c->memo && i + MEMO_AHEAD < p->nsamples &&
		    p->samples[i + MEMO_AHEAD].stack_id < p->nstacks)
			exp_prefetch(&c->memo[p->samples[i + MEMO_AHEAD].stack_id]);
		if (c->memo && i + ACC_AHEAD < p->nsamples &&
		    p->samples[i + ACC_AHEAD].stack_id < p->nstacks) {
			const struct exp_sample *s = &p->samples[i + ACC_AHEAD];
			uint32_t e = c->memo[s->stack_id].entry;
			if (e && e - 1 < b->cap_acc)
				exp_prefetch(&b->acc[e - 1]);
			else if (!e)    /* a new stack: its entry_of slot */
				model_map_prefetch(&c->entry_of, entry_key(c, s->stack_id, 0, s->time_ns));
		}
		if (model_add_sample(b, c, o, &p->samples[i]))
			return -1;
	}
	return 0;
}

int model_samples_flush(struct build *b, struct proc_ctx *c)
{
	struct model *m = b->m;
	struct model_proc *mp = &m->procs[c->index];

	for (size_t i = 0; i < b->ntouched; i++) {
		struct sample_acc *a = &b->acc[b->touched[i]];
		struct model_entry *e = &m->entries[b->touched[i]];
		if (model_entry_add_value(m, e, MODEL_CPU, a->cpu_ns) ||
		    model_entry_add_value(m, e, MODEL_SAMPLES, a->samples))
			return -1;
		mp->v[MODEL_CPU] += a->cpu_ns;
		mp->v[MODEL_SAMPLES] += a->samples;
		if (e->flags & MODEL_ENTRY_IN_MPI)
			mp->cpu_in_mpi += a->cpu_ns;
		m->total[MODEL_CPU] += a->cpu_ns;
		m->total[MODEL_SAMPLES] += a->samples;
		m->java.samples[e->java] += a->samples;
		m->java.cpu_ns[e->java] += a->cpu_ns;
		*a = (struct sample_acc){ 0, 0 };
	}
	if (b->ntouched)
		m->present |= 1u << MODEL_CPU | 1u << MODEL_SAMPLES;
	b->ntouched = 0;
	return 0;
}

int model_add(struct build *b, struct proc_ctx *c, const struct model_options *o, uint32_t tid,
	      uint64_t t, uint32_t stack_id, enum model_metric mm, uint64_t value, long *entry_out)
{
	return add(b, c, o, tid, t, stack_id, 0, mm, value, entry_out);
}

int model_add_mpi(struct build *b, struct proc_ctx *c, const struct model_options *o, uint32_t tid,
		  uint64_t t, uint32_t stack_id, unsigned op, enum model_metric mm, uint64_t value)
{
	return add(b, c, o, tid, t, stack_id, op, mm, value, NULL);
}
