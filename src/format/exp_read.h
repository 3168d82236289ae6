/* SPDX-License-Identifier: MIT
 *
 * exp_read.h — bounds-checked reading of experiment record files.
 *
 * Used by the analyzer, `tally check` and the fuzzers.  A file is mapped
 * read-only and walked record by record; every length and offset is checked
 * against the file before it is used.  A corrupt record costs that record or
 * the rest of its block, never the file: the walk goes on at the next block
 * boundary (the next point a record must start at), and what was skipped is
 * counted in struct exp_damage, the first place named as one line ("PATH: at
 * 0xOFF: cause"), every place passed to an optional hook (`tally check`).
 * Nothing crashes or exits.  A file may be read while it is being written: the
 * reader sees the records complete at the time it was opened (except that
 * a staging block being copied out at that instant may be seen half-emptied:
 * a report during the run can miss or double a block of events; after the
 * run, or a SIGKILL, every record is seen exactly once).
 */
#ifndef TALLY_EXP_READ_H
#define TALLY_EXP_READ_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "format/exp_records.h"

struct exp_error {
	char msg[768];
	size_t offset;             /* exp_corrupt: where in the file */
	const char *cause;         /* exp_corrupt: msg without "PATH: at 0xOFF: ";
	                              a newer version, a file not read: without "PATH: " */
	uint32_t version;          /* -EXP_ENEWER: the file's format version */
};

/* What could not be read, in a file or a whole experiment. */
struct exp_damage {
	uint64_t places;           /* corrupt places: a block's rest, a record, a file */
	uint64_t bytes;            /* bytes not read because of them */
	char first[768];           /* the first place: "PATH: at 0xOFF: cause" */
};

/* The offset of a place that is the whole file (missing, unreadable, not a
 * regular file): "PATH: cause", no offset. */
#define EXP_DAMAGE_WHOLE_FILE ((size_t)-1)

/* Called for each damaged place, with the bytes skipped there. */
typedef void exp_damage_fn(void *arg, const char *path, size_t offset, uint64_t bytes,
			   const char *cause);

struct exp_file {
	char path[4096];
	const uint8_t *data;       /* whole file: mapped read-only, or read
	                              into memory when small (mapped false) */
	size_t size;
	bool mapped;
	struct exp_file_header hdr;
	size_t pos;                /* offset of the next record */
	uint8_t *skip;             /* per block: 1 if a staging block stands
	                              for it (EXP_REC_MIRROR) */
	bool mirrors_found;        /* skip is filled in (at the first record) */
	struct exp_damage damage;  /* what the walk skipped so far */
	exp_damage_fn *on_damage;  /* optional: told of each place */
	void *damage_arg;
	/* Data joined from two files (a slot and its continuation,
	 * exp_procfile_join): a damaged place is named in the file it came
	 * from.  With origin_split set, data[0, origin_split) is at offset
	 * origin_off of path, data[origin_split, size) at origin2_off of
	 * origin2_path; unset (0), data is path's from offset 0. */
	size_t origin_split;
	size_t origin_off;
	const char *origin2_path;
	size_t origin2_off;
};

/* One record as found in the file. */
struct exp_rec {
	uint32_t type;
	uint32_t len;              /* bytes, including the first word */
	size_t offset;             /* in the file */
	const void *p;             /* the record itself (len bytes) */
};

/* Open and check the header.  `kind` 0 accepts any kind.  A missing file is
 * -ENOENT (many files are optional); other problems fill `err`.
 * Returns 0 or a negative errno / -EXP_ECORRUPT / -EXP_ENEWER (a format
 * version up to 8 past this reader's: written by a newer tally). */
int exp_file_open(struct exp_file *f, const char *path, uint32_t kind,
		  struct exp_error *err);

/* Check a file header `h` found at offset `at` of `path` (0 for a file's
 * own; a slot's place in processes.dat): magic, version, `kind` (0: any),
 * header and block sizes.  0; -EXP_ENEWER (a version up to 8 past this
 * reader's: written by a newer tally) or -EXP_ECORRUPT (at the offending
 * field's offset), with err filled. */
int exp_header_check(const struct exp_file_header *h, const char *path, size_t at, uint32_t kind,
		     struct exp_error *err);

/* Next record: 1 and *rec filled, 0 at the end.  Framing that is wrong
 * (a length that is not a multiple of 8, crosses its block or the end of the
 * file, a misplaced MIRROR) is skipped to the next valid point (the first
 * place after it in its block from which the rest of the block reads as
 * records, else the next block boundary) and added to f->damage; the walk
 * never fails.  `err` is unused (kept for callers). */
int exp_file_next(struct exp_file *f, struct exp_rec *rec, struct exp_error *err);

/* The caller found that record r cannot be what its type says, in a way
 * that makes its length untrustworthy (a fixed-size type of another
 * length): skip it to the next valid point, as exp_file_next does, counting
 * what is skipped.  `fmt` is printf-like. */
void exp_file_reject_block(struct exp_file *f, const struct exp_rec *r, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* The caller found record r's fields wrong (its length is fine): count it
 * as one damaged record; the walk goes on after it. */
void exp_file_reject_record(struct exp_file *f, const struct exp_rec *r, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* Count a damaged place in d (and tell `hook`, if any): `bytes` not read at
 * `offset` of `path`, for `cause`. */
void exp_damage_note(struct exp_damage *d, exp_damage_fn *hook, void *arg, const char *path,
		     size_t offset, uint64_t bytes, const char *cause);
/* Add what `from` counts to `to` (its first place, if `to` has none). */
void exp_damage_add(struct exp_damage *to, const struct exp_damage *from);

void exp_file_close(struct exp_file *f);

/* A file that could not be read (opened, read, mapped; not a regular
 * file): "PATH: CAUSE" into err, err->cause the CAUSE, so that a damage
 * line names the path once and the real cause.  Returns rc (-errno). */
int exp_fail(struct exp_error *err, const char *path, int rc, const char *cause);

/* Format "PATH: at 0xOFF: MESSAGE" into err.  Returns -EXP_ECORRUPT. */
int exp_corrupt(struct exp_error *err, const char *path, size_t offset,
		const char *fmt, ...) __attribute__((format(printf, 4, 5)));

#define EXP_ECORRUPT 1000
#define EXP_ENEWER 1001     /* a format version newer than this reader's: no damage,
                               a refusal (exp_file_open) */

/* Name of a counter in reports and logs ("lost.reentry"). */
const char *exp_counter_name(enum exp_counter c);
/* How the overview says it ("Broken stacks"), and what it counts in
 * *meaning ("stacks cut short by a frame that could not be read"). */
const char *exp_counter_title(enum exp_counter c, const char **meaning);

#endif
