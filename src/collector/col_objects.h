/* SPDX-License-Identifier: MIT
 *
 * col_objects.h — the loaded objects, as the collector sees them.
 *
 * Two jobs: (1) record the load-object map over time in maps.dat (MAP and
 * UNMAP records, with build-ids; from the first record that needs it), and (2) publish, for the unwinder in the
 * signal handler, a new snapshot of every object's executable range and
 * .eh_frame_hdr search table (col_objset.h).  Scans (dl_iterate_phdr) happen
 * at start-up, around dlopen/dlclose and at thread creation, never in a
 * handler.
 */
#ifndef TALLY_COL_OBJECTS_H
#define TALLY_COL_OBJECTS_H

#include <stdint.h>

struct col_thread;

/* First scan: the snapshot, and MAP records for everything loaded once the
 * process makes a record file that holds pcs (col_files_on_pcs; until then
 * no maps.dat, each segment's map time kept).  `held`:
 * the calling thread if it is inside collector code already (it stays so),
 * or NULL. */
void col_objects_init(struct col_thread *held);

/* Rescan after the object set may have changed.  New objects get map time
 * `map_ns` (0: the time of the previous scan); vanished ones an UNMAP now. */
void col_objects_rescan(uint64_t map_ns);

/* A fork child starts a new experiment: forget what was recorded and record
 * the whole map again into the new files. */
void col_objects_reset_after_fork(void);

#endif
