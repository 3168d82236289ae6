/* SPDX-License-Identifier: MIT
 *
 * cli_exports.h — the formats of `tally export`, one row each
 * (cli_exports.c): the --format value, its --help text, what it needs, and
 * the writer.  cmd_export.c builds its --format check, --help and dispatch
 * from the rows, and the completion (cli_complete.c) its words.
 */
#ifndef TALLY_CLI_EXPORTS_H
#define TALLY_CLI_EXPORTS_H

#include <stddef.h>
#include <stdio.h>

#include "model/model.h"

struct cli_input;

#define CLI_EXPORT_FILE 0x1        /* writes a file, not a stream: needs -o */
#define CLI_EXPORT_EVENTS 0x2      /* needs the events in time order (keep_events) */
#define CLI_EXPORT_ARCS 0x4        /* needs call arcs (-pg, -finstrument-functions) */
#define CLI_EXPORT_METRIC 0x8      /* weighs one metric, --metric's */

/* What a writer is given. */
struct cli_export_ctx {
	FILE *out;                 /* NULL for a CLI_EXPORT_FILE format */
	const char *path;          /* -o FILE, or NULL */
	const struct cli_input *in;
	enum model_metric metric;  /* --metric (default cpu) */
};

struct cli_export {
	const char *name;          /* --format NAME */
	const char *help;          /* --help text, '\n' between lines */
	unsigned needs;            /* CLI_EXPORT_* */
	/* Write; 0, or -1 with errno (ENOMEM, or the write's). */
	int (*write)(const struct cli_export_ctx *c);
};

extern const struct cli_export cli_exports[];
extern const size_t cli_nexports;

/* The row named `name`, or NULL. */
const struct cli_export *cli_export_find(const char *name);
/* "collapsed|arcs|...": every name, '|' between (static). */
const char *cli_exports_names(void);
/* --format's help: each format's name and help (static). */
const char *cli_exports_help(void);

#endif
