/* SPDX-License-Identifier: MIT
 *
 * cli_views.c — the view table of `tally report` (cli_views.h): one row per
 * view option, and the small function that renders each view from the
 * model.  The table's order is the order of --help.
 */
#include <string.h>

#include "cli/cli.h"
#include "cli/cli_args.h"
#include "cli/cli_load.h"
#include "cli/cli_views.h"
#include "report/report.h"
#include "report/report_gprof.h"
#include "report/report_table.h"

static int functions(const struct cli_view_ctx *c)
{
	report_functions(c->d, c->m, c->o);
	return CLI_OK;
}

static int callers(const struct cli_view_ctx *c)
{
	if (!report_callers(c->d, c->m, c->o, c->arg))
		return CLI_OK;
	report_doc_end(c->d);
	cli_no_such_function(c->cmd, c->m, c->arg);
	return CLI_FATAL;
}

static int tree(const struct cli_view_ctx *c)
{
	report_tree(c->d, c->m, c->o);
	return CLI_OK;
}

static int threads(const struct cli_view_ctx *c)
{
	report_threads(c->d, c->m, c->o);
	return CLI_OK;
}

static int objects(const struct cli_view_ctx *c)
{
	report_objects(c->d, c->m, c->o);
	return CLI_OK;
}

static int gprof(const struct cli_view_ctx *c)
{
	enum model_gprof_method how = !c->arg                      ? MODEL_GPROF_STACKS
				      : !strcmp(c->arg, "propagate") ? MODEL_GPROF_PROPAGATE
				      : !strcmp(c->arg, "timed")     ? MODEL_GPROF_TIMED
								     : MODEL_GPROF_STACKS;
	if (how == MODEL_GPROF_TIMED && !model_gprof_timed_arcs(c->m)) {
		report_doc_end(c->d);
		fprintf(stderr, "tally %s: --gprof=timed: no call was timed in this experiment (the "
				"program was not built with -finstrument-functions)\n", c->cmd);
		return CLI_FATAL;
	}
	if (report_gprof(c->d, c->m, c->o, how))
		report_doc_fail(c->d, "the gprof graph");
	return CLI_OK;
}

static int leaks(const struct cli_view_ctx *c)
{
	report_leaks(c->d, c->m, c->o);
	return CLI_OK;
}

static int files(const struct cli_view_ctx *c)
{
	report_files(c->d, c->m);
	return CLI_OK;
}

static int psamples(const struct cli_view_ctx *c)
{
	report_psamples(c->d, c->m, c->o);
	return CLI_OK;
}

static int processes(const struct cli_view_ctx *c)
{
	report_processes(c->d, c->m, c->o);
	return CLI_OK;
}

static int ranks(const struct cli_view_ctx *c)
{
	report_ranks(c->d, c->m, c->o, !c->arg ? REPORT_RANKS_AUTO
				       : !strcmp(c->arg, "all") ? REPORT_RANKS_ALL : REPORT_RANKS_SUMMARY);
	return CLI_OK;
}

static int messages(const struct cli_view_ctx *c)
{
	report_messages(c->d, c->m, c->o);
	return CLI_OK;
}

static int lines(const struct cli_view_ctx *c)
{
	if (report_hot(c->d, c->m, c->o, false))
		report_doc_fail(c->d, "the hottest lines");
	return CLI_OK;
}

static int pcs(const struct cli_view_ctx *c)
{
	if (report_hot(c->d, c->m, c->o, true))
		report_doc_fail(c->d, "the hottest instructions");
	return CLI_OK;
}

static int states(const struct cli_view_ctx *c)
{
	report_states(c->d, c->m);
	return CLI_OK;
}

static int counters(const struct cli_view_ctx *c)
{
	report_counters(c->d, c->m, c->o);
	return CLI_OK;
}

static int sync_objects(const struct cli_view_ctx *c)
{
	report_sync_objects(c->d, c->m, c->o);
	return CLI_OK;
}

static int blame(const struct cli_view_ctx *c)
{
	report_blame(c->d, c->m, c->o);
	return CLI_OK;
}

static int critical(const struct cli_view_ctx *c)
{
	report_critical(c->d, c->m, c->o);
	return CLI_OK;
}

static int data_objects(const struct cli_view_ctx *c)
{
	report_data_objects(c->d, c->m, c->o);
	return CLI_OK;
}

static int data_layout(const struct cli_view_ctx *c)
{
	report_data_layout(c->d, c->m, c->o);
	return CLI_OK;
}

const struct cli_view cli_views[] = {
	[CLI_VIEW_DEFAULT] = { "functions", CLI_ARG_NONE, NULL, NULL,
	  "the function table (the default view)", 0, 0, functions },
	{ "callers", CLI_ARG_REQUIRED, "FUNC", NULL, "callers and callees of FUNC", CLI_VIEW_FUNC_ARG, 0,
	  callers },
	{ "tree", CLI_ARG_NONE, NULL, NULL, "the call tree (recursive calls folded into the outermost)",
	  0, 0, tree },
	{ "inverted", CLI_ARG_NONE, NULL, NULL, "the call tree bottom-up: each function, its callers below it",
	  0, MODEL_TREE_INVERTED, tree },
	{ "threads", CLI_ARG_NONE, NULL, NULL, "metrics by thread", 0, 0, threads },
	{ "objects", CLI_ARG_NONE, NULL, NULL, "metrics by load object, largest first", 0, 0, objects },
	{ "gprof", CLI_ARG_OPTIONAL, NULL, "propagate|stacks|timed",
	  "gprof's listing, time per arc measured from the stacks;\n"
	  "=propagate: propagated from call counts, as gprof does;\n"
	  "=timed: each call's time from entry to exit (-finstrument-functions)", 0, 0, gprof },
	{ "leaks", CLI_ARG_NONE, NULL, NULL, "the stacks that allocated what was never freed, and the peak",
	  0, 0, leaks },
	{ "by-file", CLI_ARG_NONE, NULL, NULL, "I/O by file: bytes, calls, time, opens, seeks, syncs",
	  0, 0, files },
	{ "files", CLI_ARG_NONE, NULL, NULL, NULL, 0, 0, files },
	{ "processes", CLI_ARG_NONE, NULL, NULL, "the process tree: descendants followed into sub-experiments",
	  CLI_VIEW_ALL_PROCESSES, 0, processes },
	{ "samples", CLI_ARG_NONE, NULL, NULL,
	  "each process over time (record --process-samples): resident\n"
	  "memory, live heap (-H), CPU, page faults, context switches", 0, 0, psamples },
	{ "ranks", CLI_ARG_OPTIONAL, NULL, "all|summary",
	  "an MPI job's ranks: CPU, MPI time, bytes; the imbalance; of more\n"
	  "than 16 ranks, the slowest, quartiles and fastest; =all: each rank;\n"
	  "=summary: those five of any job", 0, 0, ranks },
	{ "messages", CLI_ARG_NONE, NULL, NULL, "an MPI job's point-to-point bytes and messages, rank to rank",
	  CLI_VIEW_MATCH, 0, messages },
	{ "lines", CLI_ARG_NONE, NULL, NULL, "the hottest source lines of the whole program (a line of two\n"
	  "functions names both: left + right)", 0, 0, lines },
	{ "pcs", CLI_ARG_NONE, NULL, NULL, "the hottest instructions of the whole program", 0, 0, pcs },
	{ "states", CLI_ARG_NONE, NULL, NULL,
	  "thread states (record --states): per thread, the time in each\n"
	  "state and the stacks that spent most of it", 0, 0, states },
	{ "counters", CLI_ARG_NONE, NULL, NULL,
	  "counters (record -c) by function, with IPC and misses per\n"
	  "thousand instructions where both counters exist", 0, 0, counters },
	{ "sync-objects", CLI_ARG_NONE, NULL, NULL,
	  "synchronization waits (record -s) by object: kind, address, wait,\n"
	  "waits, threads, the function that waited first", 0, 0, sync_objects },
	{ "blame", CLI_ARG_NONE, NULL, NULL,
	  "lock-holder blame (record -s): waits on mutexes by waiting\n"
	  "function, object, and the holder's thread, function and line", 0, 0, blame },
	{ "critical-path", CLI_ARG_NONE, NULL, NULL,
	  "the critical path across threads (record -s): functions by their\n"
	  "time on it, and what making each twice as fast could save", 0, 0, critical },
	{ "data-objects", CLI_ARG_NONE, NULL, NULL,
	  "CPU time (record --data) and precise memory-access samples by\n"
	  "data object, with structure members (docs/dataspace.md)", 0, 0, data_objects },
	{ "data-layout", CLI_ARG_NONE, NULL, NULL,
	  "record --data: each structure's members by offset, with the CPU\n"
	  "time of the accesses to them (docs/dataspace.md)", 0, 0, data_layout },
};

const size_t cli_nviews = sizeof(cli_views) / sizeof(cli_views[0]);

bool cli_view_same(size_t a, size_t b)
{
	return cli_views[a].render == cli_views[b].render;
}

bool cli_view_value_ok(size_t r, const char *val)
{
	const char *v = cli_views[r].values;
	size_t n = val ? strlen(val) : 0;

	if (!val || !v)
		return true;
	for (const char *p = v; *p; p += strcspn(p, "|"), p += *p == '|')
		if (strcspn(p, "|") == n && !strncmp(p, val, n))
			return true;
	return false;
}
