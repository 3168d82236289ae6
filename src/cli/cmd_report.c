/* SPDX-License-Identifier: MIT
 *
 * cmd_report.c — `tally report EXP... [VIEW] [OPTIONS]`: the overview and one
 * view (functions by default) of one or more experiments, merged.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/cli_load.h"
#include "report/report.h"
#include "cli/cli_views.h"
#include "report/report_gprof.h"

#define CMD "report"

enum {
	OPT_HELP = 1, OPT_METRIC, OPT_FORMAT, OPT_LIMIT, OPT_SORT, OPT_THRESHOLD, OPT_SHOW_COLLECTOR,
	OPT_SOURCE_PATH, OPT_NO_FOLD, OPT_COLUMNS, OPT_PERCENT, OPT_SAMPLES, OPT_QUIET,
	OPT_NAME_WIDTH, OPT_HUMAN, OPT_ERRORS,
	OPT_VIEW0 = 100,           /* OPT_VIEW0 + r: the view of row r of cli_views */
};

/* The options that are not views; the view rows go before them. */
static const struct cli_opt other_options[] = {
	{ "no-fold", 0, CLI_ARG_NONE, OPT_NO_FOLD, NULL, "call tree: every level of recursion its own node" },
	{ "source-path", 0, CLI_ARG_REQUIRED, OPT_SOURCE_PATH, "DIR[:DIR]",
	  "--lines: where to look for source files first" },
	{ "metric", 0, CLI_ARG_REQUIRED, OPT_METRIC, "M[,M...]", "(the metric table: cli_metrics_help)" },
	{ "format", 0, CLI_ARG_REQUIRED, OPT_FORMAT, "text|csv|json", "text (default), csv or json" },
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
	{ "errors", 0, CLI_ARG_OPTIONAL, OPT_ERRORS, "samples|bins",
	  "each share with its sampling error (+-, 1 s.d. in points):\n"
	  "samples (the default) from the row's sample count; bins (+-bins,\n"
	  "the function table's) from the function's share in 16 bins over\n"
	  "time, which also sees phases; traced metrics are exact: blank" },
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

#define NOPTIONS (CLI_NOPTS(other_options) + 32)
static struct cli_opt options[NOPTIONS];
static size_t noptions;

/* The option table: a row per view (cli_views), then the others. */
static void options_build(void)
{
	if (noptions)
		return;
	for (size_t r = 0; r < cli_nviews && noptions < NOPTIONS; r++)
		options[noptions++] = (struct cli_opt){ cli_views[r].option, 0, cli_views[r].has_arg,
							OPT_VIEW0 + (int)r,
							cli_views[r].values ? cli_views[r].values : cli_views[r].value,
							cli_views[r].help };
	for (size_t i = 0; i < CLI_NOPTS(other_options) && noptions < NOPTIONS; i++) {
		options[noptions] = other_options[i];
		if (options[noptions].id == OPT_METRIC)
			options[noptions].help = cli_metrics_help();
		noptions++;
	}
}

const struct cli_opt *cmd_report_options(size_t *n)
{
	options_build();
	*n = noptions;
	return options;
}

/* What the command line asks for. */
struct report_cmd {
	struct cli_input in;
	struct report_opts o;
	size_t view;               /* its row in cli_views */
	const char *view_arg;      /* the view option's value (--callers FUNC) */
	const char *metric_arg;
	long limit;                /* -1: the format's default */
	bool view_given;           /* a view option was given (one only) */
	bool samples;              /* -n: add the samples metric */
	bool quiet;                /* no overview */
	int name_width;            /* 0: names as they are */
	bool human;                /* --human */
	struct report_bins bins;   /* --errors=bins */
};

/* What the error columns carry: a line under a text view; in JSON, an
 * "errors" section with the estimate and, for bins, where they lie (from_s
 * after the first process's start, as --time counts). */
static void errors_legend(struct report_doc *d, const struct report_opts *o, const struct cli_input *in)
{
	const struct report_bins *b = o->errors == REPORT_ERRORS_BINS ? o->bins : NULL;
	uint64_t base = in->nexps && in->exps[0].nprocs ? in->exps[0].procs[0].start_ns : 0;
	double from_s = b && b->t0 > base ? (double)(b->t0 - base) / 1e9 : 0, width_s = b ? (double)b->width / 1e9 : 0;

	if (o->fmt == REPORT_JSON) {
		report_kv_begin(d, "errors", "Errors");
		report_kv(d, "estimate", "Estimate", "%s", b ? "bins" : "samples");
		if (b) {
			report_kv_num(d, "bins", "Bins", REPORT_BINS, "%d", REPORT_BINS);
			report_kv_num(d, "bins_with_samples", "Bins with samples", b->used, "%u", b->used);
			report_kv_num(d, "from_s", "From", from_s, "%.9f s", from_s);
			report_kv_num(d, "width_s", "Width", width_s, "%.9f s", width_s);
		}
		report_kv_end(d);
		return;
	}
	if (o->fmt != REPORT_TEXT)
		return;
	report_note(d, "+-: one standard deviation of the share's sampling error, in points: "
		    "100 sqrt(n (1 - n/N)) / N for a row of n samples of the run's N; blank for "
		    "traced metrics, which are exact");
	if (b)
		report_note(d, "+-bins: one standard error of the function's share, in points, by batch "
			    "means over its shares in %d bins of %.3f s from %.3f s (%u with samples): "
			    "it also sees a share that changes over the run, which the sample count "
			    "cannot", REPORT_BINS, width_s, from_s, b->used);
}

/* Take view option row r (value val).  One view per report: a second one is
 * a mistake, not a preference.  0, or CLI_USAGE (message printed). */
static int take_view(struct report_cmd *r, size_t row, const char *val)
{
	const struct cli_view *v = &cli_views[row];

	if (r->view_given && !cli_view_same(r->view, row)) {
		cli_error(CMD, "--%s and --%s are two views: give one (a report shows one view)",
			  cli_views[r->view].option, v->option);
		return CLI_USAGE;
	}
	if (!cli_view_value_ok(row, val)) {
		cli_error(CMD, "--%s=%s: expected --%s or --%s=%s", v->option, val, v->option, v->option,
			  v->values);
		return CLI_USAGE;
	}
	if (!r->view_given || val)
		r->view_arg = val;
	if (!r->view_given)
		r->view = row;     /* the first named, in messages */
	r->view_given = true;
	r->o.tree_flags |= v->tree_flags;
	return 0;
}

static void usage(FILE *f)
{
	fprintf(f, "usage: tally report EXP... [VIEW] [OPTIONS]\n"
		   "  the overview and one view (functions by default) of the experiments, merged\n");
	options_build();
	cli_args_help(f, options, noptions);
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

	if (id >= OPT_VIEW0 && (size_t)(id - OPT_VIEW0) < cli_nviews)
		return take_view(r, (size_t)(id - OPT_VIEW0), val);
	switch (id) {
	case OPT_SOURCE_PATH: r->o.source_path = val; break;
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
	case OPT_ERRORS: {
		int e = cli_errors_parse(CMD, val);
		if (e < 0)
			return CLI_USAGE;
		r->o.errors = (enum report_errors)e;
		break;
	}
	case OPT_SAMPLES: r->samples = true; break;
	case OPT_QUIET: r->quiet = true; break;
	case OPT_HUMAN: r->human = true; break;
	case OPT_NAME_WIDTH:
		if ((r->name_width = (int)strtol(val, &end, 10), *end) || end == val || r->name_width < 8) {
			cli_error(CMD, "--name-width %s: expected a number of characters, at least 8", val);
			return CLI_USAGE;
		}
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

	options_build();
	cli_args_init(&a, CMD, argc, argv, options, noptions);
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
	if (r->metric_arg && (r->o.nmetrics = cli_metrics_parse(CMD, r->metric_arg, r->o.metrics, &r->in)) < 0)
		return CLI_USAGE;
	return 0;
}

int cmd_report(int argc, char **argv)
{
	struct report_cmd r = {
		.o = { .fmt = REPORT_TEXT, .threshold_pct = 1.0, .sort_metric = -1,
		       .tree_flags = MODEL_TREE_FOLD_RECURSION },
		.view = CLI_VIEW_DEFAULT, .limit = -1,
	};
	struct cli_input *in = &r.in;
	struct report_opts *o = &r.o;
	int rc;

	rc = parse_args(&r, argc, argv);
	if (rc) {
		cli_input_free(in);
		return rc == 1 ? cli_finish_stdout(CMD, CLI_OK) : rc;
	}
	in->all_processes = cli_views[r.view].needs & CLI_VIEW_ALL_PROCESSES;
	in->match_messages = cli_views[r.view].needs & CLI_VIEW_MATCH;
	in->keep_events = o->errors == REPORT_ERRORS_BINS;
	rc = cli_input_load(in, CMD);
	if (rc)
		goto out;
	if (o->errors == REPORT_ERRORS_BINS) {
		if (report_bins_build(&r.bins, &in->model, NULL, 0)) {
			cli_error(CMD, "out of memory");
			rc = CLI_FATAL;
			goto out;
		}
		o->bins = &r.bins;
	}
	if (o->nmetrics && (rc = cli_metrics_recorded(CMD, in, o->metrics, o->nmetrics)))
		goto out;
	default_metrics(&in->model, o);
	if (r.samples && o->nmetrics < MODEL_METRIC_COUNT)
		o->metrics[o->nmetrics++] = MODEL_SAMPLES;
	o->limit = r.limit >= 0 ? (size_t)r.limit : (o->fmt == REPORT_TEXT ? 40 : 0);

	uint32_t one;
	if (cli_views[r.view].needs & CLI_VIEW_FUNC_ARG && r.view_arg &&
	    !model_func_find(&in->model, r.view_arg, &one, 1)) {
		cli_no_such_function(CMD, &in->model, r.view_arg);
		rc = CLI_FATAL;
		goto out;
	}
	struct report_doc *d = report_doc_new(stdout, o->fmt);
	if (!d) {
		cli_error(CMD, "out of memory");
		rc = CLI_FATAL;
		goto out;
	}
	report_doc_style(d, cli_colour(), r.name_width, r.human);
	report_doc_fit(d, cli_term_columns());
	if (o->fmt != REPORT_CSV && !r.quiet)
		report_overview(d, &in->model, in->exps, in->nexps);
	struct cli_view_ctx vc = { CMD, d, &in->model, o, r.view_arg };
	if ((rc = cli_views[r.view].render(&vc)))
		goto out;
	/* Without the overview, which says it: a view on too few samples
	 * (JSON's overview has sampling_error_pct; CSV is the table alone). */
	double n = (double)in->model.total[MODEL_SAMPLES];
	if (r.quiet && o->fmt == REPORT_TEXT && n > 0 && n < 100)
		report_note(d, "(this view rests on %.0f samples: a share moves by up to +-%.1f points "
			    "(1 s.d.) by sampling alone; record longer or at a higher rate)", n, 50.0 / sqrt(n));
	if (o->errors)
		errors_legend(d, o, in);
	rc = cli_doc_end(d, CMD, in->partial ? CLI_PARTIAL : CLI_OK);
out:
	report_bins_free(&r.bins);
	cli_input_free(in);
	return rc;
}
