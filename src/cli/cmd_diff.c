/* SPDX-License-Identifier: MIT
 *
 * cmd_diff.c — `tally diff A B`: what changed from experiment A to B, per
 * function and per call path (report_diff.c).
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
		"  per function and per call path: A's value, B's, the change B-A and the ratio\n"
		"  B/A of a metric both runs have (the first, cpu if any; --metric for others),\n"
		"  largest change first; functions only in B are \"new\", only in A \"gone\".\n"
		"  Functions match by name and object; a renamed main executable (hot, hot2)\n"
		"  is the same object.  Filters apply to both runs.  CSV is one table, its\n"
		"  first column the part (total, functions, paths).  tally html --diff A B -o\n"
		"  FILE draws the same as a differential flame graph.\n");
	cli_args_help(f, options, CLI_NOPTS(options));
}

int cmd_diff(int argc, char **argv)
{
	struct cli_input in[2] = { { 0 }, { 0 } };
	struct report_opts o = { .fmt = REPORT_TEXT };
	const char *metric_arg = NULL, *val;
	bool normalised = false, human = false;
	long limit = -1;
	size_t npaths = 0;
	struct cli_args a;
	int rc = CLI_USAGE, id;
	char *end;

	cli_args_init(&a, CMD, argc, argv, options, CLI_NOPTS(options));
	while ((id = cli_args_next(&a, &val)) != CLI_ARGS_END) {
		switch (id) {
		case CLI_ARGS_OPERAND:
			if (npaths == 2) {
				cli_error(CMD, "compares two experiments: tally diff A B");
				goto out;
			}
			if (cli_input_add_path(&in[npaths++], CMD, val)) {
				rc = CLI_FATAL;
				goto out;
			}
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
			if (id == CLI_ARGS_ERROR || cli_input_option(&in[0], CMD, id, val) <= 0 ||
			    cli_input_option(&in[1], CMD, id, val) <= 0)
				goto out;
		}
	}
	if (npaths != 2) {
		cli_error(CMD, "compares two experiments: tally diff A B");
		goto out;
	}
	if ((rc = cli_input_load(&in[0], CMD)) || (rc = cli_input_load(&in[1], CMD)))
		goto out;
	if (metric_arg) {
		if ((o.nmetrics = cli_metrics_parse(CMD, metric_arg, o.metrics)) < 0) {
			rc = CLI_USAGE;
			goto out;
		}
	} else {
		uint32_t common = in[0].model.present & in[1].model.present;
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
	rc = report_diff(d, &in[0].model, &in[1].model, &o, normalised, in[0].paths[0], in[1].paths[0]);
	report_doc_end(d);
	if (rc) {
		cli_error(CMD, "out of memory");
		rc = CLI_FATAL;
	} else {
		rc = cli_finish_stdout(CMD, in[0].partial || in[1].partial ? CLI_PARTIAL : CLI_OK);
	}
out:
	cli_input_free(&in[1]);
	cli_input_free(&in[0]);
	return rc;
}
