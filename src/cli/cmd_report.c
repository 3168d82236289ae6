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
	    VIEW_LEAKS, VIEW_FILES, VIEW_PROCESSES };

static void usage(FILE *f)
{
	fprintf(f,
		"usage: tally report EXP... [--functions | --callers FUNC | --tree | --threads |\n"
		"                            --objects | --gprof[=propagate]] [OPTIONS]\n"
		"  --gprof             gprof's listing, time per arc measured from the stacks;\n"
		"                      =propagate: propagated from call counts, as gprof does\n"
		"  --metric M[,M...]   cpu (default), heap.bytes, heap.count, heap.leak, sync.wait,\n"
		"                      sync.count, io.bytes, io.time, io.count\n"
		"  --format F          text (default), csv or json\n"
		"  --limit N           functions shown (default 40 in text, all otherwise; 0: all)\n"
		"  --sort excl|incl    order of the function table (default excl)\n"
		"  --threshold PCT     call tree: hide subtrees below PCT%% of the total (default 1)\n"
		"  --leaks             the stacks that allocated what was never freed, and the peak\n"
		"  --by-file           I/O by file: bytes, calls, time, opens, seeks, syncs\n"
		"  --processes         the process tree: descendants followed into sub-experiments\n"
		"  --process P         only process P (pid, lineage such as _f1_x1, or name)\n"
		"  --thread TID[,TID]  only these threads\n"
		"  --time FROM-TO      only events between FROM and TO seconds after the start\n"
		"  --show-collector    keep tally's own frames in the stacks\n");
}

/* Parse --metric M,M into o; -1 on an unknown name. */
static int parse_metrics(const char *s, struct report_opts *o)
{
	char buf[256];

	snprintf(buf, sizeof(buf), "%s", s);
	o->nmetrics = 0;
	for (char *tok = strtok(buf, ","); tok; tok = strtok(NULL, ",")) {
		int m = model_metric_parse(tok);
		if (m < 0 || o->nmetrics >= MODEL_METRIC_COUNT) {
			cli_error(CMD, "--metric %s: unknown metric '%s'", s, tok);
			return -1;
		}
		o->metrics[o->nmetrics++] = (enum model_metric)m;
	}
	return 0;
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

int cmd_report(int argc, char **argv)
{
	struct cli_input in = { 0 };
	struct report_opts o = { .fmt = REPORT_TEXT, .threshold_pct = 1.0 };
	enum view view = VIEW_FUNCTIONS;
	enum model_gprof_method gprof_method = MODEL_GPROF_STACKS;
	const char *focus = NULL, *metric_arg = NULL;
	long limit = -1;
	const char **paths = calloc((size_t)argc + 1, sizeof(*paths));
	int rc = CLI_OK;

	for (int i = 1; i < argc; i++) {
		char *a = argv[i], *val = NULL;
		char opt[64];
		if (a[0] != '-' || !a[1]) {
			paths[in.npaths++] = a;
			continue;
		}
		snprintf(opt, sizeof(opt), "%s", a);
		char *eq = strchr(opt, '=');
		if (eq) {
			*eq = 0;
			val = a + (eq - opt) + 1;
		}
#define ARG() (val ? val : (i + 1 < argc ? argv[++i] : (cli_error(CMD, "%s needs a value", opt), (char *)NULL)))
		if (!strcmp(opt, "--help") || !strcmp(opt, "-h")) {
			usage(stdout);
			free(paths);
			return cli_finish_stdout(CMD, CLI_OK);
		} else if (!strcmp(opt, "--functions")) {
			view = VIEW_FUNCTIONS;
		} else if (!strcmp(opt, "--callers")) {
			view = VIEW_CALLERS;
			if (!(focus = ARG()))
				goto usage_error;
		} else if (!strcmp(opt, "--tree")) {
			view = VIEW_TREE;
		} else if (!strcmp(opt, "--threads")) {
			view = VIEW_THREADS;
		} else if (!strcmp(opt, "--objects")) {
			view = VIEW_OBJECTS;
		} else if (!strcmp(opt, "--gprof")) {
			view = VIEW_GPROF;
			if (val && strcmp(val, "propagate") && strcmp(val, "stacks")) {
				cli_error(CMD, "--gprof=%s: expected --gprof or --gprof=propagate", val);
				goto usage_error;
			}
			if (val && !strcmp(val, "propagate"))
				gprof_method = MODEL_GPROF_PROPAGATE;
		} else if (!strcmp(opt, "--leaks")) {
			view = VIEW_LEAKS;
		} else if (!strcmp(opt, "--by-file") || !strcmp(opt, "--files")) {
			view = VIEW_FILES;
		} else if (!strcmp(opt, "--processes")) {
			view = VIEW_PROCESSES;
		} else if (!strcmp(opt, "--metric")) {
			if (!(metric_arg = ARG()))
				goto usage_error;
		} else if (!strcmp(opt, "--format")) {
			const char *f = ARG();
			if (!f)
				goto usage_error;
			if (!strcmp(f, "text"))
				o.fmt = REPORT_TEXT;
			else if (!strcmp(f, "csv"))
				o.fmt = REPORT_CSV;
			else if (!strcmp(f, "json"))
				o.fmt = REPORT_JSON;
			else {
				cli_error(CMD, "--format %s: expected text, csv or json", f);
				goto usage_error;
			}
		} else if (!strcmp(opt, "--limit")) {
			const char *v = ARG();
			char *e;
			if (!v || (limit = strtol(v, &e, 10), *e) || limit < 0) {
				cli_error(CMD, "--limit: expected a number of functions");
				goto usage_error;
			}
		} else if (!strcmp(opt, "--threshold")) {
			const char *v = ARG();
			char *e;
			if (!v || (o.threshold_pct = strtod(v, &e), *e) || o.threshold_pct < 0) {
				cli_error(CMD, "--threshold: expected a percentage");
				goto usage_error;
			}
		} else if (!strcmp(opt, "--sort")) {
			const char *v = ARG();
			if (!v || (strcmp(v, "incl") && strcmp(v, "excl"))) {
				cli_error(CMD, "--sort: expected excl or incl");
				goto usage_error;
			}
			o.sort_incl = !strcmp(v, "incl");
		} else if (!strcmp(opt, "--show-collector")) {
			in.show_collector = true;
		} else if (!strcmp(opt, "--thread") || !strcmp(opt, "--time") || !strcmp(opt, "--process")) {
			const char *v = ARG();
			if (!v || cli_input_option(&in, CMD, opt, v) < 0)
				goto usage_error;
		} else {
			cli_error(CMD, "unknown option %s", a);
			goto usage_error;
		}
#undef ARG
	}
	if (metric_arg && parse_metrics(metric_arg, &o))
		goto usage_error;
	in.paths = paths;
	rc = cli_input_load(&in, CMD);
	if (rc)
		goto out;
	default_metrics(&in.model, &o);
	o.limit = limit >= 0 ? (size_t)limit : (o.fmt == REPORT_TEXT ? 40 : 0);

	struct report_doc *d = report_doc_new(stdout, o.fmt);
	if (o.fmt != REPORT_CSV)
		report_overview(d, &in.model, in.exps, in.nexps);
	switch (view) {
	case VIEW_FUNCTIONS: report_functions(d, &in.model, &o); break;
	case VIEW_TREE: report_tree(d, &in.model, &o); break;
	case VIEW_THREADS: report_threads(d, &in.model, &o); break;
	case VIEW_OBJECTS: report_objects(d, &in.model, &o); break;
	case VIEW_LEAKS: report_leaks(d, &in.model, &o); break;
	case VIEW_FILES: report_files(d, &in.model); break;
	case VIEW_PROCESSES: report_processes(d, &in.model, &o); break;
	case VIEW_CALLERS:
		if (report_callers(d, &in.model, &o, focus)) {
			report_doc_end(d);
			cli_error(CMD, "no function named '%s' in the profile", focus);
			rc = CLI_FATAL;
			goto out;
		}
		break;
	case VIEW_GPROF:
		if (report_gprof(d, &in.model, &o, gprof_method)) {
			report_doc_end(d);
			cli_error(CMD, "--gprof: out of memory");
			rc = CLI_FATAL;
			goto out;
		}
		break;
	}
	report_doc_end(d);
	rc = cli_finish_stdout(CMD, CLI_OK);
out:
	cli_input_free(&in);
	free(paths);
	return rc;
usage_error:
	free(paths);
	return CLI_USAGE;
}
