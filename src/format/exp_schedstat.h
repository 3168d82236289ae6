/* SPDX-License-Identifier: MIT
 *
 * exp_schedstat.h — the text of a thread's /proc/TID/schedstat, parsed:
 * "cpu_ns run_delay_ns slices\n" as Linux writes it (the scheduler's
 * accounting: time on a CPU, time runnable waiting for one, times it ran;
 * Documentation/scheduler/sched-stats.rst).  The one parser of that text:
 * the collector's THREAD_SCHED records and --states' run delay
 * (col_sched.c, col_states.c), the outside mode's run delays
 * (out_image.c) and tally record's blocked-thread test
 * (cli_kernel_blocked.c).  Async-signal safe (no libc at all), so linked
 * into both the collector and the analyzer, like exp_events.c.
 */
#ifndef TALLY_EXP_SCHEDSTAT_H
#define TALLY_EXP_SCHEDSTAT_H

#include <stdbool.h>
#include <stdint.h>

struct exp_schedstat {
	uint64_t cpu_ns;           /* time on a CPU */
	uint64_t run_delay_ns;     /* time runnable, waiting for one */
	uint64_t slices;           /* times it ran */
};

/* True when `text` (NUL-terminated) holds the three fields: decimal, each
 * after blanks, the third followed by a blank, a newline or the end (a
 * later kernel's further fields are allowed); *out then holds them.  False
 * for a missing or empty field, a sign or other character in one, or a
 * value past 2^64 - 1 (never wrapped); *out is then unspecified.  Sigsafe. */
bool exp_schedstat_parse(const char *text, struct exp_schedstat *out);

#endif
