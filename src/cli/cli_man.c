/* SPDX-License-Identifier: MIT
 *
 * cli_man.c — `tally __man PAGE PART`, the parts of the man pages that
 * come from the tables (scripts/man.sh fills the templates in man/ with
 * them), so that a man page lists exactly what `--help` lists and the
 * parser takes:
 *   tally __man tally commands   the command table, one .TP a command
 *   tally __man CMD name         the NAME line of tally-CMD(1)
 *   tally __man CMD options      CMD's option table, one .TP an option:
 *                                its names (aliases, the rows without
 *                                help, beside the row above them), its
 *                                value, its help; `tally record`'s rows
 *                                say whether the outside mode and -p
 *                                refuse them; export's --format lists the
 *                                export table.
 * Text is escaped for roff: backslashes, a leading dot or quote, and a
 * dash that starts a word (an option: \- so that it prints and searches
 * as a minus).
 */
#include <ctype.h>
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/cli_args.h"
#include "cli/cli_exports.h"
#include "cli/cli_record.h"

/* Write `len` bytes of text as roff input lines: each '\n' of the text
 * ends an input line, whose leading blanks are dropped (roff fills). */
static void text(FILE *f, const char *s, size_t len)
{
	bool bol = true;

	for (size_t i = 0; i < len; i++) {
		char c = s[i];
		if (bol && (c == ' ' || c == '\t'))
			continue;
		if (bol && (c == '.' || c == '\''))
			fputs("\\&", f);
		bol = c == '\n';
		if (c == '\\')
			fputs("\\e", f);
		else if (c == '-' && (i == 0 || strchr(" \t\n([`'\"/-", s[i - 1])))
			fputs("\\-", f);
		else
			fputc(c, f);
	}
	if (!bol)
		fputc('\n', f);
}

static void line(FILE *f, const char *s)
{
	text(f, s, strlen(s));
}

/* A value as written in --help: literal words (on|off) in bold,
 * placeholders (N, EXP, DIR[:DIR]) in italics. */
static void value(FILE *f, const char *v)
{
	bool literal = false;

	for (const char *p = v; *p; p++)
		literal |= islower((unsigned char)*p);
	fputs(literal ? "\\fB" : "\\fI", f);
	for (const char *p = v; *p; p++)
		fputs(*p == '-' ? "\\-" : *p == '\\' ? "\\e" : (char[2]){ *p, 0 }, f);
	fputs("\\fR", f);
}

static void names(FILE *f, const struct cli_opt *o)
{
	if (o->short_name)
		fprintf(f, "\\fB\\-%c\\fR, ", o->short_name);
	fputs("\\fB\\-\\-", f);
	for (const char *p = o->name; *p; p++)
		fputs(*p == '-' ? "\\-" : (char[2]){ *p, 0 }, f);
	fputs("\\fR", f);
}

/* The .TP head of row i: its names, its aliases', its value. */
static void head(FILE *f, const struct cli_opt *opts, size_t n, size_t i)
{
	const struct cli_opt *o = &opts[i];

	fputs(".TP\n", f);
	names(f, o);
	for (size_t j = i + 1; j < n && !opts[j].help; j++) {
		fputs(", ", f);
		names(f, &opts[j]);
	}
	if (o->value && o->has_arg == CLI_ARG_OPTIONAL) {
		fputs("[=", f);
		value(f, o->value);
		fputs("]", f);
	} else if (o->value) {
		fputs(" ", f);
		value(f, o->value);
	}
	fputc('\n', f);
}

/* export --format: a list of the export table's rows. */
static void formats(FILE *f)
{
	line(f, "the format, one of:");
	fputs(".RS\n", f);
	for (size_t x = 0; x < cli_nexports; x++) {
		fprintf(f, ".TP\n.B %s\n", cli_exports[x].name);
		line(f, cli_exports[x].help);
	}
	fputs(".RE\n", f);
}

static void options(FILE *f, const struct cli_command *c)
{
	size_t n;
	const struct cli_opt *opts = c->options(&n);
	bool record = !strcmp(c->name, "record");

	fputs(".SH OPTIONS\n", f);
	for (size_t i = 0; i < n; i++) {
		if (!opts[i].help)
			continue;          /* an alias: beside the row above */
		head(f, opts, n, i);
		if (!strcmp(c->name, "export") && opts[i].help == cli_exports_help())
			formats(f);
		else
			line(f, opts[i].help);
		int row = record ? cli_record_opt_row(opts[i].id) : -1;
		if (row >= 0 && cli_record_opts[row].outside == CLI_REC_INSIDE)
			fputs(".br\nRefused for a statically linked program or a Go program without cgo (the "
			      "outside mode): it needs the collector inside the program.\n", f);
		else if (row >= 0 && cli_record_opts[row].outside == CLI_REC_INSIDE_RUN)
			fputs(".br\nRefused for a statically linked program or a Go program without cgo that "
			      "tally runs (the outside mode); taken with \\fB\\-p\\fR.\n", f);
		if (row >= 0 && cli_record_opts[row].attach == CLI_ATT_TRACER)
			fputs(".br\nRefused with \\fB\\-p\\fR: tracing interposes on calls the program bound "
			      "before tally arrived.\n", f);
		else if (row >= 0 && cli_record_opts[row].attach == CLI_ATT_RUN)
			fputs(".br\nRefused with \\fB\\-p\\fR: it is for a program tally runs.\n", f);
	}
}

int cli_man(int argc, char **argv)
{
	const char *page = argc > 0 ? argv[0] : "", *part = argc > 1 ? argv[1] : "";

	if (!strcmp(page, "tally") && !strcmp(part, "commands")) {
		for (size_t i = 0; i < cli_ncommands; i++) {
			printf(".TP\n.B tally %s\n", cli_commands[i].name);
			line(stdout, cli_commands[i].help);
			printf("\\(em \\fBtally\\-%s\\fR(1)\n", cli_commands[i].name);
		}
		return cli_finish_stdout("__man", CLI_OK);
	}
	for (size_t i = 0; i < cli_ncommands; i++) {
		const struct cli_command *c = &cli_commands[i];
		if (strcmp(page, c->name))
			continue;
		if (!strcmp(part, "name")) {
			printf("tally\\-%s \\- ", c->name);
			line(stdout, c->help);
		} else if (!strcmp(part, "options")) {
			options(stdout, c);
		} else {
			break;
		}
		return cli_finish_stdout("__man", CLI_OK);
	}
	fprintf(stderr, "tally __man: usage: tally __man tally commands | tally __man COMMAND name|options\n");
	return CLI_USAGE;
}
