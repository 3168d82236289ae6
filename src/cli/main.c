/* SPDX-License-Identifier: MIT
 *
 * main.c — `tally CMD ...`: the command table and the helpers every command
 * shares (messages, the library directory, checked stdout).
 */
#include <errno.h>
#include <libgen.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli.h"
#include "cli/cli_progress.h"
#include "format/exp_launch.h"

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

static void vmsg(const char *kind, const char *cmd, const char *fmt, va_list ap)
{
	fflush(stdout);
	cli_progress_hide();
	fprintf(stderr, "tally %s: %s", cmd, kind);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
}

void cli_error(const char *cmd, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vmsg("", cmd, fmt, ap);
	va_end(ap);
}

void cli_warn(const char *cmd, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vmsg("warning: ", cmd, fmt, ap);
	va_end(ap);
}

const char *cli_lib_dir(void)
{
	static char dir[PATH_MAX];
	char exe[PATH_MAX];
	const char *env = getenv(EXP_ENV_LIB_DIR);

	if (env && *env)
		return env;
	if (!dir[0]) {
		ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
		if (n <= 0)
			return ".";
		exe[n] = 0;
		snprintf(dir, sizeof(dir), "%s/../lib", dirname(exe));
	}
	return dir;
}

int cli_finish_stdout(const char *cmd, int rc)
{
	if (fflush(stdout) != 0 || ferror(stdout)) {
		if (errno != EPIPE)
			cli_error(cmd, "writing the output: %s", strerror(errno));
		return CLI_FATAL;
	}
	return rc;
}

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
