/* SPDX-License-Identifier: MIT
 *
 * report_speedscope.c — `tally export --format speedscope`: speedscope's
 * JSON file format (https://www.speedscope.app/file-format-schema.json).
 *
 * One "sampled" profile per thread and metric with data: its stacks in time
 * order (consecutive events with the same stack merged into one sample),
 * weights in the metric's unit (nanoseconds, bytes, or counts for "none").
 * Frames are the model's functions, shared by all profiles, with their load
 * object as the frame's file.  The CPU profile of the busiest thread is the
 * one speedscope opens first.
 */
#include <stdlib.h>
#include <string.h>

#include "report/report.h"
#include "report/report_json_write.h"

static const struct model *sort_m;

/* Events by thread, metric, then time. */
static int cmp_event(const void *a, const void *b)
{
	const struct model_event *x = &sort_m->events[*(const uint32_t *)a];
	const struct model_event *y = &sort_m->events[*(const uint32_t *)b];

	if (x->thread != y->thread)
		return x->thread < y->thread ? -1 : 1;
	if (x->metric != y->metric)
		return x->metric < y->metric ? -1 : 1;
	if (x->time_ns != y->time_ns)
		return x->time_ns < y->time_ns ? -1 : 1;
	return *(const uint32_t *)a < *(const uint32_t *)b ? -1 : 1;
}

static const char *unit_of(enum model_metric mm)
{
	return model_unit_speedscope(model_metric_info(mm)->unit);
}

/* Do entries x and y have the same functions (they may differ in call sites)? */
static bool same_stack(const struct model *m, uint32_t x, uint32_t y)
{
	const struct model_entry *a = &m->entries[x], *b = &m->entries[y];

	return x == y || (a->n == b->n && !memcmp(a->funcs, b->funcs, a->n * sizeof(*a->funcs)));
}

/* One profile: events order[a..b) of one thread and metric. */
static void profile_out(FILE *out, const struct model *m, const uint32_t *order, size_t a, size_t b,
			const uint32_t *frame_of, bool first)
{
	const struct model_event *e0 = &m->events[order[a]];
	const struct model_thread *th = &m->threads[e0->thread];
	enum model_metric mm = (enum model_metric)e0->metric;
	char name[512];
	uint64_t total = 0;

	snprintf(name, sizeof(name), "%s %s %u: %s", m->procs[th->proc].label,
		 th->src && th->src->name[0] ? th->src->name : "thread", th->tid,
		 model_metric_info(mm)->name);
	fputs(first ? "\n{\"type\":\"sampled\",\"name\":" : ",\n{\"type\":\"sampled\",\"name\":", out);
	report_json_string(out, name);
	fprintf(out, ",\"unit\":\"%s\",\"startValue\":0,\"samples\":[", unit_of(mm));
	/* samples, then weights: two passes over the same merged runs */
	for (int pass = 0; pass < 2; pass++) {
		bool comma = false;
		if (pass)
			fputs("],\"weights\":[", out);
		for (size_t i = a; i < b;) {
			uint32_t entry = m->events[order[i]].entry;
			uint64_t w = 0;
			size_t j = i;
			for (; j < b && same_stack(m, m->events[order[j]].entry, entry); j++)
				w += m->events[order[j]].value;
			i = j;
			if (!w)
				continue;
			fputs(comma ? "," : "", out);
			comma = true;
			if (pass) {
				fprintf(out, "%llu", (unsigned long long)w);
				total += w;
				continue;
			}
			const struct model_entry *e = &m->entries[entry];
			fputc('[', out);
			for (uint32_t k = 0; k < e->n; k++)
				fprintf(out, "%s%u", k ? "," : "", frame_of[e->funcs[k]]);
			fputc(']', out);
		}
	}
	fprintf(out, "],\"endValue\":%llu}", (unsigned long long)total);
}

int report_speedscope(FILE *out, const struct model *m, const char *title)
{
	uint32_t *order = malloc((m->nevents + 1) * sizeof(*order));
	uint32_t *frame_of = malloc((m->nfuncs + 1) * sizeof(*frame_of));
	uint32_t nframes = 0;
	size_t nprofiles = 0, active = 0;
	uint64_t best = 0;

	if (!order || !frame_of) {
		free(order);
		free(frame_of);
		return -1;
	}
	memset(frame_of, 0xff, (m->nfuncs + 1) * sizeof(*frame_of));
	for (size_t i = 0; i < m->nevents; i++) {
		order[i] = (uint32_t)i;
		const struct model_entry *e = &m->entries[m->events[i].entry];
		for (uint32_t k = 0; k < e->n; k++)
			if (frame_of[e->funcs[k]] == UINT32_MAX)
				frame_of[e->funcs[k]] = nframes++;
	}
	sort_m = m;
	qsort(order, m->nevents, sizeof(*order), cmp_event);

	fputs("{\"$schema\":\"https://www.speedscope.app/file-format-schema.json\",\"exporter\":\"tally\",\"name\":", out);
	report_json_string(out, title);
	fputs(",\"shared\":{\"frames\":[", out);
	uint32_t *func_at = malloc((nframes + 1) * sizeof(*func_at));
	if (!func_at) {
		free(order);
		free(frame_of);
		return -1;
	}
	for (uint32_t f = 0; f < m->nfuncs; f++)
		if (frame_of[f] != UINT32_MAX)
			func_at[frame_of[f]] = f;
	for (uint32_t i = 0; i < nframes; i++) {
		const struct model_func *f = &m->funcs[func_at[i]];
		fputs(i ? ",\n{\"name\":" : "\n{\"name\":", out);
		report_json_string(out, f->name);
		if (f->path[0]) {
			fputs(",\"file\":", out);
			report_json_string(out, f->path);
		}
		fputc('}', out);
	}
	free(func_at);
	fputs("]},\"profiles\":[", out);
	for (size_t i = 0; i < m->nevents;) {
		const struct model_event *e0 = &m->events[order[i]];
		size_t j = i;
		uint64_t sum = 0;
		for (; j < m->nevents && m->events[order[j]].thread == e0->thread &&
		       m->events[order[j]].metric == e0->metric; j++)
			sum += m->events[order[j]].value;
		if (sum) {
			if (e0->metric == MODEL_CPU && sum > best) {
				best = sum;
				active = nprofiles;
			}
			profile_out(out, m, order, i, j, frame_of, nprofiles == 0);
			nprofiles++;
		}
		i = j;
	}
	fprintf(out, "\n],\"activeProfileIndex\":%zu}\n", active);
	free(order);
	free(frame_of);
	return ferror(out) ? -1 : 0;
}
