/* SPDX-License-Identifier: MIT
 *
 * model_funcs.c — function-level views of the entries: exclusive and
 * inclusive metrics, finding a function by name, callers and callees.
 *
 * Inclusive metrics count an entry once per function even when the function
 * recurs in it (a generation stamp per function marks "already counted in
 * this entry"); the same rule applies to each caller and callee edge.
 */
#include <stdlib.h>
#include <string.h>

#include "model/model.h"

void model_func_metrics(const struct model *m, struct model_func_metrics *out)
{
	uint32_t *stamp = calloc(m->nfuncs, sizeof(*stamp));

	memset(out, 0, m->nfuncs * sizeof(*out));
	for (size_t i = 0; i < m->nentries; i++) {
		const struct model_entry *e = &m->entries[i];
		uint32_t gen = (uint32_t)i + 1;
		for (int k = 0; k < MODEL_METRIC_COUNT; k++) {
			out[MODEL_TOTAL].incl[k] += e->v[k];
			out[MODEL_TOTAL].excl[k] += 0;
			if (e->n)
				out[e->funcs[e->n - 1]].excl[k] += e->v[k];
		}
		for (uint32_t j = 0; j < e->n; j++) {
			uint32_t f = e->funcs[j];
			if (stamp && stamp[f] == gen)
				continue;
			if (stamp)
				stamp[f] = gen;
			for (int k = 0; k < MODEL_METRIC_COUNT; k++)
				out[f].incl[k] += e->v[k];
		}
	}
	free(stamp);
}

/* `name` without a trailing argument list: "ns::A<int>::f(int) const" -> "ns::A<int>::f". */
static size_t base_len(const char *name)
{
	size_t n = strlen(name);
	const char *end = name + n;

	while (end > name && end[-1] != ')') {
		/* trailing qualifiers: " const", " &" ... */
		if (end[-1] == ' ' || (end[-1] >= 'a' && end[-1] <= 'z') || end[-1] == '&')
			end--;
		else
			return n;
	}
	if (end == name)
		return n;
	int depth = 0;
	for (const char *p = end; p-- > name;) {
		if (*p == ')')
			depth++;
		else if (*p == '(' && --depth == 0)
			return p > name && strncmp(name, "operator", 8) ? (size_t)(p - name) : n;
	}
	return n;
}

size_t model_func_find(const struct model *m, const char *name, uint32_t *ids, size_t max)
{
	size_t found = 0, want = strlen(name);

	for (int pass = 0; pass < 3 && !found; pass++) {
		for (uint32_t i = 0; i < m->nfuncs; i++) {
			const char *f = m->funcs[i].name;
			bool hit;
			if (pass == 0) {
				hit = !strcmp(f, name);
			} else if (pass == 1) {
				hit = base_len(f) == want && !strncmp(f, name, want);
			} else {
				/* clone suffixes: f.part.0, f.constprop.1, f._omp_fn.0 ... */
				size_t b = base_len(f);
				hit = b > want && !strncmp(f, name, want) && f[want] == '.';
			}
			if (hit) {
				if (found < max)
					ids[found] = i;
				found++;
			}
		}
	}
	return found;
}

static enum model_metric sort_metric;

static int cmp_edge(const void *a, const void *b)
{
	const struct model_edge *x = a, *y = b;

	if (x->v[sort_metric] != y->v[sort_metric])
		return x->v[sort_metric] > y->v[sort_metric] ? -1 : 1;
	return x->func < y->func ? -1 : x->func > y->func;
}

/* Add entry weights to the edge of function f in `idx` (function -> slot + 1). */
static void edge_add(struct model_edge **arr, size_t *n, uint32_t *idx, uint32_t f,
		     const uint64_t *v)
{
	if (!idx[f]) {
		struct model_edge *q = realloc(*arr, (*n + 1) * sizeof(**arr));
		if (!q)
			return;
		*arr = q;
		memset(&q[*n], 0, sizeof(q[*n]));
		q[*n].func = f;
		idx[f] = (uint32_t)++*n;
	}
	for (int k = 0; k < MODEL_METRIC_COUNT; k++)
		(*arr)[idx[f] - 1].v[k] += v[k];
}

int model_callers_callees(const struct model *m, uint32_t focus, enum model_metric sort_by,
			  struct model_edge **callers, size_t *ncallers,
			  struct model_edge **callees, size_t *ncallees)
{
	uint32_t *cidx = calloc(m->nfuncs, sizeof(*cidx)), *eidx = calloc(m->nfuncs, sizeof(*eidx));
	uint32_t *cstamp = calloc(m->nfuncs, sizeof(*cstamp)), *estamp = calloc(m->nfuncs, sizeof(*estamp));

	*callers = *callees = NULL;
	*ncallers = *ncallees = 0;
	if (!cidx || !eidx || !cstamp || !estamp) {
		free(cidx), free(eidx), free(cstamp), free(estamp);
		return -1;
	}
	for (size_t i = 0; i < m->nentries; i++) {
		const struct model_entry *e = &m->entries[i];
		uint32_t gen = (uint32_t)i + 1;
		for (uint32_t j = 0; j < e->n; j++) {
			if (e->funcs[j] != focus)
				continue;
			uint32_t caller = j ? e->funcs[j - 1] : MODEL_TOTAL;
			if (cstamp[caller] != gen) {
				cstamp[caller] = gen;
				edge_add(callers, ncallers, cidx, caller, e->v);
			}
			if (j + 1 < e->n) {
				uint32_t callee = e->funcs[j + 1];
				if (estamp[callee] != gen) {
					estamp[callee] = gen;
					edge_add(callees, ncallees, eidx, callee, e->v);
				}
			}
		}
	}
	sort_metric = sort_by;
	if (*ncallers)
		qsort(*callers, *ncallers, sizeof(**callers), cmp_edge);
	if (*ncallees)
		qsort(*callees, *ncallees, sizeof(**callees), cmp_edge);
	free(cidx), free(eidx), free(cstamp), free(estamp);
	return 0;
}
