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
#include "report/report_gprof.h"

#define CMD "export"

enum { OPT_HELP = 1, OPT_FORMAT, OPT_METRIC, OPT_OUTPUT };

static const struct cli_opt options[] = {
	{ "format", 0, CLI_ARG_REQUIRED, OPT_FORMAT, "F",
	  "collapsed: `root;...;leaf WEIGHT` per stack (flamegraph.pl),\n"
	  "  weights in the metric's unit: ns of CPU, bytes, counts\n"
	  "arcs: `caller<TAB>callee<TAB>COUNT` per call arc of a -pg or\n"
	  "  -finstrument-functions program (exact counts)\n"
	  "callgrind: callgrind_annotate / KCachegrind input: every metric,\n"
	  "  exact call counts, inclusive cost per call measured from the stacks\n"
	  "pprof: Google pprof's profile.proto, gzipped, every metric (needs -o)\n"
	  "speedscope: speedscope's JSON, a profile per thread and metric, in\n"
	  "  time order\n"
	  "chrome: trace-event JSON (Perfetto, chrome://tracing, Firefox\n"
	  "  Profiler): a track per thread, samples as a flame chart over time,\n"
	  "  waits and I/O calls with their durations, markers" },
	{ "metric", 0, CLI_ARG_REQUIRED, OPT_METRIC, "M", "collapsed: the metric weighed (default cpu)" },
	{ "output", 'o', CLI_ARG_REQUIRED, OPT_OUTPUT, "FILE", "write there instead of stdout" },
	CLI_INPUT_OPTS,
	{ "help", 'h', CLI_ARG_NONE, OPT_HELP, NULL, "this help" },
};

static void usage(FILE *f)
{
	fprintf(f, "usage: tally export EXP... --format collapsed|arcs|callgrind|pprof|speedscope|chrome\n"
		   "                           [--metric M] [-o FILE]\n");
	cli_args_help(f, options, CLI_NOPTS(options));
}

/* Write the export; CLI_OK, or CLI_FATAL with a message naming the file and
 * the cause (out of memory, or the write's errno). */
static int write_export(struct cli_input *in, const char *format, enum model_metric metric,
			const char *out_path)
{
	const char *name = out_path ? out_path : "stdout";
	int rc;

	errno = 0;
	if (!strcmp(format, "pprof")) {
		rc = report_pprof(out_path, &in->model);
	} else {
		FILE *out = out_path ? fopen(out_path, "w") : stdout;
		if (!out) {
			cli_error(CMD, "%s: %s", out_path, strerror(errno));
			return CLI_FATAL;
		}
		if (!strcmp(format, "arcs"))
			rc = report_arcs(out, &in->model);
		else if (!strcmp(format, "callgrind"))
			rc = report_callgrind(out, &in->model, in->exps, in->nexps);
		else if (!strcmp(format, "speedscope"))
			rc = report_speedscope(out, &in->model, in->paths[0]);
		else if (!strcmp(format, "chrome"))
			rc = report_chrome(out, &in->model);
		else
			rc = report_collapsed(out, &in->model, metric);
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
		cli_error(CMD, "%s: out of memory while writing the %s export", name, format);
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
	if (!format || (strcmp(format, "collapsed") && strcmp(format, "arcs") &&
			strcmp(format, "callgrind") && strcmp(format, "pprof") &&
			strcmp(format, "speedscope") && strcmp(format, "chrome"))) {
		cli_error(CMD, "--format %s: expected collapsed, arcs, callgrind, pprof, speedscope or chrome",
			  format ? format : "(missing)");
		cli_input_free(&in);
		return CLI_USAGE;
	}
	if (!strcmp(format, "pprof") && !out_path) {
		cli_error(CMD, "--format pprof writes a compressed file: give -o FILE");
		cli_input_free(&in);
		return CLI_USAGE;
	}
	int mm = model_metric_parse(metric);
	if (mm < 0) {
		cli_error(CMD, "--metric %s: unknown metric", metric);
		cli_input_free(&in);
		return CLI_USAGE;
	}
	in.keep_events = !strcmp(format, "speedscope") || !strcmp(format, "chrome");
	rc = cli_input_load(&in, CMD);
	enum model_metric want = (enum model_metric)mm;
	if (!rc && !strcmp(format, "collapsed"))
		rc = cli_metrics_recorded(CMD, &in, &want, 1);
	if (!rc && !strcmp(format, "arcs") && !in.model.narcs) {
		cli_error(CMD, "--format arcs: no call arcs in the experiment (they come from programs "
			  "built with -pg or -finstrument-functions; --format collapsed has the stacks)");
		rc = CLI_FATAL;
	}
	if (!rc)
		rc = write_export(&in, format, (enum model_metric)mm, out_path);
	if (!rc && in.partial)
		rc = CLI_PARTIAL;
	cli_input_free(&in);
	return cli_finish_stdout(CMD, rc);
}
