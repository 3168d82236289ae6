/* SPDX-License-Identifier: MIT
 *
 * report_html_timeline.c — the page's timeline (see report_html.h): every
 * track of report_timeline.h, its samples summed into TIMELINE_BINS bins of
 * CPU time and its intervals listed; beyond MAX_INTERVALS intervals the
 * shortest are left out and counted ("dropped"), so a trace of millions of
 * lock waits does not make the page heavy.  Times are µs from the first
 * event.
 */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "model/model_pauses.h"
#include "report/report_html.h"
#include "report/report_json_write.h"
#include "report/report_timeline.h"

#define TIMELINE_BINS 1000
#define MAX_INTERVALS 50000
/* Distinct tree nodes weighed in one bin of a stack chart (more are rare
 * and small: the rest of the bin's samples are skipped). */
#define STACK_NODES 64
_Static_assert(STACK_NODES < 256, "a node's place in a bin's list is a byte");
/* Bins of all the stack charts together: each track's are this over the
 * tracks with samples, 100 to TIMELINE_BINS (run-length encoded: a page of
 * many busy threads stays small, under 100 KB). */
#define STACK_BINS_TOTAL 8000

static int cmp_u64_desc(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x > y ? -1 : x < y;
}

/* The shortest duration kept so that at most MAX_INTERVALS are. */
static uint64_t min_duration(const struct report_timeline *tl, size_t *dropped)
{
	size_t n = 0;

	*dropped = 0;
	for (size_t i = 0; i < tl->ntracks; i++)
		n += tl->tracks[i].niv;
	if (n <= MAX_INTERVALS)
		return 0;
	uint64_t *d = malloc(n * sizeof(*d));
	if (!d)
		return UINT64_MAX;
	n = 0;
	for (size_t i = 0; i < tl->ntracks; i++)
		for (size_t k = 0; k < tl->tracks[i].niv; k++)
			d[n++] = tl->tracks[i].iv[k].end_ns - tl->tracks[i].iv[k].start_ns;
	qsort(d, n, sizeof(*d), cmp_u64_desc);
	uint64_t min = d[MAX_INTERVALS - 1] + 1;
	for (size_t i = 0; i < n; i++)
		*dropped += d[i] < min;
	free(d);
	return min;
}

/* One array of a process's samples: `field` of each, as integers. */
static void curve(FILE *out, const char *name, const struct exp_proc *p, size_t off)
{
	fprintf(out, ",\"%s\":[", name);
	for (size_t k = 0; k < p->npsamples; k++) {
		uint64_t v;
		memcpy(&v, (const char *)&p->psamples[k] + off, sizeof(v));
		fprintf(out, k ? ",%llu" : "%llu", (unsigned long long)v);
	}
	fputc(']', out);
}

/* Each process's samples over time (record --process-samples): the times
 * in µs from t0 (clamped to the span), resident bytes, faults, switches
 * and, with -H, the live heap and its peak (the tracer's exact one). */
static void process_curves(FILE *out, const struct model *m, uint64_t t0, uint64_t span)
{
	size_t c = 0;

	for (size_t i = 0; i < m->nprocs; i++) {
		const struct exp_proc *p = m->procs[i].src;
		if (!p || !p->npsamples)
			continue;
		fputs(c++ ? ",\n{\"group\":" : "\n{\"group\":", out);
		report_json_string(out, m->procs[i].label);
		fputs(",\"t\":[", out);
		for (size_t k = 0; k < p->npsamples; k++) {
			uint64_t t = p->psamples[k].time_ns;
			t = t > t0 ? t - t0 : 0;
			fprintf(out, k ? ",%llu" : "%llu", (unsigned long long)((t < span ? t : span) / 1000));
		}
		fputc(']', out);
		curve(out, "rss", p, offsetof(struct exp_proc_sample, rss_bytes));
		curve(out, "minflt", p, offsetof(struct exp_proc_sample, minflt));
		curve(out, "majflt", p, offsetof(struct exp_proc_sample, majflt));
		curve(out, "vcsw", p, offsetof(struct exp_proc_sample, nvcsw));
		curve(out, "ivcsw", p, offsetof(struct exp_proc_sample, nivcsw));
		if (p->psamples[0].heap_live_bytes != EXP_PROC_NO_HEAP) {
			curve(out, "heap", p, offsetof(struct exp_proc_sample, heap_live_bytes));
			uint64_t peak = 0, at = 0;
			if (p->has_heap_state && p->heap_state.peak_bytes) {
				peak = p->heap_state.peak_bytes;
				at = p->heap_state.peak_time_ns;
			} else {
				for (size_t k = 0; k < p->npsamples; k++)
					if (p->psamples[k].heap_live_bytes > peak) {
						peak = p->psamples[k].heap_live_bytes;
						at = p->psamples[k].time_ns;
					}
			}
			at = at > t0 ? at - t0 : 0;
			fprintf(out, ",\"peak\":[%llu,%llu]", (unsigned long long)((at < span ? at : span) / 1000),
				(unsigned long long)peak);
		}
		fputc('}', out);
	}
}

/* `"st0":US,"st1":US,"stn":N,"st":[node,run,...]`: the track's stack
 * chart over its own sampled span [st0, st1) (µs from t0: a short process
 * gets the chart's whole resolution), the tree node (as written:
 * node_of_entry) that holds the most of its CPU in each of N bins of it
 * (`nbins`, or fewer: none shorter than its samples' mean CPU), run-length
 * encoded (node 0: no sample in the bin).  The page draws
 * each bin's node with its ancestors, so a thread's stacks read over time as
 * a flame chart (speedscope's time order, at the bin's resolution). */
static void stack_chart(FILE *out, const struct report_track *t, const uint32_t *node_of_entry,
			uint8_t *slot_of, uint64_t t0, int nbins)
{
	uint64_t first = t->samples[0].start_ns, last = first;
	uint32_t nodes[STACK_NODES];
	uint64_t w[STACK_NODES];
	size_t k = 0, c = 0;
	uint32_t run_node = 0, run = 0;

	for (size_t i = 0; i < t->nsamples; i++)
		if (t->samples[i].end_ns > last)
			last = t->samples[i].end_ns;
	uint64_t span = last > first ? last - first : 1, cpu = 0;
	/* no bin finer than a sample's CPU (the clock's period): 4 samples of
	 * a 9 ms process are 9 bins, not 1,000 with slivers between */
	for (size_t i = 0; i < t->nsamples; i++)
		cpu += t->samples[i].end_ns - t->samples[i].start_ns;
	uint64_t per = cpu / t->nsamples;
	if (per && span / per < (uint64_t)nbins)
		nbins = span / per ? (int)(span / per) : 1;
	fprintf(out, ",\"st0\":%llu,\"st1\":%llu,\"stn\":%d,\"st\":[", (unsigned long long)((first - t0) / 1000),
		(unsigned long long)((last - t0) / 1000), nbins);
	for (int b = 0; b < nbins; b++) {
		/* the samples of bin b (by start time): the node of the largest
		 * CPU among them, the first STACK_NODES distinct in a list
		 * (slot_of: a node's place in it, found without a search; it
		 * was a tenth of `tally html`'s own CPU on a call-heavy run) */
		size_t nn = 0;
		for (; k < t->nsamples; k++) {
			const struct report_sample *s = &t->samples[k];
			uint64_t sb = (s->start_ns - first) * (uint64_t)nbins / span;
			if (sb > (uint64_t)b && b < nbins - 1)
				break;
			uint32_t node = node_of_entry[s->entry];
			if (node == UINT32_MAX)
				continue;
			size_t j = slot_of[node];
			if (!j) {
				if (nn == STACK_NODES)
					continue;
				nodes[nn] = node;
				w[nn++] = 0;
				slot_of[node] = (uint8_t)(j = nn);
			}
			w[j - 1] += s->end_ns - s->start_ns + 1;
		}
		for (size_t j = 0; j < nn; j++)
			slot_of[nodes[j]] = 0;
		uint32_t best = 0;
		uint64_t most = 0;
		for (size_t j = 0; j < nn; j++)
			if (w[j] > most) {
				most = w[j];
				best = nodes[j];
			}
		if (b && best != run_node) {
			fprintf(out, c++ ? ",%u,%u" : "%u,%u", run_node, run);
			run = 0;
		}
		run_node = best;
		run++;
	}
	fprintf(out, c ? ",%u,%u]" : "%u,%u]", run_node, run);
}

/* `{"label":..., "prog":..., "argv":...}` per model process, in order: its
 * program's name (the page merges processes by it) and command line (the
 * log's argv, or the founder's command; "" when unknown). */
static void processes_out(FILE *out, const struct model *m)
{
	for (size_t i = 0; i < m->nprocs; i++) {
		const struct exp_proc *p = m->procs[i].src;
		const char *argv = p ? exp_proc_log(p, "argv") : NULL;
		if (!argv && p && !p->lineage[0])
			argv = exp_proc_log(p, "command");
		fputs(i ? ",\n{\"label\":" : "\n{\"label\":", out);
		report_json_string(out, m->procs[i].label);
		fputs(",\"prog\":", out);
		report_json_string(out, p && p->name ? p->name : m->procs[i].label);
		fputs(",\"argv\":", out);
		report_json_string(out, argv ? argv : "");
		fputc('}', out);
	}
}

int report_html_timeline(FILE *out, const struct model *m, const uint32_t *node_of_entry,
			 uint64_t *t0_ns, uint64_t *span_ns)
{
	struct report_timeline tl;
	uint64_t *bins = malloc(TIMELINE_BINS * sizeof(*bins));
	size_t dropped;
	/* each written node's place in a stack chart bin's list (0: not in it) */
	uint32_t nnodes = 0;
	for (size_t i = 0; node_of_entry && i < m->nentries; i++)
		if (node_of_entry[i] != UINT32_MAX && node_of_entry[i] >= nnodes)
			nnodes = node_of_entry[i] + 1;
	uint8_t *slot_of = calloc(nnodes + 1, 1);

	if (!bins || !slot_of || report_timeline_build(&tl, m)) {
		free(bins);
		free(slot_of);
		return -1;
	}
	uint64_t span = tl.t1 > tl.t0 ? tl.t1 - tl.t0 : 1;
	*t0_ns = tl.t0;
	*span_ns = span;
	uint64_t min = min_duration(&tl, &dropped);
	size_t sampled = 0;
	for (size_t i = 0; i < tl.ntracks; i++)
		sampled += tl.tracks[i].nsamples > 0;
	int st_bins = sampled ? (int)(STACK_BINS_TOTAL / sampled) : TIMELINE_BINS;
	st_bins = st_bins > TIMELINE_BINS ? TIMELINE_BINS : st_bins < 100 ? 100 : st_bins;
	fprintf(out, "\"timeline\":{\"span_us\":%llu,\"bins\":%d,\"st_bins\":%d,\"dropped\":%zu,\"tracks\":[",
		(unsigned long long)(span / 1000), TIMELINE_BINS, st_bins, dropped);
	for (size_t i = 0; i < tl.ntracks; i++) {
		const struct report_track *t = &tl.tracks[i];
		fputs(i ? ",\n{\"group\":" : "\n{\"group\":", out);
		report_json_string(out, m->procs[t->proc].label);
		fprintf(out, ",\"proc\":%u,\"name\":", t->proc);
		report_json_string(out, t->name);
		if (t->nsamples && node_of_entry)
			stack_chart(out, t, node_of_entry, slot_of, tl.t0, st_bins);
		if (t->nsamples) {
			memset(bins, 0, TIMELINE_BINS * sizeof(*bins));
			for (size_t k = 0; k < t->nsamples; k++) {
				const struct report_sample *s = &t->samples[k];
				uint64_t b = (s->start_ns - tl.t0) * TIMELINE_BINS / span;
				bins[b < TIMELINE_BINS ? b : TIMELINE_BINS - 1] += s->end_ns - s->start_ns;
			}
			fputs(",\"cpu\":[", out);
			for (int b = 0; b < TIMELINE_BINS; b++)
				fprintf(out, b ? ",%llu" : "%llu", (unsigned long long)(bins[b] / 1000));
			fputc(']', out);
		}
		report_html_track_critical(out, m, t->proc, t->tid, tl.t0);
		fputs(",\"iv\":[", out);
		for (size_t k = 0, c = 0; k < t->niv; k++) {
			const struct report_interval *iv = &t->iv[k];
			if (iv->end_ns - iv->start_ns < min)
				continue;
			fprintf(out, "%s[%llu,%llu,%u]", c++ ? "," : "",
				(unsigned long long)((iv->start_ns - tl.t0) / 1000),
				(unsigned long long)((iv->end_ns - iv->start_ns) / 1000), iv->label);
		}
		fputs("]}", out);
	}
	fputs("],\n\"labels\":[", out);
	for (size_t i = 0; i < tl.nlabels; i++) {
		fputs(i ? "," : "", out);
		report_json_string(out, tl.labels[i]);
	}
	fputs("],\"marks\":[", out);
	for (size_t i = 0; i < tl.nmarks; i++) {
		fprintf(out, "%s[%llu,", i ? "," : "",
			(unsigned long long)((tl.marks[i].time_ns - tl.t0) / 1000));
		report_json_string(out, tl.marks[i].label);
		fputc(']', out);
	}
	fputs("],\"procs\":[", out);
	process_curves(out, m, tl.t0, span);
	fputs("],\"processes\":[", out);
	processes_out(out, m);
	fputs("],\"gaps\":[", out);
	for (size_t i = 0; i < tl.ngaps; i++) {
		char why[128];
		fprintf(out, "%s[%llu,%llu,", i ? "," : "", (unsigned long long)((tl.gaps[i].start_ns - tl.t0) / 1000),
			(unsigned long long)((tl.gaps[i].end_ns - tl.gaps[i].start_ns) / 1000));
		report_json_string(out, m->procs[tl.gaps[i].proc].label);
		fputc(',', out);
		report_json_string(out, model_pause_reasons(tl.gaps[i].reasons, why, sizeof(why)));
		fputc(']', out);
	}
	fputs("]},\n", out);
	report_timeline_free(&tl);
	free(bins);
	free(slot_of);
	return ferror(out) ? -1 : 0;
}
