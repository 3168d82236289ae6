/* SPDX-License-Identifier: MIT
 *
 * report_functions.c — the function table (<Total> first, then functions by
 * exclusive or inclusive metric) and the callers-callees view of a function.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/report.h"
#include "symbols/sym.h"

static const struct model_func_metrics *sort_fm;
static const struct model *sort_m;
static enum model_metric sort_metric;
static enum report_sort sort_key;

/* By the sort key (largest value first, names A to Z), then inclusive. */
static int cmp_func(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	int c = 0;

	if (sort_key == REPORT_SORT_NAME)
		c = strcmp(sort_m->funcs[x].name, sort_m->funcs[y].name);
	else if (sort_key == REPORT_SORT_OBJECT)
		c = strcmp(sort_m->funcs[x].object, sort_m->funcs[y].object);
	if (c)
		return c;
	uint64_t vx = sort_key == REPORT_SORT_EXCL ? sort_fm[x].excl[sort_metric] : sort_fm[x].incl[sort_metric];
	uint64_t vy = sort_key == REPORT_SORT_EXCL ? sort_fm[y].excl[sort_metric] : sort_fm[y].incl[sort_metric];
	if (vx != vy)
		return vx > vy ? -1 : 1;
	uint64_t ix = sort_fm[x].incl[sort_metric], iy = sort_fm[y].incl[sort_metric];
	if (ix != iy)
		return ix > iy ? -1 : 1;
	return x < y ? -1 : 1;
}

static bool has_any(const struct model_func_metrics *fm, const struct report_opts *o)
{
	for (int i = 0; i < o->nmetrics; i++)
		if (fm->incl[o->metrics[i]])
			return true;
	return false;
}

static const char *const column_names[] = { "excl", "incl", "name", "object", "file", "aliases" };
enum { C_EXCL, C_INCL, C_NAME, C_OBJECT, C_FILE, C_ALIASES, C_COUNT };

/* The columns of `list` (NULL: the default, with the aliases but in text,
 * which keeps its width) into cols; their number, or -1 with the unknown
 * name in err. */
static int columns_parse(const char *list, bool text, int *cols, char *err, size_t errlen)
{
	char buf[256];
	int n = 0;

	snprintf(buf, sizeof(buf), "%s", list ? list : text ? "excl,incl,name,object" : "excl,incl,name,object,aliases");
	for (char *tok = strtok(buf, ","); tok; tok = strtok(NULL, ",")) {
		int k = 0;
		while (k < C_COUNT && strcmp(tok, column_names[k]))
			k++;
		if (k == C_COUNT || n == 16) {
			snprintf(err, errlen, "'%s' (expected excl, incl, name, object, file or aliases)", tok);
			return -1;
		}
		cols[n++] = k;
	}
	return n;
}

int report_columns_check(const char *list, char *err, size_t errlen)
{
	int cols[16];

	return columns_parse(list, true, cols, err, errlen) < 0 ? -1 : 0;
}

/* "file:line" of function f's first instruction, a Java method's source file, or
 * "" without lines. */
static const char *func_file(const struct model *m, uint32_t f, char *buf, size_t len)
{
	const struct model_func *fn = &m->funcs[f];
	const char *file;
	int line;
	bool mismatch;
	char err[256];

	buf[0] = 0;
	if ((fn->flags & MODEL_FUNC_JAVA) && fn->link)
		snprintf(buf, len, "%s", fn->link);      /* a Java method's "pkg/Class.java" */
	if (fn->flags & MODEL_FUNC_ARTIFICIAL || !fn->path[0])
		return buf;
	struct sym_object *obj = sym_object_get(fn->path, NULL, 0, &mismatch, err, sizeof(err));
	if (obj && sym_object_line(obj, fn->addr, &file, &line))
		snprintf(buf, len, "%s:%d", file, line);
	return buf;
}

void report_functions(struct report_doc *d, const struct model *m, const struct report_opts *o)
{
	struct model_func_metrics *fm = calloc(m->nfuncs, sizeof(*fm));
	uint32_t *order = malloc(m->nfuncs * sizeof(*order));
	char buf[4096], err[128];
	int cols[16];
	int ncols = columns_parse(o->columns, o->fmt == REPORT_TEXT, cols, err, sizeof(err));
	size_t n = 0;

	if (!fm || !order || ncols < 0 || model_func_metrics(m, fm)) {
		report_doc_fail(d, "the function table");   /* columns were checked by the command */
		free(fm);
		free(order);
		return;
	}
	for (uint32_t i = 1; i < m->nfuncs; i++)
		if (has_any(&fm[i], o))
			order[n++] = i;
	sort_fm = fm;
	sort_m = m;
	sort_metric = o->sort_metric >= 0 ? (enum model_metric)o->sort_metric : o->metrics[0];
	sort_key = o->sort;
	qsort(order, n, sizeof(*order), cmp_func);

	struct report_table *t = report_table_new("functions", "Functions");
	for (int c = 0; c < ncols; c++) {
		switch (cols[c]) {
		case C_EXCL: report_func_metric_cols(t, o, "excl", "Excl."); break;
		case C_INCL: report_func_metric_cols(t, o, "incl", "Incl."); break;
		case C_NAME: report_col(t, "name", "Name", COL_STR); break;
		case C_OBJECT: report_col(t, "object", "Object", COL_STR); break;
		case C_FILE: report_col(t, "file", "File", COL_STR); break;
		case C_ALIASES: report_col(t, "aliases", "Aliases", COL_STR); break;
		}
	}
	size_t shown = o->limit && o->limit < n ? o->limit : n;
	for (size_t i = 0; i <= shown; i++) {
		uint32_t f = i ? order[i - 1] : MODEL_TOTAL;   /* <Total> first */
		report_row(t);
		for (int c = 0; c < ncols; c++) {
			switch (cols[c]) {
			case C_EXCL: report_func_metric_cells(t, m, o, i ? fm[f].excl : fm[f].incl, f, !i); break;
			case C_INCL: report_func_metric_cells(t, m, o, fm[f].incl, f, true); break;
			case C_NAME: report_str(t, i ? report_func_label(m, f, buf, sizeof(buf)) : "<Total>"); break;
			case C_OBJECT: report_str(t, i ? m->funcs[f].object : ""); break;
			case C_FILE: report_str(t, i ? func_file(m, f, buf, sizeof(buf)) : ""); break;
			case C_ALIASES: report_str(t, i && m->funcs[f].aliases ? m->funcs[f].aliases : ""); break;
			}
		}
	}
	report_table_emit(d, t);
	if (shown < n)
		report_note(d, "(%zu more functions below; --limit 0 shows all)", n - shown);
	free(fm);
	free(order);
}

static void edge_table(struct report_doc *d, const struct model *m, const struct report_opts *o,
		       const char *key, const char *title, const struct model_edge *e, size_t n)
{
	char buf[4096];
	struct report_table *t = report_table_new(key, title);

	report_metric_cols(t, o, "attr", "Attr.");
	report_col(t, "name", "Name", COL_STR);
	for (size_t i = 0; i < n; i++) {
		report_row(t);
		report_metric_cells(t, m, o, e[i].v);
		report_str(t, report_func_label(m, e[i].func, buf, sizeof(buf)));
	}
	report_table_emit(d, t);
}

int report_callers(struct report_doc *d, const struct model *m, const struct report_opts *o,
		   const char *name)
{
	uint32_t ids[64];
	size_t n = model_func_find(m, name, ids, 64);
	char buf[4096];

	if (!n)
		return -1;
	struct model_func_metrics *fm = calloc(m->nfuncs, sizeof(*fm));
	if (!fm || model_func_metrics(m, fm)) {
		report_doc_fail(d, "the callers and callees");
		free(fm);
		return 0;
	}
	for (size_t i = 0; i < n && i < 64; i++) {
		struct model_edge *callers, *callees;
		size_t nc, ne;
		uint32_t f = ids[i];
		if (model_callers_callees(m, f, o->metrics[0], &callers, &nc, &callees, &ne)) {
			report_doc_fail(d, "the callers and callees");
			break;
		}
		char title[4200];
		snprintf(title, sizeof(title), "Callers of %s", report_func_label(m, f, buf, sizeof(buf)));
		edge_table(d, m, o, "callers", title, callers, nc);
		struct report_table *t = report_table_new("function", report_func_label(m, f, buf, sizeof(buf)));
		report_func_metric_cols(t, o, "excl", "Excl.");
		report_func_metric_cols(t, o, "incl", "Incl.");
		report_col(t, "name", "Name", COL_STR);
		if (m->funcs[f].aliases)
			report_col(t, "aliases", "Aliases", COL_STR);
		report_row(t);
		report_func_metric_cells(t, m, o, fm[f].excl, f, false);
		report_func_metric_cells(t, m, o, fm[f].incl, f, true);
		report_str(t, report_func_label(m, f, buf, sizeof(buf)));
		if (m->funcs[f].aliases)
			report_str(t, m->funcs[f].aliases);
		report_table_emit(d, t);
		snprintf(title, sizeof(title), "Callees of %s", report_func_label(m, f, buf, sizeof(buf)));
		edge_table(d, m, o, "callees", title, callees, ne);
		free(callers);
		free(callees);
	}
	free(fm);
	return 0;
}
