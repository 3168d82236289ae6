/* SPDX-License-Identifier: MIT
 *
 * exp_read.h — bounds-checked reading of experiment record files.
 *
 * Used by the analyzer, `tally check` and the fuzzers.  A file is mapped
 * read-only and walked record by record; every length and offset is checked
 * against the file before it is used.  Corruption is reported as one line
 * naming the file, the offset and the cause (struct exp_error), never by
 * crashing or exiting.  A file may be read while it is being written: the
 * reader sees the records complete at the time it was opened (except that
 * a staging block being copied out at that instant may be seen half-emptied:
 * a report during the run can miss or double a block of events; after the
 * run, or a SIGKILL, every record is seen exactly once).
 */
#ifndef TALLY_EXP_READ_H
#define TALLY_EXP_READ_H

#include <stddef.h>
#include <stdint.h>

#include "format/exp_records.h"

struct exp_error {
	char msg[768];
};

struct exp_file {
	char path[4096];
	const uint8_t *data;       /* whole file, mapped read-only */
	size_t size;
	struct exp_file_header hdr;
	size_t pos;                /* offset of the next record */
	uint8_t *skip;             /* per block: 1 if a staging block stands
	                              for it (EXP_REC_MIRROR) */
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
 * Returns 0 or a negative errno / -EXP_ECORRUPT. */
int exp_file_open(struct exp_file *f, const char *path, uint32_t kind,
		  struct exp_error *err);

/* Next record: 1 and *rec filled, 0 at the end, -EXP_ECORRUPT with `err`. */
int exp_file_next(struct exp_file *f, struct exp_rec *rec, struct exp_error *err);

void exp_file_close(struct exp_file *f);

/* Format "PATH: at 0xOFF: MESSAGE" into err.  Returns -EXP_ECORRUPT. */
int exp_corrupt(struct exp_error *err, const char *path, size_t offset,
		const char *fmt, ...) __attribute__((format(printf, 4, 5)));

#define EXP_ECORRUPT 1000

/* Name of a counter in reports and logs ("lost.reentry"). */
const char *exp_counter_name(enum exp_counter c);

#endif
