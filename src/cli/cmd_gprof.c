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
#include "format/gmon_read.h"
#include "report/report_gprof.h"
#include "symbols/sym.h"

#define CMD "gprof"

static void usage(FILE *f)
{
	fprintf(f,
		"usage: tally gprof PROGRAM [GMON...] [--format text|csv|json]\n"
		"  GMON        gmon.out files written by PROGRAM built with -pg (default gmon.out);\n"
		"              several are summed, as gprof -s does\n"
		"  --format F  text (default: GNU gprof -b's layout), csv or json\n"
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
	int rc = CLI_FATAL;

	if (!files)
		return CLI_FATAL;
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
			usage(stdout);
			free(files);
			return cli_finish_stdout(CMD, CLI_OK);
		} else if (!strcmp(a, "--format") || !strncmp(a, "--format=", 9)) {
			const char *v = a[8] == '=' ? a + 9 : (i + 1 < argc ? argv[++i] : "");
			if (!strcmp(v, "text"))
				fmt = REPORT_TEXT;
			else if (!strcmp(v, "csv"))
				fmt = REPORT_CSV;
			else if (!strcmp(v, "json"))
				fmt = REPORT_JSON;
			else {
				cli_error(CMD, "--format %s: expected text, csv or json", v);
				free(files);
				return CLI_USAGE;
			}
		} else if (a[0] == '-' && a[1]) {
			cli_error(CMD, "unknown option %s", a);
			free(files);
			return CLI_USAGE;
		} else if (!program) {
			program = a;
		} else {
			files[nfiles++] = a;
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
	report_note(d, "tally gprof: %s, %zu profile%s (%s%s): %llu samples at %.0f Hz, %zu arc "
		       "records", program, prof.nfiles, prof.nfiles == 1 ? "" : "s", files[0],
		    nfiles > 1 ? ", ..." : "", (unsigned long long)prof.samples, g.units_per_sec,
		    prof.narcs);
	report_gprof_listing(d, fmt, &g);
	report_gprof_bb(d, &prof, o);
	report_doc_end(d);
	rc = cli_finish_stdout(CMD, CLI_OK);
out:
	model_gprof_free(&g);
	gmon_profile_free(&prof);
	sym_objects_free();
	free(files);
	return rc;
}
