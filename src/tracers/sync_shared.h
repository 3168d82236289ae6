/* SPDX-License-Identifier: MIT
 *
 * sync_shared.h — what names a process-shared object in every process
 * (libtally-sync.so, sync.c): the file its page is mapped from and the
 * offset in it, so that a wait in one process meets the release or wake
 * in another that ended it (SYNC_KEY records).  See sync_shared.c.
 */
#ifndef TALLY_SYNC_SHARED_H
#define TALLY_SYNC_SHARED_H

#include <stdint.h>

#include "format/exp_records.h"

/* The calling thread's wait on `object`, flagged shared, was recorded as
 * `rec`: write its key (role WAIT), if its page is a shared mapping. */
void sync_shared_waited(const void *object, const struct exp_sync *rec);

/* The calling thread released `object` at t_ns (a shared mutex unlocked
 * with waiters, a shared futex wake that woke one): write its key (role
 * RELEASE), if its page is a shared mapping.  errno is kept. */
void sync_shared_released(const void *object, uint64_t t_ns);

#endif
