/* SPDX-License-Identifier: MIT
 *
 * report_timeline.c — tracks of samples and intervals over time, from the
 * events a model kept (see report_timeline.h).  Built once per `tally html`
 * or `export --format chrome`: one pass over the events, a sort per track.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/model_map.h"
#include "model/model_pauses.h"
#include "report/report_timeline.h"

/* The track index's first key for (proc, tid, name); a collision moves
 * on by model_hash64, as label_of does (key 0 is the map's empty slot). */
static uint64_t track_key(uint32_t proc, uint32_t tid, const char *name)
{
	return model_hash_str(model_hash64(((uint64_t)proc << 32 | tid) + 1), name) | 1;
}

/* The index of what `same` finds in *idx (made if none) from `key` on, a
 * collision moving on by model_hash64 (key 0 is the map's empty slot);
 * else -1, *key then the free key to put a new one at; -2 without memory.
 * One probe loop for both indices (tracks, labels). */
static long probe(void **index, uint64_t *key,
		  bool (*same)(const struct report_timeline *tl, uint64_t at, const void *want),
		  const struct report_timeline *tl, const void *want)
{
	if (!*index && !(*index = calloc(1, sizeof(struct model_map))))
		return -2;
	struct model_map *idx = *index;
	for (;;) {
		uint64_t *v = model_map_get(idx, *key);
		if (!v)
			return -1;
		if (same(tl, *v, want))
			return (long)*v;
		*key = model_hash64(*key) | 1;
	}
}

/* A track's identity, as probe compares it. */
struct track_id {
	uint32_t proc, tid;
	const char *name;
};

static bool same_track(const struct report_timeline *tl, uint64_t at, const void *want)
{
	const struct report_track *t = &tl->tracks[at];
	const struct track_id *id = want;

	return t->proc == id->proc && t->tid == id->tid && !strcmp(t->name, id->name);
}

static bool same_label(const struct report_timeline *tl, uint64_t at, const void *want)
{
	return !strcmp(tl->labels[at], want);
}

long report_timeline_track(struct report_timeline *tl, uint32_t proc, uint32_t tid, const char *name)
{
	uint64_t key = track_key(proc, tid, name);
	struct track_id id = { proc, tid, name };

	/* An index, not a scan of every track: a 32,000-thread experiment
	 * adds 32,000 tracks, and a scan made that quadratic. */
	long found = probe(&tl->track_index, &key, same_track, tl, &id);
	if (found != -1)
		return found >= 0 ? found : -1;
	if (exp_grow(&tl->tracks, &tl->cap_tracks, tl->ntracks, sizeof(*tl->tracks)) ||
	    !model_map_put(tl->track_index, key, tl->ntracks, NULL))
		return -1;
	struct report_track *t = &tl->tracks[tl->ntracks];
	memset(t, 0, sizeof(*t));
	t->proc = proc;
	t->tid = tid;
	snprintf(t->name, sizeof(t->name), "%s", name);
	return (long)tl->ntracks++;
}

/* Index of `label` in tl->labels, added if new; -1 when out of memory. */
static long label_of(struct report_timeline *tl, const char *label)
{
	uint64_t key = model_hash_str(0, label) | 1;
	long found = probe(&tl->label_index, &key, same_label, tl, label);

	if (found != -1)
		return found >= 0 ? found : -1;
	char *copy = strdup(label);
	if (!copy || exp_grow(&tl->labels, &tl->cap_labels, tl->nlabels, sizeof(*tl->labels)) ||
	    !model_map_put(tl->label_index, key, tl->nlabels, NULL)) {
		free(copy);
		return -1;
	}
	tl->labels[tl->nlabels] = copy;
	return (long)tl->nlabels++;
}

int report_timeline_interval(struct report_timeline *tl, size_t track, uint64_t start_ns,
			     uint64_t end_ns, const char *label, uint32_t entry)
{
	struct report_track *t = &tl->tracks[track];
	long l = label_of(tl, label);

	if (l < 0 || exp_grow(&t->iv, &t->cap_iv, t->niv, sizeof(*t->iv)))
		return -1;
	t->iv[t->niv++] = (struct report_interval){ start_ns, end_ns < start_ns ? start_ns : end_ns,
						    (uint32_t)l, entry };
	return 0;
}

static int cmp_sample(const void *a, const void *b)
{
	const struct report_sample *x = a, *y = b;

	return x->end_ns < y->end_ns ? -1 : x->end_ns > y->end_ns;
}

static int cmp_interval(const void *a, const void *b)
{
	const struct report_interval *x = a, *y = b;

	if (x->start_ns != y->start_ns)
		return x->start_ns < y->start_ns ? -1 : 1;
	return x->end_ns < y->end_ns ? -1 : x->end_ns > y->end_ns;
}

/* A thread's samples come as a few runs in time order (one per buffer the
 * collector wrote): merged pairwise, stably, in O(n log runs), where qsort
 * took O(n log n) with a call per comparison. */
static void sort_samples(struct report_sample *s, size_t n)
{
	size_t *runs = malloc((n + 1) * sizeof(*runs)), nruns = 0;
	struct report_sample *tmp = malloc((n + 1) * sizeof(*tmp));

	if (!runs || !tmp) {
		free(runs);
		free(tmp);
		if (n)
			qsort(s, n, sizeof(*s), cmp_sample);
		return;
	}
	for (size_t i = 0; i < n; i++)
		if (!i || s[i].end_ns < s[i - 1].end_ns)
			runs[nruns++] = i;
	runs[nruns] = n;
	while (nruns > 1) {
		size_t k = 0;
		for (size_t r = 0; r < nruns; r += 2, k++) {
			size_t a = runs[r], mid = runs[r + 1 < nruns ? r + 1 : nruns], end = runs[r + 2 < nruns ? r + 2 : nruns];
			size_t i = a, j = mid, o = a;
			while (i < mid && j < end)
				tmp[o++] = s[j].end_ns < s[i].end_ns ? s[j++] : s[i++];
			while (i < mid)
				tmp[o++] = s[i++];
			while (j < end)
				tmp[o++] = s[j++];
			runs[k] = a;
		}
		runs[k] = n;
		nruns = k;
		memcpy(s, tmp, n * sizeof(*s));
	}
	free(runs);
	free(tmp);
}

/* Lay a track's samples end to end: each covers the `weight` ns of CPU
 * before its time, moved to the end of the one before where it would
 * overlap it (coalesced timer signals weigh more than the time since the
 * previous sample) or leave a gap shorter than half its weight (timer
 * jitter), so runs of samples are contiguous and the busy time of the track
 * is the sum of the weights. */
static void lay_samples(struct report_track *t)
{
	uint64_t end = 0;

	sort_samples(t->samples, t->nsamples);
	for (size_t i = 0; i < t->nsamples; i++) {
		struct report_sample *s = &t->samples[i];
		uint64_t w = s->end_ns - s->start_ns;
		if (i && (s->start_ns < end || s->start_ns - end < w / 2)) {
			s->start_ns = end;
			s->end_ns = end + w;
		}
		end = s->end_ns;
	}
}

void report_timeline_finish(struct report_timeline *tl)
{
	tl->t0 = UINT64_MAX;
	tl->t1 = 0;
	for (size_t i = 0; i < tl->ntracks; i++) {
		struct report_track *t = &tl->tracks[i];
		lay_samples(t);
		if (t->niv)             /* qsort(NULL, 0): undefined */
			qsort(t->iv, t->niv, sizeof(*t->iv), cmp_interval);
		if (t->nsamples) {
			tl->t0 = t->samples[0].start_ns < tl->t0 ? t->samples[0].start_ns : tl->t0;
			tl->t1 = t->samples[t->nsamples - 1].end_ns > tl->t1 ? t->samples[t->nsamples - 1].end_ns : tl->t1;
		}
		for (size_t k = 0; k < t->niv; k++) {
			tl->t0 = t->iv[k].start_ns < tl->t0 ? t->iv[k].start_ns : tl->t0;
			tl->t1 = t->iv[k].end_ns > tl->t1 ? t->iv[k].end_ns : tl->t1;
		}
	}
	for (size_t i = 0; i < tl->ngaps; i++) {
		tl->t0 = tl->gaps[i].start_ns < tl->t0 ? tl->gaps[i].start_ns : tl->t0;
		tl->t1 = tl->gaps[i].end_ns > tl->t1 ? tl->gaps[i].end_ns : tl->t1;
	}
	for (size_t i = 0; i < tl->nmarks; i++) {
		tl->t0 = tl->marks[i].time_ns < tl->t0 ? tl->marks[i].time_ns : tl->t0;
		tl->t1 = tl->marks[i].time_ns > tl->t1 ? tl->marks[i].time_ns : tl->t1;
	}
	if (tl->t0 > tl->t1)
		tl->t0 = tl->t1 = 0;
}

/* The markers a process logged (tally_marker): "marker" = "TIME_NS NAME". */
static int add_marks(struct report_timeline *tl, const struct model *m)
{
	for (size_t i = 0; i < m->nprocs; i++) {
		const struct exp_proc *p = m->procs[i].src;
		for (size_t k = 0; k < p->nlog; k++) {
			const char *sp = strchr(p->log[k].value, ' ');
			if (strcmp(p->log[k].key, "marker") || !sp)
				continue;
			if (exp_grow(&tl->marks, &tl->cap_marks, tl->nmarks, sizeof(*tl->marks)))
				return -1;
			struct report_mark *mk = &tl->marks[tl->nmarks];
			mk->time_ns = model_clock_align(&m->procs[i].clock, strtoull(p->log[k].value, NULL, 10));
			mk->proc = (uint32_t)i;
			if (!(mk->label = strdup(sp + 1)))
				return -1;
			tl->nmarks++;
		}
	}
	return 0;
}

/* The stretches each process recorded nothing (model_pauses.h). */
static int add_gaps(struct report_timeline *tl, const struct model *m)
{
	for (size_t i = 0; i < m->nprocs; i++) {
		struct model_pause *z;
		long n = m->procs[i].src ? model_pauses(m->procs[i].src, &z) : 0;
		if (n < 0)
			return -1;
		for (long k = 0; k < n; k++) {
			if (exp_grow(&tl->gaps, &tl->cap_gaps, tl->ngaps, sizeof(*tl->gaps))) {
				free(z);
				return -1;
			}
			tl->gaps[tl->ngaps++] = (struct report_gap){ .start_ns = z[k].start_ns,
				.end_ns = z[k].end_ns, .proc = (uint32_t)i, .reasons = z[k].reasons };
		}
		if (n > 0)
			free(z);
	}
	return 0;
}

/* Track of thread `ti`, made on first use (tracks[] caches it + 1). */
static long thread_track(struct report_timeline *tl, const struct model *m, uint32_t ti, long *cache)
{
	if (cache[ti])
		return cache[ti] - 1;
	const struct model_thread *th = &m->threads[ti];
	char name[64];
	int at = snprintf(name, sizeof(name), "%s %u",
			  th->src && th->src->name[0] ? th->src->name : "thread", th->tid);
	if ((th->life || th->next_life) && at > 0 && (size_t)at < sizeof(name))   /* a reused id: a track a life */
		snprintf(name + at, sizeof(name) - (size_t)at, " (life %u)", th->life + 1);
	long k = report_timeline_track(tl, th->proc, th->tid, name);
	if (k >= 0) {
		tl->tracks[k].life = th->life;
		cache[ti] = k + 1;
	}
	return k;
}

/* The name an interval is labelled with: its stack's innermost function
 * of user code ("I/O wait: read", not the kernel's "schedule" above it),
 * the leaf when all are the kernel's; "?" for an empty stack. */
static const char *user_leaf(const struct model *m, const struct model_entry *e)
{
	for (uint32_t i = e->n; i-- > 0;) {
		const struct model_func *f = &m->funcs[e->funcs[i]];
		if (!f->object || strcmp(f->object, MODEL_KERNEL_OBJECT))
			return f->name;
	}
	return e->n ? m->funcs[e->funcs[e->n - 1]].name : "?";
}

int report_timeline_build(struct report_timeline *tl, const struct model *m)
{
	long *cache = calloc(m->nthreads + 1, sizeof(*cache));
	char label[512];

	memset(tl, 0, sizeof(*tl));
	if (!cache)
		return -1;
	/* threads in the model's order: by process, then first seen; their
	 * samples' arrays sized once */
	for (uint32_t i = 0; i < m->nthreads; i++) {
		long k = thread_track(tl, m, i, cache);
		if (k < 0)
			goto oom;
		struct report_track *t = &tl->tracks[k];
		if (m->threads[i].samples &&
		    !(t->samples = malloc(m->threads[i].samples * sizeof(*t->samples))))
			goto oom;
		t->cap_samples = m->threads[i].samples;
	}
	for (size_t i = 0; i < m->nevents; i++) {
		const struct model_event *ev = &m->events[i];
		long k = thread_track(tl, m, ev->thread, cache);
		if (k < 0)
			goto oom;
		struct report_track *t = &tl->tracks[k];
		const struct model_entry *e = &m->entries[ev->entry];
		const char *leaf = ev->metric == MODEL_CPU ? NULL : user_leaf(m, e);
		switch (ev->metric) {
		case MODEL_CPU:
			if (exp_grow(&t->samples, &t->cap_samples, t->nsamples, sizeof(*t->samples)))
				goto oom;
			t->samples[t->nsamples++] = (struct report_sample){
				ev->time_ns - (ev->value < ev->time_ns ? ev->value : 0), ev->time_ns, ev->entry };
			break;
		case MODEL_SYNC_WAIT:
		case MODEL_SYNC_OTHER:
		case MODEL_SYNC_JOIN:
			snprintf(label, sizeof(label), "%s: %s", model_metric_info(ev->metric)->title, leaf);
			if (report_timeline_interval(tl, (size_t)k, ev->time_ns - ev->value, ev->time_ns,
						     label, ev->entry + 1))
				goto oom;
			break;
		case MODEL_IO_TIME:
		case MODEL_MPI_TIME:        /* both records' times are the call's start */
			snprintf(label, sizeof(label), "%s: %s", ev->metric == MODEL_IO_TIME ? "I/O" : "MPI", leaf);
			if (report_timeline_interval(tl, (size_t)k, ev->time_ns, ev->time_ns + ev->value,
						     label, ev->entry + 1))
				goto oom;
			break;
		case MODEL_WAIT_CPU:
		case MODEL_WAIT_LOCK:
		case MODEL_WAIT_IO:
		case MODEL_WAIT_SLEEP:
		case MODEL_WAIT_STOPPED:    /* --states: the part off the CPU ending at its time */
			if (!ev->value)
				break;
			snprintf(label, sizeof(label), "%s: %s", model_metric_info(ev->metric)->title, leaf);
			if (report_timeline_interval(tl, (size_t)k, ev->time_ns - ev->value, ev->time_ns,
						     label, ev->entry + 1))
				goto oom;
			break;
		default:
			break;         /* counts and bytes are no intervals; wall and the
			                  CPU states are the samples */
		}
	}
	if (add_marks(tl, m) || add_gaps(tl, m))
		goto oom;
	free(cache);
	report_timeline_finish(tl);
	return 0;
oom:
	free(cache);
	report_timeline_free(tl);
	return -1;
}

void report_timeline_free(struct report_timeline *tl)
{
	for (size_t i = 0; i < tl->ntracks; i++) {
		free(tl->tracks[i].samples);
		free(tl->tracks[i].iv);
	}
	for (size_t i = 0; i < tl->nlabels; i++)
		free(tl->labels[i]);
	for (size_t i = 0; i < tl->nmarks; i++)
		free(tl->marks[i].label);
	if (tl->label_index)
		model_map_free(tl->label_index);
	free(tl->label_index);
	if (tl->track_index)
		model_map_free(tl->track_index);
	free(tl->track_index);
	free(tl->tracks);
	free(tl->labels);
	free(tl->marks);
	free(tl->gaps);
	memset(tl, 0, sizeof(*tl));
}
