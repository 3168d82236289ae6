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

static void usage(FILE *f)
{
	fprintf(f,
		"usage: tally annotate EXP... FUNCTION [--disasm] [--metric M[,M]] [--format F]\n"
		"  annotated source (default), or --disasm the instructions, of FUNCTION:\n"
		"  exclusive metrics on the instruction or line that was executing,\n"
		"  inclusive ones on the calls.  --thread, --time, --process as for report.\n");
}

static bool is_dir(const char *p)
{
	struct stat st;
	return stat(p, &st) == 0 && S_ISDIR(st.st_mode);
}

int cmd_annotate(int argc, char **argv)
{
	struct cli_input in = { 0 };
	struct report_opts o = { .fmt = REPORT_TEXT };
	const char **paths = calloc((size_t)argc + 1, sizeof(*paths));
	const char *func = NULL, *metrics = "cpu";
	bool disasm = false;
	int rc;

	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		if (a[0] != '-') {
			if (is_dir(a))
				paths[in.npaths++] = a;
			else if (!func)
				func = a;
			else {
				cli_error(CMD, "%s: not an experiment directory, and a function was already named", a);
				free(paths);
				return CLI_USAGE;
			}
			continue;
		}
		if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
			usage(stdout);
			free(paths);
			return cli_finish_stdout(CMD, CLI_OK);
		}
		if (!strcmp(a, "--disasm")) {
			disasm = true;
			continue;
		}
		if (!strcmp(a, "--source")) {
			disasm = false;
			continue;
		}
		const char *v = i + 1 < argc ? argv[++i] : NULL;
		if (!v) {
			cli_error(CMD, "%s needs a value", a);
			free(paths);
			return CLI_USAGE;
		}
		if (!strcmp(a, "--metric")) {
			metrics = v;
		} else if (!strcmp(a, "--format")) {
			o.fmt = !strcmp(v, "csv") ? REPORT_CSV : !strcmp(v, "json") ? REPORT_JSON : REPORT_TEXT;
			if (o.fmt == REPORT_TEXT && strcmp(v, "text")) {
				cli_error(CMD, "--format %s: expected text, csv or json", v);
				free(paths);
				return CLI_USAGE;
			}
		} else if (cli_input_option(&in, CMD, a, v) <= 0) {
			cli_error(CMD, "unknown option %s", a);
			free(paths);
			return CLI_USAGE;
		}
	}
	if (!func) {
		cli_error(CMD, "no function named (tally annotate EXP... FUNCTION)");
		free(paths);
		return CLI_USAGE;
	}
	char buf[256];
	snprintf(buf, sizeof(buf), "%s", metrics);
	for (char *tok = strtok(buf, ","); tok; tok = strtok(NULL, ",")) {
		int mm = model_metric_parse(tok);
		if (mm < 0 || o.nmetrics >= MODEL_METRIC_COUNT) {
			cli_error(CMD, "--metric %s: unknown metric '%s'", metrics, tok);
			free(paths);
			return CLI_USAGE;
		}
		o.metrics[o.nmetrics++] = (enum model_metric)mm;
	}
	in.paths = paths;
	rc = cli_input_load(&in, CMD);
	if (!rc) {
		char err[512];
		struct report_doc *d = report_doc_new(stdout, o.fmt);
		if (report_annotate(d, &in.model, &o, func, disasm, err, sizeof(err))) {
			report_doc_end(d);
			cli_error(CMD, "%s", err);
			rc = CLI_FATAL;
		} else {
			report_doc_end(d);
			rc = cli_finish_stdout(CMD, CLI_OK);
		}
	}
	cli_input_free(&in);
	free(paths);
	return rc;
}
