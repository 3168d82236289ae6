/* SPDX-License-Identifier: MIT
 *
 * cmd_gprof.c — `tally gprof PROGRAM [gmon.out...] [--format F]`: GNU
 * gprof's listing of the gmon.out files a -pg program wrote, summed (the
 * paper's profile of many executions, `gprof -s`), symbolized with
 * PROGRAM's symbols, time propagated from call counts.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/cli_args.h"
#include "cli/cli_load.h"
#include "format/gmon_read.h"
#include "report/report_gprof.h"
#include "symbols/sym.h"

#define CMD "gprof"

enum { OPT_HELP = 1, OPT_FORMAT };

static const struct cli_opt options[] = {
	{ "format", 0, CLI_ARG_REQUIRED, OPT_FORMAT, "text|csv|json", "text (default: GNU gprof -b's layout), csv or json" },
	{ "help", 'h', CLI_ARG_NONE, OPT_HELP, NULL, "this help" },
};

const struct cli_opt *cmd_gprof_options(size_t *n)
{
	*n = CLI_NOPTS(options);
	return options;
}

static void usage(FILE *f)
{
	fprintf(f,
		"usage: tally gprof PROGRAM [GMON...] [--format text|csv|json]\n"
		"  GMON                gmon.out files written by PROGRAM built with -pg (default\n"
		"                      gmon.out); several are summed, as gprof -s does\n");
	cli_args_help(f, options, CLI_NOPTS(options));
	fprintf(f,
		"Time per arc is propagated from call counts (gprof's average-call-time\n"
		"assumption); `tally record` + `tally report --gprof` measures it from stacks.\n");
}

static void on_sym_warning(const char *msg)
{
	cli_warn(CMD, "%s", msg);
}

int cmd_gprof(int argc, char **argv)
{
	enum report_format fmt = REPORT_TEXT;
	const char *program = NULL;
	const char **files = calloc((size_t)argc + 1, sizeof(*files));
	size_t nfiles = 0;
	struct gmon_profile prof = { 0 };
	struct model_gprof g = { 0 };
	struct model_gprof_gmon_stats st;
	char err[512];
	struct cli_args a;
	const char *val;
	int rc = CLI_FATAL, id;

	if (!files) {
		cli_error(CMD, "out of memory");
		return CLI_FATAL;
	}
	cli_args_init(&a, CMD, argc, argv, options, CLI_NOPTS(options));
	while ((id = cli_args_next(&a, &val)) != CLI_ARGS_END) {
		if (id == CLI_ARGS_ERROR) {
			free(files);
			return CLI_USAGE;
		} else if (id == OPT_HELP) {
			usage(stdout);
			free(files);
			return cli_finish_stdout(CMD, CLI_OK);
		} else if (id == OPT_FORMAT) {
			if (!strcmp(val, "text"))
				fmt = REPORT_TEXT;
			else if (!strcmp(val, "csv"))
				fmt = REPORT_CSV;
			else if (!strcmp(val, "json"))
				fmt = REPORT_JSON;
			else {
				cli_error(CMD, "--format %s: expected text, csv or json", val);
				free(files);
				return CLI_USAGE;
			}
		} else if (!program) {
			program = val;
		} else {
			files[nfiles++] = val;
		}
	}
	if (!program) {
		usage(stderr);
		free(files);
		return CLI_USAGE;
	}
	if (!nfiles)
		files[nfiles++] = "gmon.out";
	for (size_t i = 0; i < nfiles; i++) {
		if (gmon_profile_read(&prof, files[i], err, sizeof(err))) {
			cli_error(CMD, "%s", err);
			goto out;
		}
	}
	sym_set_warning_handler(on_sym_warning);
	struct sym_object *o = sym_object_get(program, NULL, 0, NULL, err, sizeof(err));
	if (!o) {
		cli_error(CMD, "%s", err);
		goto out;
	}
	if (model_gprof_from_gmon(&g, &prof, o, &st, err, sizeof(err))) {
		cli_error(CMD, "%s", err);
		goto out;
	}
	if (st.unknown_arcs)
		cli_warn(CMD, "%llu of %zu arcs have an end outside %s's functions (shown as "
			 "<Unknown>): is the gmon.out from this program?",
			 (unsigned long long)st.unknown_arcs, prof.narcs, program);
	if (st.outside_samples)
		cli_warn(CMD, "%llu of %llu samples fall outside %s's functions",
			 (unsigned long long)st.outside_samples, (unsigned long long)prof.samples,
			 program);
	struct report_doc *d = report_doc_new(stdout, fmt);
	if (!d) {
		cli_error(CMD, "out of memory");
		goto out;
	}
	/* What was read goes to stderr in text, so that stdout is gprof -b's
	 * listing byte for byte (a drop-in for scripts that parse it); CSV and
	 * JSON carry it in their notes. */
	char method[160];
	report_gprof_method(&g, method, sizeof(method));
	if (fmt == REPORT_TEXT)
		fprintf(stderr, "tally gprof: %s, %zu profile%s (%s%s): %llu samples at %.0f Hz, "
				"%zu arc records; time per arc %s\n",
			program, prof.nfiles, prof.nfiles == 1 ? "" : "s", files[0],
			nfiles > 1 ? ", ..." : "", (unsigned long long)prof.samples,
			g.units_per_sec, prof.narcs, method);
	if (fmt == REPORT_TEXT && !g.has_counts)
		fprintf(stderr, "tally gprof: no call counts (the program was not built with -pg)\n");
	if (fmt != REPORT_TEXT)
		report_note(d, "tally gprof: %s, %zu profile%s (%s%s): %llu samples at %.0f Hz, "
			       "%zu arc records", program, prof.nfiles, prof.nfiles == 1 ? "" : "s",
			    files[0], nfiles > 1 ? ", ..." : "", (unsigned long long)prof.samples,
			    g.units_per_sec, prof.narcs);
	report_gprof_listing(d, fmt, &g, false);
	report_gprof_bb(d, &prof, o);
	rc = cli_doc_end(d, CMD, CLI_OK);
out:
	model_gprof_free(&g);
	gmon_profile_free(&prof);
	sym_objects_free();
	free(files);
	return rc;
}
