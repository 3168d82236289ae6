/* SPDX-License-Identifier: MIT
 *
 * cli_record_opts.c — the options of `tally record`, one row each: the
 * option as getopt_long, --help, the man page and the completion see it,
 * whether it needs tally's collector inside the program (the `outside`
 * column), and whether `tally record -p` takes it (the `attach` column).  cmd_record.c parses with the rows; the outside mode's refusal
 * (cli_outside.c), the attach refusals (cmd_record.c, cli_attach.c),
 * `tally record --help` and tally-record(1) list the options by looping
 * over the columns, so adding an option is one row here and one case in
 * cmd_record.c's switch.
 */
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/cli_args.h"
#include "cli/cli_record.h"
#include "format/exp_records.h"
#include "format/exp_events.h"
#include "model/model.h"

/* The help of rows with NULL is made by build() (numbers from the format's
 * limits); the metrics an option records are added to every row's help
 * from the metric table. */
const struct cli_record_opt cli_record_opts[] = {
	{ { "output", 'o', CLI_ARG_REQUIRED, 'o', "EXP", "experiment directory (default tally.N.exp, first unused N)" },
	  CLI_REC_OUTSIDE, CLI_ATT_OK },
	{ { "freq", 'F', CLI_ARG_REQUIRED, 'F', "HZ", NULL }, CLI_REC_OUTSIDE, CLI_ATT_OK },
	{ { "heap", 'H', CLI_ARG_NONE, 'H', NULL, "trace heap allocations" }, CLI_REC_INSIDE, CLI_ATT_TRACER },
	{ { "sync", 's', CLI_ARG_OPTIONAL, 's', "NS",
	    "trace synchronization waits longer than NS ns (default:\ncalibrated); -s NS works too" },
	  CLI_REC_INSIDE, CLI_ATT_TRACER },
	{ { "sync-holders", 0, CLI_ARG_REQUIRED, 'B', "on|off",
	    "with -s: record which thread held a contended mutex, and its\n"
	    "stack when it took it (report --blame); default on" },
	  CLI_REC_INSIDE, CLI_ATT_TRACER },
	{ { "io", 'i', CLI_ARG_NONE, 'i', NULL, "trace I/O calls" }, CLI_REC_INSIDE, CLI_ATT_TRACER },
	{ { "mpi", 'm', CLI_ARG_NONE, 'm', NULL, "trace MPI calls" }, CLI_REC_INSIDE, CLI_ATT_TRACER },
	{ { "java", 'j', CLI_ARG_REQUIRED, 'j', "on|off",
	    "Java: every JVM gets tally's JVMTI agent for Java stacks, named\n"
	    "methods and lines (-H, -s: the Java heap and monitors); default on" },
	  CLI_REC_INSIDE, CLI_ATT_OK },
	{ { "states", 0, CLI_ARG_NONE, 'S', NULL, "thread states: where wall-clock time goes, on and off the CPU" },
	  CLI_REC_OUTSIDE, CLI_ATT_OK },
	{ { "data", 'd', CLI_ARG_NONE, 'd', NULL,
	    "data objects: each clock sample keeps the interrupted registers,\n"
	    "from which the analyzer finds the data the instruction touched\n"
	    "(report --data-objects, --data-layout; docs/dataspace.md); where\n"
	    "the PMU has a precise memory event (mem-loads, IBS op), its samples\n"
	    "too, with the level that served each access; the log and the\n"
	    "overview say which source was used and why" },
	  CLI_REC_INSIDE, CLI_ATT_OK },
	{ { "counter", 'c', CLI_ARG_REQUIRED, 'c', "EVENT[/PERIOD]", NULL }, CLI_REC_INSIDE, CLI_ATT_RUN },
	{ { "kernel", 0, CLI_ARG_NONE, 'k', NULL,
	    "kernel call chains above each clock sample (with --states,\n"
	    "above each interval off the CPU: where it left the CPU), where\n"
	    "the kernel allows them: root, CAP_PERFMON, perf_event_paranoid\n"
	    "<= 1 (docs/kernel.md)" },
	  CLI_REC_OUTSIDE, CLI_ATT_OK },
	{ { "no-kernel", 0, CLI_ARG_NONE, 'K', NULL, "no kernel call chains (the default)" }, CLI_REC_OUTSIDE, CLI_ATT_OK },
	{ { "follow", 0, CLI_ARG_REQUIRED, 'f', "all|none",
	    "follow descendant processes into sub-experiments (default all)" },
	  CLI_REC_INSIDE, CLI_ATT_RUN },
	{ { "frames", 0, CLI_ARG_REQUIRED, 'n', "N", NULL }, CLI_REC_OUTSIDE, CLI_ATT_OK },
	{ { "pid", 'p', CLI_ARG_REQUIRED, 'p', "PID",
	    "attach to a running process: profile it until Ctrl-C or the\n"
	    "end of --duration, then leave it running (docs/attach.md)" },
	  CLI_REC_OUTSIDE, CLI_ATT_OK },
	{ { "delay", 0, CLI_ARG_REQUIRED, 'W', "S",
	    "record nothing for the first S seconds of the program (its\n"
	    "descendants too); the overview and the timeline show the gap" },
	  CLI_REC_INSIDE, CLI_ATT_RUN },
	{ { "duration", 0, CLI_ARG_REQUIRED, 'U', "S",
	    "stop recording after S seconds (after --delay's); a program\n"
	    "tally runs goes on to its end, with -p tally detaches" },
	  CLI_REC_INSIDE_RUN, CLI_ATT_OK },
	{ { "process-samples", 0, CLI_ARG_REQUIRED, 'P', "S",
	    "every S seconds (default 1; 0: none) each process's resident\n"
	    "memory, page faults, context switches, CPU time and, with -H,\n"
	    "live heap bytes (report --samples; curves on the HTML timeline)" },
	  CLI_REC_INSIDE, CLI_ATT_RUN },
	{ { "toggle-signal", 0, CLI_ARG_REQUIRED, 'T', "SIG",
	    "signal SIG (USR1, 12, RTMIN+1...) sent to a process of the run\n"
	    "turns its recording off, the next one on again (kill -SIG to\n"
	    "tally reaches the program); if the program sets a handler of its\n"
	    "own for SIG, SIG is the program's from then on" },
	  CLI_REC_INSIDE, CLI_ATT_RUN },
	{ { "control", 0, CLI_ARG_REQUIRED, 'C', "fifo:PATH|cmd",
	    "read commands from the FIFO PATH (made if missing): disable\n"
	    "turns recording off, enable on; either way (cmd: only this way)\n"
	    "tally control EXP off|on does too" },
	  CLI_REC_INSIDE, CLI_ATT_RUN },
	{ { "limit", 'L', CLI_ARG_REQUIRED, 'L', "SIZE",
	    "stop recording when the experiment reaches SIZE (MiB, or 500k,\n"
	    "2G; default: half the free space, at most 2 GiB; unlimited: none)" },
	  CLI_REC_OUTSIDE, CLI_ATT_OK },
	{ { "help", 'h', CLI_ARG_NONE, 'h', NULL, "this help" }, CLI_REC_OUTSIDE, CLI_ATT_OK },
};

const size_t cli_nrecord_opts = sizeof(cli_record_opts) / sizeof(cli_record_opts[0]);

#define NROWS (sizeof(cli_record_opts) / sizeof(cli_record_opts[0]))
_Static_assert(NROWS <= CLI_ARGS_MAX && NROWS <= 64, "record_opts.given has a bit a row");

static struct cli_opt flat[NROWS];     /* the rows' cli_opt, helps made */

/* A row's help with numbers, and the metrics its option records (rows of
 * the metric table whose record option is this option's). */
static void build_help(size_t i, char *help, size_t size)
{
	const struct cli_opt *op = &cli_record_opts[i].opt;
	size_t n = 0;

	if (op->id == 'F')
		n = (size_t)snprintf(help, size,
				     "clock samples per second of CPU time, per thread (default\n"
				     "1000; 0: off; at most %u: each sample costs the kernel's\n"
				     "timer ~20 us of CPU on a VM, so a higher rate is lowered to it)",
				     EXP_HZ_MAX);
	else if (op->id == 'c')
		n = (size_t)snprintf(help, size,
				     "sample a counter every PERIOD events, with the call stack\n"
				     "(metric EVENT; up to %d): cycles, instructions, cache-misses,\n"
				     "branch-misses, ... (hardware: needs a PMU), page-faults,\n"
				     "minor-faults, major-faults, context-switches, cpu-migrations,\n"
				     "rNNNN (a raw event)", EXP_MAX_COUNTERS);
	else if (op->id == 'n')
		n = (size_t)snprintf(help, size, "deepest stack recorded (default and maximum %d)", EXP_MAX_FRAMES);
	else
		n = (size_t)snprintf(help, size, "%s", op->help);
	const char *sep = " (";
	char mine[32];
	cli_record_opt_name(i, mine, sizeof(mine));
	for (int k = 0; k < MODEL_COUNTER_0; k++) {
		const struct model_metric_info *mi = model_metric_info((enum model_metric)k);
		if (strcmp(mi->record, mine) || n + 40 > size)
			continue;
		const char *nl = strrchr(help, '\n');
		size_t col = n - (nl ? (size_t)(nl + 1 - help) : 0);
		bool wrap = col + strlen(sep) + strlen(mi->name) + 1 > 64;
		const char *lead = !wrap ? sep : sep[0] == ',' ? ",\n" : "\n(";
		n += (size_t)snprintf(help + n, size - n, "%s%s", lead, mi->name);
		sep = ", ";
	}
	if (*sep == ',')
		snprintf(help + n, size - n, ")");
}

const struct cli_opt *cmd_record_options(size_t *n)
{
	static char help[NROWS][512];
	static bool built;

	if (!built) {
		built = true;
		for (size_t i = 0; i < NROWS; i++) {
			flat[i] = cli_record_opts[i].opt;
			build_help(i, help[i], sizeof(help[i]));
			flat[i].help = help[i];
		}
	}
	*n = NROWS;
	return flat;
}

int cli_record_opt_row(int id)
{
	for (size_t i = 0; i < NROWS; i++)
		if (cli_record_opts[i].opt.id == id)
			return (int)i;
	return -1;
}

void cli_record_opt_name(size_t row, char *buf, size_t len)
{
	const struct cli_opt *op = &cli_record_opts[row].opt;

	if (op->short_name)
		snprintf(buf, len, "-%c", op->short_name);
	else
		snprintf(buf, len, "--%s", op->name);
}

int cli_record_opts_unattachable(uint64_t given, unsigned attach)
{
	for (size_t i = 0; i < NROWS; i++)
		if ((given >> i & 1) && cli_record_opts[i].attach == attach)
			return (int)i;
	return -1;
}

size_t cli_record_opts_list(char *buf, size_t len, bool attach_column, unsigned value, const char *sep)
{
	size_t n = 0;

	if (len)
		buf[0] = 0;
	for (size_t i = 0; i < NROWS; i++) {
		char name[40];
		unsigned v = attach_column ? cli_record_opts[i].attach : cli_record_opts[i].outside;
		if (v != value || cli_record_opts[i].opt.id == 'h')
			continue;
		cli_record_opt_name(i, name, sizeof(name));
		size_t w = strlen(name) + (n ? strlen(sep) : 0);
		if (n + w < len)
			snprintf(buf + n, len - n, "%s%s", n ? sep : "", name);
		n += w;
	}
	return n;
}
