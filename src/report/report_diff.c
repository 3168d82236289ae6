/* SPDX-License-Identifier: MIT
 *
 * report_diff.c — `tally diff A B`: what changed from run A to run B, per
 * function and per call path, for every metric both runs have.
 *
 * Functions are matched by name and load object (a rebuilt binary's
 * functions still match), call paths by their function names.  Each row
 * gives A's value, B's, the change B - A and the ratio B / A; with
 * `normalised`, A is first scaled to B's total, so the change is in the
 * share of the run (the size of the input no longer dominates).  Rows are
 * sorted by the absolute change of the first metric; functions only one
 * run has are marked "new" or "gone".  Like perf diff and gprofng's
 * -compare, without needing the same binary.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "model/model_map.h"
#include "report/report.h"

/* One row: a function or a call path, A's and B's values. */
struct drow {
	char *name;
	const char *object;
	uint64_t a[MODEL_METRIC_COUNT], b[MODEL_METRIC_COUNT];       /* exclusive (paths: the stack's own) */
	uint64_t ai[MODEL_METRIC_COUNT], bi[MODEL_METRIC_COUNT];     /* inclusive (functions) */
};

struct drows {
	struct drow *v;
	size_t n, cap;
	struct model_map index;      /* hash(name, object) -> row + 1 */
};

static struct drow *row_of(struct drows *r, const char *name, const char *object)
{
	uint64_t key = model_hash_str(model_hash_str(0, name), object) | 1;

	for (;;) {
		uint64_t *v = model_map_get(&r->index, key);
		if (!v)
			break;
		struct drow *d = &r->v[*v - 1];
		if (!strcmp(d->name, name) && !strcmp(d->object, object))
			return d;
		key = model_hash64(key) | 1;
	}
	if (exp_grow(&r->v, &r->cap, r->n, sizeof(*r->v)))
		return NULL;
	struct drow *d = &r->v[r->n];
	memset(d, 0, sizeof(*d));
	if (!(d->name = strdup(name)))
		return NULL;
	d->object = object;
	if (!model_map_put(&r->index, key, ++r->n, NULL))
		return NULL;
	return d;
}

static void rows_free(struct drows *r)
{
	for (size_t i = 0; i < r->n; i++)
		free(r->v[i].name);
	free(r->v);
	model_map_free(&r->index);
}

/* Add model m's functions (side 0: A, 1: B). */
static int add_funcs(struct drows *r, const struct model *m, int side)
{
	struct model_func_metrics *fm = calloc(m->nfuncs, sizeof(*fm));

	if (!fm)
		return -1;
	model_func_metrics(m, fm);
	for (uint32_t f = 1; f < m->nfuncs; f++) {
		bool any = false;
		for (int k = 0; k < MODEL_METRIC_COUNT; k++)
			any |= fm[f].incl[k] != 0;
		if (!any)
			continue;
		struct drow *d = row_of(r, m->funcs[f].name, m->funcs[f].object);
		if (!d) {
			free(fm);
			return -1;
		}
		for (int k = 0; k < MODEL_METRIC_COUNT; k++) {
			(side ? d->b : d->a)[k] += fm[f].excl[k];
			(side ? d->bi : d->ai)[k] += fm[f].incl[k];
		}
	}
	free(fm);
	return 0;
}

/* Add model m's call paths: "main;parent;leaf" per entry. */
static int add_paths(struct drows *r, const struct model *m, int side)
{
	size_t cap = 4096;
	char *buf = malloc(cap);

	for (size_t i = 0; i < m->nentries && buf; i++) {
		const struct model_entry *e = &m->entries[i];
		size_t len = 0;
		for (uint32_t j = 0; j < e->n; j++) {
			const char *nm = m->funcs[e->funcs[j]].name;
			size_t l = strlen(nm);
			if (len + l + 2 > cap) {
				char *q = realloc(buf, (cap = 2 * (len + l + 2)));
				if (!q)
					break;
				buf = q;
			}
			if (j)
				buf[len++] = ';';
			memcpy(buf + len, nm, l);
			len += l;
		}
		buf[len] = 0;
		struct drow *d = row_of(r, buf, "");
		if (!d)
			break;
		for (int k = 0; k < MODEL_METRIC_COUNT; k++)
			(side ? d->b : d->a)[k] += e->v[k];
	}
	int rc = buf ? 0 : -1;
	free(buf);
	return rc;
}

struct diff_ctx {
	const struct model *a, *b;
	const struct report_opts *o;
	bool normalised;
};

/* A's value as compared: scaled to B's total when normalised. */
static double a_seen(const struct diff_ctx *c, enum model_metric mm, uint64_t v)
{
	if (!c->normalised || !c->a->total[mm])
		return (double)v;
	return (double)v * (double)c->b->total[mm] / (double)c->a->total[mm];
}

static const struct diff_ctx *sort_ctx;
static bool sort_incl;

static double change_of(const struct diff_ctx *c, const struct drow *d, bool incl)
{
	enum model_metric mm = c->o->metrics[0];

	return incl ? (double)d->bi[mm] - a_seen(c, mm, d->ai[mm]) : (double)d->b[mm] - a_seen(c, mm, d->a[mm]);
}

static int cmp_change(const void *x, const void *y)
{
	double a = fabs(change_of(sort_ctx, x, sort_incl)), b = fabs(change_of(sort_ctx, y, sort_incl));

	if (a != b)
		return a > b ? -1 : 1;
	return strcmp(((const struct drow *)x)->name, ((const struct drow *)y)->name);
}

static void cols(struct report_table *t, const struct report_opts *o, bool incl)
{
	char key[96], head[96];

	for (int i = 0; i < o->nmetrics; i++) {
		const struct model_metric_info *mi = model_metric_info(o->metrics[i]);
		enum report_col_type ty = mi->is_time ? COL_SEC : COL_COUNT;
		const char *unit = mi->is_time ? " s" : "";
		for (int pass = 0; pass < (incl ? 2 : 1); pass++) {
			const char *kind = pass ? "incl" : "excl";
			const char *title = incl ? (pass ? "Incl. " : "Excl. ") : "";
			snprintf(key, sizeof(key), "a_%s_%s", kind, mi->name);
			snprintf(head, sizeof(head), "%s%s A%s", title, mi->title, unit);
			report_col(t, key, head, ty);
			snprintf(key, sizeof(key), "b_%s_%s", kind, mi->name);
			snprintf(head, sizeof(head), "%sB%s", title, unit);
			report_col(t, key, head, ty);
			snprintf(key, sizeof(key), "delta_%s_%s", kind, mi->name);
			snprintf(head, sizeof(head), "%sB-A%s", title, unit);
			report_col(t, key, head, ty);
			snprintf(key, sizeof(key), "ratio_%s_%s", kind, mi->name);
			report_col(t, key, "B/A", COL_RATIO);
		}
	}
}

static void cells(struct report_table *t, const struct diff_ctx *c, const uint64_t *a, const uint64_t *b)
{
	for (int i = 0; i < c->o->nmetrics; i++) {
		enum model_metric mm = c->o->metrics[i];
		double av = a_seen(c, mm, a[mm]);
		report_num(t, (double)a[mm]);
		report_num(t, (double)b[mm]);
		report_num(t, (double)b[mm] - av);
		report_num(t, av > 0 ? (double)b[mm] / av : (b[mm] ? INFINITY : NAN));
	}
}

static void table(struct report_doc *d, const struct diff_ctx *c, struct drows *r, bool funcs)
{
	struct report_table *t = report_table_new(funcs ? "functions" : "paths",
						  funcs ? "Functions, by change" : "Call paths, by change");
	size_t limit = c->o->limit && c->o->limit < r->n ? c->o->limit : r->n;
	size_t shown = 0;

	cols(t, c->o, funcs);
	report_col(t, "status", "", COL_STR);
	report_col(t, "name", funcs ? "Name" : "Path", COL_STR);
	if (funcs)
		report_col(t, "object", "Object", COL_STR);
	sort_ctx = c;
	sort_incl = false;
	qsort(r->v, r->n, sizeof(*r->v), cmp_change);
	for (size_t i = 0; i < r->n && shown < limit; i++) {
		const struct drow *x = &r->v[i];
		bool in_a = false, in_b = false;
		for (int k = 0; k < c->o->nmetrics; k++) {
			enum model_metric mm = c->o->metrics[k];
			in_a |= (funcs ? x->ai : x->a)[mm] != 0;
			in_b |= (funcs ? x->bi : x->b)[mm] != 0;
		}
		if (!in_a && !in_b)
			continue;
		shown++;
		report_row(t);
		for (int k = 0; k < c->o->nmetrics; k++) {
			struct report_opts one = *c->o;
			struct diff_ctx cc = *c;
			one.metrics[0] = c->o->metrics[k];
			one.nmetrics = 1;
			cc.o = &one;
			cells(t, &cc, x->a, x->b);
			if (funcs)
				cells(t, &cc, x->ai, x->bi);
		}
		report_str(t, !in_a ? "new" : !in_b ? "gone" : "");
		report_str(t, x->name);
		if (funcs)
			report_str(t, x->object);
	}
	report_table_emit(d, t);
	if (shown < r->n && c->o->limit)
		report_note(d, "(%s: the %zu largest changes; --limit 0 shows all)",
			    funcs ? "functions" : "call paths", shown);
}

int report_diff(struct report_doc *d, const struct model *a, const struct model *b,
		const struct report_opts *o, bool normalised, const char *name_a, const char *name_b)
{
	struct drows funcs = { 0 }, paths = { 0 };
	struct diff_ctx c = { a, b, o, normalised };
	int rc = -1;

	if (add_funcs(&funcs, a, 0) || add_funcs(&funcs, b, 1) ||
	    add_paths(&paths, a, 0) || add_paths(&paths, b, 1))
		goto out;
	report_kv_begin(d, "diff", "Diff");
	report_kv(d, "a", "A", "%s", name_a);
	report_kv(d, "b", "B", "%s", name_b);
	for (int i = 0; i < o->nmetrics; i++) {
		enum model_metric mm = o->metrics[i];
		const struct model_metric_info *mi = model_metric_info(mm);
		double ta = (double)a->total[mm], tb = (double)b->total[mm];
		double div = mi->is_time ? 1e9 : 1;
		report_kv_num(d, mi->name, mi->title, (tb - ta) / div, "A %.6g, B %.6g%s: %+.6g (x%.3f)",
			      ta / div, tb / div, mi->is_time ? " s" : "", (tb - ta) / div, ta ? tb / ta : 0.0);
	}
	report_kv(d, "compared", "Compared", "%s", normalised ?
		  "normalised: A scaled to B's total (changes of share)" : "absolute values");
	report_kv_end(d);
	table(d, &c, &funcs, true);
	table(d, &c, &paths, false);
	rc = 0;
out:
	rows_free(&funcs);
	rows_free(&paths);
	return rc;
}
