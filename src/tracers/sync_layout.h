/* SPDX-License-Identifier: MIT
 *
 * sync_layout.h — whether the fields of glibc's synchronization objects
 * that sync.c reads (is it process-shared? has a mutex waiters?) mean
 * here what they mean in the glibc they were read from.  See
 * sync_layout.c.
 */
#ifndef TALLY_SYNC_LAYOUT_H
#define TALLY_SYNC_LAYOUT_H

#include <stdbool.h>

/* true once the probe at load found every layout as known; false before
 * it, on another C library, or when one differed. */
extern bool sync_layout_known;

/* true when, besides, a semaphore's first word holds its value in the low
 * half and its waiters in the high half (64-bit glibc). */
extern bool sync_layout_sem_waiters;

#endif
