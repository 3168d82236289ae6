/* SPDX-License-Identifier: MIT
 *
 * col_export.h — the collector's interface to libtally-mcount.so: internal
 * between our two libraries (tally__ prefix), exported by collector.map.
 */
#ifndef TALLY_COL_EXPORT_H
#define TALLY_COL_EXPORT_H

#include <stdint.h>

/* Is this process collecting (starting the collector if the environment
 * says so)? */
int tally__collecting(void);

/* A new arc table of `nslots` slots (a power of two) in arcs.dat, published
 * empty, mapped; its size in *mapped.  NULL if there is no space. */
void *tally__arc_table(uint32_t nslots, uint32_t flags, uint64_t *mapped);
void tally__arc_table_release(void *table, uint64_t mapped);

/* Count arcs that could not be recorded (lost.arcs). */
void tally__lost_arcs(uint64_t n);

/* Not started by `tally record`: start an experiment tally.N.exp in the
 * current directory (once per process).  Returns 1 if collecting. */
int tally__standalone_start(const char *why);

#endif
