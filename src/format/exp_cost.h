/* SPDX-License-Identifier: MIT
 *
 * exp_cost.h — the buckets of the collector's cost histograms (THREAD_COST
 * records): written by the signal handler, read by the analyzer.
 *
 * A duration in ns falls in one of EXP_COST_BUCKETS buckets: 0..15 exactly,
 * then eight buckets per power of two (each within 12.5% of its lower bound)
 * up to 2^32 ns, where every longer duration goes.  Sigsafe: arithmetic only.
 */
#ifndef TALLY_EXP_COST_H
#define TALLY_EXP_COST_H

#include <stdint.h>

#define EXP_COST_BUCKETS 240

/* The bucket of a duration of `ns`. */
static inline unsigned exp_cost_bucket(uint64_t ns)
{
	if (ns < 16)
		return (unsigned)ns;
	if (ns > 0xffffffffull)
		ns = 0xffffffffull;
	unsigned e = 63u - (unsigned)__builtin_clzll(ns);     /* 4..31 */
	return 16u + (e - 4u) * 8u + (unsigned)((ns >> (e - 3u)) & 7u);
}

/* The smallest duration in bucket `b` (< EXP_COST_BUCKETS). */
static inline uint64_t exp_cost_bucket_low(unsigned b)
{
	if (b < 16)
		return b;
	unsigned e = (b - 16u) / 8u + 4u, sub = (b - 16u) % 8u;
	return (uint64_t)(8u + sub) << (e - 3u);
}

/* The duration at quantile `permille`/1000 of a histogram (counts by
 * bucket, EXP_COST_BUCKETS of them): the middle of the bucket that holds it;
 * 0 if the histogram is empty.  For readers. */
static inline uint64_t exp_cost_quantile(const uint64_t *counts, unsigned permille)
{
	uint64_t n = 0, seen = 0;

	for (unsigned b = 0; b < EXP_COST_BUCKETS; b++)
		n += counts[b];
	uint64_t rank = (n * permille + 999) / 1000;
	for (unsigned b = 0; b < EXP_COST_BUCKETS && n; b++) {
		seen += counts[b];
		if (seen >= rank && counts[b])
			return b + 1 < EXP_COST_BUCKETS
				       ? (exp_cost_bucket_low(b) + exp_cost_bucket_low(b + 1)) / 2
				       : exp_cost_bucket_low(b);
	}
	return 0;
}

#endif
