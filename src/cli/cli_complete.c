/* SPDX-License-Identifier: MIT
 *
 * cli_complete.c — `tally __complete CMD PREV CUR`, which the bash
 * completion (scripts/tally.bash) runs for its words: so that it completes
 * from the same tables the commands parse with (the command table, each
 * command's option table, the metric, view and export tables) and can
 * never lack an option, a metric or a format.
 *
 * Prints one word a line, or one line @files, @dirs, @commands or @none
 * for the shell to complete file names, directories, commands or nothing.
 * A value is completed from the option's table row: --metric and --sort
 * from the metric table, a value written "a|b|c" in the row (--format,
 * --view, --follow, -j) with its alternatives, FILE and EXP... as paths.
 * PREV "--name=" asks for the value of --name written after '=', which is
 * how an option with an optional value (--gprof=timed, --errors=bins)
 * takes one: the shell script passes that form when the word is split at
 * '=' (bash's COMP_WORDBREAKS) or not.
 */
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/cli_args.h"
#include "model/model.h"

static void metrics(bool sort_keys)
{
	if (sort_keys)
		printf("excl\nincl\nname\nobject\n");
	for (int k = 0; k < MODEL_COUNTER_0; k++)
		printf("%s\n", model_metric_info((enum model_metric)k)->name);
}

/* The row of option word `w` ("--name", "--name=..." or "-x"), or NULL. */
static const struct cli_opt *option_of(const struct cli_opt *opts, size_t n, const char *w)
{
	for (size_t i = 0; w[0] == '-' && i < n; i++) {
		size_t len = strlen(opts[i].name);
		if (w[1] == '-' && !strncmp(w + 2, opts[i].name, len) && (!w[2 + len] || w[2 + len] == '='))
			return &opts[i];
		if (w[1] && w[1] != '-' && !w[2] && opts[i].short_name == w[1])
			return &opts[i];
	}
	return NULL;
}

/* The words for the value of option o. */
static void values(const struct cli_opt *o)
{
	const char *v = o->value ? o->value : "";

	if (!strcmp(o->name, "metric"))
		metrics(false);
	else if (!strcmp(o->name, "sort"))
		metrics(true);
	else if (strchr(v, '|'))
		for (const char *p = v; *p; p += strcspn(p, "|"), p += *p == '|')
			printf("%.*s\n", (int)strcspn(p, "|"), p);
	else if (strstr(v, "FILE") || strstr(v, "EXP"))
		printf("@files\n");
	else if (strstr(v, "DIR"))
		printf("@dirs\n");
	else
		printf("@none\n");
}

int cli_complete(int argc, char **argv)
{
	const char *cmd = argc > 0 ? argv[0] : "", *prev = argc > 1 ? argv[1] : "";
	const char *cur = argc > 2 ? argv[2] : "";
	const struct cli_command *c = NULL;

	for (size_t i = 0; i < cli_ncommands; i++)
		if (!strcmp(cmd, cli_commands[i].name))
			c = &cli_commands[i];
	if (!c) {
		for (size_t i = 0; i < cli_ncommands; i++)
			printf("%s\n", cli_commands[i].name);
		printf("--help\n--version\n");
		return cli_finish_stdout("__complete", CLI_OK);
	}
	size_t n;
	const struct cli_opt *opts = c->options(&n), *o = option_of(opts, n, prev);
	size_t plen = strlen(prev);
	bool after_equals = plen > 0 && prev[plen - 1] == '=';
	if (o && ((o->has_arg == CLI_ARG_REQUIRED && !strchr(prev, '=')) ||
		  (o->has_arg != CLI_ARG_NONE && after_equals))) {
		values(o);
	} else if (cur[0] == '-') {
		for (size_t i = 0; i < n; i++) {
			if (!opts[i].help)
				continue;  /* an alias (--files), not offered */
			printf("--%s\n", opts[i].name);
			if (opts[i].short_name)
				printf("-%c\n", opts[i].short_name);
		}
	} else {
		printf("%s\n", !strcmp(c->name, "record") ? "@commands"
			       : !strcmp(c->name, "gprof") ? "@files" : "@dirs");
	}
	return cli_finish_stdout("__complete", CLI_OK);
}
