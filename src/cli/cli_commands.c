/* SPDX-License-Identifier: MIT
 *
 * cli_commands.c — the command table (like perf.c's): each `tally CMD`, the
 * function that runs it, its option table and its line in `tally --help`.
 * main.c dispatches through it; the completion lists it.
 */
#include "cli/cli.h"

const struct cli_command cli_commands[] = {
	{ "record", cmd_record, cmd_record_options, "run a program and record an experiment" },
	{ "report", cmd_report, cmd_report_options, "show where the time (or bytes, waits) went" },
	{ "export", cmd_export, cmd_export_options,
	  "profiles in other tools' formats (flame graphs, callgrind, pprof, ...)" },
	{ "annotate", cmd_annotate, cmd_annotate_options, "source or disassembly of a function, with metrics" },
	{ "gprof", cmd_gprof, cmd_gprof_options, "GNU gprof's listing of gmon.out files (programs built with -pg)" },
	{ "check", cmd_check, cmd_check_options, "verify an experiment: list what cannot be read" },
	{ "diff", cmd_diff, cmd_diff_options, "what changed from one experiment to another, by function and call path" },
	{ "gather", cmd_gather, cmd_gather_options,
	  "bring an MPI job's rank experiments together from the hosts that wrote them" },
	{ "html", cmd_html, cmd_html_options, "one self-contained HTML page: flame graph, timeline, tables" },
	{ "control", cmd_control, cmd_control_options,
	  "turn the recording of a running `tally record --control` run off or on" },
};

const size_t cli_ncommands = sizeof(cli_commands) / sizeof(cli_commands[0]);
