/* SPDX-License-Identifier: MIT
 *
 * col_counters.h — counter profiling (`tally record -c EVENT[/PERIOD]`):
 * per-thread perf_event counters that signal their thread at each overflow;
 * each overflow is a sample with the thread's user stack.
 */
#ifndef TALLY_COL_COUNTERS_H
#define TALLY_COL_COUNTERS_H

#include <signal.h>
#include <stdbool.h>
#include <stdint.h>

#include "collector/col_state.h"

/* Read TALLY_COUNTERS into col_proc (the collector's start). */
void col_counters_configure(const char *spec);

/* Open and start the calling thread's counters (its state `t`, published);
 * the first thread also writes the COUNTER_DEF records. */
void col_counters_thread_start(struct col_thread *t);

/* Each counter's last part and total (COUNTER_END), then stop them (thread
 * end, t busy). */
void col_counters_thread_end(struct col_thread *t);

/* Stop them without writing (a fork child: they are the parent's). */
void col_counters_drop_after_fork(struct col_thread *t);

/* Is this a counter's overflow signal?  If so it is handled here: a sample
 * with the interrupted stack.  Signal handler. */
bool col_counters_signal_sigsafe(int sig, const siginfo_t *si, void *uc, uint64_t entry_ns);

#endif
