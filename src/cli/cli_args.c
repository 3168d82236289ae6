/* SPDX-License-Identifier: MIT
 *
 * cli_args.c — getopt_long over a command's option table (see cli_args.h).
 *
 * The table becomes getopt_long's `struct option` array (val = 256 + index,
 * so ids never collide with short letters) and a short-option string in
 * "return operands in order, report errors to us" mode ("-:").  getopt's own
 * messages are off: ours name the command, as every tally message does.
 */
#include <string.h>

#include "cli/cli.h"
#include "cli/cli_args.h"

#define LONG_BASE 256

void cli_args_init(struct cli_args *a, const char *cmd, int argc, char **argv,
		   const struct cli_opt *opts, size_t nopts)
{
	size_t k = 0;

	memset(a, 0, sizeof(*a));
	a->cmd = cmd;
	a->argc = argc;
	a->argv = argv;
	a->opts = opts;
	a->nopts = nopts < CLI_ARGS_MAX ? nopts : CLI_ARGS_MAX;
	a->shortopts[k++] = '-';     /* operands come back in order, as code 1 */
	a->shortopts[k++] = ':';     /* a missing value is ':', not '?' */
	for (size_t i = 0; i < a->nopts; i++) {
		a->longopts[i] = (struct option){ opts[i].name, opts[i].has_arg, NULL,
						  LONG_BASE + (int)i };
		if (opts[i].short_name) {
			a->shortopts[k++] = opts[i].short_name;
			if (opts[i].has_arg != CLI_ARG_NONE)
				a->shortopts[k++] = ':';
			if (opts[i].has_arg == CLI_ARG_OPTIONAL)
				a->shortopts[k++] = ':';
		}
	}
	a->shortopts[k] = 0;
	opterr = 0;
	optind = 0;                  /* 0: getopt starts afresh */
}

/* The table index of getopt's return value `c`, or -1. */
static int index_of(const struct cli_args *a, int c)
{
	if (c >= LONG_BASE && c < LONG_BASE + (int)a->nopts)
		return c - LONG_BASE;
	for (size_t i = 0; c > 0 && i < a->nopts; i++)
		if (a->opts[i].short_name == c)
			return (int)i;
	return -1;
}

/* "--th" matched several long names: say which. */
static bool report_ambiguous(const struct cli_args *a, const char *text)
{
	char names[512] = "";
	size_t len = strcspn(text + 2, "="), n = 0, used = 0;

	for (size_t i = 0; i < a->nopts; i++) {
		if (strncmp(a->opts[i].name, text + 2, len) || strlen(a->opts[i].name) == len)
			continue;
		n++;
		used += (size_t)snprintf(names + used, sizeof(names) - used, "%s--%s",
					 used ? ", " : "", a->opts[i].name);
		if (used >= sizeof(names))
			used = sizeof(names) - 1;
	}
	if (n < 2)
		return false;
	cli_error(a->cmd, "ambiguous option %.*s: %s", (int)len + 2, text, names);
	return true;
}

/* The edit distance of a and b (optimal string alignment: insertions,
 * deletions, changes, adjacent swaps), or SIZE_MAX past 63 bytes. */
static size_t edit_distance(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b), d[64][64];

	if (la > 63 || lb > 63)
		return SIZE_MAX;
	for (size_t i = 0; i <= la; i++)
		d[i][0] = i;
	for (size_t j = 0; j <= lb; j++)
		d[0][j] = j;
	for (size_t i = 1; i <= la; i++)
		for (size_t j = 1; j <= lb; j++) {
			size_t v = d[i - 1][j - 1] + (a[i - 1] != b[j - 1]);
			if (d[i - 1][j] + 1 < v)
				v = d[i - 1][j] + 1;
			if (d[i][j - 1] + 1 < v)
				v = d[i][j - 1] + 1;
			if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] && d[i - 2][j - 2] + 1 < v)
				v = d[i - 2][j - 2] + 1;
			d[i][j] = v;
		}
	return d[la][lb];
}

size_t cli_suggest_limit(const char *word)
{
	size_t n = strlen(word) / 3;

	return (n ? n : 1) + 1;
}

void cli_suggest(const char *word, const char *cand, const char **best, size_t *best_d)
{
	size_t d = cand ? edit_distance(word, cand) : SIZE_MAX;

	if (d < *best_d) {
		*best = cand;
		*best_d = d;
	}
}

/* "unknown option --fucntions (did you mean --functions?)" */
static void unknown_long(const struct cli_args *a, const char *text)
{
	char word[64];
	const char *best = NULL;

	snprintf(word, sizeof(word), "%.*s", (int)strcspn(text + 2, "="), text + 2);
	size_t best_d = cli_suggest_limit(word);
	for (size_t i = 0; i < a->nopts; i++)
		cli_suggest(word, a->opts[i].name, &best, &best_d);
	if (best)
		cli_error(a->cmd, "unknown option %s (did you mean --%s?)", text, best);
	else
		cli_error(a->cmd, "unknown option %s", text);
}

static int report_error(const struct cli_args *a, int c)
{
	const char *text = optind > 0 && optind <= a->argc ? a->argv[optind - 1] : "?";
	int i = index_of(a, optopt);

	if (c == ':') {
		if (i >= 0 && optopt >= LONG_BASE)
			cli_error(a->cmd, "--%s needs a value", a->opts[i].name);
		else
			cli_error(a->cmd, "-%c needs a value", optopt);
	} else if (i >= 0 && optopt >= LONG_BASE) {
		cli_error(a->cmd, "--%s takes no value (%s)", a->opts[i].name, text);
	} else if (optopt > 0 && optopt < LONG_BASE) {
		cli_error(a->cmd, "unknown option -%c", optopt);
	} else if (text[0] == '-' && text[1] == '-') {
		if (!report_ambiguous(a, text))
			unknown_long(a, text);
	} else {
		cli_error(a->cmd, "unknown option %s", text);
	}
	return CLI_ARGS_ERROR;
}

int cli_args_next(struct cli_args *a, const char **val)
{
	*val = NULL;
	if (a->rest) {
		if (a->rest >= a->argc)
			return CLI_ARGS_END;
		*val = a->argv[a->rest++];
		return CLI_ARGS_OPERAND;
	}
	int c = getopt_long(a->argc, a->argv, a->shortopts, a->longopts, NULL);
	if (c == -1) {                          /* the end, or `--` */
		if (optind >= a->argc)
			return CLI_ARGS_END;
		a->rest = optind;
		return cli_args_next(a, val);
	}
	if (c == 1) {
		*val = optarg;
		return CLI_ARGS_OPERAND;
	}
	if (c == '?' || c == ':')
		return report_error(a, c);
	int i = index_of(a, c);
	if (i < 0)
		return report_error(a, '?');
	*val = optarg;
	return a->opts[i].id;
}

void cli_args_help(FILE *f, const struct cli_opt *opts, size_t nopts)
{
	for (size_t i = 0; i < nopts; i++) {
		const struct cli_opt *o = &opts[i];
		char head[64];
		int n;
		if (!o->help)
			continue;
		if (o->short_name)
			n = snprintf(head, sizeof(head), "-%c, --%s", o->short_name, o->name);
		else
			n = snprintf(head, sizeof(head), "--%s", o->name);
		if (o->value)
			snprintf(head + n, sizeof(head) - (size_t)n, "%s%s",
				 o->has_arg == CLI_ARG_OPTIONAL ? "[=" : " ", o->value);
		if (o->value && o->has_arg == CLI_ARG_OPTIONAL)
			strncat(head, "]", sizeof(head) - strlen(head) - 1);
		fprintf(f, "  %-20s", head);
		if (strlen(head) > 20)
			fprintf(f, "\n  %-20s", "");
		for (const char *h = o->help; *h;) {
			size_t len = strcspn(h, "\n");
			fprintf(f, "%s%.*s\n", h == o->help ? "" : "                      ", (int)len, h);
			h += len + (h[len] == '\n');
		}
	}
}

void cli_args_getopt(const struct cli_opt *opts, size_t n, const char *prefix, struct option *longopts,
		     char *shortopts)
{
	size_t k = 0;

	for (const char *p = prefix; *p; p++)
		shortopts[k++] = *p;
	for (size_t i = 0; i < n; i++) {
		longopts[i] = (struct option){ opts[i].name, opts[i].has_arg, NULL, opts[i].id };
		if (opts[i].short_name) {
			shortopts[k++] = opts[i].short_name;
			if (opts[i].has_arg == CLI_ARG_REQUIRED)
				shortopts[k++] = ':';
		}
	}
	longopts[n] = (struct option){ NULL, 0, NULL, 0 };
	shortopts[k] = 0;
}
