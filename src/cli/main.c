/* SPDX-License-Identifier: MIT
 *
 * main.c — `tally CMD ...`: the command table.  The helpers every command
 * shares are in cli_msg.c, below the commands, so that no command depends
 * on this file.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"

#define TALLY_VERSION "0.1"

static const struct {
	const char *name;
	int (*fn)(int, char **);
	const char *help;
} commands[] = {
	{ "record", cmd_record, "run a program and record an experiment" },
	{ "report", cmd_report, "show where the time (or bytes, waits) went" },
	{ "export", cmd_export, "profiles for other tools: collapsed, arcs, callgrind, pprof, speedscope, chrome" },
	{ "annotate", cmd_annotate, "source or disassembly of a function, with metrics" },
	{ "gprof", cmd_gprof, "GNU gprof's listing of gmon.out files (programs built with -pg)" },
	{ "check", cmd_check, "verify an experiment: list what cannot be read" },
	{ "diff", cmd_diff, "what changed from one experiment to another, by function and call path" },
	{ "html", cmd_html, "one self-contained HTML page: flame graph, timeline, tables" },
};

static void usage(FILE *f)
{
	fprintf(f, "usage: tally COMMAND [ARGS...]\n\n");
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		fprintf(f, "  %-9s %s\n", commands[i].name, commands[i].help);
	fprintf(f, "\n`tally COMMAND --help` describes a command.  tally %s\n", TALLY_VERSION);
	fprintf(f, "Exit status: 0 ok; 1 partial (some data could not be read: the rest is\n"
		   "reported, one warning says where); 2 fatal error; 64 usage error.  `tally\n"
		   "record` exits with the program's status.\n");
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		usage(stderr);
		return CLI_USAGE;
	}
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") || !strcmp(argv[1], "help")) {
		usage(stdout);
		return cli_finish_stdout("help", CLI_OK);
	}
	if (!strcmp(argv[1], "--version")) {
		printf("tally %s\n", TALLY_VERSION);
		return cli_finish_stdout("version", CLI_OK);
	}
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		if (!strcmp(argv[1], commands[i].name))
			return commands[i].fn(argc - 1, argv + 1);
	fprintf(stderr, "tally: unknown command '%s'\n", argv[1]);
	usage(stderr);
	return CLI_USAGE;
}
