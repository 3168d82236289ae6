/* SPDX-License-Identifier: MIT
 *
 * exp_procfile.h — a descendant's process file, LINEAGE.proc (format 8;
 * the layout is in exp_records.h): its name told apart, its items walked,
 * its log read as text.  Used by the reader (exp_read_data.c) and by
 * `tally record`'s end-of-run lines (cli_space.c, cli_unsampled.c).
 */
#ifndef TALLY_EXP_PROCFILE_H
#define TALLY_EXP_PROCFILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "format/exp_read.h"

/* The length of the lineage of a directory entry named "_LINEAGE.proc",
 * else 0. */
size_t exp_procfile_stem(const char *name);

/* Does the experiment `dir` hold a process file for the descendant whose
 * directory entry is `exp_name` ("_LINEAGE.exp")?  Then that directory
 * holds no log, counters nor threads: they are in the process file. */
bool exp_procfile_beside(const char *dir, const char *exp_name);

/* One item of a process file: a log line, or a record (an aligned copy). */
struct exp_procfile_item {
	bool is_record;
	const char *text;          /* a log line, without its newline (not NUL-terminated) */
	size_t len;
	struct exp_rec rec;        /* a record: rec.p points into buf */
	uint64_t buf[EXP_PROC_REC_MAX / 8];
};

/* The item at *at of the file's bytes (data, size; *at starts at
 * EXP_PROC_HEAD_BYTES), *at moved past it: 1; 0 at the end; -1 if the item
 * there is cut short or malformed (*at unchanged: the rest is unreadable).
 * Reads only within data. */
int exp_procfile_next(const uint8_t *data, size_t size, size_t *at, struct exp_procfile_item *it);

/* Where one process's process file is (format 9: a slot, its own file, or
 * both, the slot's items first). */
struct exp_procfile_src {
	const char *slots;         /* ROOT/processes.dat, or NULL: no slot */
	uint64_t slot_off;         /* its slot's offset there */
	const char *file;          /* ROOT/LINEAGE.proc, or NULL */
};

/* A process file as one (exp_procfile_join). */
struct exp_procfile_joined {
	uint8_t *data;             /* malloc'd, the caller's */
	size_t size;
	size_t slot_bytes;         /* data's first slot_bytes are the slot's; the
	                              rest its file's, after the file's head;
	                              0 without a slot */
	int file_rc;               /* a slot's continuation left out: 0 (read, or
	                              none named), -ENOENT (never made), else why
	                              (-EXP_ECORRUPT...: file_err, naming it) */
	struct exp_error file_err;
};

/* The process file's bytes as one process file: the slot's (its trailing
 * zeros left out) followed by the items of the file (after its head), or
 * the file's alone.  Each head is checked (exp_header_check: magic, kind,
 * version, sizes).  A continuation that cannot be read or is not a process
 * file leaves the slot alone (j->file_rc says why).  0; -ENOENT if there is
 * nothing; -EXP_ECORRUPT (the slot's head, or the file's when there is no
 * slot: err names the place), -EXP_ENEWER, -ENOMEM or another -errno, with
 * err filled. */
int exp_procfile_join(const struct exp_procfile_src *src, struct exp_procfile_joined *j, struct exp_error *err);

/* One used slot of a run's processes.dat: its offset and its process's
 * lineage ("" if its head or first item is not as written: damage). */
struct exp_procslot {
	uint64_t off;
	char lineage[256];
};

/* The used slots of ROOT/processes.dat, malloc'd (*n of them; NULL and 0
 * if there is no such file or it is not one).  Reads each slot's head
 * only; sorted by lineage (then place). */
struct exp_procslot *exp_procslots_list(const char *root, size_t *n);

/* Is the lineage `name` (its first `len` bytes) one of the slots'?  Its
 * directory and process file are then that process's rest. */
bool exp_procslots_has(const struct exp_procslot *slots, size_t n, const char *name, size_t len);

/* One descendant of a run, as exp_procfile_each finds it: its process file
 * (src: a slot, its own file, or both), or before format 8 its directory
 * (dir: log.txt, counters.dat and threads.dat there; src all NULL). */
struct exp_descendant {
	struct exp_procfile_src src;
	const char *dir;           /* ROOT/_LINEAGE.exp, or NULL */
};

typedef void exp_descendant_fn(void *arg, const struct exp_descendant *d);

/* Each descendant of the run at `root`, once (the founder is not one):
 * those in slots of processes.dat (format 9), a slot's own process file
 * its continuation; then each process file _LINEAGE.proc (format 8) and
 * each directory _LINEAGE.exp without one (formats before) that is no
 * slot's.  The paths passed live for the call only. */
void exp_procfile_each(const char *root, exp_descendant_fn *fn, void *arg);

/* The log lines of the process file at `path`, as a text stream to read
 * with fgets and fclose; NULL if it cannot be read or is not a process
 * file.  What follows an item cut short is left out. */
FILE *exp_procfile_log(const char *path);

/* The same for a process file anywhere (exp_procfile_join). */
FILE *exp_procfile_log_src(const struct exp_procfile_src *src);

/* The same for a process file's bytes at hand (data is not taken). */
FILE *exp_procfile_log_data(const uint8_t *data, size_t size);

#endif
