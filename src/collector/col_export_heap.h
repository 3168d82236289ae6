/* SPDX-License-Identifier: MIT
 *
 * col_export_heap.h — the heap tracer's entry points into the collector
 * (libtally-heap.so, tracers/heap.c; through col_export.h).  Declared apart
 * from col_export.h's other tally__ functions because col_heap.c defines
 * them beside the tables they fill, so that an event's whole path is one
 * function (the calls between an entry point and the tables were ~20
 * instructions of an allocation's path): col_heap sits below the top layer
 * (col_state.h's list).  Any thread, and signal handlers (a program that
 * allocates in one): the collector refuses reentry.
 */
#ifndef TALLY_COL_EXPORT_HEAP_H
#define TALLY_COL_EXPORT_HEAP_H

#include <stdint.h>

/* An allocation (tally record -H; or --data alone) of `size` bytes at
 * `addr`, from the stack of the traced call's caller (ra, sp, fp as for
 * tally__trace_event); a realloc's old block goes first through
 * tally__heap_free.  Summed by thread and stack and kept as a live block in
 * heap.dat's tables (col_heap.h), not written per event.  0, or -1 if it
 * was not recorded. */
int tally__heap_alloc(uint64_t size, uint64_t addr, uint64_t ra, uint64_t sp, uint64_t fp);

/* A release of block `addr` (its stack is not taken). */
void tally__heap_free(uint64_t addr);

#endif
