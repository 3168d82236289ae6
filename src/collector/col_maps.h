/* SPDX-License-Identifier: MIT
 *
 * col_maps.h — a thread's stack bounds from /proc/PID/maps (col_maps.c).
 */
#ifndef TALLY_COL_MAPS_H
#define TALLY_COL_MAPS_H

#include <stdint.h>

/* The mapping of this process that holds `sp` (a thread's stack pointer),
 * read from /proc/PID/maps aside (col_fds_read_each): [*lo, *hi), both 0
 * when none was found.  Sigsafe. */
void col_stack_bounds_sigsafe(uint64_t sp, uint64_t *lo, uint64_t *hi);

#endif
