/* SPDX-License-Identifier: MIT
 *
 * col_mem.h — memory for the collector's own tables.  Layer 1.
 */
#ifndef TALLY_COL_MEM_H
#define TALLY_COL_MEM_H

#include <stddef.h>

/* Zeroed memory for the collector's own tables: mmap-backed, never freed,
 * never from the target's malloc.  Not sigsafe (takes a spinlock).  NULL on
 * failure. */
void *col_alloc(size_t bytes);

#endif
