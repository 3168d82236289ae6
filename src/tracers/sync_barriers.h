/* SPDX-License-Identifier: MIT
 *
 * sync_barriers.h — who released a barrier wait, for the critical path
 * (libtally-sync.so, sync.c): the thread whose arrival completed the
 * round.  See sync_barriers.c.
 */
#ifndef TALLY_SYNC_BARRIERS_H
#define TALLY_SYNC_BARRIERS_H

#include <stdint.h>

#include "format/exp_records.h"

/* pthread_barrier_init(object, .., count) succeeded: its rounds are of
 * `count` arrivals, counted from now. */
void sync_barriers_init(const void *object, unsigned count);

/* The calling thread arrives at barrier `object`: its arrival's number
 * (UINT64_MAX: the barrier is not known).  The round's last arrival notes
 * itself (and now) as the round's waker. */
uint64_t sync_barriers_arrive(const void *object);

/* The calling thread, whose arrival was numbered `arrival`, waited at
 * `object` from t0_ns and its wait's SYNC record `rec` was written: if
 * another thread completed its round, write a SYNC_WAKE record naming it. */
void sync_barriers_waited(const void *object, uint64_t arrival, uint64_t t0_ns, const struct exp_sync *rec);

#endif
