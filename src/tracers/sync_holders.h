/* SPDX-License-Identifier: MIT
 *
 * sync_holders.h — lock-holder blame for libtally-sync.so (sync.c): which
 * thread held a contended mutex, from which stack, during each part of a
 * wait on it.  See sync_holders.c.
 */
#ifndef TALLY_SYNC_HOLDERS_H
#define TALLY_SYNC_HOLDERS_H

#include <stdint.h>

#include "tracers/tracer.h"

/* The calling thread has just acquired mutex `object` (any way: lock,
 * trylock, timedlock, a condition wait's return) without waiting: if the
 * object was ever contended, note this thread and its stack (from `at`) as
 * its holder from now on.  Cheap when the object was never contended (one
 * probe of the table).  Called with the mutex held. */
void sync_holders_acquired(struct trace_caller at, const void *object);

/* The calling thread, which asked for `object` at t0_ns, waited and has
 * held it since t1_ns: mark the object contended (its holders are noted
 * from now on); if `rec` (the wait's SYNC record, written: its tid, stack
 * and time t1_ns filled), write a SYNC_HELD record per holder for the
 * parts of [t0_ns, t1_ns) each held it.  Then note this thread as its
 * holder (with rec's stack, else one taken from `at`).  Called with the
 * mutex held. */
void sync_holders_waited(struct trace_caller at, const void *object, uint64_t t0_ns, uint64_t t1_ns,
			 const struct exp_sync *rec);

#endif
