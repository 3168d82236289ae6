/* SPDX-License-Identifier: MIT
 *
 * col_datablocks.h — `--data`'s heap blocks (DATA_BLOCK records), written
 * only for the blocks some clock sample may have seen (col_datablocks.c).
 */
#ifndef TALLY_COL_DATABLOCKS_H
#define TALLY_COL_DATABLOCKS_H

#include <stdint.h>

#include "collector/col_state.h"

/* A clock signal is arriving (any thread's): blocks allocated before now
 * may be seen by its sample.  Called at the handler's entry, before its
 * time is read.  Signal handler. */
void col_data_epoch_tick_sigsafe(void);

/* Block `addr` of `size` bytes allocated (stack_id of its allocation, 0
 * without -H), and block `addr` released.  The calling thread, entered
 * (col_enter). */
void col_data_block_alloc(struct col_thread *t, uint64_t addr, uint64_t size, uint32_t stack_id);
void col_data_block_free(struct col_thread *t, uint64_t addr);

/* Write t's blocks held back that a sample since may have seen (its own
 * clock sample: t busy). */
void col_data_blocks_flush_sigsafe(struct col_thread *t);

/* Every block t holds back written, the table kept (the image is about to
 * exec: its samples may have seen them).  The thread stays among the live
 * ones (col_thread.c), whose tables the process's end may be copying
 * (col_data_blocks_others_at_end): only a thread that has left them may
 * unmap its own.  t busy. */
void col_data_blocks_write_out(struct col_thread *t);

/* Thread t ends, out of the live threads: every block held back is written
 * (live blocks outlive their thread), and its table is unmapped. */
void col_data_blocks_thread_end(struct col_thread *t);

/* The process ends: the other threads' blocks held back that a sample may
 * have seen, written by `self` (a table being changed meanwhile is
 * skipped, and its blocks counted lost). */
void col_data_blocks_others_at_end(struct col_thread *self, struct col_thread *other);

/* A fork child: the table is the parent's thread's; dropped. */
void col_data_blocks_drop_after_fork(struct col_thread *t);

#endif
