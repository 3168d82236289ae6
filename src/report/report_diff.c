/* SPDX-License-Identifier: MIT
 *
 * report_diff.c — `tally diff A B`: what changed from run A to run B, per
 * function and per call path, for every metric both runs have.
 *
 * Functions are matched by name and load object (a rebuilt binary's
 * functions still match; a renamed main executable is the same object:
 * report_exe_renamed), call paths by their function names.  Each row gives
 * A's value, B's, the change B - A and the ratio B / A; with `normalised`,
 * A's values are first scaled to B's total (the A column shows them so,
 * and A + change = B), so the change is in the share of the run (the size
 * of the input no longer dominates).  Rows are sorted by the absolute
 * change of the first metric; functions only one run has are marked "new"
 * or "gone".  CSV is one table, its first column naming the part ("total",
 * "functions", "paths").  Like perf diff and gprofng's -compare, without
 * needing the same binary.
 *
 * Several runs on a side (`tally diff A1 A2 A3 -- B1 B2 B3`): each value is
 * the side's mean over its runs, and a row's noise comes from the spread of
 * its first metric across the runs (the variance of each side's mean,
 * Welch), which holds what sampling alone does not: the program's own
 * variation from run to run.  One run on a side: that side's sampling
 * error, from its sample counts (CPU only).
 *
 * Runs with thread states (`--states`) also get the wall-time change split
 * by state and call path (report_diff_states.c), after the call paths.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/model_map.h"
#include "report/report.h"
#include "report/report_units.h"

/* The first metric's value of a row in each run of a side, for the spread
 * of repeated runs: the sum of the run being added (`cur`, of run `run`,
 * 1-based) and the sum of the squares of the runs done before it. */
struct spread {
	double cur, sq;
	size_t run;
};

/* One row: a function or a call path, A's and B's values (sums over each
 * side's runs). */
struct drow {
	char *name;
	const char *object;          /* A's object (the key), or B's if only B has it */
	const char *object_b;        /* B's object when it is A's renamed, else NULL */
	uint64_t a[MODEL_METRIC_COUNT], b[MODEL_METRIC_COUNT];       /* exclusive (paths: the stack's own) */
	uint64_t ai[MODEL_METRIC_COUNT], bi[MODEL_METRIC_COUNT];     /* inclusive (functions) */
	struct spread spread[2][2];  /* [side][inclusive] */
};

static void spread_add(struct spread *s, size_t run, double v)
{
	if (s->run != run + 1) {
		s->sq += s->cur * s->cur;
		s->cur = 0;
		s->run = run + 1;
	}
	s->cur += v;
}


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

/* After the last run: every row's last run among the squares. */
static void spreads_done(struct drows *r)
{
	for (size_t i = 0; i < r->n; i++)
		for (int side = 0; side < 2; side++)
			for (int incl = 0; incl < 2; incl++) {
				struct spread *s = &r->v[i].spread[side][incl];
				s->sq += s->cur * s->cur;
				s->cur = 0;
			}
}

static void rows_free(struct drows *r)
{
	for (size_t i = 0; i < r->n; i++)
		free(r->v[i].name);
	free(r->v);
	model_map_free(&r->index);
}

/* Add model m's functions (side 0: A, 1: B; the side's run `run`, metric
 * mm0's spread); B's functions in executable `from` (renamed) count as A's
 * in `to`. */
static int add_funcs(struct drows *r, const struct model *m, int side, size_t run, enum model_metric mm0,
		     const char *from, const char *to)
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
		const char *obj = m->funcs[f].object;
		bool renamed = from && !strcmp(obj, from);
		struct drow *d = row_of(r, m->funcs[f].name, renamed ? to : obj);
		if (!d) {
			free(fm);
			return -1;
		}
		if (renamed)
			d->object_b = obj;
		for (int k = 0; k < MODEL_METRIC_COUNT; k++) {
			(side ? d->b : d->a)[k] += fm[f].excl[k];
			(side ? d->bi : d->ai)[k] += fm[f].incl[k];
		}
		spread_add(&d->spread[side][0], run, (double)fm[f].excl[mm0]);
		spread_add(&d->spread[side][1], run, (double)fm[f].incl[mm0]);
	}
	free(fm);
	return 0;
}

/* Add model m's call paths: "main;parent;leaf" per entry (side and run as
 * add_funcs). */
static int add_paths(struct drows *r, const struct model *m, int side, size_t run, enum model_metric mm0)
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
			(side ? d->b : d->a)[k] += model_entry_value(e, k);
		spread_add(&d->spread[side][0], run, (double)model_entry_value(e, mm0));
	}
	int rc = buf ? 0 : -1;
	free(buf);
	return rc;
}

/* One side: its runs, and its totals' means over them. */
struct diff_side {
	const struct model *const *m;
	size_t n;
	double total[MODEL_METRIC_COUNT];
};

struct diff_ctx {
	struct diff_side a, b;
	const struct report_opts *o;
	bool normalised;
};

/* How much A's values are scaled, as compared: to B's total when normalised. */
static double a_scale(const struct diff_ctx *c, enum model_metric mm)
{
	if (!c->normalised || !c->a.total[mm])
		return 1;
	return c->b.total[mm] / c->a.total[mm];
}

/* A's value (a sum over its runs) as compared: its mean, scaled. */
static double a_seen(const struct diff_ctx *c, enum model_metric mm, uint64_t v)
{
	return (double)v / (double)c->a.n * a_scale(c, mm);
}

/* B's value: its mean. */
static double b_seen(const struct diff_ctx *c, uint64_t v)
{
	return (double)v / (double)c->b.n;
}

static const struct diff_ctx *sort_ctx;
static bool sort_incl;

static double change_of(const struct diff_ctx *c, const struct drow *d, bool incl)
{
	enum model_metric mm = c->o->metrics[0];

	return incl ? b_seen(c, d->bi[mm]) - a_seen(c, mm, d->ai[mm]) : b_seen(c, d->b[mm]) - a_seen(c, mm, d->a[mm]);
}

/* The variance of one side's mean of a row's first metric (v: its sum over
 * the side's runs, s: its spread, `scale` as compared; samples: its sample
 * count, for one run), or -1 if unknown.  Several runs: the runs' sample
 * variance over their number.  One run, of CPU time: the sampling error,
 * its sample count n (of N, multinomial: variance n(1 - n/N)) times the
 * run's mean CPU per sample. */
static double side_var(const struct diff_ctx *c, const struct diff_side *side, uint64_t v,
		       const struct spread *s, uint64_t samples, double scale)
{
	double n = (double)side->n;

	if (side->n >= 2) {
		double var = (s->sq - (double)v * (double)v / n) / (n - 1);
		return (var > 0 ? var : 0) / n * scale * scale;
	}
	if (c->o->metrics[0] != MODEL_CPU)
		return -1;
	double ns = (double)samples, tn = side->total[MODEL_SAMPLES];
	double per = tn ? side->total[MODEL_CPU] / tn * scale : 0;
	return per * per * ns * (tn ? 1 - ns / tn : 1);
}

/* Whether rows have a noise: CPU time (its sampling error), or several runs
 * on both sides (their spread). */
static bool noise_known(const struct diff_ctx *c)
{
	return c->o->metrics[0] == MODEL_CPU || (c->a.n >= 2 && c->b.n >= 2);
}

/* Two standard deviations of a row's change of the first metric (its
 * exclusive, or inclusive), or -1 when unknown.  A change within it is
 * noise: the same programs run (or sampled) again move that much by chance
 * alone. */
static double noise_of(const struct diff_ctx *c, const struct drow *x, bool incl)
{
	enum model_metric mm = c->o->metrics[0];
	const uint64_t *a = incl ? x->ai : x->a, *b = incl ? x->bi : x->b;
	double va = side_var(c, &c->a, a[mm], &x->spread[0][incl], a[MODEL_SAMPLES], a_scale(c, mm));
	double vb = side_var(c, &c->b, b[mm], &x->spread[1][incl], b[MODEL_SAMPLES], 1);

	if (va < 0 || vb < 0)
		return -1;
	return 2 * sqrt(va + vb);
}

static int cmp_change(const void *x, const void *y)
{
	double a = fabs(change_of(sort_ctx, x, sort_incl)), b = fabs(change_of(sort_ctx, y, sort_incl));

	if (a != b)
		return a > b ? -1 : 1;
	return strcmp(((const struct drow *)x)->name, ((const struct drow *)y)->name);
}

/* The metric columns; `incl`: exclusive and inclusive (functions). */
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

/* One metric's A, B, B-A and B/A; A scaled when normalised. */
static void cells1(struct report_table *t, const struct diff_ctx *c, enum model_metric mm, uint64_t a,
		   uint64_t b)
{
	double av = a_seen(c, mm, a), bv = b_seen(c, b);

	report_num(t, av);
	report_num(t, bv);
	report_num(t, bv - av);
	report_num(t, av > 0 ? bv / av : (b ? INFINITY : NAN));
}

/* The CSV table's columns: the part, every metric's exclusive and
 * inclusive, status, name, object. */
static struct report_table *csv_table(const struct diff_ctx *c, bool states)
{
	struct report_table *t = report_table_new("diff", NULL);

	report_col(t, "table", "Table", COL_STR);
	cols(t, c->o, true);
	report_col(t, "noise", "+-2sd", COL_SEC);
	report_col(t, "status", "", COL_STR);
	report_col(t, "name", "Name", COL_STR);
	report_col(t, "object", "Object", COL_STR);
	if (states)
		report_diff_states_cols(t);
	return t;
}

/* "hot -> hot2" for a function of a renamed executable both runs have. */
static const char *object_shown(const struct drow *x, bool in_a, bool in_b, char *buf, size_t len)
{
	if (!x->object_b)
		return x->object;
	if (!in_a)
		return x->object_b;
	if (!in_b)
		return x->object;
	snprintf(buf, len, "%s -> %s", x->object, x->object_b);
	return buf;
}

/* The functions (funcs) or call paths, largest change first, into their
 * own table, or into `all` (CSV). */
static void table(struct report_doc *d, const struct diff_ctx *c, struct drows *r, bool funcs,
		  struct report_table *all)
{
	char title[160], obuf[600];
	const struct model_metric_info *mi0 = model_metric_info(c->o->metrics[0]);
	struct report_table *t = all;
	size_t limit = c->o->limit && c->o->limit < r->n ? c->o->limit : r->n;
	size_t shown = 0;

	if (!all) {
		snprintf(title, sizeof(title), "%s, by change of %s", funcs ? "Functions" : "Call paths",
			 mi0->title);
		t = report_table_new(funcs ? "functions" : "paths", title);
		cols(t, c->o, funcs);
		if (noise_known(c))
			report_col(t, "noise", "+-2sd", mi0->is_time ? COL_SEC : COL_COUNT);
		report_col(t, "status", "", COL_STR);
		report_col(t, "name", funcs ? "Name" : "Path", COL_STR);
		if (funcs)
			report_col(t, "object", "Object", COL_STR);
	}
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
		if (all)
			report_str(t, funcs ? "functions" : "paths");
		for (int k = 0; k < c->o->nmetrics; k++) {
			enum model_metric mm = c->o->metrics[k];
			cells1(t, c, mm, x->a[mm], x->b[mm]);
			if (funcs)
				cells1(t, c, mm, x->ai[mm], x->bi[mm]);
			else if (all)
				for (int j = 0; j < 4; j++)
					report_str(t, "");
		}
		/* Noise: the exclusive change (and a function's inclusive) within
		 * its sampling error. */
		double noise = noise_of(c, x, false);
		bool within = noise >= 0 && fabs(change_of(c, x, false)) <= noise &&
			      (!funcs || fabs(change_of(c, x, true)) <= noise_of(c, x, true));
		if (noise >= 0 || all)
			report_num(t, noise >= 0 ? noise : NAN);
		report_str(t, !in_a ? "new" : !in_b ? "gone" : within ? "noise" : "");
		report_str(t, x->name);
		if (funcs || all)
			report_str(t, funcs ? object_shown(x, in_a, in_b, obuf, sizeof(obuf)) : "");
	}
	if (all)
		return;
	report_table_emit(d, t);
	if (shown < r->n && c->o->limit)
		report_note(d, "(%s: the %zu largest changes; --limit 0 shows all)",
			    funcs ? "functions" : "call paths", shown);
}

/* "1.632 s" (3 decimals, or human units) or "6332459424" (or 6.33G). */
static void value_text(char *buf, size_t len, const struct model_metric_info *mi, double v, bool human,
		       bool sign)
{
	char num[48];

	if (mi->is_time && human)
		report_units_time(num, sizeof(num), v);
	else if (mi->is_time)
		snprintf(num, sizeof(num), "%.3f s", v / 1e9);
	else if (human)
		report_units_count(num, sizeof(num), v);
	else
		snprintf(num, sizeof(num), "%.0f", v);
	if (num[0] == '-' && !num[strspn(num + 1, "0. s")])
		memmove(num, num + 1, strlen(num));     /* below the resolution */
	snprintf(buf, len, "%s%s", sign && num[0] != '-' && strspn(num, "0. s") != strlen(num) ? "+" : "", num);
}

/* The executables of model m's processes, or of those of one side of a
 * diff; NULL if out of memory. */
static const char **exe_names(const struct model *m, size_t *n)
{
	const char **v = malloc((m->nprocs + 1) * sizeof(*v));

	*n = 0;
	for (size_t i = 0; v && i < m->nprocs; i++)
		if (m->procs[i].src && m->procs[i].src->name)
			v[(*n)++] = m->procs[i].src->name;
	return v;
}

/* The head: A and B, each compared metric's totals and change, the other
 * metrics both have, the renamed executable, how values are compared. */
static void head(struct report_doc *d, const struct diff_ctx *c, const char *name_a, const char *name_b,
		 const char *exe_a, const char *exe_b)
{
	const struct report_opts *o = c->o;
	bool human = report_doc_human(d), normalised = c->normalised;
	char ta_s[64], tb_s[64], dt_s[64], also[512] = "";

	report_kv_begin(d, "diff", "Diff");
	report_kv(d, "a", "A", "%s", name_a);
	report_kv(d, "b", "B", "%s", name_b);
	for (int i = 0; i < o->nmetrics; i++) {
		enum model_metric mm = o->metrics[i];
		const struct model_metric_info *mi = model_metric_info(mm);
		double ta = c->a.total[mm], tb = c->b.total[mm];
		char key[80];
		value_text(ta_s, sizeof(ta_s), mi, ta, human, false);
		value_text(tb_s, sizeof(tb_s), mi, tb, human, false);
		value_text(dt_s, sizeof(dt_s), mi, tb - ta, human, true);
		double pct = ta ? 100.0 * (tb - ta) / ta : 0.0;
		char pct_s[32] = "";
		if (ta) {
			snprintf(pct_s, sizeof(pct_s), " (%+.1f%%)", pct);
			if (!strcmp(pct_s, " (-0.0%)") || !strcmp(pct_s, " (+0.0%)"))
				strcpy(pct_s, " (0.0%)");
		}
		report_kv_num(d, mi->name, mi->title, (tb - ta) / (mi->is_time ? 1e9 : 1), "A %s, B %s: %s%s",
			      ta_s, tb_s, dt_s, pct_s);
		snprintf(key, sizeof(key), "a_%s", mi->name);
		report_kv_data(d, key, ta / (mi->is_time ? 1e9 : 1));
		snprintf(key, sizeof(key), "b_%s", mi->name);
		report_kv_data(d, key, tb / (mi->is_time ? 1e9 : 1));
	}
	uint32_t common = ~0u;
	for (size_t r = 0; r < c->a.n + c->b.n; r++)
		common &= (r < c->a.n ? c->a.m[r] : c->b.m[r - c->a.n])->present;
	for (int k = 0; k < MODEL_METRIC_COUNT; k++) {
		bool shown = false;
		for (int i = 0; i < o->nmetrics; i++)
			shown |= o->metrics[i] == (enum model_metric)k;
		if (shown || !(common & (1u << k)))
			continue;
		size_t l = strlen(also);
		snprintf(also + l, sizeof(also) - l, "%s%s", l ? ", " : "", model_metric_info((enum model_metric)k)->name);
	}
	if (also[0])
		report_kv(d, "also", "Also in both", "%s (--metric M[,M...])", also);
	if (exe_a)
		report_kv(d, "renamed", "Executable", "%s (A) is %s (B): its functions matched by name",
			  exe_a, exe_b);
	if (c->a.n > 1 || c->b.n > 1) {
		report_kv(d, "runs", "Runs", "A %zu, B %zu: each value is its side's mean", c->a.n, c->b.n);
		report_kv_data(d, "runs_a", (double)c->a.n);
		report_kv_data(d, "runs_b", (double)c->b.n);
	}
	if (noise_known(c))
		report_kv(d, "noise", "Noise", "+-2sd: two standard deviations of a row's change, %s; status "
			  "'noise': the change (a function's exclusive and inclusive) is within it",
			  c->a.n >= 2 && c->b.n >= 2 ? "from the spread of each side's runs (Welch)" :
			  c->a.n >= 2 || c->b.n >= 2 ? "from the spread of the repeated side's runs and "
						       "the other's sampling error (its sample counts)" :
			  "by sampling alone (from its sample counts)");
	report_kv(d, "compared", "Compared", "%s", normalised ?
		  "normalised: A scaled to B's total (changes of share; the A columns scaled)" :
		  "absolute values");
	report_kv_end(d);
}

/* Side s's runs and the means of their totals. */
static void side_init(struct diff_side *s, const struct model *const *m, size_t n)
{
	s->m = m;
	s->n = n;
	for (int k = 0; k < MODEL_METRIC_COUNT; k++) {
		uint64_t sum = 0;
		for (size_t r = 0; r < n; r++)
			sum += m[r]->total[k];
		s->total[k] = (double)sum / (double)n;
	}
}

/* Side s's runs' functions (side 0: A) and call paths into the rows. */
static int add_side(struct drows *funcs, struct drows *paths, const struct diff_side *s, int side,
		    enum model_metric mm0, const char *from, const char *to)
{
	for (size_t r = 0; r < s->n; r++)
		if (add_funcs(funcs, s->m[r], side, r, mm0, from, to) || add_paths(paths, s->m[r], side, r, mm0))
			return -1;
	return 0;
}

int report_diff(struct report_doc *d, const struct model *const *a, size_t runs_a, const struct model *const *b,
		size_t runs_b, const struct report_opts *o, bool normalised, const char *name_a, const char *name_b)
{
	struct drows funcs = { 0 }, paths = { 0 };
	struct diff_ctx c = { .o = o, .normalised = normalised };
	const char *exe_a = NULL, *exe_b = NULL;
	size_t na, nb;
	const char **va = exe_names(a[0], &na), **vb = exe_names(b[0], &nb);
	int rc = -1;

	side_init(&c.a, a, runs_a);
	side_init(&c.b, b, runs_b);
	if (!va || !vb)
		goto out;
	report_exe_renamed(va, na, vb, nb, &exe_a, &exe_b);
	if (add_side(&funcs, &paths, &c.a, 0, o->metrics[0], NULL, NULL) ||
	    add_side(&funcs, &paths, &c.b, 1, o->metrics[0], exe_b, exe_a))
		goto out;
	spreads_done(&funcs);
	spreads_done(&paths);
	if (o->fmt != REPORT_CSV)     /* CSV is one table: the totals are its first row */
		head(d, &c, name_a, name_b, exe_a, exe_b);
	int with_states = report_diff_states_apply(a, runs_a, b, runs_b);
	bool states = with_states > 0;
	if (o->fmt == REPORT_CSV) {
		struct report_table *t = csv_table(&c, states);
		report_row(t);
		report_str(t, "total");
		for (int k = 0; k < o->nmetrics; k++) {
			enum model_metric mm = o->metrics[k];
			uint64_t sa = (uint64_t)(c.a.total[mm] * (double)runs_a + 0.5);
			uint64_t sb = (uint64_t)(c.b.total[mm] * (double)runs_b + 0.5);
			for (int j = 0; j < 2; j++)
				cells1(t, &c, mm, sa, sb);
		}
		report_num(t, NAN);
		report_str(t, "");
		report_str(t, "<Total>");
		report_str(t, "");
		table(d, &c, &funcs, true, t);
		table(d, &c, &paths, false, t);
		int rs = states ? report_diff_states(d, a, runs_a, b, runs_b, o, t, 8 * (size_t)o->nmetrics + 1) : 0;
		report_table_emit(d, t);
		if (rs)
			goto out;
	} else {
		table(d, &c, &funcs, true, NULL);
		table(d, &c, &paths, false, NULL);
		if (states && report_diff_states(d, a, runs_a, b, runs_b, o, NULL, 0))
			goto out;
		if (with_states < 0)
			report_note(d, "No wall time by state: only some of the runs were recorded with --states.");
	}
	rc = 0;
out:
	free(va);
	free(vb);
	rows_free(&funcs);
	rows_free(&paths);
	return rc;
}
