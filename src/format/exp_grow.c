/* SPDX-License-Identifier: MIT
 *
 * exp_grow.c — the analyzer's one growth helper for malloc'd arrays
 * (declared in exp_data.h): the readers of records, code and runs, and the
 * model, grow their arrays through it.  Its own file, under all of them,
 * so that the readers do not reach each other for it.
 */
#include <stdlib.h>

#include "format/exp_data.h"

int exp_grow(void *arr, size_t *cap, size_t n, size_t size)
{
	void **p = arr;

	if (n < *cap)
		return 0;
	size_t ncap = *cap ? *cap * 2 : 64;
	void *q = realloc(*p, ncap * size);
	if (!q)
		return -1;
	*p = q;
	*cap = ncap;
	return 0;
}
