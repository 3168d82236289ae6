/* SPDX-License-Identifier: MIT
 *
 * col_heap.h — the heap tracer's tables (tally record -H): allocations
 * summed by thread and stack, the blocks live now by address, the peak of
 * live bytes.  They live in heap.dat itself (large records mapped shared,
 * updated in place), so the experiment grows with distinct stacks and live
 * blocks, not with events, and stays right after SIGKILL.  The tracer's
 * entry points, tally__heap_alloc and tally__heap_free (col_export.h), are
 * in col_heap.c too: an event's whole path is one function.
 */
#ifndef TALLY_COL_HEAP_H
#define TALLY_COL_HEAP_H

#include <stdint.h>

#include "collector/col_state.h"

/* Thread t ends, or a fork child drops its parent's thread state: its
 * sums table's mapping goes (its records stay). */
void col_heap_thread_end(struct col_thread *t);

/* The span of the owners' table (64 KiB, used only with -H): left out of
 * the start's prefault of the collector's data (col_init.c). */
void col_heap_tables(uintptr_t *lo, uintptr_t *hi);

/* A fork child: the parent's tables are not its; start empty. */
void col_heap_reset_after_fork(void);

/* The process's live heap bytes (the threads' batches not yet added aside:
 * BATCH each), or EXP_PROC_NO_HEAP when the heap is not traced or has no
 * state yet.  Sigsafe, any thread. */
uint64_t col_heap_live_sigsafe(void);

#endif
