/* SPDX-License-Identifier: MIT
 *
 * model_pauses.h — when a process recorded nothing: its log's "control"
 * lines (format/exp_launch.h, enum exp_pause_reason) as stretches of time,
 * for the overview and the timeline's gaps.
 */
#ifndef TALLY_MODEL_PAUSES_H
#define TALLY_MODEL_PAUSES_H

#include <stddef.h>
#include <stdint.h>

struct exp_proc;

struct model_pause {
	uint64_t start_ns, end_ns;   /* CLOCK_MONOTONIC */
	uint64_t cpu_ns;             /* the process's CPU time meanwhile; 0: not known */
	unsigned reasons;            /* bits 1 << enum exp_pause_reason, every one that
	                                held recording off during the stretch */
	unsigned first;              /* the reason that began it */
};

/* The stretches in which process `p` recorded nothing, in time order, into
 * *out (malloc'd; NULL when there are none).  A stretch still open at the
 * process's end ends there (its end_ns, else its last logged time).
 * Returns their number, or -1 when out of memory.  Lines that do not parse
 * are skipped. */
long model_pauses(const struct exp_proc *p, struct model_pause **out);

/* The reasons of `bits` as "--delay, --toggle-signal" into buf. */
const char *model_pause_reasons(unsigned bits, char *buf, size_t len);

#endif
