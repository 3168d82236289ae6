/* SPDX-License-Identifier: MIT
 *
 * report_functions.c — the function table (<Total> first, then functions by
 * exclusive or inclusive metric) and the callers-callees view of a function.
 */
#include <stdlib.h>
#include <string.h>

#include "report/report.h"

static const struct model_func_metrics *sort_fm;
static enum model_metric sort_metric;
static bool sort_by_incl;

static int cmp_func(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	uint64_t vx = sort_by_incl ? sort_fm[x].incl[sort_metric] : sort_fm[x].excl[sort_metric];
	uint64_t vy = sort_by_incl ? sort_fm[y].incl[sort_metric] : sort_fm[y].excl[sort_metric];

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

void report_functions(struct report_doc *d, const struct model *m, const struct report_opts *o)
{
	struct model_func_metrics *fm = calloc(m->nfuncs, sizeof(*fm));
	uint32_t *order = malloc(m->nfuncs * sizeof(*order));
	char buf[4096];
	size_t n = 0;

	if (!fm || !order || model_func_metrics(m, fm)) {
		report_doc_fail(d, "the function table");
		free(fm);
		free(order);
		return;
	}
	for (uint32_t i = 1; i < m->nfuncs; i++)
		if (has_any(&fm[i], o))
			order[n++] = i;
	sort_fm = fm;
	sort_metric = o->metrics[0];
	sort_by_incl = o->sort_incl;
	qsort(order, n, sizeof(*order), cmp_func);

	struct report_table *t = report_table_new("functions", "Functions");
	report_metric_cols(t, o, "excl", "Excl.");
	report_metric_cols(t, o, "incl", "Incl.");
	report_col(t, "name", "Name", COL_STR);
	report_col(t, "object", "Object", COL_STR);
	bool aliases = o->fmt != REPORT_TEXT;   /* text keeps its width */
	if (aliases)
		report_col(t, "aliases", "Aliases", COL_STR);
	report_row(t);
	report_metric_cells(t, m, o, fm[MODEL_TOTAL].incl);
	report_metric_cells(t, m, o, fm[MODEL_TOTAL].incl);
	report_str(t, "<Total>");
	report_str(t, "");
	if (aliases)
		report_str(t, "");
	size_t shown = o->limit && o->limit < n ? o->limit : n;
	for (size_t i = 0; i < shown; i++) {
		uint32_t f = order[i];
		report_row(t);
		report_metric_cells(t, m, o, fm[f].excl);
		report_metric_cells(t, m, o, fm[f].incl);
		report_str(t, report_func_label(m, f, buf, sizeof(buf)));
		report_str(t, m->funcs[f].object);
		if (aliases)
			report_str(t, m->funcs[f].aliases ? m->funcs[f].aliases : "");
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
	struct model_func_metrics *fm = calloc(m->nfuncs, sizeof(*fm));
	char buf[4096];

	if (!n)
		return -1;
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
		report_metric_cols(t, o, "excl", "Excl.");
		report_metric_cols(t, o, "incl", "Incl.");
		report_col(t, "name", "Name", COL_STR);
		if (m->funcs[f].aliases)
			report_col(t, "aliases", "Aliases", COL_STR);
		report_row(t);
		report_metric_cells(t, m, o, fm[f].excl);
		report_metric_cells(t, m, o, fm[f].incl);
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
