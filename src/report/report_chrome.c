/* SPDX-License-Identifier: MIT
 *
 * report_chrome.c — `tally export --format chrome`: the trace-event JSON of
 * chrome://tracing, which Perfetto and the Firefox Profiler also open.
 *
 * Every track of the timeline (report_timeline.h) becomes a thread of its
 * process (metadata events name both).  A thread's clock samples become
 * nested complete events ("X"): consecutive samples that share the start of
 * their stacks share those frames' events, so each thread reads as a flame
 * chart over time, and the durations of a thread's outermost events add up
 * to its sampled CPU time.  Intervals (lock waits, I/O calls, and tracks
 * added by other views) are async events ("b"/"e", one id each), which may
 * overlap; markers are process-scoped instant events ("i"); an MPI job's
 * matched messages (model.match.pairs) are flow events ("s" at the send's
 * start, "f" at the receive's end, one id each), the arrows the viewers
 * draw from rank to rank, on rank 0's clock (docs/mpi.md).  Timestamps are
 * whole microseconds from the first event; a frame open for less than one
 * is left out (a zero-length event beside the next one at the same time made
 * speedscope's importer nest every later frame under it).  Past MAX_SPANS
 * complete events the shortest inner frames are left out too; otherData
 * counts both.
 */
#include <stdlib.h>
#include <string.h>

#include "report/report.h"
#include "report/report_json_write.h"
#include "report/report_timeline.h"

/* Complete events of all threads together; beyond this, a thread's
 * shortest frames are left out (their time stays in their callers), in
 * proportion to its samples: a million deep samples would otherwise be a
 * file of gigabytes. */
#define MAX_SPANS 500000

struct writer {
	FILE *out;
	const struct model *m;
	const struct report_timeline *tl;
	bool first;
	size_t budget_per_sample_x1000;   /* spans a track may have per 1000 samples */
	size_t dropped;                   /* spans left out */
};

static void sep(struct writer *w)
{
	fputs(w->first ? "\n" : ",\n", w->out);
	w->first = false;
}

/* Whole microseconds since the first event: integers add up exactly in the
 * viewers' doubles, so a child that ends where its parent ends stays inside
 * it (fractions did not, and DevTools dropped such children). */
static unsigned long long us(const struct writer *w, uint64_t ns)
{
	return ns > w->tl->t0 ? (ns - w->tl->t0) / 1000 : 0;
}

static uint32_t pid_of(const struct writer *w, uint32_t proc)
{
	return w->m->procs[proc].src->pid;
}

/* The trace's tid of life `life` of thread tid: a later life of a reused
 * id above pid_max's ceiling (4194304), so that viewers, which merge
 * events by (pid, tid), keep each life a lane of its own. */
static unsigned long long trace_tid(uint32_t tid, uint32_t life)
{
	return (unsigned long long)tid + (unsigned long long)life * 4194304u;
}

static void meta(struct writer *w, const char *what, uint32_t pid, unsigned long long tid, const char *name)
{
	sep(w);
	fprintf(w->out, "{\"ph\":\"M\",\"pid\":%u,\"tid\":%llu,\"name\":\"%s\",\"args\":{\"name\":",
		pid, tid, what);
	report_json_string(w->out, name);
	fputs("}}", w->out);
}

/* A closed frame of a thread's flame chart. */
struct span {
	uint64_t from, to;
	uint32_t func, depth;
};

struct spans {
	struct span *v;
	size_t n, cap;
};

static int cmp_span(const void *a, const void *b)
{
	const struct span *x = a, *y = b;

	if (x->from != y->from)
		return x->from < y->from ? -1 : 1;
	return x->depth < y->depth ? -1 : x->depth > y->depth;
}

static int cmp_u64_desc(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x > y ? -1 : x < y;
}

/* The shortest duration a span needs to be written so that at most `budget`
 * are (outermost spans always are); 0 when all fit. */
static uint64_t min_span(const struct spans *sp, size_t budget)
{
	if (sp->n <= budget)
		return 0;
	uint64_t *d = malloc(sp->n * sizeof(*d));
	if (!d)
		return 0;
	for (size_t i = 0; i < sp->n; i++)
		d[i] = sp->v[i].to - sp->v[i].from;
	qsort(d, sp->n, sizeof(*d), cmp_u64_desc);
	uint64_t min = d[budget - 1] + 1;
	free(d);
	return min;
}

static void complete(struct writer *w, uint32_t pid, unsigned long long tid, const struct span *sp)
{
	const struct model_func *f = &w->m->funcs[sp->func];

	sep(w);
	fprintf(w->out, "{\"ph\":\"X\",\"cat\":\"cpu\",\"pid\":%u,\"tid\":%llu,\"ts\":%llu,\"dur\":%llu,\"name\":",
		pid, tid, us(w, sp->from), us(w, sp->to) - us(w, sp->from));
	report_json_string(w->out, f->name);
	if (f->object[0]) {
		fputs(",\"args\":{\"object\":", w->out);
		report_json_string(w->out, f->object);
		fputc('}', w->out);
	}
	fputc('}', w->out);
}

/* The samples of one track as nested complete events, written outermost
 * first: viewers nest events of equal start and duration in file order. */
static int samples_out(struct writer *w, const struct report_track *t)
{
	uint32_t pid = pid_of(w, t->proc);
	uint32_t cap = EXP_MAX_FRAMES + 2;
	uint32_t *open = malloc(cap * sizeof(*open));
	uint64_t *since = malloc(cap * sizeof(*since));
	struct spans sp = { 0 };
	uint32_t depth = 0;
	uint64_t end = 0;
	int rc = -1;

	if (!open || !since)
		goto out;
	for (size_t i = 0; i <= t->nsamples; i++) {
		const struct report_sample *s = i < t->nsamples ? &t->samples[i] : NULL;
		const struct model_entry *e = s ? &w->m->entries[s->entry] : NULL;
		uint32_t keep = 0;
		if (s && s->start_ns == end)
			while (keep < depth && keep < e->n && open[keep] == e->funcs[keep])
				keep++;
		while (depth > keep) {
			depth--;
			if (exp_grow(&sp.v, &sp.cap, sp.n, sizeof(*sp.v)))
				goto out;
			sp.v[sp.n++] = (struct span){ since[depth], end, open[depth], depth };
		}
		if (!s)
			break;
		for (; depth < e->n && depth < cap; depth++) {
			open[depth] = e->funcs[depth];
			since[depth] = s->start_ns;
		}
		end = s->end_ns;
	}
	uint64_t min = min_span(&sp, t->nsamples * w->budget_per_sample_x1000 / 1000 + 1000);
	if (sp.n)                       /* qsort(NULL, 0): undefined */
		qsort(sp.v, sp.n, sizeof(*sp.v), cmp_span);
	for (size_t i = 0; i < sp.n; i++) {
		if ((sp.v[i].depth && sp.v[i].to - sp.v[i].from < min) ||
		    us(w, sp.v[i].to) == us(w, sp.v[i].from)) {
			w->dropped++;
			continue;
		}
		complete(w, pid, trace_tid(t->tid, t->life), &sp.v[i]);
	}
	rc = 0;
out:
	free(sp.v);
	free(open);
	free(since);
	return rc;
}

static void intervals_out(struct writer *w, const struct report_track *t, uint64_t *id)
{
	uint32_t pid = pid_of(w, t->proc);

	for (size_t i = 0; i < t->niv; i++) {
		const struct report_interval *iv = &t->iv[i];
		const char *label = w->tl->labels[iv->label];
		for (int k = 0; k < 2; k++) {
			sep(w);
			fprintf(w->out, "{\"ph\":\"%s\",\"cat\":\"tally\",\"id\":%llu,\"pid\":%u,\"tid\":%llu,"
				"\"ts\":%llu,\"name\":", k ? "e" : "b", (unsigned long long)*id, pid, trace_tid(t->tid, t->life),
				us(w, k ? iv->end_ns : iv->start_ns));
			report_json_string(w->out, label);
			fputc('}', w->out);
		}
		++*id;
	}
}

/* The matched messages as flows from the sending thread to the receiving
 * one, ids after the intervals'. */
static void flows_out(struct writer *w, uint64_t *id)
{
	const struct model *m = w->m;

	for (size_t i = 0; i < m->match.npairs; i++) {
		const struct model_pair *p = &m->match.pairs[i];
		const struct model_thread *a = &m->threads[p->send_thread], *b = &m->threads[p->recv_thread];
		sep(w);
		fprintf(w->out, "{\"ph\":\"s\",\"cat\":\"mpi\",\"name\":\"message %d to %d\",\"id\":%llu,"
			"\"pid\":%u,\"tid\":%llu,\"ts\":%llu}", p->from, p->to, (unsigned long long)*id,
			pid_of(w, a->proc), trace_tid(a->tid, a->life), us(w, p->send_ns));
		sep(w);
		fprintf(w->out, "{\"ph\":\"f\",\"bp\":\"e\",\"cat\":\"mpi\",\"name\":\"message %d to %d\","
			"\"id\":%llu,\"pid\":%u,\"tid\":%llu,\"ts\":%llu}", p->from, p->to,
			(unsigned long long)*id, pid_of(w, b->proc), trace_tid(b->tid, b->life), us(w, p->recv_ns));
		++*id;
	}
}

int report_chrome(FILE *out, const struct model *m)
{
	struct report_timeline tl;
	struct writer w = { out, m, &tl, true, 0, 0 };
	uint64_t id = 1;
	int rc = 0;

	if (report_timeline_build(&tl, m))
		return -1;
	w.budget_per_sample_x1000 = m->samples ? (size_t)((uint64_t)MAX_SPANS * 1000 / m->samples) : 0;
	fputs("{\"displayTimeUnit\":\"ms\",\"traceEvents\":[", out);
	for (size_t i = 0; i < m->nprocs; i++)
		meta(&w, "process_name", pid_of(&w, (uint32_t)i), 0, m->procs[i].label);
	for (size_t i = 0; i < tl.ntracks && !rc; i++) {
		const struct report_track *t = &tl.tracks[i];
		meta(&w, "thread_name", pid_of(&w, t->proc), trace_tid(t->tid, t->life), t->name);
		rc = samples_out(&w, t);
		intervals_out(&w, t, &id);
	}
	flows_out(&w, &id);
	for (size_t i = 0; i < tl.nmarks; i++) {
		sep(&w);
		fprintf(out, "{\"ph\":\"i\",\"s\":\"p\",\"cat\":\"marker\",\"pid\":%u,\"tid\":%u,\"ts\":%llu,\"name\":",
			pid_of(&w, tl.marks[i].proc), pid_of(&w, tl.marks[i].proc), us(&w, tl.marks[i].time_ns));
		report_json_string(out, tl.marks[i].label);
		fputc('}', out);
	}
	fprintf(out, "\n],\"otherData\":{\"producer\":\"tally\",\"frames_left_out\":\"%zu\"}}\n", w.dropped);
	report_timeline_free(&tl);
	return rc || ferror(out) ? -1 : 0;
}
