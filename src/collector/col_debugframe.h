/* SPDX-License-Identifier: MIT
 *
 * col_debugframe.h — a loaded object's .debug_frame made readable by the
 * unwinder: code whose CFI is there alone (-fno-asynchronous-unwind-tables
 * -fno-unwind-tables) is walked by its CFI, not by frame pointers.
 * Layer 3, with col_objects (col_state.h).
 */
#ifndef TALLY_COL_DEBUGFRAME_H
#define TALLY_COL_DEBUGFRAME_H

#include <stdbool.h>
#include <stdint.h>

#include "collector/col_objset.h"

/* Object `o` (its search table from .eh_frame_hdr, if any, its file at
 * `path`, its segments within [obj_lo, obj_hi)): if its file has a
 * .debug_frame, give `o` a search table covering both that section's
 * FDEs, copied in .eh_frame's form within 2 GiB of the object, and its
 * own (eh_hdr, fde_table, fde_count and the second readable range
 * cfi2_lo, cfi2_hi).  True if it did; the outcome is logged when a
 * .debug_frame was found.  Normal context: at a scan (under its lock),
 * never in a handler. */
bool col_debugframe_add(struct col_object *o, const char *path, uint64_t obj_lo, uint64_t obj_hi);

/* The object whose copy starts at `cfi2_lo` is gone, and a snapshot
 * without it published: its pages are given back, its range kept mapped
 * read-only (a handler may hold an older snapshot: it reads zeros) for
 * the next copy that fits.  0 is nothing.  At a scan, under its lock. */
void col_debugframe_drop(uint64_t cfi2_lo);

#endif
