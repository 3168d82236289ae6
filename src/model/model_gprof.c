/* SPDX-License-Identifier: MIT
 *
 * model_gprof.c — the gprof call graph (see model_gprof.h): arcs merged by
 * (caller, callee), call counts, cycles by Tarjan's algorithm, then either
 * gprof's propagation or tally's measurement from stacks, and the listing
 * order.  Called by report_gprof.c (tally report --gprof) and cmd_gprof.c.
 *
 * GNU gprof's numbering is kept: its depth-first search (cg_dfn.c) starts
 * from every function in symbol-table order and follows each function's
 * arcs in its prepended list, i.e. in reverse order of appearance; the head
 * of a cycle is the member the search reached first, which is the root of
 * the component in Tarjan's algorithm run in the same order, and cycles are
 * numbered by their heads' positions in the symbol table.  The topological
 * order is the order in which components complete.  The propagation repeats
 * cg_arcs.c's arithmetic in the same order, so the doubles are the same, and
 * a gmon.out histogram is credited to functions as hist.c credits it.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "format/gmon_read.h"
#include "model/model_gprof.h"
#include "symbols/sym.h"

int model_gprof_init(struct model_gprof *g, uint32_t nnodes, double units_per_sec)
{
	memset(g, 0, sizeof(*g));
	g->nodes = calloc(nnodes ? nnodes : 1, sizeof(*g->nodes));
	if (!g->nodes)
		return -1;
	g->nnodes = nnodes;
	for (uint32_t v = 0; v < nnodes; v++) {
		g->nodes[v].name = "";
		g->nodes[v].sort_name = "";
		g->nodes[v].object = "";
		g->nodes[v].member_next = MODEL_GPROF_NONE;
	}
	g->units_per_sec = units_per_sec;
	strcpy(g->dimen, "seconds");
	g->dimen_abbrev = 's';
	return 0;
}

long model_gprof_arc_add(struct model_gprof *g, uint32_t caller, uint32_t callee, uint64_t count,
			 bool counted)
{
	uint64_t key = ((uint64_t)caller << 32 | callee) + 1;
	bool inserted;
	uint64_t *v = model_map_put(&g->arc_of, key, 0, &inserted);

	if (!v)
		return -1;
	if (inserted) {
		if (g->narcs == g->cap_arcs) {
			size_t cap = g->cap_arcs ? g->cap_arcs * 2 : 256;
			struct model_gprof_arc *na = realloc(g->arcs, cap * sizeof(*na));
			if (!na) {
				model_map_del(&g->arc_of, key);
				return -1;
			}
			g->arcs = na;
			g->cap_arcs = cap;
		}
		g->arcs[g->narcs] = (struct model_gprof_arc){ caller, callee, 0, false, 0, 0 };
		*v = ++g->narcs;
	}
	struct model_gprof_arc *a = &g->arcs[*v - 1];
	a->count += count;
	if (counted) {
		a->counted = true;
		g->has_counts = true;
	}
	return (long)(*v - 1);
}

/* The arcs of each node, by caller and by callee, each list in reverse
 * order of appearance (gprof prepends). */
static int gprof_link(struct model_gprof *g)
{
	uint32_t n = g->nnodes;
	size_t *fo, *fi;

	g->out_start = calloc((size_t)n + 1, sizeof(size_t));
	g->in_start = calloc((size_t)n + 1, sizeof(size_t));
	g->out = malloc((g->narcs ? g->narcs : 1) * sizeof(uint32_t));
	g->in = malloc((g->narcs ? g->narcs : 1) * sizeof(uint32_t));
	fo = malloc(((size_t)n + 1) * sizeof(size_t));
	fi = malloc(((size_t)n + 1) * sizeof(size_t));
	if (!g->out_start || !g->in_start || !g->out || !g->in || !fo || !fi) {
		free(fo);
		free(fi);
		return -1;
	}
	for (size_t i = 0; i < g->narcs; i++) {
		g->out_start[g->arcs[i].caller + 1]++;
		g->in_start[g->arcs[i].callee + 1]++;
	}
	for (uint32_t v = 0; v < n; v++) {
		g->out_start[v + 1] += g->out_start[v];
		g->in_start[v + 1] += g->in_start[v];
	}
	memcpy(fo, g->out_start, ((size_t)n + 1) * sizeof(size_t));
	memcpy(fi, g->in_start, ((size_t)n + 1) * sizeof(size_t));
	for (size_t i = g->narcs; i-- > 0;) {
		g->out[fo[g->arcs[i].caller]++] = (uint32_t)i;
		g->in[fi[g->arcs[i].callee]++] = (uint32_t)i;
	}
	free(fo);
	free(fi);
	return 0;
}

/* Calls into each function from others, and its recursive calls. */
static void gprof_calls(struct model_gprof *g)
{
	for (size_t i = 0; i < g->narcs; i++) {
		const struct model_gprof_arc *a = &g->arcs[i];
		if (a->caller == a->callee)
			g->nodes[a->callee].self_calls += a->count;
		else
			g->nodes[a->callee].ncalls += a->count;
	}
}

/* Tarjan's strongly connected components, iteratively (call graphs can be
 * deeper than the C stack).  Sets every node's topological order (the
 * order its component completes, callees first), links the members of each
 * component of two or more nodes in discovery order, and numbers those
 * cycles by their first-discovered member's position in the node order. */
static int gprof_cycles(struct model_gprof *g)
{
	uint32_t n = g->nnodes, counter = 0, top = 0, ncyc = 0;
	uint32_t *num = malloc(((size_t)n + 1) * sizeof(*num));
	uint32_t *low = malloc(((size_t)n + 1) * sizeof(*low));
	uint32_t *stack = malloc(((size_t)n + 1) * sizeof(*stack));
	uint32_t *fv = malloc(((size_t)n + 1) * sizeof(*fv));
	size_t *fpos = malloc(((size_t)n + 1) * sizeof(*fpos));
	uint8_t *onstack = calloc((size_t)n + 1, 1);
	uint32_t *size = calloc((size_t)n + 1, sizeof(*size));     /* at a head: members */
	size_t sp = 0, fp = 0;
	int rc = -1;

	if (!num || !low || !stack || !fv || !fpos || !onstack || !size)
		goto out;
	for (uint32_t v = 0; v < n; v++)
		num[v] = MODEL_GPROF_NONE;
	for (uint32_t r = 0; r < n; r++) {
		if (num[r] != MODEL_GPROF_NONE)
			continue;
		num[r] = low[r] = counter++;
		stack[sp++] = r;
		onstack[r] = 1;
		fv[fp] = r;
		fpos[fp++] = g->out_start[r];
		while (fp) {
			uint32_t v = fv[fp - 1];
			if (fpos[fp - 1] < g->out_start[v + 1]) {
				uint32_t w = g->arcs[g->out[fpos[fp - 1]++]].callee;
				if (num[w] == MODEL_GPROF_NONE) {
					num[w] = low[w] = counter++;
					stack[sp++] = w;
					onstack[w] = 1;
					fv[fp] = w;
					fpos[fp++] = g->out_start[w];
				} else if (onstack[w] && num[w] < low[v]) {
					low[v] = num[w];
				}
				continue;
			}
			fp--;
			if (fp && low[v] < low[fv[fp - 1]])
				low[fv[fp - 1]] = low[v];
			if (low[v] != num[v])
				continue;
			size_t k = sp;
			do
				k--;
			while (stack[k] != v);
			top++;
			for (size_t i = k; i < sp; i++) {
				struct model_gprof_node *nd = &g->nodes[stack[i]];
				onstack[stack[i]] = 0;
				nd->top = top;
				nd->member_next = i + 1 < sp && sp - k > 1 ? stack[i + 1] : MODEL_GPROF_NONE;
			}
			if (sp - k > 1) {
				size[v] = (uint32_t)(sp - k);
				ncyc++;
			}
			sp = k;
		}
	}
	g->cycles = calloc((size_t)ncyc + 1, sizeof(*g->cycles));
	if (!g->cycles)
		goto out;
	for (uint32_t v = 0; v < n; v++) {
		if (!size[v])
			continue;
		struct model_gprof_cycle *c = &g->cycles[++g->ncycles];
		c->first = v;
		c->nmembers = size[v];
		for (uint32_t m = v; m != MODEL_GPROF_NONE; m = g->nodes[m].member_next)
			g->nodes[m].cycle = g->ncycles;
	}
	rc = 0;
out:
	free(num);
	free(low);
	free(stack);
	free(fv);
	free(fpos);
	free(onstack);
	free(size);
	return rc;
}

/* Calls into each cycle from outside, and among its members (gprof's
 * cycle_link; a member's recursive calls are its own). */
static void gprof_cycle_calls(struct model_gprof *g)
{
	for (uint32_t c = 1; c <= g->ncycles; c++) {
		struct model_gprof_cycle *cy = &g->cycles[c];
		for (uint32_t m = cy->first; m != MODEL_GPROF_NONE; m = g->nodes[m].member_next) {
			for (size_t k = g->in_start[m]; k < g->in_start[m + 1]; k++) {
				const struct model_gprof_arc *a = &g->arcs[g->in[k]];
				if (a->caller == m)
					continue;
				if (g->nodes[a->caller].cycle == c)
					cy->self_calls += a->count;
				else
					cy->ncalls += a->count;
			}
		}
	}
}

static int gprof_structure(struct model_gprof *g)
{
	if (gprof_link(g) || gprof_cycles(g))
		return -1;
	gprof_calls(g);
	gprof_cycle_calls(g);
	return 0;
}

/* Nodes by topological order (callees first), ties by node order: the
 * stable qsort of gprof's cmp_topo.  A counting sort. */
static uint32_t *gprof_top_sorted(const struct model_gprof *g)
{
	uint32_t n = g->nnodes;
	size_t *pos = calloc((size_t)n + 2, sizeof(*pos));
	uint32_t *ts = malloc(((size_t)n + 1) * sizeof(*ts));

	if (!pos || !ts) {
		free(pos);
		free(ts);
		return NULL;
	}
	for (uint32_t v = 0; v < n; v++)
		pos[g->nodes[v].top + 1]++;
	for (uint32_t t = 1; t <= n + 1; t++)
		pos[t] += pos[t - 1];
	for (uint32_t v = 0; v < n; v++)
		ts[pos[g->nodes[v].top]++] = v;
	free(pos);
	return ts;
}

/* gprof's inherit_flags: the share of a function's (or cycle's) time that
 * its callers receive, from the callers' own shares and the call counts. */
static void gprof_inherit(struct model_gprof *g, uint32_t child)
{
	struct model_gprof_node *nd = &g->nodes[child];

	if (!nd->cycle) {
		nd->fract = 0.0;
		for (size_t k = g->in_start[child]; k < g->in_start[child + 1]; k++) {
			const struct model_gprof_arc *a = &g->arcs[g->in[k]];
			if (a->caller == child)
				continue;
			if (nd->ncalls != 0)
				nd->fract += g->nodes[a->caller].fract *
					     (((double)a->count) / ((double)nd->ncalls));
		}
		return;
	}
	struct model_gprof_cycle *cy = &g->cycles[nd->cycle];
	cy->fract = 0.0;
	for (uint32_t m = cy->first; m != MODEL_GPROF_NONE; m = g->nodes[m].member_next) {
		for (size_t k = g->in_start[m]; k < g->in_start[m + 1]; k++) {
			const struct model_gprof_arc *a = &g->arcs[g->in[k]];
			if (g->nodes[a->caller].cycle == nd->cycle)
				continue;
			if (cy->ncalls != 0)
				cy->fract += g->nodes[a->caller].fract *
					     (((double)a->count) / ((double)cy->ncalls));
		}
	}
	for (uint32_t m = cy->first; m != MODEL_GPROF_NONE; m = g->nodes[m].member_next)
		g->nodes[m].fract = cy->fract;
}

/* gprof's propagate_time for one caller: each arc takes the callee's (or
 * its cycle's) self and children time times its share of the calls. */
static void gprof_propagate_from(struct model_gprof *g, uint32_t parent)
{
	struct model_gprof_node *p = &g->nodes[parent];

	if (p->fract == 0.0)
		return;
	for (size_t k = g->out_start[parent]; k < g->out_start[parent + 1]; k++) {
		struct model_gprof_arc *a = &g->arcs[g->out[k]];
		const struct model_gprof_node *c = &g->nodes[a->callee];
		double self, child;
		uint64_t ncalls;
		if (a->count == 0 || a->callee == parent || c->fract == 0)
			continue;
		if (c->cycle) {
			if (c->cycle == p->cycle)
				continue;
			self = g->cycles[c->cycle].self;
			child = g->cycles[c->cycle].child;
			ncalls = g->cycles[c->cycle].ncalls;
		} else {
			self = c->self;
			child = c->child;
			ncalls = c->ncalls;
		}
		if (ncalls == 0)
			continue;
		a->self = self * (((double)a->count) / ((double)ncalls));
		a->child = child * (((double)a->count) / ((double)ncalls));
		double share = a->self + a->child;
		p->child += share;
		double prop_share = p->fract * share;
		p->prop_child += prop_share;
		a->self *= p->fract;
		a->child *= p->fract;
		if (p->cycle) {
			g->cycles[p->cycle].child += share;
			g->cycles[p->cycle].prop_child += prop_share;
		}
	}
}

/* Nodes then cycles by their time in the call graph (gprof's cmp_total),
 * which gives the listing's [N]. */
static int gprof_cmp_total(const void *x, const void *y, void *arg)
{
	const struct model_gprof *g = arg;
	uint32_t a = *(const uint32_t *)x, b = *(const uint32_t *)y, n = g->nnodes;
	double ta = a >= n ? g->cycles[a - n].prop_self + g->cycles[a - n].prop_child
			   : g->nodes[a].prop_self + g->nodes[a].prop_child;
	double tb = b >= n ? g->cycles[b - n].prop_self + g->cycles[b - n].prop_child
			   : g->nodes[b].prop_self + g->nodes[b].prop_child;

	if (ta != tb)
		return ta > tb ? -1 : 1;
	if (a >= n || b >= n)
		return a >= n && b >= n ? (a < b ? -1 : 1) : (a >= n ? -1 : 1);
	const struct model_gprof_node *na = &g->nodes[a], *nb = &g->nodes[b];
	if ((na->sort_name[0] == '_') != (nb->sort_name[0] == '_'))
		return na->sort_name[0] == '_' ? 1 : -1;
	if (na->ncalls != nb->ncalls)
		return na->ncalls > nb->ncalls ? -1 : 1;
	int s = strcmp(na->sort_name, nb->sort_name);
	if (s)
		return s;
	return a < b ? -1 : 1;
}

static int gprof_order(struct model_gprof *g)
{
	g->order = malloc(((size_t)g->nnodes + g->ncycles + 1) * sizeof(*g->order));
	if (!g->order)
		return -1;
	g->norder = 0;
	for (uint32_t v = 0; v < g->nnodes; v++) {
		const struct model_gprof_node *n = &g->nodes[v];
		if (n->numbered || n->ncalls || n->self_calls || n->self || n->child)
			g->order[g->norder++] = v;
	}
	for (uint32_t c = 1; c <= g->ncycles; c++)
		g->order[g->norder++] = g->nnodes + c;
	qsort_r(g->order, g->norder, sizeof(*g->order), gprof_cmp_total, g);
	for (size_t i = 0; i < g->norder; i++) {
		uint32_t e = g->order[i];
		if (e >= g->nnodes)
			g->cycles[e - g->nnodes].index = (uint32_t)i + 1;
		else
			g->nodes[e].index = (uint32_t)i + 1;
	}
	return 0;
}

int model_gprof_propagate(struct model_gprof *g)
{
	uint32_t *ts;

	g->method = MODEL_GPROF_PROPAGATE;
	if (gprof_structure(g) || !(ts = gprof_top_sorted(g)))
		return -1;
	/* Top down: every function's share (propagate_flags). */
	uint32_t old = MODEL_GPROF_NONE;
	g->print_time = 0;
	for (uint32_t i = g->nnodes; i-- > 0;) {
		uint32_t v = ts[i];
		struct model_gprof_node *nd = &g->nodes[v];
		uint32_t head = nd->cycle ? g->nnodes + nd->cycle : v;
		if (head != old) {
			old = head;
			gprof_inherit(g, v);
		}
		if (nd->fract == 0.0)
			nd->fract = 1.0;
		nd->prop_self = nd->self * nd->fract;
		g->print_time += nd->prop_self;
	}
	/* Cycles as a whole (cycle_time). */
	for (uint32_t c = 1; c <= g->ncycles; c++) {
		struct model_gprof_cycle *cy = &g->cycles[c];
		for (uint32_t m = cy->first; m != MODEL_GPROF_NONE; m = g->nodes[m].member_next)
			if (g->nodes[m].fract != 0.0)
				cy->self += g->nodes[m].self;
		cy->prop_self = cy->fract * cy->self;
	}
	/* Bottom up: time along the arcs. */
	for (uint32_t i = 0; i < g->nnodes; i++)
		gprof_propagate_from(g, ts[i]);
	free(ts);
	return gprof_order(g);
}

/* Component of a node: itself, or its cycle. */
static inline uint64_t gprof_comp(const struct model_gprof *g, uint32_t v)
{
	return g->nodes[v].cycle ? (uint64_t)g->nnodes + g->nodes[v].cycle : v;
}

/* The stack method (model_gprof.h): one pass over the entries, each cut
 * into runs of one component. */
static void gprof_measure(struct model_gprof *g, const struct model *m, enum model_metric metric)
{
	for (size_t i = 0; i < m->nentries; i++) {
		const struct model_entry *e = &m->entries[i];
		const uint32_t *f = e->funcs;
		uint32_t n = e->n;
		uint64_t v = model_entry_value(e, metric);
		if (!v || !n)
			continue;
		double w = (double)v;
		uint64_t leaf = gprof_comp(g, f[n - 1]);
		g->nodes[f[n - 1]].self += w;
		if (gprof_comp(g, f[0]) == leaf)
			g->nodes[f[0]].spont_self += w;
		else
			g->nodes[f[0]].spont_child += w;
		for (uint32_t j = 0; j < n; j++) {
			uint64_t c = gprof_comp(g, f[j]);
			if (j + 1 < n && gprof_comp(g, f[j + 1]) == c)
				continue;          /* not the last frame of its run */
			if (c != leaf)
				g->nodes[f[j]].child += w;
			if (g->nodes[f[j]].cycle) {
				struct model_gprof_cycle *cy = &g->cycles[g->nodes[f[j]].cycle];
				if (c == leaf)
					cy->self += w;
				else
					cy->child += w;
			}
			if (j + 1 == n)
				continue;
			uint64_t *k = model_map_get(&g->arc_of, ((uint64_t)f[j] << 32 | f[j + 1]) + 1);
			struct model_gprof_arc *a = &g->arcs[*k - 1];    /* added by the first pass */
			if (gprof_comp(g, f[j + 1]) == leaf)
				a->self += w;
			else
				a->child += w;
		}
	}
	g->print_time = 0;
	for (uint32_t v = 0; v < g->nnodes; v++) {
		struct model_gprof_node *nd = &g->nodes[v];
		nd->fract = 1.0;
		nd->prop_self = nd->self;
		nd->prop_child = nd->child;
		g->print_time += nd->self;
	}
	for (uint32_t c = 1; c <= g->ncycles; c++) {
		g->cycles[c].fract = 1.0;
		g->cycles[c].prop_self = g->cycles[c].self;
		g->cycles[c].prop_child = g->cycles[c].child;
	}
}

bool model_gprof_timed_arcs(const struct model *m)
{
	for (size_t i = 0; i < m->narcs; i++)
		if (m->arcs[i].flags & EXP_ARCS_CYG)
			return true;
	return false;
}

/* The timed method (model_gprof.h), on a graph whose arcs are model.arcs
 * in order and whose structure is found. */
static int gprof_timed(struct model_gprof *g, const struct model *m)
{
	double *in = calloc((size_t)g->nnodes + 1, sizeof(*in));
	double *out_other = calloc((size_t)g->nnodes + 1, sizeof(*out_other));

	if (!in || !out_other) {
		free(in);
		free(out_other);
		return -1;
	}
	for (size_t i = 0; i < m->narcs; i++) {
		const struct model_arc *a = &m->arcs[i];
		if (!(a->flags & EXP_ARCS_CYG))
			continue;
		double x = (double)a->incl_ns;
		in[a->callee] += x;
		if (a->caller != a->callee)
			out_other[a->caller] += x;
		uint64_t cu = gprof_comp(g, a->caller), cv = gprof_comp(g, a->callee);
		if (cu == cv)
			continue;
		g->nodes[a->caller].child += x;
		if (g->nodes[a->caller].cycle)
			g->cycles[g->nodes[a->caller].cycle].child += x;
	}
	g->print_time = 0;
	for (uint32_t v = 0; v < g->nnodes; v++) {
		struct model_gprof_node *nd = &g->nodes[v];
		nd->self = in[v] > out_other[v] ? in[v] - out_other[v] : 0;
		nd->fract = 1.0;
		nd->prop_self = nd->self;
		nd->prop_child = nd->child;
		nd->numbered = false;          /* listed if it has time or calls */
		g->print_time += nd->self;
		if (nd->cycle)
			g->cycles[nd->cycle].self += nd->self;
	}
	for (uint32_t c = 1; c <= g->ncycles; c++) {
		g->cycles[c].fract = 1.0;
		g->cycles[c].prop_self = g->cycles[c].self;
		g->cycles[c].prop_child = g->cycles[c].child;
	}
	g->total = g->print_time;
	/* Arcs: model.arcs were added first, in order (model_gprof_from_model). */
	for (size_t i = 0; i < m->narcs; i++) {
		const struct model_arc *a = &m->arcs[i];
		struct model_gprof_arc *ga = &g->arcs[i];
		if (!(a->flags & EXP_ARCS_CYG) || gprof_comp(g, a->caller) == gprof_comp(g, a->callee))
			continue;
		double self = g->nodes[a->callee].self, whole = self + g->nodes[a->callee].child;
		if (g->nodes[a->callee].cycle) {
			const struct model_gprof_cycle *cy = &g->cycles[g->nodes[a->callee].cycle];
			self = cy->self;
			whole = cy->self + cy->child;
		}
		double x = (double)a->incl_ns;
		ga->self = whole > 0 ? x * self / whole : 0;
		ga->child = x - ga->self;
	}
	free(in);
	free(out_other);
	return 0;
}

bool *model_gprof_qualified(const struct model *m)
{
	bool *q = calloc((size_t)m->nfuncs + 1, sizeof(*q));

	for (uint32_t i = 0; q && i < m->nfuncs; i++)
		q[i] = m->funcs[i].qualify != MODEL_QUALIFY_NONE;
	return q;
}

int model_gprof_from_model(struct model_gprof *g, const struct model *m, enum model_metric metric,
			   enum model_gprof_method method)
{
	const struct model_metric_info *mi = model_metric_info(metric);

	if (model_gprof_init(g, m->nfuncs, mi->is_time ? 1e9 : 1.0))
		return -1;
	g->method = method;
	if (!mi->is_time) {
		snprintf(g->dimen, sizeof(g->dimen), "%s", mi->name);
		g->dimen_abbrev = mi->name[0];
	}
	for (uint32_t v = 0; v < m->nfuncs; v++) {
		g->nodes[v].name = m->funcs[v].name;
		g->nodes[v].sort_name = m->funcs[v].name;
		g->nodes[v].object = m->funcs[v].object;
		g->nodes[v].artificial = (m->funcs[v].flags & (MODEL_FUNC_ARTIFICIAL | SYM_FUNC_PLT |
								SYM_FUNC_STATIC)) != 0;
		g->nodes[v].numbered = !g->nodes[v].artificial;
	}
	bool *q = model_gprof_qualified(m);
	if (!q)
		return -1;
	for (uint32_t v = 0; v < m->nfuncs; v++)
		g->nodes[v].qualify = q[v];
	free(q);
	for (size_t i = 0; i < m->narcs; i++)
		if (model_gprof_arc_add(g, m->arcs[i].caller, m->arcs[i].callee, m->arcs[i].count, true) < 0)
			return -1;
	if (method == MODEL_GPROF_TIMED) {
		g->units_per_sec = 1e9;
		snprintf(g->dimen, sizeof(g->dimen), "seconds");
		g->dimen_abbrev = 's';
		g->call_ns = m->cyg_call_ns;
		g->own_ns = m->cyg_own_ns;
		if (gprof_structure(g) || gprof_timed(g, m))
			return -1;
		return gprof_order(g);
	}
	for (size_t i = 0; i < m->nentries; i++) {
		const struct model_entry *e = &m->entries[i];
		uint64_t v = model_entry_value(e, metric);
		if (!v || !e->n)
			continue;
		g->total += (double)v;
		g->nstacks++;
		if (method == MODEL_GPROF_PROPAGATE) {
			g->nodes[e->funcs[e->n - 1]].self += (double)v;
			continue;
		}
		for (uint32_t j = 1; j < e->n; j++)
			if (model_gprof_arc_add(g, e->funcs[j - 1], e->funcs[j], 0, false) < 0)
				return -1;
	}
	if (metric == MODEL_CPU && m->samples)
		g->nstacks = m->samples;
	if (method == MODEL_GPROF_PROPAGATE)
		return model_gprof_propagate(g);
	if (gprof_structure(g))
		return -1;
	gprof_measure(g, m, metric);
	return gprof_order(g);
}

/* gprof's hist_assign_samples_1 for one histogram: bin i covers
 * [low + (u64)(scale*i), low + (u64)(scale*(i+1))) in 2-byte units, and a
 * function [start, next start) gets the overlapping fraction of its count. */
static void gprof_credit_hist(struct model_gprof *g, const struct gmon_hist *h,
			      const uint64_t *scaled, size_t nf, struct model_gprof_gmon_stats *st)
{
	double scale = (double)((h->high_pc - h->low_pc) / 2) / h->nbins;
	uint64_t lowpc = h->low_pc / 2;
	size_t j, k = 1;

	for (uint32_t i = 0; i < h->nbins; i++) {
		uint64_t bin_count = h->bins[i];
		bool credited = false;
		if (!bin_count)
			continue;
		uint64_t bin_low = lowpc + (uint64_t)(scale * i);
		uint64_t bin_high = lowpc + (uint64_t)(scale * (i + 1));
		double count_time = (double)bin_count;
		g->total += count_time;
		for (j = k - 1; j < nf; k = ++j) {
			uint64_t sym_low = scaled[j], sym_high = scaled[j + 1];
			if (bin_high < sym_low)
				break;
			if (bin_low >= sym_high)
				continue;
			uint64_t overlap = (bin_high < sym_high ? bin_high : sym_high) -
					   (bin_low > sym_low ? bin_low : sym_low);
			if (overlap > 0) {
				g->nodes[j].self += (double)overlap * count_time / scale;
				credited = true;
			}
		}
		if (!credited)
			st->outside_samples += bin_count;
	}
}

/* Node of the function holding `pc`, or the last node (<Unknown>). */
static uint32_t gprof_node_at(struct sym_object *o, uint64_t pc, uint32_t unknown)
{
	const struct sym_func *f = sym_object_lookup(o, pc);

	return f ? f->id : unknown;
}

/* Does a function of ours start at addr? */
static bool gprof_is_start(struct sym_object *o, uint64_t addr)
{
	const struct sym_func *f = sym_object_lookup(o, addr);

	return f && f->start == addr;
}

/* Which nodes get an [N] with no time and no calls: those of gprof's symbol
 * table gs[0..ngs) (sym_gprof.c), each of ours starting at one of its
 * addresses, and after unknown a node of nothing for each of the others.
 * Without a table (no .symtab), every function that is not artificial. */
static void gprof_number_as_gprof(struct model_gprof *g, struct sym_object *o, const struct sym_func *funcs,
				  size_t nf, const struct sym_gprof_sym *gs, long ngs)
{
	uint32_t ghost = (uint32_t)nf + 1;

	if (ngs <= 0) {
		for (size_t i = 0; i < nf; i++)
			g->nodes[i].numbered = !g->nodes[i].artificial;
		return;
	}
	for (long i = 0; i < ngs; i++) {
		const struct sym_func *f = sym_object_lookup(o, gs[i].addr);
		if (f && f->start == gs[i].addr && f >= funcs && f < funcs + nf) {
			g->nodes[f - funcs].numbered = true;
			continue;
		}
		struct model_gprof_node *nd = &g->nodes[ghost++];
		nd->name = nd->sort_name = gs[i].name;
		nd->object = sym_object_name(o);
		nd->numbered = true;
	}
}

int model_gprof_from_gmon(struct model_gprof *g, const struct gmon_profile *p,
			  struct sym_object *o, struct model_gprof_gmon_stats *st,
			  char *err, size_t errlen)
{
	const struct sym_func *funcs;
	size_t nf = sym_object_functions(o, &funcs);
	uint32_t unknown = (uint32_t)nf;
	uint64_t *scaled = NULL;
	struct sym_gprof_sym *gs = NULL;
	long ngs = 0;
	size_t nghosts = 0;

	memset(st, 0, sizeof(*st));
	if (nf >= MODEL_GPROF_NONE - 1) {
		snprintf(err, errlen, "%s: too many functions", sym_object_path(o));
		return -1;
	}
	/* gprof's symbols that are no function of ours (data_start, etext)
	 * become nodes with nothing: numbered, never printed. */
	if ((ngs = sym_object_gprof_symbols(o, &gs)) < 0)
		goto oom;
	for (long i = 0; i < ngs; i++)
		nghosts += !gprof_is_start(o, gs[i].addr);
	if (nf + nghosts >= MODEL_GPROF_NONE - 1) {
		free(gs);
		snprintf(err, errlen, "%s: too many functions", sym_object_path(o));
		return -1;
	}
	if (model_gprof_init(g, (uint32_t)(nf + 1 + nghosts), p->nhists ? p->hists[0].rate_hz : 100))
		goto oom;
	if (p->nhists) {
		snprintf(g->dimen, sizeof(g->dimen), "%s", p->hists[0].dimen);
		g->dimen_abbrev = p->hists[0].dimen_abbrev;
	}
	for (size_t i = 0; i < nf; i++) {
		struct model_gprof_node *nd = &g->nodes[i];
		const char *file;
		int line;
		nd->name = funcs[i].name;
		nd->sort_name = funcs[i].link_name ? funcs[i].link_name : funcs[i].name;
		nd->object = sym_object_name(o);
		nd->artificial = (funcs[i].flags & (SYM_FUNC_PLT | SYM_FUNC_STATIC)) != 0;
		if ((funcs[i].flags & SYM_FUNC_LOCAL) && sym_object_line(o, funcs[i].start, &file, &line))
			nd->file = strrchr(file, '/') ? strrchr(file, '/') + 1 : file;
	}
	g->nodes[unknown].name = g->nodes[unknown].sort_name = "<Unknown>";
	g->nodes[unknown].artificial = true;
	gprof_number_as_gprof(g, o, funcs, nf, gs, ngs);
	free(gs);
	gs = NULL;
	scaled = malloc((nf + 1) * sizeof(*scaled));
	if (!scaled)
		goto oom;
	for (size_t i = 0; i < nf; i++)
		scaled[i] = funcs[i].start / 2;
	scaled[nf] = nf ? (funcs[nf - 1].start + funcs[nf - 1].size) / 2 : 0;
	if (p->nhists)
		g->bin_bytes = (long)((double)((p->hists[0].high_pc - p->hists[0].low_pc) / 2) /
				      p->hists[0].nbins) * 2;
	for (size_t h = 0; h < p->nhists; h++)
		gprof_credit_hist(g, &p->hists[h], scaled, nf, st);
	free(scaled);
	for (size_t i = 0; i < p->narcs; i++) {
		const struct gmon_arc *a = &p->arcs[i];
		/* glibc writes from_pc rounded down to its table's 16-byte
		 * slots (HASHFRACTION * sizeof(ARCINDEX)): looked up as is, as
		 * gprof does; one byte less can fall in the function before. */
		uint32_t from = gprof_node_at(o, a->from_pc, unknown);
		uint32_t self = gprof_node_at(o, a->self_pc, unknown);
		if (from == unknown || self == unknown)
			st->unknown_arcs++;
		if (model_gprof_arc_add(g, from, self, a->count, true) < 0)
			goto oom;
	}
	if (model_gprof_propagate(g))
		goto oom;
	return 0;
oom:
	free(gs);
	snprintf(err, errlen, "out of memory");
	return -1;
}

void model_gprof_free(struct model_gprof *g)
{
	free(g->nodes);
	free(g->arcs);
	free(g->cycles);
	free(g->out_start);
	free(g->in_start);
	free(g->out);
	free(g->in);
	free(g->order);
	model_map_free(&g->arc_of);
	memset(g, 0, sizeof(*g));
}
