/* SPDX-License-Identifier: MIT
 *
 * col_psample.h — process samples over time (`tally record
 * --process-samples S`): the process's resident memory, page faults,
 * context switches, live heap and CPU time every S seconds of wall time, as
 * PROC_SAMPLE records in threads.dat (format/exp_records.h).
 */
#ifndef TALLY_COL_PSAMPLE_H
#define TALLY_COL_PSAMPLE_H

#include <stdint.h>

struct col_thread;

/* From the clock's handler, recording on: take a sample if a period has
 * ended since the last one (one thread takes it: compare-and-swap on the
 * next time).  `now_ns` CLOCK_MONOTONIC.  Sigsafe; one load when not due. */
void col_psample_tick_sigsafe(struct col_thread *t, uint64_t now_ns);

/* Take one now, whatever the period (the process's start and end), unless
 * recording is off or there are no process samples; the first call arms
 * the period's ticks, recording off or not. */
void col_psample_now_sigsafe(struct col_thread *t, uint64_t now_ns);

#endif
