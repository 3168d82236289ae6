/* SPDX-License-Identifier: MIT
 *
 * tracer.h — what the tracer libraries share.  Each tracer is its own
 * preloaded library (libtally-heap.so, libtally-sync.so, libtally-io.so),
 * added by `tally record` only with -H, -s, -i: a tracer that is off costs
 * nothing, not even a branch.  They record through the collector
 * (collector/col_export.h): tally__trace_event refuses reentry, so the
 * collector's own allocations and I/O are never traced.
 */
#ifndef TALLY_TRACER_H
#define TALLY_TRACER_H

#include <stdint.h>

#include "collector/col_export.h"
#include "collector/col_real.h"
#include "format/exp_records.h"

#define TRACE_API __attribute__((visibility("default")))

/* The table of real functions (collector/col_real.h: the definitions after
 * tally's libraries), cached by each tracer.  NULL only while the collector
 * resolves it, for an allocation made by dlsym itself: heap.c serves those
 * from its arena, and nothing else is called then.
 * trace_resolve_note: the collector resolves the tracers' part of the table
 * at the first tally__real(), so each tracer library's constructor calls
 * it, in normal context: left to a tracer's first traced call, that could
 * be in a signal handler (a self-pipe's write), and dlsym there may wait
 * for a lock the interrupted code holds. */
static inline const struct col_real *trace_real(void)
{
	static const struct col_real *table;

	if (__builtin_expect(table != NULL, 1))
		return table;
	return table = tally__real();
}

/* The real `name`: REAL(read)(fd, buf, n). */
#define REAL(name) (trace_real()->name)

/* Where the traced call returns to, in the interposer itself (compiled with
 * frame pointers): the caller's pc, stack pointer after the return, frame
 * pointer.  Passed down to tally__trace_event. */
struct trace_caller {
	uint64_t ra, sp, fp;
};

#define TRACE_CALLER()                                                       \
	((struct trace_caller){                                              \
		(uint64_t)(uintptr_t)__builtin_return_address(0),            \
		(uint64_t)(uintptr_t)__builtin_frame_address(0) + 16,        \
		*(uint64_t *)__builtin_frame_address(0) })

/* The state of a tracer's option, cached once the collector has started. */
struct trace_switch {
	int64_t value;             /* what tally__trace_option said */
	int known;
};

static inline int64_t trace_option(struct trace_switch *s, const char *which)
{
	if (__builtin_expect(s->known, 1))
		return s->value;
	int64_t v = tally__trace_option(which);
	if (v == INT64_MIN)
		return -1;             /* the collector is starting: not yet */
	s->value = v;
	__atomic_store_n(&s->known, 1, __ATOMIC_RELEASE);
	return v;
}

#endif
