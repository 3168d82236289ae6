/* SPDX-License-Identifier: MIT
 *
 * report_seqsort.c — a multikey quicksort (Bentley and Sedgewick, "Fast
 * algorithms for sorting and searching strings", 1997) of call stacks as
 * id sequences (report_seqsort.h).  It compares each frame of the long
 * common prefixes of deep stacks once, where qsort with a comparison of
 * whole sequences compared them again at every step: on a million-sample
 * call-heavy experiment (242,000 entries of ~21 frames) the collapsed
 * export's qsort was a fifth of its CPU.  Called by report_html_tree.c and
 * report_collapsed.c; no allocation, no state.
 */
#include "report/report_seqsort.h"

/* Key d of a sequence: its lead, then its frames; -1 past its end (a prefix
 * sorts first). */
static int64_t key_at(const struct report_seq *s, uint32_t d)
{
	return d == 0 ? (int64_t)s->lead : d - 1 < s->n ? (int64_t)s->ids[d - 1] : -1;
}

static void swap_seq(struct report_seq *a, struct report_seq *b)
{
	struct report_seq t = *a;
	*a = *b;
	*b = t;
}

/* Sort a[0..n), equal in keys [0, d), by their keys from d on. */
static void sort_from(struct report_seq *a, size_t n, uint32_t d)
{
	while (n > 1) {
		if (n < 12) {           /* insertion sort, comparing from key d */
			for (size_t i = 1; i < n; i++)
				for (size_t j = i; j > 0; j--) {
					uint32_t e = d;
					while (key_at(&a[j - 1], e) == key_at(&a[j], e) && key_at(&a[j], e) >= 0)
						e++;
					if (key_at(&a[j - 1], e) <= key_at(&a[j], e))
						break;
					swap_seq(&a[j - 1], &a[j]);
				}
			return;
		}
		int64_t x = key_at(&a[0], d), y = key_at(&a[n / 2], d), z = key_at(&a[n - 1], d);
		int64_t pivot = x < y ? (y < z ? y : x < z ? z : x) : (x < z ? x : y < z ? z : y);
		size_t lt = 0, i = 0, gt = n;
		while (i < gt) {
			int64_t k = key_at(&a[i], d);
			if (k < pivot)
				swap_seq(&a[lt++], &a[i++]);
			else if (k > pivot)
				swap_seq(&a[i], &a[--gt]);
			else
				i++;
		}
		if (pivot >= 0)
			sort_from(a + lt, gt - lt, d + 1);
		if (lt < n - gt) {      /* the smaller side recursively: log n deep */
			sort_from(a, lt, d);
			a += gt;
			n -= gt;
		} else {
			sort_from(a + gt, n - gt, d);
			n = lt;
		}
	}
}

void report_seq_sort(struct report_seq *a, size_t n)
{
	sort_from(a, n, 0);
}
