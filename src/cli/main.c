/* SPDX-License-Identifier: MIT
 *
 * main.c — `tally CMD ...`: dispatch through the command table
 * (cli_commands.c), `tally --help`, the completion's `tally __complete`
 * and the man pages' `tally __man`.
 * The helpers every command shares are in cli_msg.c, below the commands,
 * so that no command depends on this file or the table.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/cli_args.h"

#define TALLY_VERSION "0.1"

static void usage(FILE *f)
{
	fprintf(f, "usage: tally COMMAND [ARGS...]\n\n");
	for (size_t i = 0; i < cli_ncommands; i++)
		fprintf(f, "  %-9s %s\n", cli_commands[i].name, cli_commands[i].help);
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
	if (!strcmp(argv[1], "__complete"))
		return cli_complete(argc - 2, argv + 2);
	if (!strcmp(argv[1], "__man"))
		return cli_man(argc - 2, argv + 2);
	if (!strcmp(argv[1], "--version")) {
		printf("tally %s\n", TALLY_VERSION);
		return cli_finish_stdout("version", CLI_OK);
	}
	for (size_t i = 0; i < cli_ncommands; i++)
		if (!strcmp(argv[1], cli_commands[i].name))
			return cli_commands[i].fn(argc - 1, argv + 1);
	const char *best = NULL;
	size_t best_d = cli_suggest_limit(argv[1]);
	for (size_t i = 0; i < cli_ncommands; i++)
		cli_suggest(argv[1], cli_commands[i].name, &best, &best_d);
	if (best)
		fprintf(stderr, "tally: unknown command '%s' (did you mean '%s'?)\n", argv[1], best);
	else
		fprintf(stderr, "tally: unknown command '%s'\n", argv[1]);
	usage(stderr);
	return CLI_USAGE;
}
