/* SPDX-License-Identifier: MIT
 *
 * col_clock.h — a thread's CPU-time clock: a perf task-clock event (SIGTRAP
 * by sigtrap, or SIGPROF by fasync) or a POSIX CPU-time timer (SIGPROF),
 * signalling the thread itself every period of its CPU time.
 */
#ifndef TALLY_COL_CLOCK_H
#define TALLY_COL_CLOCK_H

#include <signal.h>
#include <stdbool.h>
#include <stdint.h>

#include "collector/col_state.h"

/* Start / stop the calling thread's sampling clock. */
void col_clock_start(struct col_thread *t);
void col_clock_stop(struct col_thread *t);

/* The signal the clocks send (SIGTRAP or SIGPROF), 0 if none (no clock, or
 * the first one not yet open).  col_clock_start unblocks it in its thread. */
int col_clock_signal(void);

/* The sampling period in ns of CPU time, 0 if there is no clock. */
uint64_t col_clock_period_ns(void);

/* The thread's CPU time so far (task clock), in ns. */
uint64_t col_clock_read_sigsafe(struct col_thread *t);

/* Thread t's CPU time (task clock), read from another thread of the
 * process; *known false (and 0) when t has no clock to read. */
uint64_t col_clock_read_other_sigsafe(const struct col_thread *t, bool *known);

/* In a fork child: the parent's process-wide clock is not the child's. */
void col_clock_after_fork(void);

/* Is this signal from our clock (this thread's, or a late one from a clock
 * already stopped)? */
bool col_clock_signal_sigsafe(int sig, const siginfo_t *si);

/* Stop the clock signalling, from its own signal handler (the size limit
 * was reached); col_clock_stop still ends it. */
void col_clock_pause_sigsafe(struct col_thread *t);

/* After a signal: make the clock signal again (the fasync way needs it). */
void col_clock_rearm_sigsafe(struct col_thread *t);

/* Open and start a clock for thread `tid` of this process from another of its
 * threads (tally record -p): a sigtrap event that the threads it creates
 * inherit (*inherits true), else a fasync one that the thread's state must
 * hold (perf_fd) to be re-armed.  fd, or -errno. */
int col_clock_open_for(pid_t tid, bool *inherits);

/* Thread `tid` (of this process) is losing its inherited clock's progress
 * to the threads it creates: keep their contexts apart from its own from
 * now on (once per thread; see col_clock.c).  Sigsafe. */
void col_clock_keep_apart_sigsafe(pid_t tid);

/* Log how the clock samples ("clock", "clock.kernel"), once it is known. */
void col_clock_log_way(void);

#endif
