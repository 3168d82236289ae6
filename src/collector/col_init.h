/* SPDX-License-Identifier: MIT
 *
 * col_init.h — starting collection in a process (the constructor, or
 * whichever interposer runs first) and ending it.
 */
#ifndef TALLY_COL_INIT_H
#define TALLY_COL_INIT_H

#include <stdbool.h>

/* Start collecting if TALLY_EXP is set and we have not yet (idempotent; any
 * interposer may call it first, even before our constructor). */
void col_ensure_init(void);

/* The collector finished starting (or found nothing to do). */
bool col_ready(void);

/* Start collecting now into the existing directory `dir` (a program linked
 * with the runtime, started without `tally record`).  0 or -1. */
int col_start_here(const char *dir);

#endif
