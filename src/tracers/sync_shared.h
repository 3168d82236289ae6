/* SPDX-License-Identifier: MIT
 *
 * sync_shared.h — what names a process-shared object in every process
 * (libtally-sync.so, sync.c): the file its page is mapped from and the
 * offset in it, so that a wait in one process meets the release or wake
 * in another that ended it (SYNC_KEY records).  See sync_shared.c.
 */
#ifndef TALLY_SYNC_SHARED_H
#define TALLY_SYNC_SHARED_H

#include <stdbool.h>
#include <stdint.h>

#include "format/exp_records.h"

/* The key of `object` into *k (object, dev, ino, offset): true if its page
 * is a shared mapping.  Looked up before a wait, as the wait begins, so
 * that a lock's holder never pays it (the address is known then; a
 * semaphore or barrier may be freed once the wait is over).  errno is kept. */
bool sync_shared_key(const void *object, struct exp_sync_key *k);

/* The calling thread's wait, flagged shared, was recorded as `rec`: write
 * its key k (from sync_shared_key; role WAIT). */
void sync_shared_waited(struct exp_sync_key *k, const struct exp_sync *rec);

/* The calling thread released `object` at t_ns (a shared mutex unlocked
 * with waiters, a shared futex wake that woke one, a post or signal with
 * waiters, an rwlock unlocked with waiters, a barrier's round completed):
 * write its key (role RELEASE), if its page is a shared mapping.  errno
 * is kept. */
void sync_shared_released(const void *object, uint64_t t_ns);

#endif
