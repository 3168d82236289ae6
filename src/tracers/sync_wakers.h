/* SPDX-License-Identifier: MIT
 *
 * sync_wakers.h — who woke a condition or semaphore wait, for the critical
 * path (libtally-sync.so, sync.c): the thread that signalled the condition
 * variable or posted the semaphore last before the waiter woke.  See
 * sync_wakers.c.
 */
#ifndef TALLY_SYNC_WAKERS_H
#define TALLY_SYNC_WAKERS_H

#include <stdint.h>

#include "format/exp_records.h"

/* The calling thread signals, broadcasts or posts `object`: note it (and
 * now) as the object's last waker. */
void sync_wakers_signalled(const void *object);

/* The calling thread waited on `object` from t0_ns and its wait's SYNC
 * record `rec` was written: if a thread other than this one signalled it
 * last, within the wait, write a SYNC_WAKE record naming it. */
void sync_wakers_waited(const void *object, uint64_t t0_ns, const struct exp_sync *rec);

/* The calling thread's id, kept per thread (a forked child's anew). */
uint32_t sync_wakers_self_tid(void);

#endif
