/* SPDX-License-Identifier: MIT
 *
 * report_commentary.h — compiler commentary for annotated source: what gcc
 * says it did to each line (report_commentary.c says where it is read from).
 */
#ifndef TALLY_REPORT_COMMENTARY_H
#define TALLY_REPORT_COMMENTARY_H

#include <stdbool.h>
#include <stddef.h>

struct report_note {
	int line;
	char *text;                /* "optimized: loop vectorized ..." */
};

struct report_commentary {
	struct report_note *notes; /* sorted by line; no duplicate (line, text) */
	size_t n;
	bool oom;                  /* a note was lost: out of memory */
};

/* The commentary on source file `file` (a path from DWARF): from gcc's
 * optimization record FILE.opt-record.json[.gz] in the compilation
 * directory `comp_dir`, beside the source read (`found`, or NULL) or in a
 * directory of `search_path`, and from the files listed in `extra`
 * (comma-separated: optimization records, or -fopt-info output).  Files
 * that cannot be read or parsed are skipped, with a warning for `extra`. */
void report_commentary_load(const char *file, const char *comp_dir, const char *found,
			    const char *search_path, const char *extra, struct report_commentary *c);
void report_commentary_free(struct report_commentary *c);

#endif
