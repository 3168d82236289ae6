/* SPDX-License-Identifier: MIT
 *
 * cmd_annotate.c — `tally annotate EXP... FUNCTION [--disasm]`: a function's
 * source lines, or its instructions, with the metrics spent on each.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli/cli.h"
#include "cli/cli_load.h"
#include "report/report.h"

#define CMD "annotate"

enum {
	OPT_HELP = 1, OPT_DISASM, OPT_SOURCE, OPT_METRIC, OPT_FORMAT, OPT_SOURCE_PATH, OPT_COMMENTARY,
	OPT_HOT, OPT_CONTEXT,
};

static const struct cli_opt options[] = {
	{ "disasm", 0, CLI_ARG_NONE, OPT_DISASM, NULL, "the instructions, with their metrics" },
	{ "source", 0, CLI_ARG_NONE, OPT_SOURCE, NULL, "the source lines (the default)" },
	{ "source-path", 0, CLI_ARG_REQUIRED, OPT_SOURCE_PATH, "DIR[:DIR]",
	  "look for source files in these directories first (then where\n"
	  "DWARF says, relative to the compilation directory)" },
	{ "commentary", 0, CLI_ARG_REQUIRED, OPT_COMMENTARY, "FILE[,FILE]",
	  "compiler commentary: gcc -fopt-info output or optimization records\n"
	  "(-fsave-optimization-record files are found by themselves)" },
	{ "metric", 0, CLI_ARG_REQUIRED, OPT_METRIC, "M[,M...]", "metrics shown (default cpu)" },
	{ "hot", 0, CLI_ARG_OPTIONAL, OPT_HOT, "PCT",
	  "source: only lines at or above PCT% of a total (default 1)\n"
	  "and the lines around them (--context)" },
	{ "context", 'C', CLI_ARG_REQUIRED, OPT_CONTEXT, "N", "--hot: N lines around each hot line (default 2)" },
	{ "format", 0, CLI_ARG_REQUIRED, OPT_FORMAT, "text|csv|json", "text (default), csv or json" },
	CLI_INPUT_OPTS,
	{ "help", 'h', CLI_ARG_NONE, OPT_HELP, NULL, "this help" },
};

const struct cli_opt *cmd_annotate_options(size_t *n)
{
	*n = CLI_NOPTS(options);
	return options;
}

static void usage(FILE *f)
{
	fprintf(f,
		"usage: tally annotate EXP... FUNCTION [--disasm] [--metric M[,M]] [--format F]\n"
		"  annotated source (default), or --disasm the instructions, of FUNCTION:\n"
		"  exclusive metrics on the instruction or line that was executing,\n"
		"  inclusive ones on the calls.\n");
	cli_args_help(f, options, CLI_NOPTS(options));
}

static bool is_dir(const char *p)
{
	struct stat st;
	return stat(p, &st) == 0 && S_ISDIR(st.st_mode);
}

/* Take one option or operand; returns 0, 1 after --help, or CLI_USAGE. */
static int take_arg(struct cli_input *in, struct report_opts *o, const char **func,
		    const char **metrics, bool *disasm, int id, const char *val)
{
	switch (id) {
	case CLI_ARGS_OPERAND:
		if (is_dir(val))
			return cli_input_add_path(in, CMD, val) ? CLI_FATAL : 0;
		if (*func) {
			cli_error(CMD, "%s: not an experiment directory, and a function was already named", val);
			return CLI_USAGE;
		}
		*func = val;
		return 0;
	case OPT_HELP: usage(stdout); return 1;
	case OPT_DISASM: *disasm = true; return 0;
	case OPT_SOURCE: *disasm = false; return 0;
	case OPT_METRIC: *metrics = val; return 0;
	case OPT_SOURCE_PATH: o->source_path = val; return 0;
	case OPT_COMMENTARY: o->commentary = val; return 0;
	case OPT_HOT: {
		char *end;
		o->hot_pct = val ? strtod(val, &end) : 1.0;
		if (val && (*end || end == val || o->hot_pct < 0 || o->hot_pct > 100)) {
			cli_error(CMD, "--hot=%s: expected a percentage", val);
			return CLI_USAGE;
		}
		return 0;
	}
	case OPT_CONTEXT: {
		char *end;
		long n = strtol(val, &end, 10);
		if (*end || end == val || n < 0 || n > 1000) {
			cli_error(CMD, "--context %s: expected a number of lines", val);
			return CLI_USAGE;
		}
		o->context = (int)n;
		return 0;
	}
	case OPT_FORMAT:
		o->fmt = !strcmp(val, "csv") ? REPORT_CSV : !strcmp(val, "json") ? REPORT_JSON : REPORT_TEXT;
		if (o->fmt == REPORT_TEXT && strcmp(val, "text")) {
			cli_error(CMD, "--format %s: expected text, csv or json", val);
			return CLI_USAGE;
		}
		return 0;
	default:
		return id != CLI_ARGS_ERROR && cli_input_option(in, CMD, id, val) > 0 ? 0 : CLI_USAGE;
	}
}

int cmd_annotate(int argc, char **argv)
{
	struct cli_input in = { 0 };
	struct report_opts o = { .fmt = REPORT_TEXT, .context = 2 };
	const char *func = NULL, *metrics = "cpu", *val;
	bool disasm = false;
	struct cli_args a;
	int rc, id;

	cli_args_init(&a, CMD, argc, argv, options, CLI_NOPTS(options));
	while ((id = cli_args_next(&a, &val)) != CLI_ARGS_END) {
		rc = take_arg(&in, &o, &func, &metrics, &disasm, id, val);
		if (rc) {
			cli_input_free(&in);
			return rc == 1 ? cli_finish_stdout(CMD, CLI_OK) : rc;
		}
	}
	if (!func) {
		cli_error(CMD, "which function? tally annotate EXP... FUNCTION (tally report EXP lists them)");
		cli_input_free(&in);
		return CLI_USAGE;
	}
	if ((o.nmetrics = cli_metrics_parse(CMD, metrics, o.metrics, &in)) < 0) {
		cli_input_free(&in);
		return CLI_USAGE;
	}
	rc = cli_input_load(&in, CMD);
	uint32_t first;
	if (!rc && !model_func_find(&in.model, func, &first, 1)) {
		cli_no_such_function(CMD, &in.model, func);
		/* In a damaged experiment the damage (named above) may have
		 * taken it: partial, as the other commands say. */
		rc = in.partial ? CLI_PARTIAL : CLI_FATAL;
	} else if (!rc) {
		char err[512];
		struct report_doc *d = report_doc_new(stdout, o.fmt);
		if (!d) {
			cli_error(CMD, "out of memory");
			rc = CLI_FATAL;
		} else if (report_annotate(d, &in.model, &o, func, disasm, err, sizeof(err))) {
			report_doc_end(d);
			cli_error(CMD, "%s", err);
			rc = CLI_FATAL;
		} else {
			rc = cli_doc_end(d, CMD, in.partial ? CLI_PARTIAL : CLI_OK);
		}
	}
	cli_input_free(&in);
	return rc;
}
