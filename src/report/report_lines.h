/* SPDX-License-Identifier: MIT
 *
 * report_lines.h — metrics by instruction and by source line, as the Sun
 * Performance Analyzer computes them for annotated source and disassembly (report_lines.c):
 * a frame's address is the instruction (the leaf's: exclusive, time waiting
 * for it; a caller's: inside its call, inclusive); a line's metrics are its
 * instructions', and an event counts once per instruction and once per line
 * however often its stack holds them (recursion).  Used by `tally annotate`
 * and by `tally report --lines` / `--pcs`.
 */
#ifndef TALLY_REPORT_LINES_H
#define TALLY_REPORT_LINES_H

#include <stdbool.h>

#include "model/model.h"
#include "model/model_map.h"

/* One instruction address of one function. */
struct report_pc {
	uint32_t func;
	uint64_t addr;             /* link-time address in the function's object */
	uint32_t line;             /* index in report_pcs.lines */
	uint64_t excl[MODEL_METRIC_COUNT], incl[MODEL_METRIC_COUNT];
};

/* One source line of one object, or one function's instructions without a
 * line number (file NULL, line 0). */
struct report_line {
	const char *path;          /* the object (model_func.path) */
	const char *file;          /* source file as in DWARF, or NULL */
	int line;
	uint32_t func;             /* the first function seen on it */
	uint32_t func2;            /* another one (inlined code of a header: two
	                              functions on one line), or 0 */
	bool more;                 /* a third one too */
	uint64_t excl[MODEL_METRIC_COUNT], incl[MODEL_METRIC_COUNT];
};

struct report_pcs {
	struct report_pc *pcs;
	size_t npcs, cap_pcs;
	struct report_line *lines;
	size_t nlines, cap_lines;
	struct model_map pc_of, line_of;   /* keys -> index + 1 */
};

/* Collect every (function, address) of the entries whose function passes
 * `want` (NULL: all), with its line.  0, or -1 if out of memory. */
int report_pcs_collect(const struct model *m, bool (*want)(const struct model *, uint32_t, void *),
		       void *arg, struct report_pcs *p);
void report_pcs_free(struct report_pcs *p);

#endif
