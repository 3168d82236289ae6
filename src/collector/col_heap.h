/* SPDX-License-Identifier: MIT
 *
 * col_heap.h — the heap tracer's tables (tally record -H): allocations
 * summed by thread and stack, the blocks live now by address, the peak of
 * live bytes.  They live in heap.dat itself (large records mapped shared,
 * updated in place), so the experiment grows with distinct stacks and live
 * blocks, not with events, and stays right after SIGKILL.
 */
#ifndef TALLY_COL_HEAP_H
#define TALLY_COL_HEAP_H

#include <stdint.h>

#include "collector/col_state.h"

/* An allocation of `size` bytes at `addr` from stack `stack_id` by thread t
 * (inside the collector: col_enter).  `memo`: t's memo entry of the stack
 * (col_stack_from_memo), whose aux keeps the stack's sums slot; NULL none.
 * `old`: a block it replaces (realloc), released first; 0 none.  0, or -1
 * if it could not be recorded (counted). */
int col_heap_alloc(struct col_thread *t, uint32_t stack_id, struct col_traced_memo *memo,
		   uint64_t size, uint64_t addr, uint64_t old);

/* Block `addr` released (inside the collector). */
void col_heap_free(struct col_thread *t, uint64_t addr);

/* Thread t ends, or a fork child drops its parent's thread state: its
 * sums table's mapping goes (its records stay). */
void col_heap_thread_end(struct col_thread *t);

/* A fork child: the parent's tables are not its; start empty. */
/* The span of the owners' table (64 KiB, used only with -H): left out of
 * the start's prefault of the collector's data (col_init.c). */
void col_heap_tables(uintptr_t *lo, uintptr_t *hi);

void col_heap_reset_after_fork(void);

/* The process's live heap bytes (the threads' batches not yet added aside:
 * BATCH each), or EXP_PROC_NO_HEAP when the heap is not traced or has no
 * state yet.  Sigsafe, any thread. */
uint64_t col_heap_live_sigsafe(void);

#endif
