/* SPDX-License-Identifier: MIT
 *
 * cmd_html.c — `tally html EXP... -o FILE` and `tally html --diff A B -o FILE`:
 * one self-contained HTML page of one or more experiments (merged), or of
 * run B compared with baseline A.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/cli_load.h"
#include "report/report.h"

#define CMD "html"

enum { OPT_HELP = 1, OPT_DIFF, OPT_NORMALISED, OPT_ABSOLUTE, OPT_OUTPUT, OPT_TITLE, OPT_ERRORS };

static const struct cli_opt options[] = {
	{ "output", 'o', CLI_ARG_REQUIRED, OPT_OUTPUT, "FILE", "where to write the page (default: EXP's name, .html for .exp)" },
	{ "diff", 0, CLI_ARG_NONE, OPT_DIFF, NULL,
	  "html --diff A B: B compared with A, a differential flame graph\n"
	  "(red grew, blue shrank) and the functions by change" },
	{ "absolute", 0, CLI_ARG_NONE, OPT_ABSOLUTE, NULL, "--diff: compare the values (default)" },
	{ "normalised", 0, CLI_ARG_NONE, OPT_NORMALISED, NULL, "--diff: compare each function's share of its run" },
	{ "normalized", 0, CLI_ARG_NONE, OPT_NORMALISED, NULL, NULL },
	{ "title", 0, CLI_ARG_REQUIRED, OPT_TITLE, "T", "the page's title (default: the experiments)" },
	{ "errors", 0, CLI_ARG_OPTIONAL, OPT_ERRORS, "samples|bins",
	  "the error beside each sampled share of the functions table:\n"
	  "samples (the default) from its sample count, or bins, from the\n"
	  "function's share in 16 bins over time (tally report --errors)" },
	CLI_INPUT_OPTS,
	{ "help", 'h', CLI_ARG_NONE, OPT_HELP, NULL, "this help" },
};

const struct cli_opt *cmd_html_options(size_t *n)
{
	*n = CLI_NOPTS(options);
	return options;
}

static void usage(FILE *f)
{
	fprintf(f,
		"usage: tally html EXP... [-o FILE] [OPTIONS]\n"
		"       tally html --diff A B [-o FILE] [--absolute | --normalised]\n"
		"  (without -o: EXP's name, .exp ending replaced by .html, in the current\n"
		"  directory; a diff's B-diff.html)\n"
		"  one self-contained page (open it from disk; it fetches nothing): flame graph\n"
		"  (click to zoom, search to highlight, any recorded metric) and its bottom-up\n"
		"  form, functions table with callers and callees, a timeline of every thread,\n"
		"  the source of the hot functions, the overview.  Several EXP are merged.\n");
	cli_args_help(f, options, CLI_NOPTS(options));
}

int cmd_html(int argc, char **argv)
{
	struct cli_input in = { 0 };
	struct report_html_opts o = { .normalised = false };
	const char *out_path = NULL, *title = NULL, *val;
	bool diff = false;
	char title_buf[1024] = "";
	struct cli_args a;
	int rc, id;

	cli_args_init(&a, CMD, argc, argv, options, CLI_NOPTS(options));
	while ((id = cli_args_next(&a, &val)) != CLI_ARGS_END) {
		switch (id) {
		case OPT_HELP:
			usage(stdout);
			cli_input_free(&in);
			return cli_finish_stdout(CMD, CLI_OK);
		case OPT_DIFF: diff = true; break;
		case OPT_NORMALISED: o.normalised = true; break;
		case OPT_ABSOLUTE: o.normalised = false; break;
		case OPT_OUTPUT: out_path = val; break;
		case OPT_TITLE: title = val; break;
		case OPT_ERRORS: {
			int e = cli_errors_parse(CMD, val);
			if (e < 0) {
				cli_input_free(&in);
				return CLI_USAGE;
			}
			o.bin_errors = e == REPORT_ERRORS_BINS;
			break;
		}
		default:
			if (id == CLI_ARGS_ERROR || cli_input_option(&in, CMD, id, val) <= 0) {
				cli_input_free(&in);
				return CLI_USAGE;
			}
		}
	}
	if (!in.npaths || (diff && in.npaths != 2)) {
		cli_error(CMD, "%s", !diff ? "which experiment? tally html EXP... [-o FILE]" :
			  "--diff compares two experiments: tally html --diff A B [-o FILE]");
		cli_input_free(&in);
		return CLI_USAGE;
	}
	char default_path[PATH_MAX];
	if (!out_path) {        /* tally.1.exp -> tally.1.html, here; a diff: B-diff.html */
		const char *p = in.paths[diff ? 1 : 0], *slash;
		size_t len = strlen(p);
		while (len > 1 && p[len - 1] == '/')
			len--;
		slash = memrchr(p, '/', len);
		const char *base = slash ? slash + 1 : p;
		len -= (size_t)(base - p);
		if (len > 4 && !memcmp(base + len - 4, ".exp", 4))
			len -= 4;
		snprintf(default_path, sizeof(default_path), "%.*s%s.html", (int)len, base, diff ? "-diff" : "");
		out_path = default_path;
	}
	for (size_t i = 0; i < in.npaths; i++)
		snprintf(title_buf + strlen(title_buf), sizeof(title_buf) - strlen(title_buf), "%s%s",
			 i ? (diff ? " vs " : ", ") : "", in.paths[diff ? 1 - i : i]);
	o.title = title ? title : title_buf;
	o.base_nexps = diff ? 1 : 0;
	in.keep_events = true;
	rc = cli_input_load(&in, CMD);
	if (!rc) {
		FILE *out = fopen(out_path, "w");
		if (!out) {
			cli_error(CMD, "%s: %s", out_path, strerror(errno));
			rc = CLI_FATAL;
		} else {
			rc = report_html(out, &in.model, in.exps, in.nexps, &o) ? CLI_FATAL :
			     in.partial ? CLI_PARTIAL : CLI_OK;
			if (fclose(out) != 0)
				rc = CLI_FATAL;
			if (rc == CLI_FATAL)
				cli_error(CMD, "%s: write failed", out_path);
			else if (out_path == default_path)
				fprintf(stderr, "tally html: wrote %s\n", out_path);
		}
	}
	cli_input_free(&in);
	return rc;
}
