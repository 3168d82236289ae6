/* SPDX-License-Identifier: MIT
 *
 * col_thread.h — a thread's collector state from its start to its end.
 */
#ifndef TALLY_COL_THREAD_H
#define TALLY_COL_THREAD_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "collector/col_state.h"

/* Set up the calling thread (state, clock, THREAD_START); idempotent. */
struct col_thread *col_thread_attach(uint64_t start_routine, pid_t creator);

/* The process's start: as col_thread_attach(0, 0), and the thread stays
 * inside collector code, its clock running, until the caller's
 * col_leave_untaken: a clock signal meanwhile is deferred, then dropped
 * (col_leave would take it, in the collector's own code, with no object
 * known yet to unwind it: `<Unknown>`).  NULL if the thread was set up
 * already or cannot be. */
struct col_thread *col_thread_attach_held(void);

/* The thread's own routine starts now (called by tally's thread start
 * wrapper): samples from here on.  A thread's inherited clock runs from its
 * clone, so a signal can arrive in the wrapper's own work after attach,
 * which is the collector's, not the program's. */
void col_thread_routine_starts(void);

/* Tear down the calling thread (THREAD_END); its blocks stay in the files. */
void col_thread_detach(void);

/* The tracers' records the calling thread still holds (tally__on_thread_end's
 * functions), written now: at its end, and before an exec replaces the
 * image with them in memory.  Normal context, the thread not busy. */
void col_thread_tracers_end(void);

/* From normal context, at the calling thread's end (col_thread_detach, or
 * the process's destructor before its own work): the thread is inside
 * collector code from here on, so that a clock signal is deferred and never
 * taken (the last slice, in THREAD_END's CPU time) rather than sampling the
 * collector's own end.  Idempotent. */
void col_thread_hold_for_end(void);

/* At the end of the process, from the thread that ends it: THREAD_END and
 * THREAD_COST records for the threads still attached (exit() with workers
 * still running or blocked, as xz does), through the caller's cursor. */
void col_thread_end_others(void);

/* The calling thread is now called `name` (EXP_THREAD_NAME_* flags): a
 * THREAD_NAME record.  Normal context. */
void col_thread_name(const char *name, uint32_t flags);

/* Thread t's THREAD_COST record (its collector time, its handler runs'
 * histogram, after_end_ns of it spent after its THREAD_END), written
 * through thread `via`'s cursor. */
void col_thread_write_cost(struct col_thread *t, struct col_thread *via, uint64_t after_end_ns);

/* After fork, in the child: the thread's state belongs to the parent's files. */
void col_thread_reset_after_fork(void);

#endif
