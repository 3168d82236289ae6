/* SPDX-License-Identifier: MIT
 *
 * col_control.h — whether this process records now: the paused state, one
 * bit per reason (format/exp_launch.h, enum exp_pause_reason), and the
 * sources that set and clear the bits: tally_pause(), --delay and
 * --duration (times), --toggle-signal (a signal), --control (the shared
 * control page).  docs/collector.md, "Control of a run".
 */
#ifndef TALLY_COL_CONTROL_H
#define TALLY_COL_CONTROL_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "collector/col_state.h"
#include "format/exp_launch.h"

/* At the collector's start, after the log is open and before any clock
 * runs: the --delay bit, the toggle signal's handler, the control page. */
void col_control_init(void);

/* col_control_paused_sigsafe when an edge or a control page is watched. */
bool col_control_paused_watched_sigsafe(uint64_t now_ns);

/* Is recording off now?  `now_ns` is CLOCK_MONOTONIC if the caller has it,
 * else 0 (read here only while a --delay or --duration edge is pending).
 * Applies the edges and control-page changes that are due, logging each.
 * Sigsafe, any thread.  Inline: with nothing watched (no --delay,
 * --duration or --control), two loads of one cache line, no call -- it
 * runs on every traced event. */
static inline bool col_control_paused_sigsafe(uint64_t now_ns)
{
	if (__builtin_expect(atomic_load_explicit(&col_proc.control_watch, memory_order_relaxed), 0))
		return col_control_paused_watched_sigsafe(now_ns);
	return atomic_load_explicit(&col_proc.paused, memory_order_relaxed) != 0;
}

/* Has --duration ended (recording off for good in this process)? */
bool col_control_over_sigsafe(void);

/* Set (`off`) or clear the bit of `why`, logging a change at `time_ns`.
 * Returns whether the bit was set before.  Sigsafe, any thread. */
bool col_control_set_sigsafe(enum exp_pause_reason why, bool off, uint64_t time_ns);

/* The program set the disposition of `sig` (col_interpose_signal.c): if it
 * is the toggle signal and the disposition is a handler of its own, the
 * signal is the program's from now on (our handler passes it on), and
 * recording that the signal had turned off is turned on again. */
void col_control_signal_set(int sig);

/* A fork child's start: log the bits it inherited as set at its start (its
 * log is new). */
void col_control_log_state(void);

#endif
