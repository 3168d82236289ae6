/* SPDX-License-Identifier: MIT
 *
 * exp_grow.c — the analyzer's one growth helper for malloc'd arrays
 * (declared in exp_data.h): the readers of records, code and runs, and the
 * model, grow their arrays through it.  Its own file, under all of them,
 * so that the readers do not reach each other for it.  Big arrays (from
 * 4 MiB: a million samples' worth of samples, trie nodes, hash slots,
 * entries' frames) are asked for as transparent huge pages: first touching
 * memory was a fifth of a big report's CPU, one fault per 4 KiB.
 */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "format/exp_data.h"

#define HUGE_BYTES ((size_t)2 << 20)      /* x86-64's transparent huge page */

void *exp_big_alloc(size_t bytes, bool zero)
{
	if (bytes < 2 * HUGE_BYTES)
		return zero ? calloc(1, bytes ? bytes : 1) : malloc(bytes ? bytes : 1);
	size_t len = (bytes + HUGE_BYTES - 1) & ~(HUGE_BYTES - 1);
	void *p = aligned_alloc(HUGE_BYTES, len);
	if (!p)
		return NULL;
	(void)madvise(p, len, MADV_HUGEPAGE);      /* advice: may fail */
	if (zero)
		memset(p, 0, bytes);
	return p;
}

void *exp_big_realloc(void *p, size_t old_bytes, size_t bytes)
{
	if (bytes < 2 * HUGE_BYTES)
		return realloc(p, bytes ? bytes : 1);
	void *q = exp_big_alloc(bytes, false);
	if (!q)
		return NULL;
	if (p)
		memcpy(q, p, old_bytes < bytes ? old_bytes : bytes);
	free(p);
	return q;
}

int exp_grow(void *arr, size_t *cap, size_t n, size_t size)
{
	void **p = arr;

	if (n < *cap)
		return 0;
	size_t ncap = *cap ? *cap * 2 : 64;
	void *q = exp_big_realloc(*p, *cap * size, ncap * size);
	if (!q)
		return -1;
	*p = q;
	*cap = ncap;
	return 0;
}
