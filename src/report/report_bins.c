/* SPDX-License-Identifier: MIT
 *
 * report_bins.c — the second estimate of a function's share error
 * (--errors=bins): from the share's spread over time rather than from its
 * sample count.  The sampled span (first to last clock sample of the
 * model's events) is cut into REPORT_BINS bins of equal length; each
 * function's exclusive and inclusive samples are counted per bin (inclusive
 * once per stack, as the function table counts them), and the error of
 * its share p = sum n_k / sum N_k is the batch-means (ratio) estimate over
 * the K bins that hold samples:
 *
 *     s.e.(p) = sqrt( sum_k (n_k - p N_k)^2 / (K (K - 1)) ) / mean_k N_k
 *
 * which is sd(p_k) / sqrt(K) when the bins hold as many samples each.  A
 * stationary program gives about the sample-count error
 * (report_share_error); one whose shares change over the run (phases)
 * gives a larger one: the sample count's assumes every sample independent
 * of the run's course.  Needs the model's events (keep_events).  The
 * functions may be mapped to other ids first (the HTML page's, which
 * merge same-named ones): a stack then counts once per id.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "report/report.h"

int report_bins_build(struct report_bins *b, const struct model *m, const uint32_t *map, uint32_t nids)
{
	uint32_t *stamp = NULL;
	uint64_t t0 = UINT64_MAX, t1 = 0;

	memset(b, 0, sizeof(*b));
	for (size_t i = 0; i < m->nevents; i++) {
		const struct model_event *ev = &m->events[i];
		if (ev->metric != MODEL_CPU)
			continue;
		if (ev->time_ns < t0)
			t0 = ev->time_ns;
		if (ev->time_ns > t1)
			t1 = ev->time_ns;
	}
	if (t0 > t1)
		return 0;                              /* no samples: every error NaN */
	b->t0 = t0;
	b->mapped = map != NULL;
	b->width = (t1 - t0) / REPORT_BINS + 1;        /* t1 in the last bin */
	if (!map)
		nids = m->nfuncs;
	b->nfuncs = nids;
	b->slot = calloc(nids + 1, sizeof(*b->slot));
	stamp = calloc(nids + 1, sizeof(*stamp));
	if (!b->slot || !stamp)
		goto oom;
	/* slots for the functions with samples only: a large model's
	 * functions are mostly of other metrics, or of none */
	uint32_t nslots = 0, cap = 0;
	for (size_t i = 0; i < m->nevents; i++) {
		const struct model_event *ev = &m->events[i];
		if (ev->metric != MODEL_CPU || ev->entry >= m->nentries)
			continue;
		const struct model_entry *e = &m->entries[ev->entry];
		unsigned k = (unsigned)((ev->time_ns - t0) / b->width);
		b->total[k]++;
		for (uint32_t j = 0; j < e->n; j++) {
			uint32_t f = e->funcs[j];
			if (f >= m->nfuncs || (map && (f = map[f]) >= nids))
				continue;
			if (!b->slot[f]) {
				if (nslots == cap) {
					uint32_t ncap = cap ? 2 * cap : 256;
					uint32_t *x = realloc(b->excl, (size_t)ncap * REPORT_BINS * sizeof(*x));
					if (!x)
						goto oom;
					b->excl = x;
					x = realloc(b->incl, (size_t)ncap * REPORT_BINS * sizeof(*x));
					if (!x)
						goto oom;
					b->incl = x;
					memset(b->excl + (size_t)cap * REPORT_BINS, 0,
					       (size_t)(ncap - cap) * REPORT_BINS * sizeof(*x));
					memset(b->incl + (size_t)cap * REPORT_BINS, 0,
					       (size_t)(ncap - cap) * REPORT_BINS * sizeof(*x));
					cap = ncap;
				}
				b->slot[f] = ++nslots;
			}
			size_t at = (size_t)(b->slot[f] - 1) * REPORT_BINS + k;
			if (j + 1 == e->n)
				b->excl[at]++;
			if (stamp[f] != (uint32_t)i + 1) {     /* once per stack */
				stamp[f] = (uint32_t)i + 1;
				b->incl[at]++;
			}
		}
	}
	for (unsigned k = 0; k < REPORT_BINS; k++)
		b->used += b->total[k] > 0;
	free(stamp);
	return 0;
oom:
	free(stamp);
	report_bins_free(b);
	return -1;
}

/* The batch-means error of the share held by counts c[0..REPORT_BINS) of
 * the bins' totals, in points; NaN with fewer than two bins with samples. */
static double bins_error(const struct report_bins *b, const uint32_t *c)
{
	double n = 0, N = 0, ss = 0;

	if (b->used < 2)
		return NAN;
	for (unsigned k = 0; k < REPORT_BINS; k++) {
		n += c ? c[k] : 0;
		N += b->total[k];
	}
	double p = n / N, K = b->used;
	for (unsigned k = 0; k < REPORT_BINS; k++) {
		if (!b->total[k])
			continue;
		double d = (c ? c[k] : 0) - p * b->total[k];
		ss += d * d;
	}
	return 100.0 * sqrt(ss / (K * (K - 1))) / (N / K);
}

double report_bins_error(const struct report_bins *b, uint32_t func, bool incl)
{
	if (!b || !b->used)
		return NAN;
	if (func == MODEL_TOTAL && !b->mapped)
		return 0.0;                            /* all of every bin */
	if (func >= b->nfuncs || !b->slot[func])
		return bins_error(b, NULL);
	size_t at = (size_t)(b->slot[func] - 1) * REPORT_BINS;
	return bins_error(b, incl ? b->incl + at : b->excl + at);
}

void report_bins_free(struct report_bins *b)
{
	free(b->slot);
	free(b->excl);
	free(b->incl);
	memset(b, 0, sizeof(*b));
}
