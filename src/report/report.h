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

/* What the function table is sorted by (--sort). */
enum report_sort { REPORT_SORT_EXCL, REPORT_SORT_INCL, REPORT_SORT_NAME, REPORT_SORT_OBJECT };

/* Which error a share carries (--errors=samples|bins). */
enum report_errors {
	REPORT_ERRORS_NONE = 0,
	REPORT_ERRORS_SAMPLES,     /* from the row's sample count (report_share_error) */
	REPORT_ERRORS_BINS,        /* the function table's: from the share's spread over
	                              time bins (report_bins.c); other views: as SAMPLES */
};

struct report_bins;

struct report_opts {
	enum report_format fmt;
	enum model_metric metrics[MODEL_METRIC_COUNT];   /* columns, in order */
	int nmetrics;
	enum report_sort sort;      /* function table order */
	int sort_metric;            /* the metric sorted by; -1: the first shown */
	const char *columns;        /* function table columns (report_columns_check); NULL: default */
	bool percent_only;          /* metric columns show shares of the total only */
	enum report_errors errors;  /* each share with its error (report_metric_cols) */
	const struct report_bins *bins;   /* REPORT_ERRORS_BINS: the function table's */
	size_t limit;               /* rows of the function table; 0: all */
	double threshold_pct;       /* tree: hide nodes below this % of the total */
	const char *source_path;    /* annotate: source directories, DIR:DIR... */
	const char *commentary;     /* annotate: compiler commentary files, FILE,FILE... */
	unsigned tree_flags;        /* MODEL_TREE_FOLD_RECURSION, MODEL_TREE_INVERTED */
	double hot_pct;             /* annotate: only lines at or above this % of a total (0: all) */
	int context;                /* annotate --hot: lines shown around each hot one */
};

/* Is `list` a valid --columns for the function table: names among excl,
 * incl, name, object, file (the function's source file:line), comma
 * separated?  0, or -1 with the bad name in err. */
int report_columns_check(const char *list, char *err, size_t errlen);

/* Overview: target, duration, end, samples, threads, losses, CPU time
 * sampled beside the CPU time the kernel accounted. */
void report_overview(struct report_doc *d, const struct model *m,
		     const struct exp_experiment *exps, size_t nexps);

/* A JVM's samples, in the overview (report_java.c): those with a Java
 * stack, without (and why), and the JVM's own. */
void report_java_overview(struct report_doc *d, const struct model *m);

/* MPI jobs (report_mpi.c): the ranks side by side (AUTO: up to 16, more
 * summarised: slowest, quartiles, fastest; ALL: each; SUMMARY: summarised)
 * and the job's imbalance;
 * the point-to-point traffic from rank to rank; and the head of the
 * overview of a job's ranks (true), instead of one head per experiment, or
 * false if `exps` are not a job's.  The head adds the kernel's and the
 * threads' CPU time to *kernel_ns and *thread_cpu. */
enum report_ranks_mode { REPORT_RANKS_AUTO, REPORT_RANKS_ALL, REPORT_RANKS_SUMMARY };
void report_ranks(struct report_doc *d, const struct model *m, const struct report_opts *o,
		  enum report_ranks_mode mode);
void report_messages(struct report_doc *d, const struct model *m, const struct report_opts *o);
bool report_job_head(struct report_doc *d, const struct exp_experiment *exps, size_t nexps,
		     uint64_t *kernel_ns, uint64_t *thread_cpu, bool *have_rusage);

/* The CPU check of the overview (report_cpu.c).  report_cpu_base: the
 * kernel's CPU time to compare the samples with, from the founders' rusage
 * (`rusage_ns`): with the processes that outlived `tally record` (daemons,
 * said so), or for --process the chosen processes' own; 0 if not known.
 * report_cpu_gap: where a difference above 10% between what was accounted
 * (sampled + collector) and that went, process by process. */
uint64_t report_cpu_base(struct report_doc *d, const struct model *m,
			 const struct exp_experiment *exps, size_t nexps, uint64_t rusage_ns);
void report_cpu_gap(struct report_doc *d, const struct model *m, const struct exp_experiment *exps,
		    size_t nexps, uint64_t accounted_ns, uint64_t base_ns);
/* Why experiment x has descendants that recorded nothing (their directory
 * made, nothing written): "the file system was full" when a log of x says
 * ENOSPC, else "killed as they started, or could not write". */
const char *report_empty_cause(const struct exp_experiment *x);
/* Thread states (report_states.c): each thread's wall time by state (a
 * table closing the overview); `--states`: per thread, a row per state and
 * its top stacks. */
void report_states_overview(struct report_doc *d, const struct model *m);
void report_sched_overview(struct report_doc *d, const struct model *m);
void report_states(struct report_doc *d, const struct model *m);
/* Counters (report_counters.c): totals and IPC / MPKI closing the
 * overview; `--counters`: every counter and the ratios per function;
 * `--data-objects`: precise samples by data object (docs/dataspace.md). */
void report_counters_overview(struct report_doc *d, const struct model *m);
void report_counters(struct report_doc *d, const struct model *m, const struct report_opts *o);
void report_data_objects(struct report_doc *d, const struct model *m, const struct report_opts *o);
/* How many of m's data objects are of precise samples (a counter's, not
 * the clock's): the one answer to "are there precise samples?". */
size_t report_data_precise_objects(const struct model *m);
/* Its precise samples' table alone (nothing without them): by counter and
 * data object, with the share each level served (the page's tab). */
void report_data_precise(struct report_doc *d, const struct model *m, const struct report_opts *o);
/* Data objects from clock samples (record --data; report_dataobj.c): by
 * CPU time with their members (part of --data-objects); `--data-layout`:
 * each structure's members by offset with their CPU time. */
void report_data_clock(struct report_doc *d, const struct model *m, const struct report_opts *o);
void report_data_layout(struct report_doc *d, const struct model *m, const struct report_opts *o);
/* The data objects' members and top functions, indexed once per table (a
 * lookup per object row, not a pass over every member and access):
 * report_data_index_build fills it (0, or -1 out of memory), _free frees. */
struct report_data_index {
	size_t *members;           /* m->data_members indices, by object, each's most counted first */
	size_t *first;             /* object i's: members[first[i] .. first[i + 1]) */
	uint32_t *top_func;        /* the function with most of object i's events; 0: none */
	uint64_t *top_value;       /* ... and its events */
};
int report_data_index_build(const struct model *m, struct report_data_index *ix);
void report_data_index_free(struct report_data_index *ix);
/* A data-object row's cells after its first column (shared by both tables
 * of data objects, report_dataobj.c): events or time, % of total, samples,
 * size, name, object, the function accessing it most and its share; and
 * the same cells for a <Total> row. */
struct report_table;
void report_data_object_cells(struct report_table *t, const struct model *m, const struct report_data_index *ix,
			      size_t obj, uint64_t total);
void report_data_total_cells(struct report_table *t, uint64_t sum, uint64_t samples, uint64_t total);
/* Data object obj's members (structure fields), most counted first: *n of
 * them, indices into m->data_members; and a member's cells, as
 * report_data_object_cells' (report_dataobj.c). */
const size_t *report_data_members_of(const struct report_data_index *ix, size_t obj, size_t *n);
void report_data_member_cells(struct report_table *t, const struct model *m, size_t member, uint64_t total);
/* --sync-objects: synchronization waits by object (report_sync.c). */
void report_sync_objects(struct report_doc *d, const struct model *m, const struct report_opts *o);
/* Lock-holder blame (report_blame.c): waits by waiting function, object and
 * where the holder took the object. */
void report_blame(struct report_doc *d, const struct model *m, const struct report_opts *o);
/* The critical path across threads by function (report_critical.c). */
void report_critical(struct report_doc *d, const struct model *m, const struct report_opts *o);

/* The function table, <Total> first. */
void report_functions(struct report_doc *d, const struct model *m, const struct report_opts *o);

/* Callers and callees of every function named `name`; -1 if there is none. */
int report_callers(struct report_doc *d, const struct model *m, const struct report_opts *o,
		   const char *name);

void report_tree(struct report_doc *d, const struct model *m, const struct report_opts *o);

void report_threads(struct report_doc *d, const struct model *m, const struct report_opts *o);
/* --samples: each process over time (record --process-samples), report_psamples.c. */
void report_psamples(struct report_doc *d, const struct model *m, const struct report_opts *o);
/* The process tree: each (sub-)experiment under its parent. */
void report_processes(struct report_doc *d, const struct model *m, const struct report_opts *o);
void report_objects(struct report_doc *d, const struct model *m, const struct report_opts *o);

/* Annotated source (or, with `disasm`, instructions) of the functions named
 * `name` (report_annotate.c).  -1 with `err` if there is none, or its code
 * or lines cannot be read. */
int report_annotate(struct report_doc *d, const struct model *m, const struct report_opts *o,
		    const char *name, bool disasm, char *err, size_t errlen);
/* The source file annotate shows for function `f` (that of its first
 * instruction with a line; a Java method's class's "pkg/Class.java"), or
 * NULL without line information. */
const char *report_func_source(const struct model *m, uint32_t f);

/* The hottest source lines, or (`pcs`) instructions, of the whole program
 * (report_hot.c); 0, or -1 if out of memory. */
int report_hot(struct report_doc *d, const struct model *m, const struct report_opts *o, bool pcs);

/* Annotated source of Java method f (report_annotate_java.c); -1 with
 * `err` if it has no line numbers or out of memory. */
int report_annotate_java(struct report_doc *d, const struct model *m, const struct report_opts *o,
			 uint32_t f, char *err, size_t errlen);

/* Traced data (report_traces.c): the stacks that leaked heap bytes, and the
 * peak; I/O by file. */
void report_leaks(struct report_doc *d, const struct model *m, const struct report_opts *o);
void report_files(struct report_doc *d, const struct model *m);

/* `root;...;leaf WEIGHT` per distinct stack (a contract: flamegraph.pl and
 * others read it; docs/decisions.md): weights
 * in the metric's unit, `[name pid]` first when there are several processes.
 * Returns 0 or -1 on an output error. */
int report_collapsed(FILE *out, const struct model *m, enum model_metric metric);

/* speedscope's JSON format: a profile per thread and metric, stacks in time
 * order (report_speedscope.c).  Needs a model built with keep_events. */
int report_speedscope(FILE *out, const struct model *m, const char *title);

/* The trace-event JSON of chrome://tracing and Perfetto: a thread per track
 * of the timeline, samples as nested complete events (report_chrome.c).
 * Needs a model built with keep_events. */
int report_chrome(FILE *out, const struct model *m);

/* `tally diff`: per function and call path, A's and B's values of o's
 * metrics, change and ratio, by absolute change (report_diff.c); with
 * `normalised`, A scaled to B's total first.  Each side is one run or
 * several (runs_a, runs_b ≥ 1: the values are means, the noise their
 * spread).  0, or -1 when out of memory. */
int report_diff(struct report_doc *d, const struct model *const *a, size_t runs_a, const struct model *const *b,
		size_t runs_b, const struct report_opts *o, bool normalised, const char *name_a, const char *name_b);

/* `tally diff` of `--states` runs: the threads' wall-time change split by
 * state and call path (report_diff_states.c).  _apply: 1 if every run of
 * both sides has thread states, 0 if none, -1 if some only.  _cols: its columns at the end of the
 * diff's one CSV table.  report_diff_states: into `all` (CSV; its first
 * `all_cols` cells after the part's name left empty, then status, name,
 * object), or its own head and table.  0, or -1 when out of memory. */
int report_diff_states_apply(const struct model *const *a, size_t na, const struct model *const *b, size_t nb);
void report_diff_states_cols(struct report_table *t);
int report_diff_states(struct report_doc *d, const struct model *const *a, size_t na, const struct model *const *b,
		       size_t nb, const struct report_opts *o, struct report_table *all, size_t all_cols);

/* Lock-holder blame's words (report_blame.c): the holder's function f
 * with the source line of its lock call at addr, "slow_flush (blamey.c:57)";
 * why a holder is not known ("not known: the object's first contention"). */
void report_blame_where(const struct model *m, uint32_t f, uint64_t addr, char *buf, size_t len);
const char *report_blame_why(uint32_t why);

struct report_html_opts {
	const char *title;          /* what the page is about (the experiments) */
	size_t base_nexps;          /* > 0: a diff; experiments [0, base_nexps) are the baseline */
	bool normalised;            /* a diff compares shares of each run's total */
	bool bin_errors;            /* the functions' share errors from time bins (binErrors) */
};

/* `tally html`: one self-contained page (report_html.c).  Needs a model
 * built with keep_events.  Returns 0, or -1 when out of memory or on an
 * output error. */
int report_html(FILE *out, const struct model *m, const struct exp_experiment *exps, size_t nexps,
		const struct report_html_opts *o);

/* The pprof format (profile.proto, gzipped) into `path` (NULL: standard
 * output's descriptor); 0 or -1. */
int report_pprof(const char *path, const struct model *m);

/* Helpers shared by the views (report_common.c). */
double report_pct_of(uint64_t v, uint64_t total);
/* "name" or "name (object)" when the name is not unique among functions. */
const char *report_func_label(const struct model *m, uint32_t f, char *buf, size_t len);
/* A thread's name for the thread tables: its own (THREAD_NAME), else its
 * start routine's label, else "". */
const char *report_thread_label(const struct model *m, const struct model_thread *th, char *buf, size_t len);
/* The columns of a table of threads that name the thread: Process (with
 * several processes), TID, Thread; and their cells for th, in a row begun,
 * the Thread cell its label (report_thread_label).  Every thread table
 * writes them here, so each names its threads alike (keys process, tid,
 * thread). */
void report_thread_cols(struct report_table *t, const struct model *m);
void report_thread_cells(struct report_table *t, const struct model *m, const struct model_thread *th);
/* The same cells with `thread` in the Thread cell: a table that shows the
 * start routine apart gives the thread's own name; a row that goes on
 * with the thread of the row above, "". */
void report_thread_cells_as(struct report_table *t, const struct model *m, const struct model_thread *th,
			    const char *thread);
/* A thread's lifetime in ns, from its start to its end (its process's end
 * when it did not end before it), or 0 when either is unknown. */
uint64_t report_thread_lifetime(const struct model *m, const struct model_thread *th);
/* Add the metric columns of one kind ("excl", "incl", "attr") for o's
 * metrics: value, share and, with o->errors, the share's error. */
void report_metric_cols(struct report_table *t, const struct report_opts *o, const char *kind,
			const char *title);
/* One standard deviation of the sampling error of the share of metric mm
 * that values v (a row's, all metrics) hold, in points: from the row's
 * sample count n of the run's N, multinomial, 100 sqrt(n (1 - n/N)) / N;
 * NaN for a metric not from clock samples (traced: exact). */
double report_share_error(const struct model *m, enum model_metric mm, const uint64_t *v);
void report_metric_cells(struct report_table *t, const struct model *m,
			 const struct report_opts *o, const uint64_t *v);
/* The same for a row of function f's exclusive (incl false) or inclusive
 * values v: with REPORT_ERRORS_BINS, the error columns ("+-bins", CSV/JSON
 * `..._pct_err_bins`) carry report_bins_error's estimate. */
void report_func_metric_cols(struct report_table *t, const struct report_opts *o, const char *kind,
			     const char *title);
void report_func_metric_cells(struct report_table *t, const struct model *m,
			      const struct report_opts *o, const uint64_t *v, uint32_t f, bool incl);

/* Function shares' errors from time bins (report_bins.c): the sampled span
 * cut into REPORT_BINS equal bins from t0, each `width` ns; per function
 * (slot[f] - 1 its row, 0: no samples) its exclusive and inclusive samples
 * per bin, and every bin's samples. */
#define REPORT_BINS 16
struct report_bins {
	uint64_t t0, width;        /* ns, on the model's event clock */
	uint32_t nfuncs;           /* ids counted (functions, or map's ids) */
	bool mapped;
	uint32_t *slot;
	uint32_t *excl, *incl;     /* [(slot - 1) * REPORT_BINS + bin] */
	uint64_t total[REPORT_BINS];
	unsigned used;             /* bins holding samples */
};
/* From the model's events (keep_events), by function, or with `map` by
 * map[function] (ids below nids; others not counted).  0, or -1 when out
 * of memory. */
int report_bins_build(struct report_bins *b, const struct model *m, const uint32_t *map, uint32_t nids);
/* One standard error of function f's exclusive or inclusive sample share,
 * in points, by batch means over the bins with samples; NaN with fewer
 * than two such bins. */
double report_bins_error(const struct report_bins *b, uint32_t f, bool incl);
void report_bins_free(struct report_bins *b);
/* Diffs: was the main executable renamed between the runs (hot -> hot2)?
 * a[0..na) and b[0..nb) are the basenames of the executables of run A's
 * and run B's processes.  If those only A runs are one name and those only
 * B runs one other, it is the same program under a new name: *a_name and
 * *b_name are set (pointers into a and b) and true returned, so that B's
 * functions in *b_name match A's of the same name in *a_name. */
bool report_exe_renamed(const char *const *a, size_t na, const char *const *b, size_t nb,
			const char **a_name, const char **b_name);

#endif
