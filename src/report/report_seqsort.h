/* SPDX-License-Identifier: MIT
 *
 * report_seqsort.h — sorting call stacks as sequences of ids, root first:
 * the one sort of the views that order or fold whole stacks (the HTML
 * page's tree, the collapsed export).
 */
#ifndef TALLY_REPORT_SEQSORT_H
#define TALLY_REPORT_SEQSORT_H

#include <stddef.h>
#include <stdint.h>

/* A sequence: `lead` (a process, or 0 for all alike), then ids[0..n). */
struct report_seq {
	const uint32_t *ids;       /* root first; not owned */
	uint32_t n;
	uint32_t lead;
	uint32_t entry;            /* the caller's: the model entry it stands for */
};

/* Sort a[0..n) by (lead, ids) lexicographically, a sequence before the
 * longer ones it is a prefix of; equal sequences in no given order.  Can't
 * fail; recursion as deep as the longest sequence plus about log n. */
void report_seq_sort(struct report_seq *a, size_t n);

#endif
