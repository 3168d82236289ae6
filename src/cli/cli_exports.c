/* SPDX-License-Identifier: MIT
 *
 * cli_exports.c — the export format table (cli_exports.h): one row per
 * `tally export --format`, in --help's order, with the writer of each.
 */
#include <stdio.h>
#include <string.h>

#include "cli/cli_exports.h"
#include "cli/cli_load.h"
#include "report/report.h"
#include "report/report_gprof.h"

static int collapsed(const struct cli_export_ctx *c)
{
	return report_collapsed(c->out, &c->in->model, c->metric);
}

static int arcs(const struct cli_export_ctx *c)
{
	return report_arcs(c->out, &c->in->model);
}

static int callgrind(const struct cli_export_ctx *c)
{
	return report_callgrind(c->out, &c->in->model, c->in->exps, c->in->nexps);
}

static int pprof(const struct cli_export_ctx *c)
{
	return report_pprof(c->path, &c->in->model);
}

static int speedscope(const struct cli_export_ctx *c)
{
	return report_speedscope(c->out, &c->in->model, c->in->paths[0]);
}

static int chrome(const struct cli_export_ctx *c)
{
	return report_chrome(c->out, &c->in->model);
}

const struct cli_export cli_exports[] = {
	{ "collapsed", "`root;...;leaf WEIGHT` per stack (flamegraph.pl),\n"
	  "  weights in the metric's unit: ns of CPU, bytes, counts", CLI_EXPORT_METRIC, collapsed },
	{ "arcs", "`caller<TAB>callee<TAB>COUNT` per call arc of a -pg or\n"
	  "  -finstrument-functions program (exact counts)", CLI_EXPORT_ARCS, arcs },
	{ "callgrind", "callgrind_annotate / KCachegrind input: every metric,\n"
	  "  exact call counts, inclusive cost per call measured from the stacks", 0, callgrind },
	{ "pprof", "Google pprof's profile.proto, gzipped, every metric (-o, or stdout not a terminal)", CLI_EXPORT_FILE, pprof },
	{ "speedscope", "speedscope's JSON, a profile per thread and metric, in\n"
	  "  time order", CLI_EXPORT_EVENTS, speedscope },
	{ "chrome", "trace-event JSON (Perfetto, chrome://tracing, Firefox\n"
	  "  Profiler): a track per thread, samples as a flame chart over time,\n"
	  "  waits and I/O calls with their durations, markers", CLI_EXPORT_EVENTS, chrome },
};

const size_t cli_nexports = sizeof(cli_exports) / sizeof(cli_exports[0]);

const struct cli_export *cli_export_find(const char *name)
{
	for (size_t i = 0; name && i < cli_nexports; i++)
		if (!strcmp(name, cli_exports[i].name))
			return &cli_exports[i];
	return NULL;
}

const char *cli_exports_help(void)
{
	static char buf[2048];
	size_t n = 0;

	if (buf[0])
		return buf;
	for (size_t i = 0; i < cli_nexports; i++)
		n += (size_t)snprintf(buf + n, n < sizeof(buf) ? sizeof(buf) - n : 0, "%s%s: %s", i ? "\n" : "",
				      cli_exports[i].name, cli_exports[i].help);
	return buf;
}

const char *cli_exports_names(void)
{
	static char buf[256];
	size_t n = 0;

	if (buf[0])
		return buf;
	for (size_t i = 0; i < cli_nexports; i++)
		n += (size_t)snprintf(buf + n, n < sizeof(buf) ? sizeof(buf) - n : 0, "%s%s", i ? "|" : "",
				      cli_exports[i].name);
	return buf;
}
