/* SPDX-License-Identifier: MIT
 *
 * cmd_export.c — `tally export EXP... --format collapsed [--metric M] [-o FILE]`:
 * profiles in formats other tools read.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli.h"
#include "cli/cli_exports.h"
#include "cli/cli_load.h"

#define CMD "export"

enum { OPT_HELP = 1, OPT_FORMAT, OPT_METRIC, OPT_OUTPUT };

static struct cli_opt options[] = {
	{ "format", 0, CLI_ARG_REQUIRED, OPT_FORMAT, NULL, NULL },   /* from cli_exports: options_build */
	{ "metric", 0, CLI_ARG_REQUIRED, OPT_METRIC, "M", "collapsed: the metric weighed (default cpu)" },
	{ "output", 'o', CLI_ARG_REQUIRED, OPT_OUTPUT, "FILE", "write there instead of stdout" },
	CLI_INPUT_OPTS,
	{ "help", 'h', CLI_ARG_NONE, OPT_HELP, NULL, "this help" },
};

/* --format's value and help, from the export table. */
static void options_build(void)
{
	options[0].value = cli_exports_names();
	options[0].help = cli_exports_help();
}

const struct cli_opt *cmd_export_options(size_t *n)
{
	options_build();
	*n = CLI_NOPTS(options);
	return options;
}

static void usage(FILE *f)
{
	fprintf(f, "usage: tally export EXP... --format %s\n"
		   "                           [--metric M] [-o FILE]\n", cli_exports_names());
	cli_args_help(f, options, CLI_NOPTS(options));
}

/* Write the export; CLI_OK, or CLI_FATAL with a message naming the file and
 * the cause (out of memory, or the write's errno). */
static int write_export(struct cli_input *in, const struct cli_export *x, enum model_metric metric,
			const char *out_path)
{
	const char *name = out_path ? out_path : "stdout";
	struct cli_export_ctx c = { NULL, out_path, in, metric };
	int rc;

	errno = 0;
	if (x->needs & CLI_EXPORT_FILE) {
		rc = x->write(&c);
	} else {
		FILE *out = out_path ? fopen(out_path, "w") : stdout;
		if (!out) {
			cli_error(CMD, "%s: %s", out_path, strerror(errno));
			return CLI_FATAL;
		}
		c.out = out;
		rc = x->write(&c);
		int e = errno;
		if (out != stdout && fclose(out) != 0 && !rc) {
			rc = -1;
			e = errno;
		}
		errno = e;
	}
	if (!rc)
		return CLI_OK;
	if (errno == ENOMEM)
		cli_error(CMD, "%s: out of memory while writing the %s export", name, x->name);
	else
		cli_error(CMD, "%s: write failed: %s", name, errno ? strerror(errno) : "I/O error");
	return CLI_FATAL;
}

int cmd_export(int argc, char **argv)
{
	struct cli_input in = { 0 };
	const char *format = NULL, *metric = "cpu", *out_path = NULL, *val;
	struct cli_args a;
	int rc, id;

	options_build();
	cli_args_init(&a, CMD, argc, argv, options, CLI_NOPTS(options));
	while ((id = cli_args_next(&a, &val)) != CLI_ARGS_END) {
		switch (id) {
		case OPT_HELP:
			usage(stdout);
			cli_input_free(&in);
			return cli_finish_stdout(CMD, CLI_OK);
		case OPT_FORMAT: format = val; break;
		case OPT_METRIC: metric = val; break;
		case OPT_OUTPUT: out_path = val; break;
		default:
			if (id == CLI_ARGS_ERROR || cli_input_option(&in, CMD, id, val) <= 0) {
				cli_input_free(&in);
				return CLI_USAGE;
			}
		}
	}
	const struct cli_export *x = cli_export_find(format);
	if (!x) {
		cli_error(CMD, "--format %s: expected one of %s", format ? format : "(missing)", cli_exports_names());
		cli_input_free(&in);
		return CLI_USAGE;
	}
	if ((x->needs & CLI_EXPORT_FILE) && !out_path && isatty(STDOUT_FILENO)) {
		cli_error(CMD, "--format %s writes compressed data, not for a terminal: give -o FILE or "
			  "redirect the output", x->name);
		cli_input_free(&in);
		return CLI_USAGE;
	}
	enum model_metric ms[MODEL_METRIC_COUNT];
	int nm = cli_metrics_parse(CMD, metric, ms, &in);
	if (nm != 1) {
		if (nm > 1)
			cli_error(CMD, "--metric %s: an export carries one metric", metric);
		cli_input_free(&in);
		return CLI_USAGE;
	}
	in.keep_events = x->needs & CLI_EXPORT_EVENTS;
	rc = cli_input_load(&in, CMD);
	enum model_metric want = ms[0];
	if (!rc && (x->needs & CLI_EXPORT_METRIC))
		rc = cli_metrics_recorded(CMD, &in, &want, 1);
	if (!rc && (x->needs & CLI_EXPORT_ARCS) && !in.model.narcs) {
		cli_error(CMD, "--format arcs: no call arcs in the experiment (they come from programs "
			  "built with -pg or -finstrument-functions; --format collapsed has the stacks)");
		rc = CLI_FATAL;
	}
	if (!rc)
		rc = write_export(&in, x, want, out_path);
	if (!rc && in.partial)
		rc = CLI_PARTIAL;
	cli_input_free(&in);
	return cli_finish_stdout(CMD, rc);
}
