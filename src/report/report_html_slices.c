/* SPDX-License-Identifier: MIT
 *
 * report_html_slices.c — the call tree's values by time (see report_html.h),
 * so that a range selected on the page's timeline shows its own flame graph.
 *
 * One pass over the model's events: each adds its value to the pair (its
 * time's bin, its entry's node), at SLICE_BINS bins.  Too many pairs for
 * the page (deep, distinct stacks over a long run) and the bins are merged
 * two by two, down to MIN_BINS; past that the page has no slices.  There
 * are at least as many pairs as nodes with values of their own: more of them
 * than the budget and there is no pass at all (a million samples of 90,000
 * distinct stacks); a pass that passes MAX_PAIRS stops early.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "model/model_map.h"
#include "report/report_html.h"

#define SLICE_BINS 200
#define MIN_BINS 10
#define BUDGET_PAIRS 40000          /* ~0.5 MB of page */
#define MAX_PAIRS (BUDGET_PAIRS * 4)

struct slices {
	struct model_map of;       /* (bin << 32 | node) + 1 -> pair index + 1 */
	uint32_t *bin, *node;
	uint64_t *val;             /* npairs x nm */
	size_t n, cap;
	int nm;
};

/* The pair (bin, node)'s values; NULL when out of memory. */
static uint64_t *pair(struct slices *s, uint32_t bin, uint32_t node)
{
	bool inserted;
	uint64_t *v = model_map_put(&s->of, ((uint64_t)bin << 32 | node) + 1, s->n + 1, &inserted);

	if (!v)
		return NULL;
	if (!inserted)
		return &s->val[(*v - 1) * (size_t)s->nm];
	if (s->n == s->cap) {
		size_t cap = s->cap ? s->cap * 2 : 4096;
		uint32_t *b = realloc(s->bin, cap * sizeof(*b));
		if (b)
			s->bin = b;
		uint32_t *n = realloc(s->node, cap * sizeof(*n));
		if (n)
			s->node = n;
		uint64_t *x = realloc(s->val, cap * (size_t)s->nm * sizeof(*x));
		if (x)
			s->val = x;
		if (!b || !n || !x)
			return NULL;
		s->cap = cap;
	}
	s->bin[s->n] = bin;
	s->node[s->n] = node;
	memset(&s->val[s->n * (size_t)s->nm], 0, (size_t)s->nm * sizeof(*s->val));
	return &s->val[s->n++ * (size_t)s->nm];
}

static void slices_free(struct slices *s)
{
	model_map_free(&s->of);
	free(s->bin);
	free(s->node);
	free(s->val);
	memset(s, 0, sizeof(*s));
}

/* Every event at `bins` bins; -1 when out of memory, 1 past MAX_PAIRS. */
static int fill(struct slices *s, const struct model *m, const struct report_html_metrics *hm,
		const uint32_t *node_of_entry, uint64_t t0, uint64_t span, uint32_t bins)
{
	for (size_t i = 0; i < m->nevents; i++) {
		const struct model_event *ev = &m->events[i];
		uint32_t node = node_of_entry[ev->entry];
		if (node == UINT32_MAX)
			continue;
		/* a sample covers the CPU time before it: binned at its start, as
		 * the timeline's tracks */
		uint64_t t = ev->metric == MODEL_CPU ? ev->time_ns - (ev->value < ev->time_ns ? ev->value : 0)
						     : ev->time_ns;
		uint64_t rel = t > t0 ? t - t0 : 0;
		uint64_t b = rel * bins / span;
		uint64_t *v = NULL;
		for (int j = 0; j < hm->n; j++) {
			bool cpu_sample = hm->m[j] == MODEL_SAMPLES && ev->metric == MODEL_CPU;
			if (hm->m[j] != ev->metric && !cpu_sample)
				continue;
			if (!v && !(v = pair(s, b < bins ? (uint32_t)b : bins - 1, node)))
				return -1;
			v[j] += cpu_sample ? 1 : ev->value;
		}
		if (s->n > MAX_PAIRS)
			return 1;
	}
	return 0;
}

/* The pairs at half as many bins. */
static int halve(struct slices *s)
{
	struct slices h = { .nm = s->nm };

	for (size_t i = 0; i < s->n; i++) {
		uint64_t *v = pair(&h, s->bin[i] / 2, s->node[i]);
		if (!v) {
			slices_free(&h);
			return -1;
		}
		for (int j = 0; j < s->nm; j++)
			v[j] += s->val[i * (size_t)s->nm + (size_t)j];
	}
	slices_free(s);
	*s = h;
	return 0;
}

static uint64_t shown(const struct report_html_metrics *hm, int j, uint64_t v)
{
	return model_metric_info(hm->m[j])->is_time ? (v + 500) / 1000 : v;
}

/* How many nodes have entries of their own (a pair per bin they are in). */
static size_t leaf_nodes(const struct model *m, const uint32_t *node_of_entry)
{
	uint32_t n = 0;
	size_t leaves = 0;

	for (size_t i = 0; i < m->nentries; i++)
		if (node_of_entry[i] != UINT32_MAX && node_of_entry[i] >= n)
			n = node_of_entry[i] + 1;
	uint8_t *seen = calloc(n + 1, 1);
	if (!seen)
		return SIZE_MAX;
	for (size_t i = 0; i < m->nentries; i++)
		if (node_of_entry[i] != UINT32_MAX && !seen[node_of_entry[i]]++)
			leaves++;
	free(seen);
	return leaves;
}

int report_html_slices(FILE *out, const struct model *m, const struct report_html_metrics *hm,
		       const uint32_t *node_of_entry, uint64_t t0_ns, uint64_t span_ns)
{
	struct slices s = { .nm = hm->n };
	uint32_t bins = SLICE_BINS;
	int rc = leaf_nodes(m, node_of_entry) > BUDGET_PAIRS
			 ? 1 : fill(&s, m, hm, node_of_entry, t0_ns, span_ns ? span_ns : 1, bins);

	while (rc == 0 && s.n > BUDGET_PAIRS && bins / 2 >= MIN_BINS) {
		rc = halve(&s);
		bins = (bins + 1) / 2;
	}
	if (rc < 0) {
		slices_free(&s);
		return -1;
	}
	if (rc > 0 || s.n > BUDGET_PAIRS) {
		fputs("\"slices\":null,\n", out);
		slices_free(&s);
		return 0;
	}
	fprintf(out, "\"slices\":{\"bins\":%u,\"b\":[", bins);
	for (size_t i = 0; i < s.n; i++)
		fprintf(out, i ? ",%u" : "%u", s.bin[i]);
	fputs("],\"n\":[", out);
	for (size_t i = 0; i < s.n; i++)
		fprintf(out, i ? ",%u" : "%u", s.node[i]);
	fputs("],\"v\":[", out);
	for (int j = 0; j < s.nm; j++) {
		fputs(j ? "],[" : "[", out);
		for (size_t i = 0; i < s.n; i++)
			fprintf(out, i ? ",%llu" : "%llu", (unsigned long long)shown(hm, j, s.val[i * (size_t)s.nm + (size_t)j]));
	}
	fputs(s.nm ? "]]},\n" : "]},\n", out);
	slices_free(&s);
	return ferror(out) ? -1 : 0;
}
