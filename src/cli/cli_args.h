/* SPDX-License-Identifier: MIT
 *
 * cli_args.h — command-line parsing for the analysis commands (report,
 * export, annotate, gprof): getopt_long over a table of options that also
 * prints the option part of --help.
 *
 * A command lists its options in one table (adding an option is one line
 * there and one case in the command's switch) and loops over
 * cli_args_next().  Options and operands may be mixed, in any order;
 * `--opt=value` and `--opt value` both work, as do unambiguous prefixes
 * (GNU getopt's rules); `--` ends the options.  Errors are one line,
 * "tally CMD: unknown option --x" or "tally CMD: --limit needs a value".
 */
#ifndef TALLY_CLI_ARGS_H
#define TALLY_CLI_ARGS_H

#include <getopt.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#define CLI_ARG_NONE no_argument
#define CLI_ARG_REQUIRED required_argument
#define CLI_ARG_OPTIONAL optional_argument    /* only as --opt=value */

struct cli_opt {
	const char *name;          /* long name without "--" */
	char short_name;           /* 'o' for -o; 0: none */
	int has_arg;               /* CLI_ARG_* */
	int id;                    /* what cli_args_next returns for it, >= 1 */
	const char *value;         /* its value in --help ("N", "M[,M...]"), or NULL */
	const char *help;          /* --help text ('\n' starts a continuation line);
	                              NULL: an alias, not listed */
};

#define CLI_ARGS_MAX 64            /* options in one table */

/* What cli_args_next returns besides option ids. */
#define CLI_ARGS_END (-1)
#define CLI_ARGS_ERROR (-2)        /* message printed: exit with CLI_USAGE */
#define CLI_ARGS_OPERAND 0         /* a non-option argument, in *val */

struct cli_args {
	const char *cmd;
	int argc;
	char **argv;
	const struct cli_opt *opts;
	size_t nopts;
	struct option longopts[CLI_ARGS_MAX + 1];
	char shortopts[2 * CLI_ARGS_MAX + 4];
	int rest;                  /* after `--`: next operand, or 0 */
};

/* Did you mean: a candidate closer to `word` than *best_d edits (an
 * insertion, a deletion, a change, two neighbours swapped) becomes *best.
 * Start with *best = NULL and *best_d = cli_suggest_limit(word). */
void cli_suggest(const char *word, const char *cand, const char **best, size_t *best_d);
/* The most edits a suggestion for `word` may be away: a third of it, at
 * least 1, plus one (the bound is exclusive). */
size_t cli_suggest_limit(const char *word);

/* Start parsing argv[1..argc-1] of command `cmd` (argv[0] is its name). */
void cli_args_init(struct cli_args *a, const char *cmd, int argc, char **argv,
		   const struct cli_opt *opts, size_t nopts);

/* The next option (its id, *val its value or NULL), operand
 * (CLI_ARGS_OPERAND, *val the argument), CLI_ARGS_END, or CLI_ARGS_ERROR
 * after printing what was wrong.  Not reentrant (getopt's state). */
int cli_args_next(struct cli_args *a, const char **val);

/* getopt_long's tables from an option table, for a command that runs its
 * own getopt_long loop (`tally record`, to stop at the program): getopt
 * returns each option's id (its short letter, or a letter of its own);
 * `prefix` starts shortopts ("+:").  An optional value is --opt=value only
 * (the short form takes none).  longopts has n + 1 slots, shortopts
 * 2 * n + strlen(prefix) + 1. */
void cli_args_getopt(const struct cli_opt *opts, size_t n, const char *prefix, struct option *longopts,
		     char *shortopts);

/* The option lines of --help, from the table. */
void cli_args_help(FILE *f, const struct cli_opt *opts, size_t nopts);

#define CLI_NOPTS(table) (sizeof(table) / sizeof((table)[0]))

#endif
