/* SPDX-License-Identifier: MIT
 *
 * cmd_report.c — `tally report EXP... [VIEW] [OPTIONS]`: the overview and one
 * view (functions by default) of one or more experiments, merged.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/cli_load.h"
#include "report/report.h"
#include "report/report_gprof.h"

#define CMD "report"

enum view { VIEW_FUNCTIONS, VIEW_CALLERS, VIEW_TREE, VIEW_THREADS, VIEW_OBJECTS, VIEW_GPROF,
	    VIEW_LEAKS, VIEW_FILES, VIEW_PROCESSES, VIEW_RANKS, VIEW_MESSAGES, VIEW_LINES, VIEW_PCS,
	    VIEW_STATES, VIEW_COUNTERS, VIEW_DATA_OBJECTS };

enum {
	OPT_HELP = 1, OPT_FUNCTIONS, OPT_CALLERS, OPT_TREE, OPT_THREADS, OPT_OBJECTS, OPT_GPROF,
	OPT_LEAKS, OPT_BY_FILE, OPT_FILES, OPT_PROCESSES, OPT_METRIC, OPT_FORMAT, OPT_LIMIT,
	OPT_SORT, OPT_THRESHOLD, OPT_SHOW_COLLECTOR, OPT_RANKS, OPT_MESSAGES,
	OPT_LINES, OPT_PCS, OPT_SOURCE_PATH, OPT_INVERTED, OPT_NO_FOLD, OPT_COLUMNS, OPT_PERCENT,
	OPT_SAMPLES, OPT_QUIET, OPT_NAME_WIDTH, OPT_STATES, OPT_COUNTERS, OPT_DATA_OBJECTS,
	OPT_HUMAN,
};

static const struct cli_opt options[] = {
	{ "functions", 0, CLI_ARG_NONE, OPT_FUNCTIONS, NULL, "the function table (the default view)" },
	{ "callers", 0, CLI_ARG_REQUIRED, OPT_CALLERS, "FUNC", "callers and callees of FUNC" },
	{ "tree", 0, CLI_ARG_NONE, OPT_TREE, NULL, "the call tree (recursive calls folded into the outermost)" },
	{ "inverted", 0, CLI_ARG_NONE, OPT_INVERTED, NULL,
	  "the call tree bottom-up: each function, its callers below it" },
	{ "no-fold", 0, CLI_ARG_NONE, OPT_NO_FOLD, NULL, "call tree: every level of recursion its own node" },
	{ "threads", 0, CLI_ARG_NONE, OPT_THREADS, NULL, "metrics by thread" },
	{ "objects", 0, CLI_ARG_NONE, OPT_OBJECTS, NULL, "metrics by load object" },
	{ "gprof", 0, CLI_ARG_OPTIONAL, OPT_GPROF, "propagate",
	  "gprof's listing, time per arc measured from the stacks;\n"
	  "=propagate: propagated from call counts, as gprof does" },
	{ "leaks", 0, CLI_ARG_NONE, OPT_LEAKS, NULL,
	  "the stacks that allocated what was never freed, and the peak" },
	{ "by-file", 0, CLI_ARG_NONE, OPT_BY_FILE, NULL, "I/O by file: bytes, calls, time, opens, seeks, syncs" },
	{ "files", 0, CLI_ARG_NONE, OPT_FILES, NULL, NULL },
	{ "processes", 0, CLI_ARG_NONE, OPT_PROCESSES, NULL,
	  "the process tree: descendants followed into sub-experiments" },
	{ "ranks", 0, CLI_ARG_NONE, OPT_RANKS, NULL,
	  "an MPI job's ranks: CPU, MPI time, bytes; the imbalance" },
	{ "messages", 0, CLI_ARG_NONE, OPT_MESSAGES, NULL,
	  "an MPI job's point-to-point bytes and messages, rank to rank" },
	{ "lines", 0, CLI_ARG_NONE, OPT_LINES, NULL, "the hottest source lines of the whole program" },
	{ "pcs", 0, CLI_ARG_NONE, OPT_PCS, NULL, "the hottest instructions of the whole program" },
	{ "source-path", 0, CLI_ARG_REQUIRED, OPT_SOURCE_PATH, "DIR[:DIR]",
	  "--lines: where to look for source files first" },
	{ "states", 0, CLI_ARG_NONE, OPT_STATES, NULL,
	  "thread states (record --states): per thread, the time in each\n"
	  "state and the stacks that spent most of it" },
	{ "counters", 0, CLI_ARG_NONE, OPT_COUNTERS, NULL,
	  "counters (record -c) by function, with IPC and misses per\n"
	  "thousand instructions where both counters exist" },
	{ "data-objects", 0, CLI_ARG_NONE, OPT_DATA_OBJECTS, NULL,
	  "precise memory-access samples by data object (docs/dataspace.md)" },
	{ "metric", 0, CLI_ARG_REQUIRED, OPT_METRIC, "M[,M...]",
	  "cpu (default), heap.bytes, heap.count, heap.leak, sync.wait,\n"
	  "sync.count, sync.other, io.bytes, io.time, io.count, mpi.time,\n"
	  "mpi.count, mpi.bytes.sent, mpi.bytes.recv; with --states: wall,\n"
	  "cpu.user, cpu.system, wait.cpu, wait.lock, wait.io, wait.sleep, wait.stopped;\n"
	  "with -c: the event's name (cycles, page-faults, ...)" },
	{ "format", 0, CLI_ARG_REQUIRED, OPT_FORMAT, "F", "text (default), csv or json" },
	{ "limit", 0, CLI_ARG_REQUIRED, OPT_LIMIT, "N",
	  "functions shown (default 40 in text, all otherwise; 0: all)" },
	{ "sort", 0, CLI_ARG_REQUIRED, OPT_SORT, "KEY",
	  "order of the function table: excl (default), incl, name,\n"
	  "object, or a metric (its excl); excl.M / incl.M for metric M" },
	{ "columns", 0, CLI_ARG_REQUIRED, OPT_COLUMNS, "LIST",
	  "function table columns, in order, from excl, incl, name,\n"
	  "object, file (source file:line), aliases; default\n"
	  "excl,incl,name,object (and aliases in csv and json)" },
	{ "percent", 0, CLI_ARG_NONE, OPT_PERCENT, NULL, "metric columns as shares of the total only" },
	{ "samples", 'n', CLI_ARG_NONE, OPT_SAMPLES, NULL, "a column of sample counts (metric samples)" },
	{ "quiet", 'q', CLI_ARG_NONE, OPT_QUIET, NULL, "no overview: the view alone" },
	{ "name-width", 0, CLI_ARG_REQUIRED, OPT_NAME_WIDTH, "N",
	  "text: cut function names to N characters (see also --no-args)" },
	{ "human", 0, CLI_ARG_NONE, OPT_HUMAN, NULL,
	  "text: times and counts in human units (45.6 ms, 1.23 s, 12.3K, 4.56M)" },
	{ "threshold", 0, CLI_ARG_REQUIRED, OPT_THRESHOLD, "PCT",
	  "call tree: hide subtrees below PCT% of the total (default 1)" },
	CLI_INPUT_OPTS,
	{ "show-collector", 0, CLI_ARG_NONE, OPT_SHOW_COLLECTOR, NULL, "keep tally's own frames in the stacks" },
	{ "help", 'h', CLI_ARG_NONE, OPT_HELP, NULL, "this help" },
};

/* What the command line asks for. */
struct report_cmd {
	struct cli_input in;
	struct report_opts o;
	enum view view;
	enum model_gprof_method gprof_method;
	const char *focus;         /* --callers FUNC */
	const char *metric_arg;
	long limit;                /* -1: the format's default */
	bool view_given;           /* a view option was given (one only) */
	bool samples;              /* -n: add the samples metric */
	bool quiet;                /* no overview */
	int name_width;            /* 0: names as they are */
	bool human;                /* --human */
};

/* The view an option asks for, or -1 if it is not a view. */
static int view_of(int id)
{
	switch (id) {
	case OPT_FUNCTIONS: return VIEW_FUNCTIONS;
	case OPT_CALLERS: return VIEW_CALLERS;
	case OPT_TREE: return VIEW_TREE;
	case OPT_THREADS: return VIEW_THREADS;
	case OPT_OBJECTS: return VIEW_OBJECTS;
	case OPT_GPROF: return VIEW_GPROF;
	case OPT_LEAKS: return VIEW_LEAKS;
	case OPT_BY_FILE:
	case OPT_FILES: return VIEW_FILES;
	case OPT_PROCESSES: return VIEW_PROCESSES;
	case OPT_RANKS: return VIEW_RANKS;
	case OPT_MESSAGES: return VIEW_MESSAGES;
	case OPT_LINES: return VIEW_LINES;
	case OPT_PCS: return VIEW_PCS;
	case OPT_INVERTED: return VIEW_TREE;     /* the tree, bottom-up: with --tree or alone */
	default: return -1;
	}
}

static const char *const view_option[] = {
	[VIEW_FUNCTIONS] = "--functions", [VIEW_CALLERS] = "--callers", [VIEW_TREE] = "--tree",
	[VIEW_THREADS] = "--threads", [VIEW_OBJECTS] = "--objects", [VIEW_GPROF] = "--gprof",
	[VIEW_LEAKS] = "--leaks", [VIEW_FILES] = "--by-file", [VIEW_PROCESSES] = "--processes",
	[VIEW_RANKS] = "--ranks", [VIEW_MESSAGES] = "--messages", [VIEW_LINES] = "--lines",
	[VIEW_PCS] = "--pcs",
};

static void usage(FILE *f)
{
	fprintf(f, "usage: tally report EXP... [VIEW] [OPTIONS]\n"
		   "  the overview and one view (functions by default) of the experiments, merged\n");
	cli_args_help(f, options, CLI_NOPTS(options));
}

/* Without --metric: cpu if it has data, else every traced metric present. */
static void default_metrics(const struct model *m, struct report_opts *o)
{
	if (o->nmetrics)
		return;
	if ((m->present & (1u << MODEL_CPU)) || !m->present) {
		o->metrics[o->nmetrics++] = MODEL_CPU;
		return;
	}
	for (int k = 0; k < MODEL_METRIC_COUNT; k++)
		if (m->present & (1u << k))
			o->metrics[o->nmetrics++] = (enum model_metric)k;
}

/* --sort KEY: excl, incl, name, object, a metric (its exclusive), or
 * excl.M / incl.M.  0, or CLI_USAGE (message printed). */
static int parse_sort(struct report_opts *o, const char *val)
{
	const char *dot = strchr(val, '.');
	size_t klen = dot ? (size_t)(dot - val) : strlen(val);
	int mm = model_metric_parse(val);

	o->sort_metric = -1;
	if (mm >= 0) {                   /* a metric alone, even one with a dot */
		o->sort = REPORT_SORT_EXCL;
		o->sort_metric = mm;
		return 0;
	}
	if (klen == 4 && !strncmp(val, "excl", 4))
		o->sort = REPORT_SORT_EXCL;
	else if (klen == 4 && !strncmp(val, "incl", 4))
		o->sort = REPORT_SORT_INCL;
	else if (!strcmp(val, "name"))
		o->sort = REPORT_SORT_NAME;
	else if (!strcmp(val, "object"))
		o->sort = REPORT_SORT_OBJECT;
	else
		goto bad;
	if (dot && (o->sort_metric = model_metric_parse(dot + 1)) < 0)
		goto bad;
	return 0;
bad:
	cli_error(CMD, "--sort %s: expected excl, incl, name, object, a metric, or excl.M / incl.M", val);
	return CLI_USAGE;
}

/* Take one option; returns 0, or CLI_USAGE (message printed). */
static int take_option(struct report_cmd *r, int id, const char *val)
{
	char *end;
	int view = view_of(id);

	/* One view per report: a second one is a mistake, not a preference. */
	if (view >= 0 && r->view_given && view != (int)r->view) {
		cli_error(CMD, "%s and %s are two views: give one (a report shows one view)",
			  view_option[r->view], view_option[view]);
		return CLI_USAGE;
	}
	r->view_given |= view >= 0;
	switch (id) {
	case OPT_FUNCTIONS: r->view = VIEW_FUNCTIONS; break;
	case OPT_CALLERS: r->view = VIEW_CALLERS; r->focus = val; break;
	case OPT_TREE: r->view = VIEW_TREE; break;
	case OPT_THREADS: r->view = VIEW_THREADS; break;
	case OPT_OBJECTS: r->view = VIEW_OBJECTS; break;
	case OPT_GPROF:
		r->view = VIEW_GPROF;
		if (val && strcmp(val, "propagate") && strcmp(val, "stacks")) {
			cli_error(CMD, "--gprof=%s: expected --gprof or --gprof=propagate", val);
			return CLI_USAGE;
		}
		if (val && !strcmp(val, "propagate"))
			r->gprof_method = MODEL_GPROF_PROPAGATE;
		break;
	case OPT_LEAKS: r->view = VIEW_LEAKS; break;
	case OPT_BY_FILE:
	case OPT_FILES: r->view = VIEW_FILES; break;
	case OPT_PROCESSES: r->view = VIEW_PROCESSES; break;
	case OPT_RANKS: r->view = VIEW_RANKS; break;
	case OPT_LINES: r->view = VIEW_LINES; break;
	case OPT_PCS: r->view = VIEW_PCS; break;
	case OPT_SOURCE_PATH: r->o.source_path = val; break;
	case OPT_MESSAGES: r->view = VIEW_MESSAGES; break;
	case OPT_STATES: r->view = VIEW_STATES; break;
	case OPT_COUNTERS: r->view = VIEW_COUNTERS; break;
	case OPT_DATA_OBJECTS: r->view = VIEW_DATA_OBJECTS; break;
	case OPT_METRIC: r->metric_arg = val; break;
	case OPT_FORMAT:
		if (!strcmp(val, "text"))
			r->o.fmt = REPORT_TEXT;
		else if (!strcmp(val, "csv"))
			r->o.fmt = REPORT_CSV;
		else if (!strcmp(val, "json"))
			r->o.fmt = REPORT_JSON;
		else {
			cli_error(CMD, "--format %s: expected text, csv or json", val);
			return CLI_USAGE;
		}
		break;
	case OPT_LIMIT:
		if ((r->limit = strtol(val, &end, 10), *end) || end == val || r->limit < 0) {
			cli_error(CMD, "--limit: expected a number of functions");
			return CLI_USAGE;
		}
		break;
	case OPT_THRESHOLD:
		if ((r->o.threshold_pct = strtod(val, &end), *end) || end == val ||
		    r->o.threshold_pct < 0) {
			cli_error(CMD, "--threshold: expected a percentage");
			return CLI_USAGE;
		}
		break;
	case OPT_SORT:
		return parse_sort(&r->o, val);
	case OPT_COLUMNS: {
		char err[128];
		if (report_columns_check(val, err, sizeof(err))) {
			cli_error(CMD, "--columns %s: %s", val, err);
			return CLI_USAGE;
		}
		r->o.columns = val;
		break;
	}
	case OPT_PERCENT: r->o.percent_only = true; break;
	case OPT_SAMPLES: r->samples = true; break;
	case OPT_QUIET: r->quiet = true; break;
	case OPT_HUMAN: r->human = true; break;
	case OPT_NAME_WIDTH:
		if ((r->name_width = (int)strtol(val, &end, 10), *end) || end == val || r->name_width < 8) {
			cli_error(CMD, "--name-width %s: expected a number of characters, at least 8", val);
			return CLI_USAGE;
		}
		break;
	case OPT_INVERTED:
		r->view = VIEW_TREE;
		r->o.tree_flags |= MODEL_TREE_INVERTED;
		break;
	case OPT_NO_FOLD: r->o.tree_flags &= ~MODEL_TREE_FOLD_RECURSION; break;
	case OPT_SHOW_COLLECTOR: r->in.show_collector = true; break;
	default:
		if (cli_input_option(&r->in, CMD, id, val) <= 0)
			return CLI_USAGE;
	}
	return 0;
}

/* Parse the command line into r.  Returns 0, 1 after --help, or CLI_USAGE
 * (message printed). */
static int parse_args(struct report_cmd *r, int argc, char **argv)
{
	struct cli_args a;
	const char *val;
	int id;

	cli_args_init(&a, CMD, argc, argv, options, CLI_NOPTS(options));
	while ((id = cli_args_next(&a, &val)) != CLI_ARGS_END) {
		if (id == CLI_ARGS_ERROR)
			return CLI_USAGE;
		if (id == CLI_ARGS_OPERAND) {
			if (cli_input_add_path(&r->in, CMD, val))
				return CLI_USAGE;
		} else if (id == OPT_HELP) {
			usage(stdout);
			return 1;
		} else if (take_option(r, id, val)) {
			return CLI_USAGE;
		}
	}
	if (r->metric_arg && (r->o.nmetrics = cli_metrics_parse(CMD, r->metric_arg, r->o.metrics)) < 0)
		return CLI_USAGE;
	return 0;
}

int cmd_report(int argc, char **argv)
{
	struct report_cmd r = {
		.o = { .fmt = REPORT_TEXT, .threshold_pct = 1.0, .sort_metric = -1,
		       .tree_flags = MODEL_TREE_FOLD_RECURSION },
		.view = VIEW_FUNCTIONS, .gprof_method = MODEL_GPROF_STACKS, .limit = -1,
	};
	struct cli_input *in = &r.in;
	struct report_opts *o = &r.o;
	int rc;

	rc = parse_args(&r, argc, argv);
	if (rc) {
		cli_input_free(in);
		return rc == 1 ? cli_finish_stdout(CMD, CLI_OK) : rc;
	}
	in->all_processes = r.view == VIEW_PROCESSES;
	rc = cli_input_load(in, CMD);
	if (rc)
		goto out;
	if (o->nmetrics && (rc = cli_metrics_recorded(CMD, in, o->metrics, o->nmetrics)))
		goto out;
	default_metrics(&in->model, o);
	if (r.samples && o->nmetrics < MODEL_METRIC_COUNT)
		o->metrics[o->nmetrics++] = MODEL_SAMPLES;
	o->limit = r.limit >= 0 ? (size_t)r.limit : (o->fmt == REPORT_TEXT ? 40 : 0);

	struct report_doc *d = report_doc_new(stdout, o->fmt);
	if (!d) {
		cli_error(CMD, "out of memory");
		rc = CLI_FATAL;
		goto out;
	}
	report_doc_style(d, cli_colour(), r.name_width, r.human);
	if (o->fmt != REPORT_CSV && !r.quiet)
		report_overview(d, &in->model, in->exps, in->nexps);
	switch (r.view) {
	case VIEW_FUNCTIONS: report_functions(d, &in->model, o); break;
	case VIEW_TREE: report_tree(d, &in->model, o); break;
	case VIEW_THREADS: report_threads(d, &in->model, o); break;
	case VIEW_OBJECTS: report_objects(d, &in->model, o); break;
	case VIEW_LEAKS: report_leaks(d, &in->model, o); break;
	case VIEW_FILES: report_files(d, &in->model); break;
	case VIEW_PROCESSES: report_processes(d, &in->model, o); break;
	case VIEW_RANKS: report_ranks(d, &in->model, o); break;
	case VIEW_MESSAGES: report_messages(d, &in->model, o); break;
	case VIEW_LINES:
	case VIEW_PCS:
		if (report_hot(d, &in->model, o, r.view == VIEW_PCS))
			report_doc_fail(d, r.view == VIEW_PCS ? "the hottest instructions" : "the hottest lines");
		break;
	case VIEW_STATES: report_states(d, &in->model); break;
	case VIEW_COUNTERS: report_counters(d, &in->model, o); break;
	case VIEW_DATA_OBJECTS: report_data_objects(d, &in->model, o); break;
	case VIEW_CALLERS:
		if (report_callers(d, &in->model, o, r.focus)) {
			report_doc_end(d);
			cli_no_such_function(CMD, &in->model, r.focus);
			rc = CLI_FATAL;
			goto out;
		}
		break;
	case VIEW_GPROF:
		if (report_gprof(d, &in->model, o, r.gprof_method))
			report_doc_fail(d, "the gprof graph");
		break;
	}
	rc = cli_doc_end(d, CMD, in->partial ? CLI_PARTIAL : CLI_OK);
out:
	cli_input_free(in);
	return rc;
}
