/* SPDX-License-Identifier: MIT
 *
 * cli_events.h — checking `tally record -c` counters before the target
 * starts (cli_events.c).
 */
#ifndef TALLY_CLI_EVENTS_H
#define TALLY_CLI_EVENTS_H

#include "format/exp_events.h"

/* Open each event once in this process.  0, or -1 with one line printed:
 * the event, the cause (no PMU, not permitted, ...) and what works. */
int cli_events_check(const struct exp_event *evs, int n);

/* Open `ev` once in this process as a counting event of this process
 * (user mode only with excl_kernel): its descriptor, or -1 with errno. */
int cli_event_open_counting(const struct exp_event *ev, int excl_kernel);

#endif
