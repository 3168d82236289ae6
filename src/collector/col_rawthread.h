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

/* At the process's end, from the thread that ends it (`self`, held inside
 * collector code; NULL: none), and only after col_thread_end_others, as
 * col_init.c's destructor calls them: nothing checks that order, so another
 * ending path (attach's stop) must keep it too:
 * THREAD_END and THREAD_COST for every raw thread met, with its CPU time
 * now if it still runs, else at its last sample; no raw thread is set up
 * after this. */
void col_rawthread_end_all(struct col_thread *self);

/* Once per image, before col_descend_install: a pthread_atfork child
 * handler that drops the parent's raw threads' states (and the blocks of
 * the parent's files they hold) before the fork child's files are set up
 * (child handlers run in the order they were installed). */
void col_rawthread_install(void);

#endif
