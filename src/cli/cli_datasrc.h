/* SPDX-License-Identifier: MIT
 *
 * cli_datasrc.h — where `tally record --data` takes its data addresses
 * from (cli_datasrc.c): a precise memory event the PMU offers, or the
 * clock samples' registers; decided before the target starts, and why.
 */
#ifndef TALLY_CLI_DATASRC_H
#define TALLY_CLI_DATASRC_H

#include <stdbool.h>
#include <stddef.h>

#include "format/exp_events.h"

/* Look for a precise memory event under the PMUs' sysfs directory
 * (/sys/bus/event_source/devices, or $TALLY_PMU_SYSFS), in the order of
 * cli_datasrc.c's table, and open the first one found in this process the
 * way the collector will.  true with *ev the event (ev->precise set) when
 * one opens; false when none does.  Either way `why` gets one line for the
 * log's `data.source` and the overview: the source, and the reason. */
bool cli_datasrc_choose(struct exp_event *ev, char *why, size_t len);

#endif
