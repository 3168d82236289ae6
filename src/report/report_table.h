/* SPDX-License-Identifier: MIT
 *
 * report_table.h — every report view fills tables; one renderer prints them
 * as aligned text, CSV or JSON, so each view supports all three formats.
 *
 * A document is a sequence of sections; a section is either a table (rows of
 * typed cells) or a list of key/value pairs.  In JSON the document is one
 * object whose members are the sections' keys.
 */
#ifndef TALLY_REPORT_TABLE_H
#define TALLY_REPORT_TABLE_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

enum report_format { REPORT_TEXT, REPORT_CSV, REPORT_JSON };

enum report_col_type {
	COL_STR,        /* left-aligned text */
	COL_U64,        /* integer */
	COL_SEC,        /* nanoseconds, printed as seconds with 3 decimals */
	COL_PCT,        /* percentage, 2 decimals */
	COL_HEX,        /* address */
	COL_DEPTH,      /* tree depth: indents the row's next text cell; not shown in text */
	COL_RATIO,      /* a ratio, 3 decimals; "inf" when over nothing */
	COL_COUNT,      /* a metric's count or bytes: an integer; --human: 12.3K, 4.56M */
};

struct report_doc;
struct report_table;

/* A document written to `out`; NULL if out of memory. */
struct report_doc *report_doc_new(FILE *out, enum report_format fmt);
/* Text only: colour shares (COL_PCT cells: red from 10%, yellow from 1%),
 * cut cells of "name" columns to `name_width` characters (0: whole), and
 * with `human`, COL_SEC and COL_COUNT cells in human units (report_units.h;
 * the " s" of their columns' titles dropped). */
void report_doc_style(struct report_doc *d, bool colour, int name_width, bool human);
/* Text on a terminal `columns` wide: cut the cells of "name" columns
 * ("..." last) so that rows fit, unless a name width was set. */
void report_doc_fit(struct report_doc *d, int columns);
/* Whether report_doc_style asked for human units (text only). */
bool report_doc_human(const struct report_doc *d);
/* Finish the document (closes JSON) and free it. */
void report_doc_end(struct report_doc *d);

/* Out of memory while building `what` (a section): the first failure is
 * kept, as "out of memory while building WHAT"; the view goes on or stops
 * as it can.  Tables that could not grow fail the document by themselves
 * when emitted (they are dropped). */
void report_doc_fail(struct report_doc *d, const char *what);
/* The first failure, or NULL: check it before report_doc_end. */
const char *report_doc_error(const struct report_doc *d);

/* A key/value section: text prints "Key   value" lines. */
void report_kv_begin(struct report_doc *d, const char *key, const char *title);
void report_kv(struct report_doc *d, const char *key, const char *label, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
/* A numeric item: JSON and CSV get `v`; text gets `fmt`'s rendering. */
void report_kv_num(struct report_doc *d, const char *key, const char *label, double v,
		   const char *fmt, ...) __attribute__((format(printf, 5, 6)));
/* A numeric item for JSON and CSV only: the text shows it in another line. */
void report_kv_data(struct report_doc *d, const char *key, double v);
void report_kv_end(struct report_doc *d);

/* A table section.  `key` names it in JSON; `title` heads it in text.
 * Never NULL: out of memory gives a table that ignores what is put in it
 * and fails the document when emitted. */
struct report_table *report_table_new(const char *key, const char *title);
/* Add a column: `key` for CSV/JSON, `title` for text. */
void report_col(struct report_table *t, const char *key, const char *title, enum report_col_type type);
void report_row(struct report_table *t);
void report_str(struct report_table *t, const char *s);
void report_u64(struct report_table *t, uint64_t v);
void report_pct(struct report_table *t, double v);
/* A number that may be negative or fractional, shown as its column's type
 * shows numbers (COL_SEC: v ns as seconds; COL_U64: rounded; COL_RATIO). */
void report_num(struct report_table *t, double v);
/* A COL_DEPTH cell: the depth of a tree row, which indents its next string
 * cell in text. */
void report_depth(struct report_table *t, int depth);
/* Print and free the table. */
void report_table_emit(struct report_doc *d, struct report_table *t);

/* A free-form line of text (text format only; notes and footers). */
void report_note(struct report_doc *d, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#endif
