/* SPDX-License-Identifier: MIT
 *
 * report_gprof.h — the gprof half of the reports: the gprof listing (flat
 * profile, call graph, index) of `tally report --gprof` and `tally gprof`,
 * and the call-arc exports (`tally export --format arcs|callgrind`).
 */
#ifndef TALLY_REPORT_GPROF_H
#define TALLY_REPORT_GPROF_H

#include <stdbool.h>
#include <stdio.h>

#include "model/model_gprof.h"
#include "report/report.h"

struct exp_experiment;
struct gmon_profile;
struct sym_object;

/* `tally report --gprof`: the listing of model m's call graph for the
 * first of o's metrics, by `method`.  Returns 0, or -1 when out of memory. */
int report_gprof(struct report_doc *d, const struct model *m, const struct report_opts *o,
		 enum model_gprof_method method);

/* How graph g's arcs got their time, in a phrase, into buf. */
void report_gprof_method(const struct model_gprof *g, char *buf, size_t size);

/* The listing of graph g.  Text: with `header`, a line saying how arcs got
 * their time (and that there are no call counts, if so); then GNU
 * `gprof -b`'s flat profile, call graph and index by function name, column
 * for column (a graph of a gmon.out prints byte for byte as gprof prints
 * it).  CSV and JSON: the same numbers as tables (gprof, flat, graph,
 * arcs), times in ns; `header` is ignored. */
void report_gprof_listing(struct report_doc *d, enum report_format fmt, const struct model_gprof *g,
			  bool header);

/* The basic-block counts of a gmon profile (GMON_TAG_BB_COUNT), each
 * symbolized in `o`.  Nothing when there are none. */
void report_gprof_bb(struct report_doc *d, const struct gmon_profile *p, struct sym_object *o);

/* `tally export --format arcs`: `caller<TAB>callee<TAB>COUNT` per arc of
 * model.arcs, names as in the reports.  Returns 0, or -1 on an output error
 * or when out of memory. */
int report_arcs(FILE *out, const struct model *m);

/* `tally export --format callgrind`: the callgrind format (callgrind_annotate,
 * KCachegrind).  Events: the model's metrics; self cost by source line of
 * the sampled pcs; one call per arc with its exact count (1 when only seen
 * in stacks) and its inclusive cost measured from the stacks as the
 * gprof view's stack method does.  Returns 0, or -1 on an output error. */
int report_callgrind(FILE *out, const struct model *m, const struct exp_experiment *exps,
		     size_t nexps);

#endif
