/* SPDX-License-Identifier: MIT
 *
 * col_rawthread.h — threads made by a raw clone system call (no
 * pthread_create, no TLS of their own: Go's runtime without cgo, JITs,
 * sandboxes, inline assembly): their collector states, found by thread id
 * from the signal handler, since the TLS they share is their creator's.
 */
#ifndef TALLY_COL_RAWTHREAD_H
#define TALLY_COL_RAWTHREAD_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "collector/col_state.h"

/* The state of the calling thread `tid`, which runs on `shared`, another
 * thread's state reached through the TLS they share (its creator's): found
 * by its thread id, or made at its first signal (THREAD_START at `now`,
 * creator `shared`'s thread).  `sp`: the interrupted stack pointer (its
 * mapping is the thread's stack).  NULL when none can be had (every slot
 * held by a live thread, no memory, the process ending, not this
 * process's thread; a signal nested in the thread's set-up), its loss
 * counted here.  Sigsafe: the signal handler's (col_sample.c). */
struct col_thread *col_rawthread_self_sigsafe(const struct col_thread *shared, pid_t tid, uint64_t sp,
					       uint64_t now);

/* The mapping of this process's that holds address `sp` (a thread's stack),
 * read from /proc/PID/maps aside (col_fds_read_each): [*lo, *hi), both 0
 * when none was found.  Sigsafe. */
void col_stack_bounds_sigsafe(uint64_t sp, uint64_t *lo, uint64_t *hi);

/* Thread t's THREAD_COST record (its collector time, its handler runs'
 * histogram), written through thread `via`'s cursor. */
void col_thread_write_cost(struct col_thread *t, struct col_thread *via);

/* At the process's end, from the thread that ends it (`self`, held inside
 * collector code): THREAD_END and THREAD_COST for every raw thread met,
 * with its CPU time now if it still runs, else at its last sample; no raw
 * thread is set up after this. */
void col_rawthread_end_all(struct col_thread *self);

/* In a fork child: the parent's raw threads are not here; their states
 * (and the blocks of the parent's files they hold) are dropped. */
void col_rawthread_reset_after_fork(void);

#endif
