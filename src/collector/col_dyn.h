/* SPDX-License-Identifier: MIT
 *
 * col_dyn.h — dynamically generated code recorded in dyn.dat (col_dyn.c):
 * functions named by the program (tally_func_load), by a perf map or by a
 * jitdump, each with a copy of its instructions.  Normal context only.
 */
#ifndef TALLY_COL_DYN_H
#define TALLY_COL_DYN_H

#include <stdint.h>

/* Record a function of `size` bytes at `addr` named `name`, learnt from
 * `flags` (EXP_DYN_API ...) at `time_ns` (0: there since the start), with
 * `nlines` (offset, line) pairs; its code is copied from `code`, or from
 * the process's memory when `code` is NULL.  0, or -1 (not recorded). */
int col_dyn_func(uint32_t flags, uint64_t time_ns, uint64_t addr, uint64_t size, const char *name,
		 const uint32_t (*lines)[2], uint32_t nlines, const void *code);
/* The function at `addr` is gone (now).  0 or -1. */
int col_dyn_unload(uint64_t addr);
/* When the process ends: the functions of /tmp/perf-PID.map and of the
 * jit-PID.dump files it has mapped. */
void col_dyn_at_exit(void);

#endif
