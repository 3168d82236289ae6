/* SPDX-License-Identifier: MIT
 *
 * col_files.h — this process's experiment files: counters.dat, log.txt and
 * the record files, and appending records to them.
 */
#ifndef TALLY_COL_FILES_H
#define TALLY_COL_FILES_H

#include <stdbool.h>
#include <stdint.h>

#include "collector/col_state.h"

/* Open this process's files in col_proc.dir (the record files that
 * col_proc.opt asks for; arcs.dat is opened on first use).  Returns 0 or
 * -errno.  Normal context. */
int col_open_experiment(void);

/* Open (create) the record file of `kind` into col_proc.file[kind]: its
 * descriptor kept out of the program's way (col_fds.h), reopened if the
 * program replaces it, or, once the collector is lean, not kept (opened for
 * each use aside, out of the program's descriptor table: col_fds_aside);
 * counted against the size limit.  0 or -errno. */
int col_writer_open(enum exp_file_kind kind);

/* Make the record file of `kind` now if it is made at its first record
 * (maps.dat, samples.dat, stacks.dat, heap.dat, sync.dat) and is not made yet; other
 * threads wait for the one
 * making it.  Called before a record of `kind` is reserved, inside
 * collector code.  Sigsafe. */
void col_file_ready_sigsafe(enum exp_file_kind kind);

/* Can records of `kind` hold a pc or a stack (every record file but the
 * maps', threads' and dynamic code's)?  Only such records need the
 * load-object map to be read. */
bool col_file_holds_pcs(enum exp_file_kind kind);

/* `fn` runs (in whatever context the file is made: the signal handler
 * included) when this process makes its first record file that holds pcs;
 * col_files_maps_wanted() is true from then on.  col_objects.c writes the
 * map then, not at the start: a process that records no pc (most of a
 * shell's short commands) makes no maps.dat. */
void col_files_on_pcs(void (*fn)(void));
bool col_files_maps_wanted(void);

/* The program runs from now on: if the collector's descriptors would take
 * numbers below its limit (col_fds_go_lean), stop holding the founder's log
 * and the record files (each use opens its own); a descendant's process
 * file, which holds its log, stays held (a chroot cannot lose it).  Normal context: the end of the
 * start-up, of a fork child's. */
void col_files_let_go(void);

/* Close them (a fork child, before it opens its own). */
void col_close_files(void);

/* At the process's end, its threads' last records written: the record
 * files' spare first blocks no thread took are punched out and given back
 * to the size limit (exp_writer_free_spares).  Normal context. */
void col_files_free_spares(void);

/* In a fork child of the experiment's root, before its own files: the
 * root's counters, mapped shared and inherited, kept as the founder's
 * (root_counters), so that the child does not map them again. */
void col_files_keep_root_counters(void);

/* A fork child's files wait (col_descend.c): its counters count in memory
 * until col_files_open_deferred_sigsafe makes its process file (its first
 * write, in any thread or the signal handler; its fork or vfork of its
 * own) and adds them in.  A child that execs first makes nothing.  Normal
 * context, the child's only thread. */
void col_files_defer(void);

/* Is this process's file still waiting (col_files_defer)? */
bool col_files_deferred(void);

/* Make the waiting process file now (col_open_experiment), once; other
 * threads wait for the one making it, which passes through (its own writes
 * within are the file's first).  1 if this call made it, 0 if it was made
 * (or being made by this thread), -errno if it failed: the process then
 * records nothing (col_proc.active false).  Sigsafe. */
int col_files_open_deferred_sigsafe(void);

/* The first lines of this process's log: who it is and how it was made. */
void col_log_start(const char *created_by);

/* The calling thread's cursor for `file` ready for a record of `len` bytes
 * (the file made, its block claimed: in lean mode four system calls), so
 * that writing one later costs none.  The caller is inside collector code. */
void col_write_room_sigsafe(struct col_thread *t, enum exp_file_kind file, uint32_t len);

/* Append a record through the calling thread's cursor for `file`, counting
 * it lost if there is no space (the file system's, or the size limit's: then
 * col_proc.stopped is set, and the first process to reach it says when in
 * the founder's counters).  The first failure of each file is logged.  The
 * caller is inside collector code (col_enter or the signal handler).
 * Returns 0 or -1. */
int col_write_sigsafe(struct col_thread *t, enum exp_file_kind file, uint32_t type,
		      const void *rec, uint32_t len);

/* The size limit keeps this many blocks (EXP_BLOCK_BYTES; at most an
 * eighth of the limit) for col_write_closing_sigsafe. */
#define COL_LIMIT_RESERVE_BLOCKS 4

/* col_write_sigsafe for a record that closes what one written at
 * `opened_ns` opened (a thread's THREAD_END, its START at its birth): once
 * the size limit has stopped recording, still written, from the limit's
 * reserve (the last COL_LIMIT_RESERVE_BLOCKS blocks, claimed one at a
 * time), if the opening came before the limit was reached; else lost and
 * counted as col_write_sigsafe's.  Not in a descendant's process file
 * (col_log_record_sigsafe), which has no reserve.  Returns 0 or -1. */
int col_write_closing_sigsafe(struct col_thread *t, enum exp_file_kind file, uint32_t type,
			      const void *rec, uint32_t len, uint64_t opened_ns);

/* The first `len` bytes of the founder's file `name` (in col_proc.root)
 * mapped shared, opened aside (col_fds_map_shared): the mapping, or NULL
 * with the cause in *error.  Sigsafe. */
void *col_files_map_founder(const char *name, size_t len, int *error);

/* A tracer's record (tally__trace_event, tally__java_event), stamped as
 * the thread's before it is written: its time in words 2-3, now where the
 * tracer left 0, and the thread's id in word 1.  Sigsafe. */
void col_stamp_record_sigsafe(const struct col_thread *t, uint32_t *words);

/* A fork child drops the process's shared cursor of threads.dat (the
 * parent's blocks) without writing.  Sigsafe. */
void col_files_drop_shared_sigsafe(void);

/* A record of `file` could not be appended (by col_write_sigsafe or a
 * writer of its own, as samples' and stacks'): the file's first failure is
 * logged with its cause, and the record counted lost under `ctr`, or under
 * the size limit's counter once that stopped recording.  Sigsafe. */
void col_file_lost_sigsafe(enum exp_file_kind file, enum exp_counter ctr);

/* At the end of the process: if the program's descriptor limit (ulimit -n)
 * is reached (every number below it in use), log "rlimit.nofile.reached:
 * LIMIT OURS", how many of them were the collector's.  Normal context. */
void col_files_check_nofile(void);

/* The count of process slots taken in the run's processes.dat (the `slots`
 * word of the root's counters.dat header, mapped shared), or NULL if the
 * root's counters are not shared with this process (in its memory only,
 * or not mapped here and `may_map` false).  Sigsafe. */
_Atomic uint64_t *col_files_slots_claimed(bool may_map);

#endif
