/* SPDX-License-Identifier: MIT
 *
 * col_files.h — this process's experiment files: counters.dat, log.txt and
 * the record files, and appending records to them.
 */
#ifndef TALLY_COL_FILES_H
#define TALLY_COL_FILES_H

#include <stdint.h>

#include "collector/col_state.h"

/* Open this process's files in col_proc.dir (the record files that
 * col_proc.opt asks for; arcs.dat is opened on first use).  Returns 0 or
 * -errno.  Normal context. */
int col_open_experiment(void);

/* Close them (a fork child, before it opens its own). */
void col_close_files(void);

/* The first lines of this process's log: who it is and how it was made. */
void col_log_start(const char *created_by);

/* Append a record through the calling thread's cursor for `file`, counting
 * it lost if there is no space.  The caller is inside collector code
 * (col_enter or the signal handler).  Returns 0 or -1. */
int col_write_sigsafe(struct col_thread *t, enum exp_file_kind file, uint32_t type,
		      const void *rec, uint32_t len);

#endif
