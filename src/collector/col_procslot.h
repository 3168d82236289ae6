/* SPDX-License-Identifier: MIT
 *
 * col_procslot.h — a descendant's process file (exp_records.h): in a slot
 * of the run's ROOT/processes.dat (format 9), so that a short process
 * creates no file, or in its own ROOT/LINEAGE.proc (format 8, and the
 * items a slot cannot hold).  Called by col_files.c as the process's files
 * open, and by col_log.c for each item written.  Layer 3 (col_state.h).
 */
#ifndef TALLY_COL_PROCSLOT_H
#define TALLY_COL_PROCSLOT_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "format/exp_records.h"

/* A process file's head (its header, zero counters, the newline that ends
 * them) for this process into `head` (EXP_PROC_HEAD_BYTES).  Sigsafe. */
void col_procslot_head(uint8_t *head);

/* Take a slot of ROOT/processes.dat, counted in `claimed` (the `slots` word
 * of the root's counters.dat header, mapped shared), or slot `given` - 1
 * when the exec'ing process took it (given > 0), write its head and
 * first line (the lineage), map its counters into col_proc.counters and
 * keep its descriptor as the log's (col_proc.log_fd, log_path, slot_off).
 * 0, or -errno with nothing kept (the process then makes its own file).
 * At start or in a fork child, one thread. */
int col_procslot_open(_Atomic uint64_t *claimed, uint64_t given);

/* Write one item (or several whole ones) of `len` bytes to the log open as
 * `fd`: appended (its own file, the founder's log.txt), or into the slot
 * at a place claimed for it, or, when the slot is full, appended to the
 * process's own file, opened for the item (col_fds_use; in place when
 * `aside`: the caller is a helper with a table of its own), made at the
 * first such item (other threads wait for it; the making thread's own
 * signal handler does not: its item is lost, -1).  The bytes written, or
 * -1.  Sigsafe. */
ssize_t col_procslot_put_sigsafe(int fd, const void *buf, size_t len, bool aside);

/* Forget the slot (a fork child's files are its own). */
void col_procslot_close(void);

#endif
