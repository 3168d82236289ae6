/* SPDX-License-Identifier: MIT
 *
 * report.h — the views of `tally report` and the exports, computed from a
 * model and written through report_table (text, CSV or JSON) or, for the
 * exports, in their own formats.
 */
#ifndef TALLY_REPORT_H
#define TALLY_REPORT_H

#include <stdbool.h>
#include <stdio.h>

#include "model/model.h"
#include "report/report_table.h"

struct report_opts {
	enum report_format fmt;
	enum model_metric metrics[MODEL_METRIC_COUNT];   /* columns, in order */
	int nmetrics;
	bool sort_incl;             /* sort functions by inclusive metric */
	size_t limit;               /* rows of the function table; 0: all */
	double threshold_pct;       /* tree: hide nodes below this % of the total */
};

/* Overview: target, duration, end, samples, threads, losses, CPU time
 * sampled beside the CPU time the kernel accounted. */
void report_overview(struct report_doc *d, const struct model *m,
		     const struct exp_experiment *exps, size_t nexps);

/* The function table, <Total> first. */
void report_functions(struct report_doc *d, const struct model *m, const struct report_opts *o);

/* Callers and callees of every function named `name`; -1 if there is none. */
int report_callers(struct report_doc *d, const struct model *m, const struct report_opts *o,
		   const char *name);

void report_tree(struct report_doc *d, const struct model *m, const struct report_opts *o);
void report_threads(struct report_doc *d, const struct model *m, const struct report_opts *o);
void report_objects(struct report_doc *d, const struct model *m, const struct report_opts *o);

/* `root;...;leaf WEIGHT` per distinct stack (design.md's contract): weights
 * in the metric's unit, `[name pid]` first when there are several processes.
 * Returns 0 or -1 on an output error. */
int report_collapsed(FILE *out, const struct model *m, enum model_metric metric);

/* Helpers shared by the views (report_common.c). */
double report_pct_of(uint64_t v, uint64_t total);
/* "name" or "name (object)" when the name is not unique among functions. */
const char *report_func_label(const struct model *m, uint32_t f, char *buf, size_t len);
/* Add the metric columns of one kind ("excl", "incl", "attr") for o's metrics. */
void report_metric_cols(struct report_table *t, const struct report_opts *o, const char *kind,
			const char *title);
void report_metric_cells(struct report_table *t, const struct model *m,
			 const struct report_opts *o, const uint64_t *v);

#endif
