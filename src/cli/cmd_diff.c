/* SPDX-License-Identifier: MIT
 *
 * cmd_diff.c — `tally diff A B`: what changed from experiment A to B, per
 * function and per call path (report_diff.c); `tally diff A1 A2 -- B1 B2`:
 * from repeated runs of A to repeated runs of B, each side's mean, the noise
 * from their spread.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/cli_load.h"
#include "report/report.h"

#define CMD "diff"

enum { OPT_HELP = 1, OPT_NORMALISED, OPT_ABSOLUTE, OPT_METRIC, OPT_FORMAT, OPT_LIMIT, OPT_HUMAN };

static const struct cli_opt options[] = {
	{ "absolute", 0, CLI_ARG_NONE, OPT_ABSOLUTE, NULL, "compare the values (default)" },
	{ "normalised", 0, CLI_ARG_NONE, OPT_NORMALISED, NULL,
	  "scale A to B's total first: changes of each one's share" },
	{ "normalized", 0, CLI_ARG_NONE, OPT_NORMALISED, NULL, NULL },
	{ "metric", 0, CLI_ARG_REQUIRED, OPT_METRIC, "M[,M...]",
	  "metrics compared (default: the first both runs have, cpu if any)" },
	{ "format", 0, CLI_ARG_REQUIRED, OPT_FORMAT, "text|csv|json", "text (default), csv or json" },
	{ "limit", 0, CLI_ARG_REQUIRED, OPT_LIMIT, "N", "rows of each table (default 30 in text, all otherwise)" },
	{ "human", 0, CLI_ARG_NONE, OPT_HUMAN, NULL, "text: times and counts in human units (45.6 ms, 12.3K)" },
	CLI_INPUT_OPTS,
	{ "help", 'h', CLI_ARG_NONE, OPT_HELP, NULL, "this help" },
};

const struct cli_opt *cmd_diff_options(size_t *n)
{
	*n = CLI_NOPTS(options);
	return options;
}

static void usage(FILE *f)
{
	fprintf(f,
		"usage: tally diff A B [OPTIONS]\n"
		"       tally diff [OPTIONS] A1 A2... -- B1 B2...\n"
		"  per function and per call path: A's value, B's, the change B-A and the ratio\n"
		"  B/A of a metric both runs have (the first, cpu if any; --metric for others),\n"
		"  largest change first; functions only in B are \"new\", only in A \"gone\".\n"
		"  Functions match by name and object; a renamed main executable (hot, hot2)\n"
		"  is the same object.  Filters apply to both runs.  CSV is one table, its\n"
		"  first column the part (total, functions, paths).  tally html --diff A B -o\n"
		"  FILE draws the same as a differential flame graph.  Repeated runs of each\n"
		"  side (before and after --): each value is the side's mean, and a change is\n"
		"  noise when within two standard deviations of the runs' spread.\n");
	cli_args_help(f, options, CLI_NOPTS(options));
}

#define SIDES_USAGE "compares two experiments, or two sets of runs: tally diff A B, tally diff A1 A2... -- B1 B2..."

/* "a1.exp, a2.exp, a3.exp" (", ..." past the room): a side's names. */
static void side_name(char *buf, size_t len, char **paths, size_t n)
{
	size_t at = 0;

	buf[0] = 0;
	for (size_t i = 0; i < n && at + 8 < len; i++) {
		int w = snprintf(buf + at, len - at, "%s%s", i ? ", " : "", paths[i]);
		if (w < 0 || (size_t)w >= len - at) {
			snprintf(buf + (at < len - 6 ? at : len - 6), 6, ", ...");
			return;
		}
		at += (size_t)w;
	}
}

int cmd_diff(int argc, char **argv)
{
	struct cli_input tmpl = { 0 }, *in = NULL;
	struct report_opts o = { .fmt = REPORT_TEXT };
	const char *metric_arg = NULL, *val;
	bool normalised = false, human = false;
	long limit = -1;
	size_t npaths = 0, runs_a = 0, nin = 0;
	char **paths = calloc((size_t)argc + 1, sizeof(*paths)), **args = calloc((size_t)argc + 1, sizeof(*args));
	const struct model **models = calloc((size_t)argc + 1, sizeof(*models));
	static char separator[] = "\001--";          /* `--`, read as an operand */
	char name_a[256], name_b[256];
	struct cli_args a;
	int rc = CLI_USAGE, id;
	char *end;

	if (!paths || !args || !models) {
		cli_error(CMD, "out of memory");
		rc = CLI_FATAL;
		goto out;
	}
	/* `--` parts the runs of A from B's; options still count after it. */
	for (int i = 0; i < argc; i++)
		args[i] = !strcmp(argv[i], "--") && i ? separator : argv[i];
	cli_args_init(&a, CMD, argc, args, options, CLI_NOPTS(options));
	while ((id = cli_args_next(&a, &val)) != CLI_ARGS_END) {
		switch (id) {
		case CLI_ARGS_OPERAND:
			if (val == separator) {
				if (runs_a || !npaths) {
					cli_error(CMD, "%s", SIDES_USAGE);
					goto out;
				}
				runs_a = npaths;
				break;
			}
			paths[npaths++] = (char *)val;
			break;
		case OPT_HELP:
			usage(stdout);
			rc = cli_finish_stdout(CMD, CLI_OK);
			goto out;
		case OPT_NORMALISED: normalised = true; break;
		case OPT_ABSOLUTE: normalised = false; break;
		case OPT_METRIC: metric_arg = val; break;
		case OPT_HUMAN: human = true; break;
		case OPT_FORMAT:
			o.fmt = !strcmp(val, "csv") ? REPORT_CSV : !strcmp(val, "json") ? REPORT_JSON : REPORT_TEXT;
			if (o.fmt == REPORT_TEXT && strcmp(val, "text")) {
				cli_error(CMD, "--format %s: expected text, csv or json", val);
				goto out;
			}
			break;
		case OPT_LIMIT:
			if ((limit = strtol(val, &end, 10)) < 0 || *end) {
				cli_error(CMD, "--limit %s: expected a number of rows", val);
				goto out;
			}
			break;
		default:
			if (id == CLI_ARGS_ERROR || cli_input_option(&tmpl, CMD, id, val) <= 0)
				goto out;
		}
	}
	if (!runs_a && npaths == 2)
		runs_a = 1;
	if (!runs_a || runs_a >= npaths) {
		cli_error(CMD, "%s", SIDES_USAGE);
		goto out;
	}
	if (!(in = calloc(npaths, sizeof(*in)))) {
		cli_error(CMD, "out of memory");
		rc = CLI_FATAL;
		goto out;
	}
	/* Each run is loaded on its own, with the same filters. */
	for (; nin < npaths; nin++) {
		in[nin] = tmpl;
		if (cli_input_add_path(&in[nin], CMD, paths[nin]) || (rc = cli_input_load(&in[nin], CMD))) {
			rc = rc ? rc : CLI_FATAL;
			nin++;
			goto out;
		}
		models[nin] = &in[nin].model;
	}
	if (metric_arg) {
		if ((o.nmetrics = cli_metrics_parse(CMD, metric_arg, o.metrics, &in[0])) < 0) {
			rc = CLI_USAGE;
			goto out;
		}
	} else {
		uint32_t common = ~0u;
		for (size_t i = 0; i < npaths; i++)
			common &= in[i].model.present;
		for (int k = 0; k < MODEL_METRIC_COUNT && !o.nmetrics; k++)
			if (common & (1u << k))
				o.metrics[o.nmetrics++] = (enum model_metric)k;
		if (!o.nmetrics)
			o.metrics[o.nmetrics++] = MODEL_CPU;
	}
	o.limit = limit >= 0 ? (size_t)limit : (o.fmt == REPORT_TEXT ? 30 : 0);
	struct report_doc *d = report_doc_new(stdout, o.fmt);
	if (d)
		report_doc_style(d, false, 0, human);
	report_doc_fit(d, cli_term_columns());
	side_name(name_a, sizeof(name_a), paths, runs_a);
	side_name(name_b, sizeof(name_b), paths + runs_a, npaths - runs_a);
	rc = report_diff(d, models, runs_a, models + runs_a, npaths - runs_a, &o, normalised, name_a, name_b);
	report_doc_end(d);
	if (rc) {
		cli_error(CMD, "out of memory");
		rc = CLI_FATAL;
	} else {
		bool partial = false;
		for (size_t i = 0; i < npaths; i++)
			partial |= in[i].partial;
		rc = cli_finish_stdout(CMD, partial ? CLI_PARTIAL : CLI_OK);
	}
out:
	while (nin > 0)
		cli_input_free(&in[--nin]);
	free(in);
	free(models);
	free(args);
	free(paths);
	return rc;
}
