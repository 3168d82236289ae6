/* SPDX-License-Identifier: MIT
 *
 * report_html.h — the parts of `tally html`'s data, shared by the files that
 * write them (report_html.c drives; report_html_tree.c the functions and the
 * call tree; report_html_timeline.c the tracks; report_html_slices.c the
 * tree's values by time; report_html_pack.c packs the whole).  Private to src/report/.
 */
#ifndef TALLY_REPORT_HTML_H
#define TALLY_REPORT_HTML_H

#include <stdio.h>

#include "model/model.h"

/* Trees above this many nodes fold the smallest subtrees into their
 * parents (a page of a million-sample experiment stays under 5 MB). */
#define REPORT_HTML_MAX_NODES 150000

/* The metrics the page shows, in order: those with data. */
struct report_html_metrics {
	enum model_metric m[MODEL_METRIC_COUNT];
	int n;
};

/* `"funcs":[[name,object]...],"objs":[...],"tree":{...},` and, when
 * folded, `"pruned":N,"prunedPct":P,` — the call tree of functions
 * deduplicated by (name, object), in preorder: "f" and "d" the function and
 * depth of each node, "vo" its own value of each metric (time in µs: its
 * inclusive value as shown less its children's as shown, so that summing
 * gives back each inclusive value exactly; rounding may make one -1), and
 * with base_nexps "ao" the same for the entries of experiments
 * [0, base_nexps) while "vo" has the others' (the runs compared).  Own
 * values, not totals: most nodes of a deep tree have none (0), and the
 * 2 M-sample bench page's gzip was 22% smaller.  A model
 * of several processes (and no baseline) has a node per process under the
 * root.  With bin_errors, `"binErrors":{...}` after "funcs": each
 * function's share error from time bins (report_bins.c).  Returns 0, or -1
 * when out of memory. */
int report_html_tree(FILE *out, const struct model *m, const struct report_html_metrics *hm,
		     size_t base_nexps, const struct exp_experiment *exps, uint32_t *node_of_entry,
		     bool bin_errors);

/* `"timeline":{...}`: per track, its process ("proc"), CPU time in bins,
 * its stack chart ("st": the most sampled tree node of each of "st_bins"
 * bins, run-length encoded; node_of_entry as report_html_tree fills it) and
 * intervals (µs from the first event); interval labels, markers, process
 * curves, gaps, and each process's label, program and command line
 * ("processes").  Needs model.events.  Its time axis starts at *t0_ns and
 * spans *span_ns. */
int report_html_timeline(FILE *out, const struct model *m, const uint32_t *node_of_entry,
			 uint64_t *t0_ns, uint64_t *span_ns);

/* `"slices":{...},` (report_html_slices.c): the values of the written tree's
 * nodes by time, so the page can draw the flame graph of a range of the
 * timeline: the span [t0, t0 + span) in "bins" bins, and for each (bin,
 * node) with a value, "b" the bin, "n" the node (its index in the tree as
 * written: node_of_entry gives each entry's, UINT32_MAX for none), "v" the
 * value of each metric in the tree's units.  The bins are as fine as keep
 * the pairs under a budget; past it, `"slices":null,` (the page says so). */
int report_html_slices(FILE *out, const struct model *m, const struct report_html_metrics *hm,
		       const uint32_t *node_of_entry, uint64_t t0_ns, uint64_t span_ns);

/* `"blame":[...],"critical":{...},` (report_html_why.c): each lock-holder
 * blame part with its waiting stack and the holder's (function names, root
 * first), where the holder took the object, its thread, time (µs) and
 * waits; the critical path's total, the main threads' wall time (µs), the
 * part of it before the timeline's start t0_ns (not on its tracks) and its
 * functions by time on it.  0, or -1 on an output error. */
int report_html_why(FILE *out, const struct model *m, uint64_t t0_ns);

/* `,"cp":[[start,duration,wait]...]` (µs from t0): the critical path's
 * stretches on thread tid of process proc, for its timeline track. */
void report_html_track_critical(FILE *out, const struct model *m, uint32_t proc, uint32_t tid, uint64_t t0);

/* The page's data `json` (len bytes) as the page embeds it, to out: gzip
 * (level 6) in base64, without line breaks (report_html_pack.c).  0, or -1
 * (errno) when out of memory or on an output error. */
int report_html_pack(FILE *out, const char *json, size_t len);

#endif
