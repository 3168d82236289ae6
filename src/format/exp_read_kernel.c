/* SPDX-License-Identifier: MIT
 *
 * exp_read_kernel.c — kernel.dat: its records into the founder's exp_proc,
 * then joined to the clock samples of every process (exp_read_kernel.h).
 *
 * The kernel samples come from an event of their own (cli_kernel.c), not
 * from the collector's clock: a tick in kernel mode is one record, a clock
 * sample weighs the CPU time since the thread's previous one.  So a clock
 * sample takes the kernel samples of its thread timed since that previous
 * sample, each standing for one period of kernel time; the clock's signal
 * is delivered on the return to user mode, where the collector unwinds the
 * user stack that made the system call: the kernel's chain goes above it.
 * Workload: one pass over the samples sorted by thread and time; a stack
 * per distinct (chain, user stack), found again through a hash table.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "format/exp_read_kernel.h"
#include "format/exp_records.h"

static int grow(void **v, size_t *cap, size_t need, size_t size)
{
	if (need <= *cap)
		return 0;
	size_t c = *cap ? *cap : 256;
	while (c < need)
		c *= 2;
	void *q = realloc(*v, c * size);
	if (!q)
		return -1;
	*v = q;
	*cap = c;
	return 0;
}

/* A KERNEL_SAMPLE or KERNEL_SWITCH record into *v (*nv, *cap). */
static int take_chain(struct exp_proc *p, struct exp_ksample_ev **v, size_t *nv, size_t *cap,
		      size_t *cap2, const void *rec, uint32_t len, char *cause, size_t cause_len)
{
	struct exp_kernel_sample r;

	memcpy(&r, rec, sizeof(r));
	if (r.nframes == 0 || r.nframes > EXP_KERNEL_MAX_FRAMES ||
	    sizeof(r) + 8u * r.nframes > len) {
		snprintf(cause, cause_len, "kernel sample with %u frames in %u bytes (at most %d)",
			 r.nframes, len, EXP_KERNEL_MAX_FRAMES);
		return 1;
	}
	if (grow((void **)v, cap, *nv + 1, sizeof(**v)) ||
	    grow((void **)&p->kpcs, cap2, p->nkpcs + r.nframes, sizeof(*p->kpcs)))
		return -1;
	memcpy(p->kpcs + p->nkpcs, (const char *)rec + sizeof(r), 8u * r.nframes);
	(*v)[(*nv)++] = (struct exp_ksample_ev){
		.pid = r.pid, .tid = r.tid, .time_ns = r.time_ns, .pcs = p->nkpcs, .n = r.nframes,
	};
	p->nkpcs += r.nframes;
	return 0;
}

int exp_take_kernel_sample(struct exp_proc *p, size_t *cap, size_t *cap2, const void *rec,
			   uint32_t len, char *cause, size_t cause_len)
{
	return take_chain(p, &p->ksamples, &p->nksamples, cap, cap2, rec, len, cause, cause_len);
}

int exp_take_kernel_switch(struct exp_proc *p, size_t *cap, size_t *cap2, const void *rec,
			   uint32_t len, char *cause, size_t cause_len)
{
	return take_chain(p, &p->kswitches, &p->nkswitches, cap, cap2, rec, len, cause, cause_len);
}

int exp_take_kernel_sym(struct exp_proc *p, size_t *cap, const void *rec, uint32_t len,
			char *cause, size_t cause_len)
{
	struct exp_kernel_sym r;
	const char *name = (const char *)rec + sizeof(r);

	memcpy(&r, rec, sizeof(r));
	if (!memchr(name, 0, len - sizeof(r)) || !name[0] || r.size == 0 || r.addr + r.size < r.addr) {
		snprintf(cause, cause_len, "kernel symbol without a name or a size");
		return 1;
	}
	if (grow((void **)&p->ksyms, cap, p->nksyms + 1, sizeof(*p->ksyms)))
		return -1;
	char *copy = strdup(name);
	if (!copy)
		return -1;
	p->ksyms[p->nksyms++] = (struct exp_ksym_ev){ r.addr, r.size, copy };
	return 0;
}

int exp_take_kernel_info(struct exp_proc *p, const void *rec, uint32_t len, char *cause,
			 size_t cause_len)
{
	struct exp_kernel_info r;

	(void)len;
	memcpy(&r, rec, sizeof(r));
	if (r.period_ns == 0) {
		snprintf(cause, cause_len, "kernel info with period 0");
		return 1;
	}
	/* Written at the start and again at the end: the later one counts more. */
	if (r.lost >= p->kinfo.lost || !p->kinfo.period_ns)
		p->kinfo = r;
	return 0;
}

/* Sort keys: thread, then time. */
struct key {
	uint32_t tid;
	uint64_t time_ns;
	size_t index;
};

static int cmp_key(const void *a, const void *b)
{
	const struct key *x = a, *y = b;

	if (x->tid != y->tid)
		return x->tid < y->tid ? -1 : 1;
	if (x->time_ns != y->time_ns)
		return x->time_ns < y->time_ns ? -1 : 1;
	return x->index < y->index ? -1 : x->index > y->index;
}

/* Stacks made for (chain, user stack), found again by hash. */
struct made {
	uint32_t *slot;            /* stack ids, 0 empty */
	size_t cap;                /* a power of two */
	size_t used;
	size_t stacks_cap;         /* of p->stacks */
};

static uint64_t chain_hash(const uint64_t *pcs, uint16_t n, uint32_t parent)
{
	uint64_t h = 1469598103934665603ull ^ parent;

	for (uint16_t i = 0; i < n; i++)
		h = (h ^ pcs[i]) * 1099511628211ull;
	return h ^ (h >> 29);
}

/* The stack id of `n` kernel pcs above user stack `parent`: made if new.
 * 0 if out of memory. */
static uint32_t stack_for(struct exp_proc *p, struct made *m, const uint64_t *pcs, uint16_t n,
			  uint32_t parent)
{
	if (2 * (m->used + 1) > m->cap) {
		size_t cap = m->cap ? 2 * m->cap : 1024;
		uint32_t *s = calloc(cap, sizeof(*s));
		if (!s)
			return 0;
		for (size_t i = 0; i < m->cap; i++) {
			uint32_t id = m->slot[i];
			if (!id)
				continue;
			size_t j = chain_hash(p->stacks[id].pcs, p->stacks[id].n, p->stacks[id].parent) & (cap - 1);
			while (s[j])
				j = (j + 1) & (cap - 1);
			s[j] = id;
		}
		free(m->slot);
		m->slot = s;
		m->cap = cap;
	}
	size_t j = chain_hash(pcs, n, parent) & (m->cap - 1);
	for (; m->slot[j]; j = (j + 1) & (m->cap - 1)) {
		const struct exp_stack_ref *s = &p->stacks[m->slot[j]];
		if (s->parent == parent && s->n == n && !memcmp(s->pcs, pcs, 8u * n))
			return m->slot[j];
	}
	if (p->nstacks >= UINT32_MAX - 1)
		return 0;
	if (m->stacks_cap < p->nstacks)
		m->stacks_cap = p->nstacks;
	if (grow((void **)&p->stacks, &m->stacks_cap, (size_t)p->nstacks + 1, sizeof(*p->stacks)))
		return 0;
	uint32_t id = p->nstacks++;
	const struct exp_stack_ref *u = &p->stacks[parent];
	uint16_t keep = n;
	if (keep + u->depth > EXP_MAX_FRAMES)
		keep = (uint16_t)(EXP_MAX_FRAMES - u->depth);
	p->stacks[id] = (struct exp_stack_ref){
		.pcs = pcs, .parent = parent, .n = keep,
		.flags = (uint16_t)((u->flags & ~EXP_STACK_LEAF_IS_RETADDR) | EXP_STACK_KERNEL),
		.depth = (uint16_t)(keep + u->depth),
	};
	m->slot[j] = id;
	m->used++;
	return id;
}

/* Join the founder's kernel samples of process p to p's clock samples;
 * the stacks made are found again through m. */
static int join_samples(const struct exp_proc *f, struct exp_proc *p, struct made *mp)
{
	size_t nk = 0, ns = p->nsamples, cap = p->nsamples;
	uint64_t period = f->kinfo.period_ns;
	struct key *ks = NULL, *ss = NULL;
	struct made m = *mp;
	int rc = -ENOMEM;

	for (size_t i = 0; i < f->nksamples; i++)
		nk += f->ksamples[i].pid == p->pid;
	if (!nk)
		return 0;
	if (!ns || !period) {
		p->kernel_unmatched += nk;
		return 0;
	}
	ks = malloc(nk * sizeof(*ks));
	ss = malloc(ns * sizeof(*ss));
	if (!ks || !ss)
		goto out;
	nk = 0;
	for (size_t i = 0; i < f->nksamples; i++)
		if (f->ksamples[i].pid == p->pid)
			ks[nk++] = (struct key){ f->ksamples[i].tid, f->ksamples[i].time_ns, i };
	for (size_t i = 0; i < ns; i++)
		ss[i] = (struct key){ p->samples[i].tid, p->samples[i].time_ns, i };
	qsort(ks, nk, sizeof(*ks), cmp_key);
	qsort(ss, ns, sizeof(*ss), cmp_key);

	size_t k = 0;
	uint64_t owed = 0;                  /* kernel ns the thread's last windows could not take */
	for (size_t i = 0; i < ns; i++) {
		uint32_t tid = ss[i].tid;
		bool from_same = i && ss[i - 1].tid == tid;
		uint64_t from = from_same ? ss[i - 1].time_ns : p->start_ns;
		if (!from_same)
			owed = 0;
		while (k < nk && (ks[k].tid < tid || (ks[k].tid == tid && ks[k].time_ns <= from))) {
			p->kernel_unmatched++;        /* before its thread's first sample, or another image's */
			k++;
		}
		size_t first = k;
		while (k < nk && ks[k].tid == tid && ks[k].time_ns <= ss[i].time_ns)
			k++;
		size_t n = k - first;
		struct exp_sample *s = &p->samples[ss[i].index];
		uint32_t user = s->stack_id;
		if (!n)
			continue;
		if (user == 0 || user >= p->nstacks || !p->stacks[user].pcs) {
			p->kernel_unmatched += n;     /* its user stack is missing */
			continue;
		}
		if (grow((void **)&p->samples, &cap, p->nsamples + n, sizeof(*p->samples)))
			goto out;
		s = &p->samples[ss[i].index];
		/* The kernel's ticks and the clock's have phases of their own:
		 * a window may hold one tick more than its weight allows, the
		 * next one less.  What did not fit is owed to the thread's next
		 * window with kernel ticks. */
		uint64_t w = s->weight_ns, want = period * n + owed;
		uint64_t kw = want < w ? want : w, each = kw / n;
		owed = want - kw;
		uint64_t rest = w - kw;
		p->kernel_matched++;
		for (size_t j = 0; j < n; j++) {
			const struct exp_ksample_ev *e = &f->ksamples[ks[first + j].index];
			uint32_t id = stack_for(p, &m, f->kpcs + e->pcs, e->n, user);
			if (!id)
				goto out;
			struct exp_sample sub = *s;
			sub.stack_id = id;
			sub.weight_ns = j == n - 1 ? kw - each * (n - 1) : each;
			if (j == n - 1 && !rest)
				*s = sub;                   /* nothing left for the user stack */
			else
				p->samples[p->nsamples++] = sub;
		}
		if (rest)
			p->samples[ss[i].index].weight_ns = rest;
	}
	p->kernel_unmatched += nk - k;
	rc = 0;
out:
	*mp = m;
	free(ks);
	free(ss);
	return rc;
}


/* Give the STATE intervals of process p the kernel's chains of the
 * founder's switches out of a CPU (exp_read_kernel.h).  Between the end of
 * a thread's interval and the start of its next, the thread ran: the one
 * switch out in that span is the next interval's start, and the kernel
 * writes its sample just before the switch record the interval's off_ns
 * comes from; so the last switch of the thread in (previous on_ns, on_ns]
 * is the interval's (earlier ones belong to intervals the collector lost). */
static int join_switches(const struct exp_proc *f, struct exp_proc *p, struct made *m)
{
	size_t nk = 0, ns = 0;
	struct key *ks = NULL, *ss = NULL;
	int rc = -ENOMEM;

	for (size_t i = 0; i < f->nkswitches; i++)
		nk += f->kswitches[i].pid == p->pid;
	for (size_t i = 0; i < p->nstates; i++)
		ns += !(p->states[i].flags & EXP_STATE_NO_STACK) && p->states[i].stack_id;
	if (!nk || !ns) {
		p->kswitch_unmatched += ns;
		return 0;
	}
	ks = malloc(nk * sizeof(*ks));
	ss = malloc(p->nstates * sizeof(*ss));
	if (!ks || !ss)
		goto out;
	nk = 0;
	for (size_t i = 0; i < f->nkswitches; i++)
		if (f->kswitches[i].pid == p->pid)
			ks[nk++] = (struct key){ f->kswitches[i].tid, f->kswitches[i].time_ns, i };
	for (size_t i = 0; i < p->nstates; i++)
		ss[i] = (struct key){ p->states[i].tid, p->states[i].off_ns, i };
	qsort(ks, nk, sizeof(*ks), cmp_key);
	qsort(ss, p->nstates, sizeof(*ss), cmp_key);

	size_t k = 0;
	for (size_t i = 0; i < p->nstates; i++) {
		struct exp_state *st = &p->states[ss[i].index];
		uint32_t tid = ss[i].tid;
		uint64_t from = i && ss[i - 1].tid == tid ? p->states[ss[i - 1].index].on_ns : 0;
		while (k < nk && (ks[k].tid < tid || (ks[k].tid == tid && ks[k].time_ns <= from)))
			k++;
		size_t last = SIZE_MAX;
		while (k < nk && ks[k].tid == tid && ks[k].time_ns <= st->on_ns)
			last = k++;
		uint32_t user = st->stack_id;
		if ((st->flags & EXP_STATE_NO_STACK) || !user)
			continue;
		if (last == SIZE_MAX || user >= p->nstacks || !p->stacks[user].pcs) {
			p->kswitch_unmatched++;
			continue;
		}
		const struct exp_ksample_ev *e = &f->kswitches[ks[last].index];
		uint32_t id = stack_for(p, m, f->kpcs + e->pcs, e->n, user);
		if (!id)
			goto out;
		st->stack_id = id;
		p->kswitch_matched++;
	}
	rc = 0;
out:
	free(ks);
	free(ss);
	return rc;
}

/* Join the founder's kernel samples and switches of process p to p's. */
static int join_proc(const struct exp_proc *f, struct exp_proc *p)
{
	struct made m = { 0 };
	int rc = join_samples(f, p, &m);

	if (!rc)
		rc = join_switches(f, p, &m);
	free(m.slot);
	return rc;
}

static int cmp_ksym(const void *a, const void *b)
{
	const struct exp_ksym_ev *x = a, *y = b;

	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

int exp_kernel_join(struct exp_experiment *e)
{
	if (!e->nprocs)
		return 0;
	struct exp_proc *f = &e->procs[0];
	if (f->nksyms)
		qsort(f->ksyms, f->nksyms, sizeof(*f->ksyms), cmp_ksym);
	f->kernel_ticks = f->nksamples;
	f->kernel_switches = f->nkswitches;
	if (!f->nksamples && !f->nkswitches)
		return 0;
	for (size_t i = 0; i < e->nprocs; i++)
		if (join_proc(f, &e->procs[i]))
			return -ENOMEM;
	return 0;
}

void exp_kernel_free(struct exp_proc *p)
{
	for (size_t i = 0; i < p->nksyms; i++)
		free(p->ksyms[i].name);
	free(p->ksyms);
	free(p->ksamples);
	free(p->kswitches);
	free(p->kpcs);
	p->ksyms = NULL;
	p->ksamples = NULL;
	p->kswitches = NULL;
	p->kpcs = NULL;
	p->nksyms = p->nksamples = p->nkswitches = p->nkpcs = 0;
}
