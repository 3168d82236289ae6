/* SPDX-License-Identifier: MIT
 *
 * cli_views.h — the views of `tally report`, one row each (cli_views.c):
 * the option that asks for it, its --help line, what it needs loaded, and
 * the function that renders it.  cmd_report.c builds its option table,
 * its one-view rule and its dispatch from these rows, and the completion
 * (cli_complete.c) its words, so adding a view is one row and one function.
 *
 * Two view options are one view when their rows render with the same
 * function (--by-file and its alias --files; --tree and --inverted, the
 * tree bottom-up); each view excludes every view rendered otherwise.
 */
#ifndef TALLY_CLI_VIEWS_H
#define TALLY_CLI_VIEWS_H

#include <stdbool.h>
#include <stddef.h>

struct model;
struct report_doc;
struct report_opts;

/* What a view needs from the load (cli_input). */
#define CLI_VIEW_ALL_PROCESSES 0x1 /* a job's launcher processes too */
#define CLI_VIEW_FUNC_ARG 0x2      /* its value names a function: one the
                                      profile lacks is refused before the
                                      overview is printed */
#define CLI_VIEW_MATCH 0x4         /* an MPI job's messages matched send to
                                      receive (model_options.match_messages) */

/* What a renderer is given. */
struct cli_view_ctx {
	const char *cmd;           /* "report", for messages */
	struct report_doc *d;
	const struct model *m;
	const struct report_opts *o;
	const char *arg;           /* the option's value, or NULL */
};

struct cli_view {
	const char *option;        /* long option, without "--" */
	int has_arg;               /* CLI_ARG_* */
	const char *value;         /* CLI_ARG_REQUIRED: its value in --help ("FUNC") */
	const char *values;        /* CLI_ARG_OPTIONAL: the values taken, '|' between
	                              (--help, the man page and completion show them) */
	const char *help;          /* --help text; NULL: an alias, not listed */
	unsigned needs;            /* CLI_VIEW_* */
	unsigned tree_flags;       /* added to report_opts.tree_flags (--inverted) */
	/* Render into c->d; CLI_OK, or CLI_FATAL after a one-line message. */
	int (*render)(const struct cli_view_ctx *c);
};

extern const struct cli_view cli_views[];
extern const size_t cli_nviews;

/* The default view's row (--functions). */
#define CLI_VIEW_DEFAULT 0

/* Do rows a and b show the same view? */
bool cli_view_same(size_t a, size_t b);

/* Is val a value row r takes (NULL: the option without one)? */
bool cli_view_value_ok(size_t r, const char *val);

#endif
