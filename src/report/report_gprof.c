/* SPDX-License-Identifier: MIT
 *
 * report_gprof.c — the gprof listing of a call graph (model_gprof.h):
 * `tally report --gprof` and `tally gprof`.
 *
 * Text follows GNU gprof -b (hist.c, cg_print.c) column for column: the
 * flat profile sorted by self time; the call graph with, per function or
 * cycle as a whole, its callers above (`count/total`, or a bare count for
 * a recursive call or a call from a sibling in its cycle), the primary line
 * (`[N] %time self children called name`, called `n+r`), its callees below;
 * then the index by function name.  Parents are sorted ascending and
 * children descending by gprof's cmp_arc (self calls, then calls inside a
 * cycle, then time, then count), ties in order of appearance, as gprof's
 * insertion sorts leave them.  The stack method adds measured times to the
 * <spontaneous> line and leaves count columns empty when the experiment has
 * no exact counts.  CSV and JSON carry the same numbers as tables.
 *
 * Workload: a graph of 10^6 arcs prints 2 * 10^6 arc lines, so they are
 * formatted by hand (gp_fix2 rounds as printf does, or asks printf near a
 * tie) and written a block at a time.
 */
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "format/gmon_read.h"
#include "report/report_gprof.h"
#include "symbols/sym.h"

#define GPROF_RULE "-----------------------------------------------"
#define GPROF_INDEX_COL 26          /* (80 - 1) / 3: gprof's index column width */
#define GPROF_BLOCK 65536           /* text written through report_note in blocks */

/* Text being built: whole lines, handed to report_note a block at a time
 * (report_note ends the block with its last newline).  Out of memory fails
 * the document once; the text written after it is dropped. */
struct gp_text {
	struct report_doc *d;
	char *p;
	size_t len, cap;
	bool failed;
};

/* Room for n more bytes; false if out of memory (now or before). */
static bool gp_reserve(struct gp_text *t, size_t n)
{
	if (t->failed)
		return false;
	if (t->len + n < t->cap)
		return true;
	size_t cap = t->cap ? t->cap : 4096;
	while (cap <= t->len + n)
		cap *= 2;
	char *np = realloc(t->p, cap);
	if (!np) {
		t->failed = true;
		report_doc_fail(t->d, "the gprof listing");
		return false;
	}
	t->p = np;
	t->cap = cap;
	return true;
}

__attribute__((format(printf, 2, 3)))
static void gp_put(struct gp_text *t, const char *fmt, ...)
{
	va_list ap;

	for (;;) {
		if (!gp_reserve(t, 64))
			return;
		va_start(ap, fmt);
		int n = vsnprintf(t->p + t->len, t->cap - t->len, fmt, ap);
		va_end(ap);
		if (n < 0)
			return;
		if (t->len + (size_t)n < t->cap) {
			t->len += (size_t)n;
			return;
		}
		if (!gp_reserve(t, (size_t)n + 1))
			return;
	}
}

static void gp_cat(struct gp_text *t, const char *s)
{
	size_t n = strlen(s);

	if (!gp_reserve(t, n + 1))
		return;
	memcpy(t->p + t->len, s, n + 1);
	t->len += n;
}

static void gp_spaces(struct gp_text *t, size_t n)
{
	if (!gp_reserve(t, n + 1))
		return;
	memset(t->p + t->len, ' ', n);
	t->len += n;
	t->p[t->len] = 0;
}

/* `v` in `width` columns, right-aligned (printf's %*llu) or left (%-*llu). */
static void gp_uint(struct gp_text *t, uint64_t v, size_t width, bool left)
{
	char buf[24];
	size_t n = 0;

	do
		buf[sizeof(buf) - ++n] = (char)('0' + v % 10);
	while ((v /= 10) && n < sizeof(buf));
	if (!left && n < width)
		gp_spaces(t, width - n);
	if (!gp_reserve(t, n + 1))
		return;
	memcpy(t->p + t->len, buf + sizeof(buf) - n, n);
	t->len += n;
	t->p[t->len] = 0;
	if (left && n < width)
		gp_spaces(t, width - n);
}

/* printf's %*.2f: the nearest of the two-decimal values to x's exact
 * binary value.  x * 100 is within 1e-7 of the exact product below 1e9,
 * so away from a tie the rounding is the same; near one, printf decides. */
static void gp_fix2(struct gp_text *t, double x, int width)
{
	double y = x * 100.0;

	if (!(x >= 0 && y < 1e9) || fabs(y - floor(y) - 0.5) < 1e-6) {
		gp_put(t, "%*.2f", width, x);
		return;
	}
	uint64_t n = (uint64_t)floor(y) + (y - floor(y) > 0.5);
	char frac[4] = { '.', (char)('0' + n / 10 % 10), (char)('0' + n % 10), 0 };
	uint64_t ip = n / 100;
	size_t digits = 1;
	for (uint64_t k = ip; k >= 10; k /= 10)
		digits++;
	gp_uint(t, ip, width > 3 && (size_t)width - 3 > digits ? (size_t)width - 3 : digits, false);
	gp_cat(t, frac);
}

/* Hand the complete lines to the document. */
static void gp_flush(struct gp_text *t)
{
	if (!t->len || t->failed)
		return;
	t->p[--t->len] = 0;            /* report_note adds the last newline */
	report_note(t->d, "%s", t->p);
	t->len = 0;
}

static void gp_nl(struct gp_text *t)
{
	gp_cat(t, "\n");
	if (t->len >= GPROF_BLOCK)
		gp_flush(t);
}

/* The listing being printed. */
struct gp {
	const struct model_gprof *g;
	struct gp_text t;
	struct gp_key *keys;           /* arcs of one node, for sorting */
	uint8_t *cls;                  /* per arc: gp_key.cls */
};

/* The call graph's 100%: gprof takes 1 when nothing was propagated. */
static double gp_print_time(const struct model_gprof *g)
{
	return g->print_time > 0.0 ? g->print_time : 1.0;
}

static double gp_sec(const struct gp *p, double v)
{
	return v / p->g->units_per_sec;
}

/* gprof's print_name_only; returns the width printed. */
static size_t gp_name_only(struct gp *p, uint32_t v)
{
	const struct model_gprof_node *n = &p->g->nodes[v];
	size_t before = p->t.len;

	gp_cat(&p->t, n->name);
	if (n->qualify) {
		gp_cat(&p->t, " (");
		gp_cat(&p->t, n->object);
		gp_cat(&p->t, ")");
	}
	return p->t.len - before;
}

/* gprof's print_name: name, cycle, index. */
static void gp_name(struct gp *p, uint32_t v)
{
	const struct model_gprof_node *n = &p->g->nodes[v];

	gp_name_only(p, v);
	if (n->cycle) {
		gp_cat(&p->t, " <cycle ");
		gp_uint(&p->t, n->cycle, 0, false);
		gp_cat(&p->t, ">");
	}
	gp_cat(&p->t, " [");
	gp_uint(&p->t, n->index, 0, false);
	gp_cat(&p->t, "]");
}

static bool gp_zero(const struct model_gprof_node *n)
{
	return n->ncalls == 0 && n->self == 0;
}

/* ---- flat profile (hist.c) ------------------------------------------- */

static int gp_cmp_time(const void *x, const void *y, void *arg)
{
	const struct model_gprof *g = arg;
	uint32_t a = *(const uint32_t *)x, b = *(const uint32_t *)y;
	const struct model_gprof_node *na = &g->nodes[a], *nb = &g->nodes[b];

	if (na->self != nb->self)
		return na->self > nb->self ? -1 : 1;
	if (na->ncalls != nb->ncalls)
		return na->ncalls > nb->ncalls ? -1 : 1;
	int s = strcmp(na->sort_name, nb->sort_name);
	return s ? s : (a < b ? -1 : 1);
}

static const struct {
	char prefix;
	double scale;
} gp_si[] = {
	{ 'T', 1e-12 }, { 'G', 1e-09 }, { 'M', 1e-06 }, { 'K', 1e-03 }, { ' ', 1e-00 },
	{ 'm', 1e+03 }, { 'u', 1e+06 }, { 'n', 1e+09 }, { 'p', 1e+12 }, { 'f', 1e+15 },
	{ 'a', 1e+18 },
};
#define GP_NSI (sizeof(gp_si) / sizeof(gp_si[0]))

/* Flat profile order: nodes printed, by self time.  NULL if out of memory
 * (the document then says so). */
static uint32_t *gp_flat_order(struct gp *p, size_t *n)
{
	const struct model_gprof *g = p->g;
	uint32_t *ids = malloc(((size_t)g->nnodes + 1) * sizeof(*ids));

	if (!ids) {
		report_doc_fail(p->t.d, "the gprof flat profile");
		return NULL;
	}
	*n = 0;
	for (uint32_t v = 0; v < g->nnodes; v++)
		if (!gp_zero(&g->nodes[v]))
			ids[(*n)++] = v;
	qsort_r(ids, *n, sizeof(*ids), gp_cmp_time, (void *)g);
	return ids;
}

/* The SI prefix of the per-call columns: the one that shows the largest
 * time per call between 1 and 1000 (gprof's "top dog"). */
static unsigned gp_log_scale(const struct model_gprof *g)
{
	double top_time = 0.0;
	bool found = false;
	unsigned ls;

	for (uint32_t v = 0; v < g->nnodes; v++) {
		const struct model_gprof_node *n = &g->nodes[v];
		if (n->ncalls == 0)
			continue;
		double call_time = (n->self + n->child) / (double)n->ncalls;
		if (call_time > top_time) {
			top_time = call_time;
			found = true;
		}
	}
	if (!found)
		return g->bin_bytes ? 0 : 4;   /* gprof's "Ts/call"; " s/call" for stacks */
	top_time /= g->units_per_sec;
	for (ls = 0; ls < GP_NSI; ls++) {
		double scaled = gp_si[ls].scale * top_time;
		if (scaled >= 1.0 && scaled < 1000.0)
			break;
	}
	return ls < GP_NSI ? ls : GP_NSI - 1;
}

static void gp_flat_text(struct gp *p)
{
	const struct model_gprof *g = p->g;
	struct gp_text *t = &p->t;
	size_t n;
	uint32_t *ids = gp_flat_order(p, &n);
	unsigned ls = gp_log_scale(g);
	double total = g->total, accum = 0.0;
	char unit[64];

	if (!ids)
		return;
	gp_cat(t, "Flat profile:\n\n");
	if (g->bin_bytes)
		gp_put(t, "Each sample counts as %g %s.\n", 1.0 / g->units_per_sec, g->dimen);
	else if (g->method == MODEL_GPROF_TIMED)
		gp_cat(t, "Each call counts its time from entry to exit (wall clock).\n");
	else
		gp_put(t, "Each sample counts as the %s it stands for.\n",
		       !strcmp(g->dimen, "seconds") ? "time" : g->dimen);
	if (total <= 0.0) {
		gp_cat(t, " no time accumulated\n\n");
		total = 1.0;
	}
	snprintf(unit, sizeof(unit), "%c%c/call", gp_si[ls].prefix, g->dimen_abbrev);
	gp_put(t, "%5.5s %10.10s %8.8s %8.8s %8.8s %8.8s  %-8.8s\n", "%  ", "cumulative", "self  ",
	       "", "self  ", "total ", "");
	gp_put(t, "%5.5s %9.9s  %8.8s %8.8s %8.8s %8.8s  %-8.8s\n", "time", g->dimen, g->dimen,
	       "calls", unit, unit, "name");
	for (size_t i = 0; i < n; i++) {
		const struct model_gprof_node *nd = &g->nodes[ids[i]];
		accum += nd->self;
		gp_put(t, "%6.2f %9.2f %8.2f", total > 0.0 ? 100 * nd->self / total : 0.0,
		       gp_sec(p, accum), gp_sec(p, nd->self));
		if (nd->ncalls != 0)
			gp_put(t, " %8llu %8.2f %8.2f  ", (unsigned long long)nd->ncalls,
			       gp_si[ls].scale * nd->self / g->units_per_sec / (double)nd->ncalls,
			       gp_si[ls].scale * (nd->self + nd->child) / g->units_per_sec /
				       (double)nd->ncalls);
		else
			gp_put(t, " %8.8s %8.8s %8.8s  ", "", "", "");
		gp_name_only(p, ids[i]);
		gp_nl(t);
	}
	free(ids);
}

/* ---- call graph (cg_print.c) ----------------------------------------- */

/* What gprof's cmp_arc compares, gathered per arc before sorting. */
struct gp_key {
	uint8_t cls;                   /* 0 recursive, 1 inside a cycle, 2 other */
	double time;                   /* self + children */
	uint64_t count;
	uint32_t arc;
};

static bool gp_in_cycle(const struct model_gprof *g, const struct model_gprof_arc *a)
{
	uint32_t pc = g->nodes[a->caller].cycle, cc = g->nodes[a->callee].cycle;

	return pc && cc && pc == cc;
}

/* gprof's cmp_arc: recursive calls least, then calls inside a cycle by
 * count, then the others by time and count. */
static int gp_cmp_arc(const struct gp_key *a, const struct gp_key *b)
{
	if (a->cls != b->cls)
		return a->cls < b->cls ? -1 : 1;
	if (a->cls == 2 && a->time != b->time)
		return a->time < b->time ? -1 : 1;
	return a->count < b->count ? -1 : a->count > b->count;
}

/* Callers ascending, ties in order of appearance. */
static int gp_cmp_parents(const void *x, const void *y)
{
	const struct gp_key *a = x, *b = y;
	int r = gp_cmp_arc(a, b);

	return r ? r : (a->arc < b->arc ? -1 : 1);
}

/* Callees descending, ties in order of appearance. */
static int gp_cmp_children(const void *x, const void *y)
{
	const struct gp_key *a = x, *b = y;
	int r = gp_cmp_arc(a, b);

	return r ? -r : (a->arc < b->arc ? -1 : 1);
}

/* A caller or callee line: times and `count/total`, or for a call to
 * itself or to a sibling in its cycle the count only; blank counts when
 * the arc has none.  13 spaces stand for gprof's empty index and %time. */
static void gp_arc_line(struct gp *p, const struct model_gprof_arc *a, uint32_t other,
			uint64_t total, bool sibling)
{
	struct gp_text *t = &p->t;

	if (sibling && a->counted) {
		gp_spaces(t, 29);
		gp_uint(t, a->count, 7, false);
		gp_spaces(t, 13);
	} else if (sibling) {
		gp_spaces(t, 49);
	} else {
		gp_spaces(t, 13);
		gp_fix2(t, gp_sec(p, a->self), 7);
		gp_spaces(t, 1);
		gp_fix2(t, gp_sec(p, a->child), 7);
		gp_spaces(t, 1);
		if (a->counted) {
			gp_uint(t, a->count, 7, false);
			gp_cat(t, "/");
			gp_uint(t, total, 7, true);
			gp_spaces(t, 5);
		} else {
			gp_spaces(t, 20);
		}
	}
	gp_name(p, other);
	gp_nl(t);
}

/* Arcs of node v from list `list` (in or out), sorted by `cmp`. */
static size_t gp_sorted(struct gp *p, const size_t *start, const uint32_t *list, uint32_t v,
			int (*cmp)(const void *, const void *))
{
	const struct model_gprof *g = p->g;
	size_t n = start[v + 1] - start[v];

	for (size_t i = 0; i < n; i++) {
		uint32_t k = list[start[v] + i];
		const struct model_gprof_arc *a = &g->arcs[k];
		p->keys[i] = (struct gp_key){ p->cls[k], a->self + a->child, a->count, k };
	}
	if (n > 1)
		qsort(p->keys, n, sizeof(*p->keys), cmp);
	return n;
}

static void gp_parents(struct gp *p, uint32_t v)
{
	const struct model_gprof *g = p->g;
	const struct model_gprof_node *nd = &g->nodes[v];
	uint64_t total = nd->cycle ? g->cycles[nd->cycle].ncalls : nd->ncalls;
	size_t n = gp_sorted(p, g->in_start, g->in, v, gp_cmp_parents);

	if (nd->spont_self + nd->spont_child > 0)
		gp_put(&p->t, "%6.6s %5.5s %7.2f %7.2f %7.7s %7.7s     <spontaneous>\n", "", "",
		       gp_sec(p, nd->spont_self), gp_sec(p, nd->spont_child), "", "");
	else if (!n)
		gp_put(&p->t, "%6.6s %5.5s %7.7s %7.7s %7.7s %7.7s     <spontaneous>\n", "", "", "",
		       "", "", "");
	for (size_t i = 0; i < n; i++) {
		const struct model_gprof_arc *a = &g->arcs[p->keys[i].arc];
		gp_arc_line(p, a, a->caller, total, p->keys[i].cls < 2);
	}
}

static void gp_children(struct gp *p, uint32_t v)
{
	const struct model_gprof *g = p->g;
	size_t n = gp_sorted(p, g->out_start, g->out, v, gp_cmp_children);

	for (size_t i = 0; i < n; i++) {
		const struct model_gprof_arc *a = &g->arcs[p->keys[i].arc];
		const struct model_gprof_node *c = &g->nodes[a->callee];
		gp_arc_line(p, a, a->callee, c->cycle ? g->cycles[c->cycle].ncalls : c->ncalls,
			    p->keys[i].cls < 2);
	}
}

static void gp_primary(struct gp *p, uint32_t v)
{
	const struct model_gprof_node *nd = &p->g->nodes[v];
	char buf[32];

	snprintf(buf, sizeof(buf), "[%u]", nd->index);
	gp_put(&p->t, "%-6.6s %5.1f %7.2f %7.2f", buf,
	       100 * (nd->prop_self + nd->prop_child) / gp_print_time(p->g), gp_sec(p, nd->prop_self),
	       gp_sec(p, nd->prop_child));
	if (nd->ncalls + nd->self_calls != 0) {
		gp_put(&p->t, " %7llu", (unsigned long long)nd->ncalls);
		if (nd->self_calls != 0)
			gp_put(&p->t, "+%-7llu ", (unsigned long long)nd->self_calls);
		else
			gp_put(&p->t, " %7.7s ", "");
	} else {
		gp_put(&p->t, " %7.7s %7.7s ", "", "");
	}
	gp_name(p, v);
	gp_nl(&p->t);
}

/* Members of a cycle by time, then calls, largest first (cmp_member);
 * ties in order of discovery. */
static int gp_cmp_member(const void *x, const void *y, void *arg)
{
	const struct model_gprof *g = arg;
	const uint32_t *a = x, *b = y;
	const struct model_gprof_node *na = &g->nodes[a[0]], *nb = &g->nodes[b[0]];
	double ta = na->prop_self + na->prop_child, tb = nb->prop_self + nb->prop_child;

	if (ta != tb)
		return ta > tb ? -1 : 1;
	if (na->ncalls + na->self_calls != nb->ncalls + nb->self_calls)
		return na->ncalls + na->self_calls > nb->ncalls + nb->self_calls ? -1 : 1;
	return a[1] < b[1] ? -1 : 1;
}

/* The called column of a cycle or member line: `n+r`, `n`, or blank
 * without exact counts (gprof always has them). */
static void gp_calls(struct gp *p, uint64_t n, uint64_t r)
{
	if (!p->g->has_counts)
		gp_put(&p->t, " %7.7s %7.7s", "", "");
	else if (r != 0)
		gp_put(&p->t, " %7llu+%-7llu", (unsigned long long)n, (unsigned long long)r);
	else
		gp_put(&p->t, " %7llu %7.7s", (unsigned long long)n, "");
}

static void gp_cycle(struct gp *p, uint32_t c)
{
	const struct model_gprof *g = p->g;
	const struct model_gprof_cycle *cy = &g->cycles[c];
	uint32_t *m = malloc(2 * (size_t)cy->nmembers * sizeof(*m));
	uint32_t k = 0;
	char buf[32];

	if (!m) {
		report_doc_fail(p->t.d, "the gprof call graph");
		return;
	}
	snprintf(buf, sizeof(buf), "[%u]", cy->index);
	gp_put(&p->t, "%-6.6s %5.1f %7.2f %7.2f", buf,
	       100 * (cy->prop_self + cy->prop_child) / gp_print_time(g), gp_sec(p, cy->prop_self),
	       gp_sec(p, cy->prop_child));
	gp_calls(p, cy->ncalls, cy->self_calls);
	gp_put(&p->t, " <cycle %u as a whole> [%u]\n", c, cy->index);
	for (uint32_t v = cy->first; v != MODEL_GPROF_NONE; v = g->nodes[v].member_next, k++) {
		m[2 * k] = v;
		m[2 * k + 1] = k;
	}
	qsort_r(m, k, 2 * sizeof(*m), gp_cmp_member, (void *)g);
	for (uint32_t i = 0; i < k; i++) {
		const struct model_gprof_node *nd = &g->nodes[m[2 * i]];
		gp_put(&p->t, "%6.6s %5.5s %7.2f %7.2f", "", "", gp_sec(p, nd->prop_self),
		       gp_sec(p, nd->prop_child));
		gp_calls(p, nd->ncalls, nd->self_calls);
		gp_cat(&p->t, "     ");
		gp_name(p, m[2 * i]);
		gp_nl(&p->t);
	}
	free(m);
}

static void gp_graph_text(struct gp *p)
{
	const struct model_gprof *g = p->g;
	struct gp_text *t = &p->t;

	gp_cat(t, "\f\n\t\t\tCall graph\n\n");
	if (!g->bin_bytes && g->method == MODEL_GPROF_STACKS)
		gp_put(t, "\ngranularity: each stack counts once per function and per arc, "
		       "of %.2f %s\n\n", gp_sec(p, g->print_time), g->dimen);
	else if (!g->bin_bytes && g->method == MODEL_GPROF_TIMED)
		gp_put(t, "\ngranularity: each call timed from entry to exit, of %.2f %s\n\n",
		       gp_sec(p, g->print_time), g->dimen);
	else if (!g->bin_bytes)
		gp_put(t, "\ngranularity: each sample counts for its leaf function, of %.2f %s\n\n",
		       gp_sec(p, g->print_time), g->dimen);
	else if (g->print_time > 0.0)
		gp_put(t, "\ngranularity: each sample hit covers %ld byte(s) for %.2f%% of %.2f %s\n\n",
		       g->bin_bytes, 100.0 / g->print_time, gp_sec(p, g->print_time), g->dimen);
	else
		gp_put(t, "\ngranularity: each sample hit covers %ld byte(s) no time propagated\n\n",
		       g->bin_bytes);
	gp_cat(t, "index % time    self  children    called     name\n");
	for (size_t i = 0; i < g->norder; i++) {
		uint32_t e = g->order[i];
		if (e >= g->nnodes) {
			const struct model_gprof_cycle *cy = &g->cycles[e - g->nnodes];
			if (cy->ncalls == 0 && cy->self_calls == 0 && cy->prop_self == 0 &&
			    cy->prop_child == 0)
				continue;
			gp_cycle(p, e - g->nnodes);
		} else {
			const struct model_gprof_node *nd = &g->nodes[e];
			if (nd->ncalls == 0 && nd->self_calls == 0 && nd->prop_self == 0 &&
			    nd->prop_child == 0)
				continue;
			gp_parents(p, e);
			gp_primary(p, e);
			gp_children(p, e);
		}
		gp_cat(t, GPROF_RULE);
		gp_nl(t);
	}
}

/* ---- index by function name (cg_print_index) ------------------------- */

static int gp_cmp_name(const void *x, const void *y, void *arg)
{
	const struct model_gprof *g = arg;
	uint32_t a = *(const uint32_t *)x, b = *(const uint32_t *)y;
	int s = strcmp(g->nodes[a].sort_name, g->nodes[b].sort_name);

	return s ? s : (a < b ? -1 : 1);
}

static void gp_index_text(struct gp *p)
{
	const struct model_gprof *g = p->g;
	struct gp_text *t = &p->t;
	uint32_t *ids = malloc(((size_t)g->nnodes + g->ncycles + 1) * sizeof(*ids));
	size_t nnames = 0, todo;
	char buf[32];

	if (!ids) {
		report_doc_fail(p->t.d, "the gprof index");
		return;
	}
	for (uint32_t v = 0; v < g->nnodes; v++)
		if (!gp_zero(&g->nodes[v]))
			ids[nnames++] = v;
	qsort_r(ids, nnames, sizeof(*ids), gp_cmp_name, (void *)g);
	todo = nnames;
	for (uint32_t c = 1; c <= g->ncycles; c++)
		ids[todo++] = g->nnodes + c;
	gp_cat(t, "\f\nIndex by function name\n\n");
	size_t rows = (todo + 2) / 3;
	for (size_t i = 0; i < rows; i++) {
		size_t col = 0, starting_col = 0;
		for (size_t j = i; j < todo; j += rows) {
			bool fn = j < nnames;
			uint32_t c = fn ? 0 : ids[j] - g->nnodes;
			snprintf(buf, sizeof(buf), "[%u]", fn ? g->nodes[ids[j]].index : g->cycles[c].index);
			col += strlen(buf);
			if (col < starting_col + 5) {
				gp_spaces(t, starting_col + 5 - col);
				col = starting_col + 5;
			}
			gp_put(t, " %s ", buf);
			if (fn) {
				const struct model_gprof_node *nd = &g->nodes[ids[j]];
				col += gp_name_only(p, ids[j]);
				if (nd->file) {
					gp_put(t, " (%s)", nd->file);
					col += strlen(nd->file) + 3;
				}
			} else {
				snprintf(buf, sizeof(buf), "<cycle %u>", c);
				gp_cat(t, buf);
				col += strlen(buf);
			}
			starting_col += GPROF_INDEX_COL;
		}
		gp_nl(t);
	}
	free(ids);
}

/* ---- CSV / JSON ------------------------------------------------------ */

/* A time in units as an integer: ns for time, the unit otherwise. */
static uint64_t gp_int(const struct model_gprof *g, double v)
{
	bool ns = !strcmp(g->dimen, "seconds");
	double x = ns ? v * (1e9 / g->units_per_sec) : v;

	return x > 0 ? (uint64_t)(x + 0.5) : 0;
}

static void gp_col(struct report_table *t, const struct model_gprof *g, const char *key,
		   const char *title)
{
	char k[64];

	snprintf(k, sizeof(k), "%s%s", key, !strcmp(g->dimen, "seconds") ? "_ns" : "");
	report_col(t, k, title, COL_U64);
}

static void gp_label(struct report_table *t, const struct model_gprof *g, uint32_t v)
{
	const struct model_gprof_node *n = &g->nodes[v];
	char buf[4096];

	if (n->qualify)
		snprintf(buf, sizeof(buf), "%s (%s)", n->name, n->object);
	report_str(t, n->qualify ? buf : n->name);
}

static void gp_tables(struct gp *p, const char *method)
{
	const struct model_gprof *g = p->g;
	double total = g->total > 0 ? g->total : 1.0, pt = g->print_time > 0 ? g->print_time : 1.0;
	double accum = 0;
	size_t n;
	uint32_t *ids = gp_flat_order(p, &n);

	if (!ids)
		return;
	report_kv_begin(p->t.d, "gprof", NULL);
	report_kv(p->t.d, "method", "Method", "%s",
		  g->method == MODEL_GPROF_STACKS ? "stacks" :
		  g->method == MODEL_GPROF_TIMED ? "timed" : "propagate");
	report_kv(p->t.d, "time_per_arc", "Time per arc", "%s", method);
	report_kv_num(p->t.d, "stacks", "Stacks", (double)g->nstacks, "%llu",
		      (unsigned long long)g->nstacks);
	report_kv_num(p->t.d, "total", "Total", (double)gp_int(g, g->total), "%.2f",
		      gp_sec(p, g->total));
	report_kv(p->t.d, "unit", "Unit", "%s", !strcmp(g->dimen, "seconds") ? "ns" : g->dimen);
	report_kv(p->t.d, "call_counts", "Call counts", "%s", g->has_counts ? "exact" : "none");
	report_kv_end(p->t.d);

	struct report_table *t = report_table_new("flat", "Flat profile");
	report_col(t, "index", "Index", COL_U64);
	report_col(t, "pct_time", "% time", COL_PCT);
	gp_col(t, g, "cumulative", "Cumulative");
	gp_col(t, g, "self", "Self");
	if (g->has_counts) {
		report_col(t, "calls", "Calls", COL_U64);
		gp_col(t, g, "self_per_call", "Self/call");
		gp_col(t, g, "total_per_call", "Total/call");
	}
	report_col(t, "name", "Name", COL_STR);
	for (size_t i = 0; i < n; i++) {
		const struct model_gprof_node *nd = &g->nodes[ids[i]];
		accum += nd->self;
		report_row(t);
		report_u64(t, nd->index);
		report_pct(t, 100 * nd->self / total);
		report_u64(t, gp_int(g, accum));
		report_u64(t, gp_int(g, nd->self));
		if (g->has_counts) {
			report_u64(t, nd->ncalls);
			report_u64(t, nd->ncalls ? gp_int(g, nd->self / (double)nd->ncalls) : 0);
			report_u64(t, nd->ncalls ? gp_int(g, (nd->self + nd->child) / (double)nd->ncalls) : 0);
		}
		gp_label(t, g, ids[i]);
	}
	report_table_emit(p->t.d, t);
	free(ids);

	t = report_table_new("graph", "Call graph");
	report_col(t, "index", "Index", COL_U64);
	report_col(t, "pct_time", "% time", COL_PCT);
	gp_col(t, g, "self", "Self");
	gp_col(t, g, "children", "Children");
	if (g->has_counts) {
		report_col(t, "called", "Called", COL_U64);
		report_col(t, "self_calls", "Recursive", COL_U64);
	}
	report_col(t, "cycle", "Cycle", COL_U64);
	report_col(t, "name", "Name", COL_STR);
	for (size_t i = 0; i < g->norder; i++) {
		uint32_t e = g->order[i];
		bool cyc = e >= g->nnodes;
		const struct model_gprof_cycle *cy = cyc ? &g->cycles[e - g->nnodes] : NULL;
		const struct model_gprof_node *nd = cyc ? NULL : &g->nodes[e];
		double ps = cyc ? cy->prop_self : nd->prop_self, pc = cyc ? cy->prop_child : nd->prop_child;
		uint64_t nc = cyc ? cy->ncalls : nd->ncalls, sc = cyc ? cy->self_calls : nd->self_calls;
		char buf[64];
		if (nc == 0 && sc == 0 && ps == 0 && pc == 0)
			continue;
		report_row(t);
		report_u64(t, cyc ? cy->index : nd->index);
		report_pct(t, 100 * (ps + pc) / pt);
		report_u64(t, gp_int(g, ps));
		report_u64(t, gp_int(g, pc));
		if (g->has_counts) {
			report_u64(t, nc);
			report_u64(t, sc);
		}
		report_u64(t, cyc ? e - g->nnodes : nd->cycle);
		if (cyc) {
			snprintf(buf, sizeof(buf), "<cycle %u as a whole>", e - g->nnodes);
			report_str(t, buf);
		} else {
			gp_label(t, g, e);
		}
	}
	report_table_emit(p->t.d, t);

	t = report_table_new("arcs", "Arcs");
	report_col(t, "caller", "Caller", COL_STR);
	report_col(t, "caller_index", "Caller index", COL_U64);
	report_col(t, "callee", "Callee", COL_STR);
	report_col(t, "callee_index", "Callee index", COL_U64);
	if (g->has_counts)
		report_col(t, "count", "Count", COL_U64);
	gp_col(t, g, "self", "Self");
	gp_col(t, g, "children", "Children");
	for (size_t i = 0; i < g->narcs; i++) {
		const struct model_gprof_arc *a = &g->arcs[i];
		report_row(t);
		gp_label(t, g, a->caller);
		report_u64(t, g->nodes[a->caller].index);
		gp_label(t, g, a->callee);
		report_u64(t, g->nodes[a->callee].index);
		if (g->has_counts)
			report_u64(t, a->count);
		report_u64(t, gp_int(g, a->self));
		report_u64(t, gp_int(g, a->child));
	}
	report_table_emit(p->t.d, t);
}

void report_gprof_method(const struct model_gprof *g, char *buf, size_t size)
{
	if (g->method == MODEL_GPROF_STACKS)
		snprintf(buf, size, "measured from %llu sampled call stacks",
			 (unsigned long long)g->nstacks);
	else if (g->method == MODEL_GPROF_TIMED && g->call_ns)
		snprintf(buf, size, "timed from entry to exit (-finstrument-functions), less the "
			 "runtime's own time: %u ns of each call's, %u ns per call made inside it",
			 g->own_ns, g->call_ns);
	else if (g->method == MODEL_GPROF_TIMED)
		snprintf(buf, size, "timed from entry to exit (-finstrument-functions), the runtime's "
			 "own time included (recorded before it was measured)");
	else
		snprintf(buf, size, "propagated from call counts (gprof's average-call-time assumption)");
}

void report_gprof_listing(struct report_doc *d, enum report_format fmt, const struct model_gprof *g,
			  bool header)
{
	struct gp p = { .g = g, .t = { .d = d } };
	char method[160];

	report_gprof_method(g, method, sizeof(method));
	if (fmt != REPORT_TEXT) {
		gp_tables(&p, method);
		return;
	}
	p.keys = malloc((g->narcs ? g->narcs : 1) * sizeof(*p.keys));
	p.cls = malloc(g->narcs ? g->narcs : 1);
	if (!p.keys || !p.cls) {
		report_doc_fail(d, "the gprof listing");
		free(p.keys);
		free(p.cls);
		return;
	}
	for (size_t i = 0; i < g->narcs; i++) {
		const struct model_gprof_arc *a = &g->arcs[i];
		p.cls[i] = a->caller == a->callee ? 0 : gp_in_cycle(g, a) ? 1 : 2;
	}
	if (header) {
		gp_put(&p.t, "time per arc: %s\n", method);
		if (!g->has_counts)
			gp_cat(&p.t, "call counts: none (the program was not built with -pg or "
				     "-finstrument-functions)\n");
		gp_nl(&p.t);
	}
	gp_flat_text(&p);
	gp_graph_text(&p);
	gp_index_text(&p);
	gp_flush(&p.t);
	free(p.keys);
	free(p.cls);
	free(p.t.p);
}

int report_gprof(struct report_doc *d, const struct model *m, const struct report_opts *o,
		 enum model_gprof_method method)
{
	struct model_gprof g;
	int rc = model_gprof_from_model(&g, m, o->metrics[0], method);

	if (rc == 0)
		report_gprof_listing(d, o->fmt, &g, true);
	model_gprof_free(&g);
	return rc;
}

void report_gprof_bb(struct report_doc *d, const struct gmon_profile *p, struct sym_object *o)
{
	char where[4200];

	if (!p->nbbs)
		return;
	report_note(d, "%s", "");
	struct report_table *t = report_table_new("basic_blocks", "Basic-block counts");
	report_col(t, "address", "Address", COL_HEX);
	report_col(t, "count", "Count", COL_U64);
	report_col(t, "function", "Function", COL_STR);
	report_col(t, "line", "Line", COL_STR);
	for (size_t i = 0; i < p->nbbs; i++) {
		const struct sym_func *f = sym_object_lookup(o, p->bbs[i].addr);
		const char *file;
		int line;
		report_row(t);
		report_u64(t, p->bbs[i].addr);
		report_u64(t, p->bbs[i].count);
		report_str(t, f ? f->name : "<Unknown>");
		if (sym_object_line(o, p->bbs[i].addr, &file, &line))
			snprintf(where, sizeof(where), "%s:%d", file, line);
		else
			where[0] = 0;
		report_str(t, where);
	}
	report_table_emit(d, t);
}
