/* SPDX-License-Identifier: MIT
 *
 * col_time.h — the collector's clocks for timestamps: CLOCK_MONOTONIC (from
 * the TSC where it is invariant) and the calling thread's CPU time.
 * Async-signal-safe.  Layer 1 (includes nothing of the collector).
 */
#ifndef TALLY_COL_TIME_H
#define TALLY_COL_TIME_H

#include <stdint.h>

/* Calibration starts; before any other call (the collector's start). */
void col_time_init(void);

/* CLOCK_MONOTONIC in ns, from the TSC where it is invariant. */
uint64_t col_now_ns_sigsafe(void);

/* The calling thread's CPU time (CLOCK_THREAD_CPUTIME_ID) in ns. */
uint64_t col_thread_cputime_ns_sigsafe(void);
/* CPU time of the whole process (all its threads, living and ended), ns. */
uint64_t col_process_cputime_ns_sigsafe(void);

#endif
