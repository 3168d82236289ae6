/* SPDX-License-Identifier: MIT
 *
 * cmd_control.c — `tally control EXP off|on`: turn the recording of a run
 * that `tally record --control` started off or on, from any shell, while
 * it runs.  Writes the experiment's control page (cli_control.c); each
 * process of the run applies it at its next sample or traced event, and
 * the gap shows in the overview and on the timeline.  Exit status: 0 done,
 * 2 no control page (named, with the way to get one), 64 usage.
 */
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/cli_args.h"
#include "cli/cli_control.h"

#define CMD "control"

enum { OPT_HELP = 1 };

static const struct cli_opt options[] = {
	{ "help", 'h', CLI_ARG_NONE, OPT_HELP, NULL, "this help" },
};

const struct cli_opt *cmd_control_options(size_t *n)
{
	*n = CLI_NOPTS(options);
	return options;
}

static void usage(FILE *f)
{
	fprintf(f, "usage: tally control EXP off|on\n"
		   "  turn the recording of a running `tally record --control ... -o EXP`\n"
		   "  off (pause, disable) or on again (resume, enable); each process of\n"
		   "  the run applies it at its next sample, and the overview and the\n"
		   "  timeline show the gap\n"
		   "exit status: 0 done, 2 EXP has no control page, 64 usage\n");
	cli_args_help(f, options, CLI_NOPTS(options));
}

int cmd_control(int argc, char **argv)
{
	char why[4400];

	if (argc == 2 && (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help"))) {
		usage(stdout);
		return cli_finish_stdout(CMD, CLI_OK);
	}
	if (argc != 3) {
		cli_error(CMD, "expected EXP and off or on (tally control --help)");
		return CLI_USAGE;
	}
	const char *w = argv[2];
	bool off = !strcmp(w, "off") || !strcmp(w, "pause") || !strcmp(w, "disable");
	bool on = !strcmp(w, "on") || !strcmp(w, "resume") || !strcmp(w, "enable");
	if (!off && !on) {
		cli_error(CMD, "%s: expected off or on (pause, resume, disable, enable)", w);
		return CLI_USAGE;
	}
	if (cli_control_set(argv[1], off, why, sizeof(why)) != 0) {
		cli_error(CMD, "%s", why);
		return CLI_FATAL;
	}
	return CLI_OK;
}
