/* SPDX-License-Identifier: MIT
 *
 * cmd_export.c — `tally export EXP... --format collapsed [--metric M] [-o FILE]`:
 * profiles in formats other tools read.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/cli_load.h"
#include "report/report.h"

#define CMD "export"

static void usage(FILE *f)
{
	fprintf(f,
		"usage: tally export EXP... --format collapsed [--metric M] [-o FILE]\n"
		"  collapsed   `root;...;leaf WEIGHT` per stack (flamegraph.pl), weights in the\n"
		"              metric's unit: ns of CPU, bytes, counts\n"
		"  --thread TID[,TID], --time FROM-TO   as for tally report\n");
}

int cmd_export(int argc, char **argv)
{
	struct cli_input in = { 0 };
	const char *format = NULL, *metric = "cpu", *out_path = NULL;
	const char **paths = calloc((size_t)argc + 1, sizeof(*paths));
	int rc;

	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		if (a[0] != '-' || !a[1]) {
			paths[in.npaths++] = a;
			continue;
		}
		const char *v = i + 1 < argc ? argv[i + 1] : NULL;
		if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
			usage(stdout);
			free(paths);
			return cli_finish_stdout(CMD, CLI_OK);
		}
		if (!v) {
			cli_error(CMD, "%s needs a value", a);
			free(paths);
			return CLI_USAGE;
		}
		i++;
		if (!strcmp(a, "--format"))
			format = v;
		else if (!strcmp(a, "--metric"))
			metric = v;
		else if (!strcmp(a, "-o") || !strcmp(a, "--output"))
			out_path = v;
		else if (cli_input_option(&in, CMD, a, v) == 0) {
			cli_error(CMD, "unknown option %s", a);
			free(paths);
			return CLI_USAGE;
		}
	}
	if (!format || strcmp(format, "collapsed")) {
		cli_error(CMD, "--format %s: expected collapsed", format ? format : "(missing)");
		free(paths);
		return CLI_USAGE;
	}
	int mm = model_metric_parse(metric);
	if (mm < 0) {
		cli_error(CMD, "--metric %s: unknown metric", metric);
		free(paths);
		return CLI_USAGE;
	}
	in.paths = paths;
	rc = cli_input_load(&in, CMD);
	if (!rc) {
		FILE *out = out_path ? fopen(out_path, "w") : stdout;
		if (!out) {
			cli_error(CMD, "%s: %s", out_path, strerror(errno));
			rc = CLI_FATAL;
		} else {
			rc = report_collapsed(out, &in.model, (enum model_metric)mm) ? CLI_FATAL : CLI_OK;
			if (out != stdout && fclose(out) != 0)
				rc = CLI_FATAL;
			if (rc)
				cli_error(CMD, "%s: write failed", out_path ? out_path : "stdout");
		}
	}
	cli_input_free(&in);
	free(paths);
	return cli_finish_stdout(CMD, rc);
}
