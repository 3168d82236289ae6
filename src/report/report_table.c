/* SPDX-License-Identifier: MIT
 *
 * report_table.c — rendering report sections as text, CSV or JSON (see
 * report_table.h).  Cells are stored as strings already formatted for their
 * type, with the raw number kept for JSON.  Out of memory is sticky, as
 * stdio's errors are: a table that could not grow ignores what follows and
 * is dropped when emitted, and the document remembers why
 * (report_doc_error).
 */
#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "report/report_clean.h"
#include "report/report_json_write.h"
#include "report/report_table.h"
#include "report/report_units.h"

struct cell {
	char *text;
	bool number;             /* emit unquoted in JSON */
	bool has_value;          /* a COL_SEC or COL_COUNT number: value holds it */
	int indent;
	double value;
};

struct col {
	char *key, *title;
	enum report_col_type type;
};

struct report_table {
	char *key, *title;
	struct col *cols;
	int ncols;
	struct cell *cells;      /* nrows * ncols */
	size_t nrows, cap;
	int cur;                 /* next column of the current row */
	int depth;               /* indentation for the row's next string cell */
	bool failed;             /* out of memory: the table is dropped */
};

/* What report_table_new returns when it cannot allocate: every call on it
 * does nothing, and emitting it fails the document. */
static struct report_table failed_table = { .key = "table", .failed = true };

struct report_doc {
	FILE *out;
	enum report_format fmt;
	int sections;
	int kv_items;
	char err[160];           /* the first failure, "" if none */
	bool colour;             /* text: colour the shares */
	int name_width;          /* text: cut "name" cells to this (0: no) */
	int fit_cols;            /* text: cut "name" cells so rows fit this (0: no) */
	bool human;              /* text: times and counts in human units */
};

void report_doc_style(struct report_doc *d, bool colour, int name_width, bool human)
{
	d->colour = colour && d->fmt == REPORT_TEXT;
	d->name_width = name_width;
	d->human = human && d->fmt == REPORT_TEXT;
}

bool report_doc_human(const struct report_doc *d)
{
	return d && d->human;
}

/* --human: COL_SEC and COL_COUNT cells rewritten in human units; their
 * columns' titles lose the " s" the units now say. */
static void humanize(struct report_table *t)
{
	char buf[48];

	for (int c = 0; c < t->ncols; c++) {
		enum report_col_type type = t->cols[c].type;
		if (type != COL_SEC && type != COL_COUNT)
			continue;
		size_t tl = strlen(t->cols[c].title);
		if (type == COL_SEC && tl > 2 && !strcmp(t->cols[c].title + tl - 2, " s"))
			t->cols[c].title[tl - 2] = 0;
		for (size_t r = 0; r < t->nrows; r++) {
			struct cell *x = &t->cells[r * (size_t)t->ncols + (size_t)c];
			if (!x->has_value)
				continue;
			if (type == COL_SEC)
				report_units_time(buf, sizeof(buf), x->value);
			else
				report_units_count(buf, sizeof(buf), x->value);
			char *text = strdup(buf);
			if (!text)
				continue;       /* the exact value stays */
			free(x->text);
			x->text = text;
		}
	}
}

void report_doc_fit(struct report_doc *d, int columns)
{
	if (d)
		d->fit_cols = d->fmt == REPORT_TEXT ? columns : 0;
}

/* Cut the cells of "name" columns to w characters, "..." last (UTF-8
 * sequences are not split). */
static void cut_names(struct report_table *t, size_t w)
{
	for (int c = 0; c < t->ncols && w >= 8; c++) {
		if (strcmp(t->cols[c].key, "name"))
			continue;
		for (size_t r = 0; r < t->nrows; r++) {
			char *s = t->cells[r * (size_t)t->ncols + (size_t)c].text;
			if (!s || strlen(s) <= w)
				continue;
			size_t k = w - 3;
			while (k > 0 && ((unsigned char)s[k] & 0xc0) == 0x80)
				k--;
			memcpy(s + k, "...", 4);
		}
	}
}

/* Text and CSV: every cell's text through the neutraliser (names come
 * from the program: report_clean.c).  Out of memory, a bad byte becomes
 * '?' in place and the document fails. */
static void clean_cells(struct report_doc *d, struct report_table *t)
{
	for (size_t i = 0; i < t->nrows * (size_t)t->ncols; i++) {
		char *s = t->cells[i].text;
		if (!s || !report_clean_needed(s, false))
			continue;
		char *c = report_clean_dup(s, false);
		if (c) {
			free(s);
			t->cells[i].text = c;
			continue;
		}
		for (unsigned char *p = (unsigned char *)s; *p; p++)
			if (*p < 0x20 || *p >= 0x7f)
				*p = '?';
		report_doc_fail(d, t->key);
	}
}

/* fputs of the clean form of s (report_clean.c) on d's stream; out of
 * memory, '?' for bad bytes and the document fails. */
static void clean_fputs(struct report_doc *d, const char *s, bool keep_newlines)
{
	char buf[1024];
	FILE *f = d->out;

	if (!report_clean_needed(s, keep_newlines)) {
		fputs(s, f);
		return;
	}
	char *c = 4 * strlen(s) < sizeof(buf) ? buf : malloc(4 * strlen(s) + 1);
	if (!c) {
		for (; *s; s++)
			fputc((unsigned char)*s < 0x20 && *s != '\n' ? '?' : *s, f);
		report_doc_fail(d, "a name");
		return;
	}
	report_clean(c, s, keep_newlines);
	fputs(c, f);
	if (c != buf)
		free(c);
}

/* A share in colour: red from 10%, yellow from 1%, dim below. */
static void coloured_pct(FILE *f, const char *s, int width)
{
	double v = atof(s);
	const char *on = v >= 10 ? "\033[1;31m" : v >= 1 ? "\033[33m" : "\033[2m";

	fprintf(f, "%*s%s%s\033[0m  ", width - (int)strlen(s), "", on, s);
}

/* A copy of s, or NULL (and the table failed). */
static char *table_strdup(struct report_table *t, const char *s)
{
	char *p = strdup(s ? s : "");
	if (!p)
		t->failed = true;
	return p;
}

struct report_doc *report_doc_new(FILE *out, enum report_format fmt)
{
	struct report_doc *d = calloc(1, sizeof(*d));

	if (!d)
		return NULL;
	d->out = out;
	d->fmt = fmt;
	if (fmt == REPORT_JSON)
		fputs("{", out);
	return d;
}

void report_doc_fail(struct report_doc *d, const char *what)
{
	if (!d->err[0])
		snprintf(d->err, sizeof(d->err), "out of memory while building %s", what);
}

const char *report_doc_error(const struct report_doc *d)
{
	return d->err[0] ? d->err : NULL;
}

void report_doc_end(struct report_doc *d)
{
	if (d->fmt == REPORT_JSON)
		fputs("\n}\n", d->out);
	free(d);
}

/* v with up to 9 decimals (a time in seconds to the ns), trailing zeros
 * and a lone point dropped: CSV and JSON numbers are exact, not rounded as
 * text shows them. */
static const char *exact_num(char *buf, size_t len, double v)
{
	snprintf(buf, len, "%.9f", v);
	char *e = buf + strlen(buf);
	while (e > buf && e[-1] == '0')
		*--e = 0;
	if (e > buf && e[-1] == '.')
		*--e = 0;
	if (!strcmp(buf, "-0"))
		strcpy(buf, "0");
	return buf;
}

static void csv_field(FILE *f, const char *s)
{
	if (!strpbrk(s, ",\"\n")) {
		fputs(s, f);
		return;
	}
	fputc('"', f);
	for (; *s; s++) {
		if (*s == '"')
			fputc('"', f);
		fputc(*s, f);
	}
	fputc('"', f);
}

static void section_begin(struct report_doc *d, const char *key, const char *title)
{
	if (d->fmt == REPORT_JSON) {
		fputs(d->sections ? ",\n" : "\n", d->out);
		report_json_string(d->out, key);
		fputs(": ", d->out);
	} else if (d->fmt == REPORT_TEXT && title) {
		fputs(d->sections ? "\n" : "", d->out);
		clean_fputs(d, title, false);
		fputc('\n', d->out);
	} else if (d->fmt == REPORT_CSV && d->sections) {
		fputc('\n', d->out);
	}
	d->sections++;
}

void report_kv_begin(struct report_doc *d, const char *key, const char *title)
{
	section_begin(d, key, title);
	d->kv_items = 0;
	if (d->fmt == REPORT_JSON)
		fputs("{", d->out);
	else if (d->fmt == REPORT_CSV)
		fputs("key,value\n", d->out);
}

static void kv_item(struct report_doc *d, const char *key, const char *label, const char *text,
		    const double *num)
{
	char buf[64];

	switch (d->fmt) {
	case REPORT_TEXT:
		fprintf(d->out, "  %-18s ", label);
		clean_fputs(d, text, false);
		fputc('\n', d->out);
		break;
	case REPORT_CSV:
		csv_field(d->out, key);
		fputc(',', d->out);
		if (num) {
			csv_field(d->out, exact_num(buf, sizeof(buf), *num));
		} else if (!report_clean_needed(text, false)) {
			csv_field(d->out, text);
		} else {
			char *c = report_clean_dup(text, false);
			if (!c)
				report_doc_fail(d, key);
			csv_field(d->out, c ? c : "?");
			free(c);
		}
		fputc('\n', d->out);
		break;
	case REPORT_JSON:
		fputs(d->kv_items ? ", " : "", d->out);
		report_json_string(d->out, key);
		fputs(": ", d->out);
		if (num)
			fputs(isfinite(*num) ? exact_num(buf, sizeof(buf), *num) : "null", d->out);
		else
			report_json_string(d->out, text);
		break;
	}
	d->kv_items++;
}

void report_kv(struct report_doc *d, const char *key, const char *label, const char *fmt, ...)
{
	char buf[2048];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	kv_item(d, key, label, buf, NULL);
}

void report_kv_num(struct report_doc *d, const char *key, const char *label, double v,
		   const char *fmt, ...)
{
	char buf[2048];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	kv_item(d, key, label, buf, &v);
}

void report_kv_data(struct report_doc *d, const char *key, double v)
{
	if (d->fmt != REPORT_TEXT)
		kv_item(d, key, key, "", &v);
}

void report_kv_end(struct report_doc *d)
{
	if (d->fmt == REPORT_JSON)
		fputs("}", d->out);
}

struct report_table *report_table_new(const char *key, const char *title)
{
	struct report_table *t = calloc(1, sizeof(*t));

	if (!t)
		return &failed_table;
	t->key = table_strdup(t, key);
	t->title = title ? table_strdup(t, title) : NULL;
	return t;
}

void report_col(struct report_table *t, const char *key, const char *title, enum report_col_type type)
{
	if (t->failed)
		return;
	struct col *cols = realloc(t->cols, (size_t)(t->ncols + 1) * sizeof(*t->cols));
	if (!cols) {
		t->failed = true;
		return;
	}
	t->cols = cols;
	t->cols[t->ncols++] = (struct col){ table_strdup(t, key), table_strdup(t, title), type };
}

void report_row(struct report_table *t)
{
	if (t->failed)
		return;
	if (t->nrows == t->cap) {
		size_t cap = t->cap ? t->cap * 2 : 64;
		struct cell *cells = realloc(t->cells, cap * (size_t)t->ncols * sizeof(*t->cells));
		if (!cells) {
			t->failed = true;
			return;
		}
		t->cells = cells;
		t->cap = cap;
	}
	memset(&t->cells[t->nrows * (size_t)t->ncols], 0, (size_t)t->ncols * sizeof(*t->cells));
	t->nrows++;
	t->cur = 0;
	t->depth = 0;
}

/* The next cell of the current row, or NULL if the table failed. */
static struct cell *next_cell(struct report_table *t)
{
	if (t->failed)
		return NULL;
	if (!t->nrows || t->cur >= t->ncols)
		abort();       /* a view filled more cells than it declared: our bug */
	return &t->cells[(t->nrows - 1) * (size_t)t->ncols + (size_t)t->cur++];
}

void report_str(struct report_table *t, const char *s)
{
	struct cell *c = next_cell(t);

	if (!c)
		return;
	c->text = table_strdup(t, s);
	c->indent = t->depth;
	t->depth = 0;
}

void report_depth(struct report_table *t, int depth)
{
	report_u64(t, (uint64_t)depth);
	t->depth = depth;
}

void report_u64(struct report_table *t, uint64_t v)
{
	char buf[48];
	struct cell *c = next_cell(t);

	if (!c)
		return;
	enum report_col_type type = t->cols[t->cur - 1].type;
	if (type == COL_SEC)
		snprintf(buf, sizeof(buf), "%.3f", (double)v / 1e9);
	else if (type == COL_HEX)
		snprintf(buf, sizeof(buf), "0x%llx", (unsigned long long)v);
	else
		snprintf(buf, sizeof(buf), "%llu", (unsigned long long)v);
	c->text = table_strdup(t, buf);
	c->number = type != COL_HEX;
	c->has_value = type == COL_SEC || type == COL_COUNT;
	c->value = (double)v;
}

void report_pct(struct report_table *t, double v)
{
	char buf[32];
	struct cell *c = next_cell(t);

	if (!c)
		return;
	snprintf(buf, sizeof(buf), "%.2f", v);
	c->text = table_strdup(t, buf);
	c->number = true;
}

void report_num(struct report_table *t, double v)
{
	char buf[48];
	struct cell *c = next_cell(t);

	if (!c)
		return;
	enum report_col_type type = t->cols[t->cur - 1].type;
	c->number = isfinite(v);
	c->has_value = isfinite(v) && (type == COL_SEC || type == COL_COUNT);
	c->value = v;
	if (!isfinite(v))
		snprintf(buf, sizeof(buf), "%s", isnan(v) ? "" : v > 0 ? "inf" : "-inf");
	else if (type == COL_SEC)
		snprintf(buf, sizeof(buf), "%.3f", v / 1e9);
	else if (type == COL_PCT)
		snprintf(buf, sizeof(buf), "%.2f", v);
	else if (type == COL_RATIO)
		snprintf(buf, sizeof(buf), "%.3f", v);
	else
		snprintf(buf, sizeof(buf), "%.0f", v);
	if (buf[0] == '-' && !buf[strspn(buf + 1, "0.") + 1])
		memmove(buf, buf + 1, strlen(buf));    /* below the resolution: 0, not -0.000 */
	c->text = table_strdup(t, buf);
}

void report_note(struct report_doc *d, const char *fmt, ...)
{
	va_list ap;

	char *text = NULL;

	if (d->fmt != REPORT_TEXT)
		return;
	va_start(ap, fmt);
	int n = vasprintf(&text, fmt, ap);
	va_end(ap);
	if (n < 0) {
		report_doc_fail(d, "a note");
		return;
	}
	clean_fputs(d, text, true);
	free(text);
	fputc('\n', d->out);
}

/* On a terminal: the "name" column cut so that a row fits d->fit_cols
 * (never under 16 characters: a narrow terminal wraps instead); w[] is
 * each column's width, the name's updated. */
static void fit_names(struct report_doc *d, struct report_table *t, size_t *w)
{
	size_t others = 0;
	int name = -1;

	for (int c = 0; c < t->ncols; c++) {
		if (t->cols[c].type == COL_DEPTH)
			continue;
		if (!strcmp(t->cols[c].key, "name"))
			name = c;
		else
			others += w[c] + (c == t->ncols - 1 ? 0 : 2);
	}
	if (name < 0)
		return;
	size_t room = (size_t)d->fit_cols > others + 2 + 1 ? (size_t)d->fit_cols - others - 2 - 1 : 0;
	if (room < 16)
		room = 16;
	if (w[name] <= room)
		return;
	cut_names(t, room);
	w[name] = strlen(t->cols[name].title);
	for (size_t r = 0; r < t->nrows; r++) {
		struct cell *x = &t->cells[r * (size_t)t->ncols + (size_t)name];
		size_t n = strlen(x->text ? x->text : "") + 2 * (size_t)x->indent;
		if (n > w[name])
			w[name] = n;
	}
}

static void emit_text(struct report_doc *d, struct report_table *t)
{
	size_t *w = calloc((size_t)t->ncols + 1, sizeof(*w));

	if (!w) {
		report_doc_fail(d, t->key);
		return;
	}
	clean_cells(d, t);
	if (d->name_width)
		cut_names(t, (size_t)d->name_width);
	if (d->human)
		humanize(t);
	for (int c = 0; c < t->ncols; c++)
		w[c] = strlen(t->cols[c].title);
	for (size_t r = 0; r < t->nrows; r++)
		for (int c = 0; c < t->ncols; c++) {
			struct cell *x = &t->cells[r * (size_t)t->ncols + (size_t)c];
			size_t n = strlen(x->text ? x->text : "") + 2 * (size_t)x->indent;
			if (n > w[c])
				w[c] = n;
		}
	if (d->fit_cols && !d->name_width)
		fit_names(d, t, w);
	for (int c = 0; c < t->ncols; c++) {
		bool last = c == t->ncols - 1;
		if (t->cols[c].type == COL_DEPTH)
			continue;
		if (t->cols[c].type == COL_STR && last)
			fputs(t->cols[c].title, d->out);
		else if (t->cols[c].type == COL_STR)
			fprintf(d->out, "%-*s  ", (int)w[c], t->cols[c].title);
		else
			fprintf(d->out, "%*s  ", (int)w[c], t->cols[c].title);
	}
	fputc('\n', d->out);
	for (size_t r = 0; r < t->nrows; r++) {
		for (int c = 0; c < t->ncols; c++) {
			struct cell *x = &t->cells[r * (size_t)t->ncols + (size_t)c];
			const char *s = x->text ? x->text : "";
			bool last = c == t->ncols - 1;
			if (t->cols[c].type == COL_DEPTH)
				continue;
			if (t->cols[c].type == COL_STR) {
				fprintf(d->out, "%*s", 2 * x->indent, "");
				if (last)
					fputs(s, d->out);
				else
					fprintf(d->out, "%-*s  ", (int)(w[c] - 2 * (size_t)x->indent), s);
			} else if (d->colour && t->cols[c].type == COL_PCT && *s) {
				coloured_pct(d->out, s, (int)w[c]);
			} else {
				fprintf(d->out, "%*s  ", (int)w[c], s);
			}
		}
		fputc('\n', d->out);
	}
	free(w);
}

/* CSV and JSON: a COL_SEC cell's exact value (seconds to the ns, trailing
 * zeros dropped), where text shows 3 decimals; other cells as shown. */
static const char *exact_text(const struct report_table *t, int c, const struct cell *x, char *buf, size_t len)
{
	if (t->cols[c].type != COL_SEC || !x->has_value)
		return x->text ? x->text : "";
	return exact_num(buf, len, x->value / 1e9);
}

static void emit_csv(struct report_doc *d, struct report_table *t)
{
	char buf[64];

	clean_cells(d, t);
	for (int c = 0; c < t->ncols; c++) {
		if (c)
			fputc(',', d->out);
		csv_field(d->out, t->cols[c].key);
	}
	fputc('\n', d->out);
	for (size_t r = 0; r < t->nrows; r++) {
		for (int c = 0; c < t->ncols; c++) {
			struct cell *x = &t->cells[r * (size_t)t->ncols + (size_t)c];
			if (c)
				fputc(',', d->out);
			csv_field(d->out, exact_text(t, c, x, buf, sizeof(buf)));
		}
		fputc('\n', d->out);
	}
}

static void emit_json(struct report_doc *d, struct report_table *t)
{
	char buf[64];

	fputs("[", d->out);
	for (size_t r = 0; r < t->nrows; r++) {
		fputs(r ? ",\n  {" : "\n  {", d->out);
		for (int c = 0; c < t->ncols; c++) {
			struct cell *x = &t->cells[r * (size_t)t->ncols + (size_t)c];
			if (c)
				fputs(", ", d->out);
			report_json_string(d->out, t->cols[c].key);
			fputs(": ", d->out);
			if (x->number && x->text)
				fputs(exact_text(t, c, x, buf, sizeof(buf)), d->out);
			else
				report_json_string(d->out, x->text ? x->text : "");
		}
		fputs("}", d->out);
	}
	fputs("\n]", d->out);
}

static void emit(struct report_doc *d, struct report_table *t)
{
	section_begin(d, t->key, t->title);
	if (d->fmt == REPORT_TEXT)
		emit_text(d, t);
	else if (d->fmt == REPORT_CSV)
		emit_csv(d, t);
	else
		emit_json(d, t);
}

void report_table_emit(struct report_doc *d, struct report_table *t)
{
	if (t->failed) {
		report_doc_fail(d, t->key ? t->key : "a table");
		if (t == &failed_table)
			return;
	} else {
		emit(d, t);
	}
	for (size_t i = 0; i < t->nrows * (size_t)t->ncols; i++)
		free(t->cells[i].text);
	for (int c = 0; c < t->ncols; c++) {
		free(t->cols[c].key);
		free(t->cols[c].title);
	}
	free(t->cells);
	free(t->cols);
	free(t->key);
	free(t->title);
	free(t);
}
