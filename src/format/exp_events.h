/* SPDX-License-Identifier: MIT
 *
 * exp_events.h — the counters `tally record -c EVENT[/PERIOD]` samples on:
 * event names (perf's: cycles, instructions, cache-misses, page-faults,
 * rNNNN raw events ...) to perf_event types and configs, default periods,
 * and the TALLY_COUNTERS string that carries them to the collector.
 *
 * Used by the CLI (parsing -c, checking that the machine has the event
 * before the target starts) and by the collector (decoding TALLY_COUNTERS
 * before main: no malloc, no stdio).  Linked into both, like exp_launch.c.
 */
#ifndef TALLY_EXP_EVENTS_H
#define TALLY_EXP_EVENTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "format/exp_records.h"

#define EXP_EVENT_NAME_MAX 32        /* bytes of a name, NUL included */

struct exp_event {
	char name[EXP_EVENT_NAME_MAX];   /* as the user spelled it: the metric's name */
	uint32_t type;                   /* PERF_TYPE_HARDWARE, _SOFTWARE, _HW_CACHE, _RAW */
	uint64_t config;
	uint64_t period;                 /* events per sample */
	uint64_t config1;                /* a precise memory event's extra config (Intel's
	                                    load-latency threshold); 0 */
	uint8_t precise;                 /* precise_ip (1..3): a precise memory event, sampled
	                                    with its ring (PERF_SAMPLE_ADDR | DATA_SRC,
	                                    format/exp_perf_mem.h); 0: a counter */
};

/* Parse "NAME[/PERIOD]".  0, or -1 with a one-line reason in `err` (unknown
 * name: the known ones are listed; a period that is not a number > 0). */
int exp_event_parse(const char *spec, struct exp_event *ev, char *err, size_t errlen);

/* Is it a hardware event (it needs a PMU)? */
bool exp_event_is_hardware(const struct exp_event *ev);

struct perf_event_attr;

/* The attributes the collector samples an event with (and `record` probes
 * it with before the target starts): a per-thread counter, disabled until
 * enabled, user space only when excl_kernel; with `sigtrap`, a SIGTRAP at
 * each overflow, removed at exec.  The counters (-c), the clock and the
 * context switches of --states all start from it. */
void exp_event_attr(const struct exp_event *ev, int excl_kernel, bool sigtrap, struct perf_event_attr *a);

/* The software events, "page-faults, context-switches, ..." (for messages). */
const char *exp_event_software_names(void);

/* The events, as TALLY_COUNTERS carries them: "NAME/PERIOD,..." into buf,
 * a precise memory event (whose PMU type is the machine's, from sysfs) as
 * "NAME/PERIOD/TYPE/CONFIG/CONFIG1/PRECISE" (numbers in hex after the
 * period); the length, or -1 if it does not fit. */
int exp_events_encode(const struct exp_event *evs, int n, char *buf, size_t len);

/* Read such a string into evs (at most `max`); the number read.  Items that
 * do not parse are skipped and counted in *bad (may be NULL). */
int exp_events_decode(const char *s, struct exp_event *evs, int max, int *bad);

#endif
