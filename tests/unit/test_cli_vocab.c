/* SPDX-License-Identifier: MIT
 *
 * test_cli_vocab.c — the analyzer's vocabulary tables, row by row: every
 * metric of the metric table (model_metrics.c) is whole and is carried by
 * every export that can carry it (callgrind's events, pprof's sample types,
 * collapsed weights), and listed by --metric's help; every view of the view
 * table (cli_views.c) is reachable, listed by --help, and excludes every
 * other view; every export format is reachable; the completion offers
 * every command, every option of each, every metric and every format;
 * every option of every command is parsed, listed by --help and named by
 * the command's man page.  A row added to a table is checked here without a line added.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

#include "cli/cli.h"
#include "cli/cli_args.h"
#include "cli/cli_exports.h"
#include "cli/cli_outside.h"
#include "cli/cli_record.h"
#include "cli/cli_views.h"
#include "model_fixture.h"
#include "report/report.h"
#include "report/report_gprof.h"
#include "testhelp.h"

/* The metrics of the table (every one but the counters' free slots) and
 * one counter metric. */
static int metrics[MODEL_METRIC_COUNT], nmetrics;

static void metrics_list(void)
{
	nmetrics = 0;
	for (int k = 0; k < MODEL_COUNTER_0; k++)
		metrics[nmetrics++] = k;
	metrics[nmetrics++] = model_metric_parse("page-faults");
}

/* A model of three functions whose every entry weighs every metric:
 * entry i's metric k weighs (k + 1) * (i + 1). */
static void model_all_metrics(void)
{
	model_reset();
	uint32_t f[3] = { add_func("main"), add_func("work"), add_func("leaf") };
	for (uint32_t n = 1; n <= 3; n++)
		add_entry(f, n, 1);
	m.total[MODEL_CPU] = 0;
	for (size_t i = 0; i < m.nentries; i++)
		for (int j = 0; j < nmetrics; j++) {
			int k = metrics[j];
			model_entry_add_value(&m, &m.entries[i], k, (uint64_t)(k + 1) * (i + 1));
			m.total[k] += model_entry_value(&m.entries[i], k);
			m.present |= 1u << k;
		}
}

/* What fn wrote to a FILE, NUL-terminated (malloc'd). */
static char *capture(int (*fn)(FILE *, int), int arg, int *rc)
{
	static char *buf;          /* static: gcc takes a local one for dangling */
	static size_t len;
	FILE *f = open_memstream(&buf, &len);

	*rc = fn(f, arg);
	fclose(f);
	return buf;
}

static int callgrind(FILE *f, int arg)
{
	(void)arg;
	return report_callgrind(f, &m, NULL, 0);
}

static int collapsed(FILE *f, int metric)
{
	return report_collapsed(f, &m, (enum model_metric)metric);
}

static void every_metric_row_is_whole(void)
{
	metrics_list();
	for (int j = 0; j < nmetrics; j++) {
		const struct model_metric_info *mi = model_metric_info((enum model_metric)metrics[j]);
		CHECKF(mi->name && mi->title && mi->record && mi->events && mi->callgrind, "metric %d", metrics[j]);
		if (!mi->name || !mi->callgrind)
			continue;
		CHECKF(model_metric_parse(mi->name) == metrics[j], "%s does not parse back", mi->name);
		CHECKF(mi->is_time == (mi->unit == MODEL_UNIT_NS), "%s", mi->name);
		CHECKF(mi->kind == MODEL_KIND_COUNTER || mi->log_key, "%s: no log key", mi->name);
		CHECKF(strspn(mi->callgrind, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_") ==
			       strlen(mi->callgrind), "%s: callgrind name %s", mi->name, mi->callgrind);
		for (int i = 0; i < j; i++) {
			const struct model_metric_info *o = model_metric_info((enum model_metric)metrics[i]);
			CHECKF(strcmp(o->name, mi->name), "two metrics named %s", mi->name);
			CHECKF(strcmp(o->callgrind, mi->callgrind), "two callgrind events %s", mi->callgrind);
		}
	}
}

static void callgrind_carries_every_metric(void)
{
	int rc;

	metrics_list();
	model_all_metrics();
	char *out = capture(callgrind, 0, &rc);
	CHECK(rc == 0);
	char *ev = strstr(out, "\nevents:"), *sum = strstr(out, "\nsummary:");
	CHECK(ev && sum);
	if (ev && sum) {
		char *end = strchr(ev + 1, '\n');
		int n = 0;
		for (char *w = ev + 8; w < end; w++)
			n += *w == ' ';
		CHECKF(n == nmetrics, "events: %d names for %d metrics", n, nmetrics);
		for (int j = 0; j < nmetrics; j++) {
			char want[96];
			const struct model_metric_info *mi = model_metric_info((enum model_metric)metrics[j]);
			snprintf(want, sizeof(want), " %s", mi->callgrind);
			char *at = strstr(ev, want);
			CHECKF(at && at < end && (at[strlen(want)] == ' ' || at[strlen(want)] == '\n'),
			       "events: lacks %s (%s)", mi->callgrind, mi->name);
		}
		/* summary: the totals, in the events' order */
		char *p = sum + 9;
		for (int j = 0; j < nmetrics; j++)
			CHECKF(strtoull(p, &p, 10) == m.total[metrics[j]], "summary of metric %d", metrics[j]);
	}
	free(out);
}

static void collapsed_weighs_every_metric(void)
{
	int rc;

	metrics_list();
	model_all_metrics();
	for (int j = 0; j < nmetrics; j++) {
		char *out = capture(collapsed, metrics[j], &rc), *save = NULL;
		uint64_t sum = 0;
		CHECK(rc == 0);
		for (char *l = strtok_r(out, "\n", &save); l; l = strtok_r(NULL, "\n", &save))
			sum += strtoull(strrchr(l, ' ') + 1, NULL, 10);
		CHECKF(sum == m.total[metrics[j]], "%s: %llu of %llu", model_metric_info(metrics[j])->name,
		       (unsigned long long)sum, (unsigned long long)m.total[metrics[j]]);
		free(out);
	}
}

static void pprof_carries_every_metric(void)
{
	char path[] = "/tmp/tally-vocab-XXXXXX";
	int fd = mkstemp(path);
	char buf[1 << 16];

	metrics_list();
	model_all_metrics();
	CHECK(fd >= 0);
	close(fd);
	CHECK(report_pprof(path, &m) == 0);
	gzFile z = gzopen(path, "rb");
	int n = z ? gzread(z, buf, sizeof(buf)) : -1;
	if (z)
		gzclose(z);
	unlink(path);
	CHECK(n > 0);
	for (int j = 0; j < nmetrics && n > 0; j++) {
		const struct model_metric_info *mi = model_metric_info((enum model_metric)metrics[j]);
		/* the string table holds each name as a length-prefixed string */
		char want[64];
		size_t len = strlen(mi->name);
		want[0] = 0x32;        /* field 6 (string_table), wire type 2 */
		want[1] = (char)len;
		memcpy(want + 2, mi->name, len);
		CHECKF(memmem(buf, (size_t)n, want, len + 2), "pprof lacks %s", mi->name);
	}
}

/* Run fn(argv) with stdout and stderr into files; returns its status,
 * stderr's text in err (malloc'd), stdout's in out.  argv[0] is `name`. */
static int run(int (*fn)(int, char **), const char *name, const char *const *args, int nargs, char **out,
	       char **err)
{
	char *argv[8];
	char opath[] = "/tmp/tally-vocab-o-XXXXXX", epath[] = "/tmp/tally-vocab-e-XXXXXX";
	int ofd = mkstemp(opath), efd = mkstemp(epath);
	int save_out = dup(1), save_err = dup(2);

	argv[0] = (char *)name;
	for (int i = 0; i < nargs; i++)
		argv[i + 1] = (char *)args[i];
	argv[nargs + 1] = NULL;
	fflush(stdout);
	dup2(ofd, 1);
	dup2(efd, 2);
	int rc = fn(nargs + 1, argv);
	fflush(stdout);
	fflush(stderr);
	dup2(save_out, 1);
	dup2(save_err, 2);
	close(save_out);
	close(save_err);
	char *texts[2] = { NULL, NULL };
	int fds[2] = { ofd, efd };
	for (int i = 0; i < 2; i++) {
		off_t len = lseek(fds[i], 0, SEEK_END);
		texts[i] = calloc(1, (size_t)len + 1);
		if (pread(fds[i], texts[i], (size_t)len, 0) != len)
			texts[i][0] = 0;
		close(fds[i]);
	}
	unlink(opath);
	unlink(epath);
	*out = texts[0];
	*err = texts[1];
	return rc;
}

static int run_report(const char *const *args, int nargs, char **out, char **err)
{
	return run(cmd_report, "report", args, nargs, out, err);
}

/* cli_complete's argv has no command name before it. */
static int complete(int argc, char **argv)
{
	return cli_complete(argc - 1, argv + 1);
}

/* "--OPTION" or "--OPTION=VALUE" for view row r, into buf. */
static const char *view_arg(size_t r, char *buf, size_t len, const char **extra)
{
	const struct cli_view *v = &cli_views[r];

	*extra = v->has_arg == CLI_ARG_REQUIRED ? "main" : NULL;
	snprintf(buf, len, "--%s", v->option);
	return buf;
}

static void every_view_is_reachable_and_listed(void)
{
	const char *help[] = { "--help" };
	char *out, *err;

	CHECK(run_report(help, 1, &out, &err) == 0);
	for (size_t r = 0; r < cli_nviews; r++) {
		char opt[64], line[80];
		const char *extra, *args[3];
		int n = 0;
		CHECKF(cli_views[r].render, "--%s renders nothing", cli_views[r].option);
		snprintf(line, sizeof(line), "\n  --%s", cli_views[r].option);
		CHECKF(!cli_views[r].help || strstr(out, line), "--help lacks --%s", cli_views[r].option);
		args[n++] = view_arg(r, opt, sizeof(opt), &extra);
		if (extra)
			args[n++] = extra;
		char *o2, *e2;
		CHECKF(run_report(args, n, &o2, &e2) == CLI_USAGE && strstr(e2, "no experiment named"),
		       "--%s: %s", cli_views[r].option, e2);
		free(o2);
		free(e2);
		for (size_t q = 0; q < r; q++)
			CHECKF(strcmp(cli_views[q].option, cli_views[r].option), "two rows --%s", cli_views[r].option);
	}
	const char *metric_help = strstr(out, "--metric");
	for (int k = 0; metric_help && k < MODEL_COUNTER_0; k++)
		CHECKF(strstr(metric_help, model_metric_info((enum model_metric)k)->name), "--metric help lacks %s",
		       model_metric_info((enum model_metric)k)->name);
	free(out);
	free(err);
}

static void every_two_views_exclude_each_other(void)
{
	for (size_t a = 0; a < cli_nviews; a++)
		for (size_t b = 0; b < cli_nviews; b++) {
			char oa[64], ob[64], want[160];
			const char *xa, *xb, *args[6];
			int n = 0;
			args[n++] = view_arg(a, oa, sizeof(oa), &xa);
			if (xa)
				args[n++] = xa;
			args[n++] = view_arg(b, ob, sizeof(ob), &xb);
			if (xb)
				args[n++] = xb;
			/* a third view after the two must not change the message */
			args[n++] = "--threads";
			char *out, *err;
			int rc = run_report(args, n, &out, &err);
			snprintf(want, sizeof(want), "--%s and --%s are two views", cli_views[a].option,
				 cli_views[b].option);
			if (cli_view_same(a, b))
				CHECKF(rc == CLI_USAGE && (strstr(err, "no experiment named") ||
							   strstr(err, "are two views: give one")),
				       "--%s --%s: %s", cli_views[a].option, cli_views[b].option, err);
			else
				CHECKF(rc == CLI_USAGE && strstr(err, want) && !strstr(err, "null"),
				       "--%s --%s: %s", cli_views[a].option, cli_views[b].option, err);
			CHECK(cli_view_same(a, b) == cli_view_same(b, a));
			free(out);
			free(err);
		}
}

/* Does the completion's output hold `word` as a line? */
static bool has_line(const char *out, const char *word)
{
	size_t n = strlen(word);

	for (const char *p = out; (p = strstr(p, word)); p += n)
		if ((p == out || p[-1] == '\n') && p[n] == '\n')
			return true;
	return false;
}

static void completion_is_complete(void)
{
	char *out, *err;
	const char *none[] = { "" };

	CHECK(run(complete, "", none, 0, &out, &err) == 0);
	for (size_t c = 0; c < cli_ncommands; c++)
		CHECKF(has_line(out, cli_commands[c].name), "command %s", cli_commands[c].name);
	free(out);
	free(err);
	for (size_t c = 0; c < cli_ncommands; c++) {
		const char *args[] = { cli_commands[c].name, "", "-" };
		size_t n;
		const struct cli_opt *opts = cli_commands[c].options(&n);
		CHECK(run(complete, "", args, 3, &out, &err) == 0);
		for (size_t i = 0; i < n; i++) {
			char want[64];
			snprintf(want, sizeof(want), "--%s", opts[i].name);
			CHECKF(!opts[i].help || has_line(out, want), "tally %s %s", cli_commands[c].name, want);
		}
		free(out);
		free(err);
		for (size_t i = 0; i < n; i++) {
			if (strcmp(opts[i].name, "metric") && strcmp(opts[i].name, "sort"))
				continue;
			const char *margs[] = { cli_commands[c].name, "--metric", "" };
			margs[1] = !strcmp(opts[i].name, "metric") ? "--metric" : "--sort";
			CHECK(run(complete, "", margs, 3, &out, &err) == 0);
			for (int k = 0; k < MODEL_COUNTER_0; k++)
				CHECKF(has_line(out, model_metric_info((enum model_metric)k)->name), "tally %s %s: %s",
				       cli_commands[c].name, margs[1], model_metric_info((enum model_metric)k)->name);
			free(out);
			free(err);
		}
	}
	const char *fargs[] = { "export", "--format", "" };
	CHECK(run(complete, "", fargs, 3, &out, &err) == 0);
	for (size_t x = 0; x < cli_nexports; x++)
		CHECKF(has_line(out, cli_exports[x].name), "export --format %s", cli_exports[x].name);
	free(out);
	free(err);
}

static void every_export_is_reachable(void)
{
	for (size_t x = 0; x < cli_nexports; x++) {
		const char *args[] = { "--format", cli_exports[x].name, "-o", "/nonexistent/out" };
		char *out, *err;
		int rc = run(cmd_export, "export", args, 4, &out, &err);
		CHECKF(rc == CLI_USAGE && strstr(err, "no experiment named"), "--format %s: %s", cli_exports[x].name,
		       err);
		CHECK(cli_export_find(cli_exports[x].name) == &cli_exports[x]);
		CHECKF(cli_exports[x].write && cli_exports[x].help, "--format %s", cli_exports[x].name);
		free(out);
		free(err);
	}
}

/* Every row of every command's option table: the parser takes it (no
 * "unknown option", no "needs a value"), `tally CMD --help` lists it (an
 * alias, a row without help, is not listed), and the man page's OPTIONS
 * (`tally __man CMD options`) names it, aliases too, as roff writes
 * dashes. */
static int man(int argc, char **argv)
{
	return cli_man(argc - 1, argv + 1);
}

static void every_option_is_parsed_listed_and_in_the_man_page(void)
{
	for (size_t c = 0; c < cli_ncommands; c++) {
		const struct cli_command *cmd = &cli_commands[c];
		const char *help[] = { "--help" }, *part[] = { cmd->name, "options" };
		char *hout, *herr, *mout, *merr;
		size_t n;
		const struct cli_opt *opts = cmd->options(&n);
		CHECKF(run(cmd->fn, cmd->name, help, 1, &hout, &herr) == 0, "tally %s --help: %s", cmd->name, herr);
		CHECKF(run(man, "", part, 2, &mout, &merr) == 0, "tally __man %s options: %s", cmd->name, merr);
		CHECKF(strstr(mout, ".SH OPTIONS"), "tally __man %s options", cmd->name);
		for (size_t i = 0; i < n; i++) {
			char arg[96], want[96], roff[160];
			const char *args[] = { arg };
			snprintf(arg, sizeof(arg), "--%s%s", opts[i].name, opts[i].has_arg == CLI_ARG_REQUIRED ? "=x" : "");
			if (strcmp(opts[i].name, "help")) {
				char *out, *err;
				run(cmd->fn, cmd->name, args, 1, &out, &err);
				CHECKF(!strstr(err, "unknown option") && !strstr(err, "needs a value") &&
					       !strstr(err, "takes no value"), "tally %s %s: %s", cmd->name, arg, err);
				free(out);
				free(err);
			}
			snprintf(want, sizeof(want), "--%s", opts[i].name);
			CHECKF(!opts[i].help || strstr(hout, want), "tally %s --help lacks %s", cmd->name, want);
			size_t k = 0;
			roff[k++] = '\\';
			roff[k++] = '-';
			roff[k++] = '\\';
			roff[k++] = '-';
			for (const char *p = opts[i].name; *p && k + 3 < sizeof(roff); p++) {
				if (*p == '-')
					roff[k++] = '\\';
				roff[k++] = *p;
			}
			roff[k++] = '\\';
			roff[k] = 0;           /* then fR: the name ends there */
			CHECKF(strstr(mout, roff), "tally-%s(1) lacks %s", cmd->name, want);
		}
		free(hout);
		free(herr);
		free(mout);
		free(merr);
	}
}

static const struct record_opts *check_opts;

static int outside_check(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	return cli_outside_check(check_opts, "prog is statically linked") ? CLI_USAGE : 0;
}

/* The outside mode's refusal loops over the record table's `outside`
 * column: each row that needs the collector is refused (for a program
 * tally runs; with -p, all but CLI_REC_INSIDE_RUN's), with one line naming
 * it, and every other row is taken.  (test_static_options.sh does the
 * same with a real static program, where the machine has one.) */
static void outside_refusal_follows_the_column(void)
{
	int inside = 0;

	for (size_t r = 0; r < cli_nrecord_opts; r++)
		for (int attach = 0; attach < 2; attach++) {
			struct record_opts o = { 0 };
			char name[40], *out, *err;
			exp_launch_defaults(&o.launch);
			o.given = 1ull << r;
			o.pid = attach ? 4242 : 0;
			cli_record_opt_name(r, name, sizeof(name));
			unsigned col = cli_record_opts[r].outside;
			bool refuse = col == CLI_REC_INSIDE || (col == CLI_REC_INSIDE_RUN && !attach);
			check_opts = &o;
			int rc = run(outside_check, name, NULL, 0, &out, &err);
			inside += refuse;
			if (refuse)
				CHECKF(rc != 0 && strstr(err, name) && strchr(err, '\n') == err + strlen(err) - 1,
				       "%s%s: %s", name, attach ? " with -p" : "", err);
			else
				CHECKF(rc == 0 && !*err, "%s%s refused: %s", name, attach ? " with -p" : "", err);
			free(out);
			free(err);
		}
	CHECKF(inside >= 10, "%d refusals", inside);
	/* the attach column: each row found by its own value, and only by it */
	int refused = 0;
	for (size_t r = 0; r < cli_nrecord_opts; r++) {
		unsigned a = cli_record_opts[r].attach;
		CHECKF(a <= CLI_ATT_RUN && cli_record_opts[r].outside <= CLI_REC_INSIDE_RUN, "row %zu", r);
		for (unsigned v = CLI_ATT_TRACER; v <= CLI_ATT_RUN; v++)
			CHECKF((cli_record_opts_unattachable(1ull << r, v) == (int)r) == (a == v), "row %zu, %u", r, v);
		refused += a != CLI_ATT_OK;
	}
	CHECKF(refused >= 8, "%d options refused with -p", refused);
}

int main(void)
{
	RUN(every_metric_row_is_whole);
	RUN(callgrind_carries_every_metric);
	RUN(collapsed_weighs_every_metric);
	RUN(pprof_carries_every_metric);
	RUN(every_view_is_reachable_and_listed);
	RUN(every_two_views_exclude_each_other);
	RUN(completion_is_complete);
	RUN(every_export_is_reachable);
	RUN(every_option_is_parsed_listed_and_in_the_man_page);
	RUN(outside_refusal_follows_the_column);
	model_free(&m);
	TEST_EXIT();
}
