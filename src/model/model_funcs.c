/* SPDX-License-Identifier: MIT
 *
 * model_funcs.c — function-level views of the entries: exclusive and
 * inclusive metrics, finding a function by name, callers and callees.
 *
 * Inclusive metrics count an entry once per function even when the function
 * recurs in it (a generation stamp per function marks "already counted in
 * this entry"); the same rule applies to each caller and callee edge.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/model.h"

int model_entry_nonzero(const struct model_entry *e, int *nz)
{
	int n = 0;

	if (e->all) {
		for (int k = 0; k < MODEL_METRIC_COUNT; k++)
			if (e->all[k])
				nz[n++] = k;
		return n;
	}
	for (unsigned i = 0; i < e->nslots; i++) {      /* by metric, as above */
		if (!e->slot[i])
			continue;
		int k = e->slot_metric[i], at = n++;
		while (at > 0 && nz[at - 1] > k) {
			nz[at] = nz[at - 1];
			at--;
		}
		nz[at] = k;
	}
	return n;
}

int model_func_metrics(const struct model *m, struct model_func_metrics *out)
{
	uint32_t *stamp = calloc(m->nfuncs, sizeof(*stamp));

	if (!stamp && m->nfuncs)
		return -1;
	memset(out, 0, m->nfuncs * sizeof(*out));
	for (size_t i = 0; i < m->nentries; i++) {
		const struct model_entry *e = &m->entries[i];
		uint32_t gen = (uint32_t)i + 1;
		int nz[MODEL_METRIC_COUNT], nnz = model_entry_nonzero(e, nz);
		uint64_t val[MODEL_METRIC_COUNT];
		for (int q = 0; q < nnz; q++) {
			int k = nz[q];
			val[q] = model_entry_value(e, k);
			out[MODEL_TOTAL].incl[k] += val[q];
			if (e->n)
				out[e->funcs[e->n - 1]].excl[k] += val[q];
		}
		for (uint32_t j = 0; j < e->n && nnz; j++) {
			uint32_t f = e->funcs[j];
			if (stamp[f] == gen)
				continue;
			stamp[f] = gen;
			for (int q = 0; q < nnz; q++)
				out[f].incl[nz[q]] += val[q];
		}
	}
	free(stamp);
	return 0;
}

/* Length of `name` without trailing " [clone .x]" groups. */
static size_t unclone_len(const char *name, size_t n)
{
	while (n > 0 && name[n - 1] == ']') {
		size_t k = n;
		while (k > 0 && name[k - 1] != '[')
			k--;
		if (k < 2 || strncmp(name + k, "clone ", 6) || name[k - 2] != ' ')
			break;
		n = k - 2;
	}
	return n;
}

#define INLINED_MARK " (inlined)"    /* model_frames.c's name for an inlined function */

/* Length of `name` without a trailing INLINED_MARK. */
static size_t uninline_len(const char *name, size_t n)
{
	size_t m = sizeof(INLINED_MARK) - 1;

	return n > m && !strcmp(name + n - m, INLINED_MARK) ? n - m : n;
}

/* `name` without the inlined mark, clone groups and a trailing argument
 * list: "ns::A<int>::f(int) const" -> "ns::A<int>::f", "helper (a.c)" ->
 * "helper", "work [clone .cold]" -> "work", "f(int) (inlined)" -> "f". */
static size_t base_len(const char *name)
{
	size_t n = unclone_len(name, uninline_len(name, strlen(name)));
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
		else if (*p == '(' && --depth == 0) {
			if (p == name || !strncmp(name, "operator", 8))
				return n;
			while (p > name && p[-1] == ' ')
				p--;
			return (size_t)(p - name);
		}
	}
	return n;
}

/* Is name[0..len) one of the ", "-separated `aliases`? */
static bool is_alias(const char *aliases, const char *name, size_t len)
{
	for (const char *p = aliases; p && *p;) {
		const char *e = strstr(p, ", ");
		size_t l = e ? (size_t)(e - p) : strlen(p);
		if (l == len && !strncmp(p, name, len))
			return true;
		p = e ? e + 2 : NULL;
	}
	return false;
}

static int cmp_by_name(const void *a, const void *b, void *arg)
{
	const struct model *m = arg;
	const struct model_func *x = &m->funcs[*(const uint32_t *)a], *y = &m->funcs[*(const uint32_t *)b];
	int c = strcmp(x->name, y->name);

	return c ? c : strcmp(x->path, y->path);
}

/* Functions the views can show: in a stack, an arc or as a thread's start
 * routine (the model also holds the collector's own, dropped from stacks). */
static bool *funcs_shown(const struct model *m)
{
	bool *shown = calloc((size_t)m->nfuncs + 1, sizeof(*shown));

	if (!shown)
		return NULL;
	for (size_t i = 0; i < m->nentries; i++)
		for (uint32_t j = 0; j < m->entries[i].n; j++)
			shown[m->entries[i].funcs[j]] = true;
	for (size_t i = 0; i < m->narcs; i++)
		shown[m->arcs[i].caller] = shown[m->arcs[i].callee] = true;
	for (size_t i = 0; i < m->nthreads; i++)
		shown[m->threads[i].routine] = true;
	return shown;
}

void model_func_qualify(struct model *m)
{
	uint32_t *ids = malloc(((size_t)m->nfuncs + 1) * sizeof(*ids));
	bool *shown = funcs_shown(m);
	uint32_t n = 0;

	for (uint32_t i = 0; i < m->nfuncs; i++)
		m->funcs[i].qualify = MODEL_QUALIFY_NONE;
	for (uint32_t i = 0; ids && shown && i < m->nfuncs; i++)
		if (shown[i])
			ids[n++] = i;
	free(shown);
	if (!ids || !n) {
		free(ids);
		return;                     /* names stay unqualified */
	}
	qsort_r(ids, n, sizeof(*ids), cmp_by_name, m);
	for (uint32_t i = 0; i < n;) {
		uint32_t j = i + 1;
		bool mixed = false, same_base = false;
		while (j < n && !strcmp(m->funcs[ids[j]].name, m->funcs[ids[i]].name))
			j++;
		/* Sorted by path within the name: alike neighbours share a path. */
		for (uint32_t k = i + 1; k < j; k++) {
			const struct model_func *a = &m->funcs[ids[k - 1]], *b = &m->funcs[ids[k]];
			mixed |= strcmp(a->path, b->path) != 0;
		}
		for (uint32_t k = i; mixed && k < j; k++)
			for (uint32_t l = k + 1; l < j && !same_base; l++)
				same_base = strcmp(m->funcs[ids[k]].path, m->funcs[ids[l]].path) &&
					    !strcmp(m->funcs[ids[k]].object, m->funcs[ids[l]].object);
		for (uint32_t k = i; mixed && k < j; k++)
			if (m->funcs[ids[k]].object[0])
				m->funcs[ids[k]].qualify = same_base ? MODEL_QUALIFY_PATH : MODEL_QUALIFY_OBJECT;
		i = j;
	}
	free(ids);
}

/* Does `name` end with " (suffix)"?  Returns the length before it, or 0. */
static size_t ends_with_paren(const char *name, const char *suffix)
{
	size_t n = strlen(name), s = strlen(suffix);

	if (!s || n < s + 4 || name[n - 1] != ')' || strncmp(name + n - 1 - s, suffix, s) ||
	    strncmp(name + n - s - 3, " (", 2))
		return 0;
	return n - s - 3;
}

const char *model_func_label(const struct model *m, uint32_t f, char *buf, size_t len)
{
	const struct model_func *fn = &m->funcs[f];

	switch (fn->qualify) {
	case MODEL_QUALIFY_OBJECT:
		snprintf(buf, len, "%s (%s)", fn->name, fn->object);
		return buf;
	case MODEL_QUALIFY_PATH: {
		size_t keep = ends_with_paren(fn->name, fn->object);
		snprintf(buf, len, "%.*s (%s)", (int)(keep ? keep : strlen(fn->name)), fn->name, fn->path);
		return buf;
	}
	default:
		return fn->name;
	}
}

/* Does the qualifier `q` (what was inside " (...)") name f's object: its
 * basename, its path, or the end of its path after a '/'? */
static bool qualifier_matches(const struct model_func *f, const char *q, size_t qlen)
{
	size_t plen = strlen(f->path);

	if (!qlen || !f->path[0])
		return false;
	if (strlen(f->object) == qlen && !strncmp(f->object, q, qlen))
		return true;
	return plen >= qlen && !strncmp(f->path + plen - qlen, q, qlen) &&
	       (plen == qlen || f->path[plen - qlen - 1] == '/' || q[0] == '/');
}

/* Functions matching `name` (`want` bytes of it) by the name passes, among
 * those whose object `qual` names (NULL: any): the display name; the symbol
 * as in the object or an alias; the name without arguments and clone
 * groups; with a raw clone suffix (f.part.0, f._omp_fn.0 ...). */
static size_t find_by_name(const struct model *m, const char *name, size_t want, const char *qual,
			   size_t qlen, uint32_t *ids, size_t max)
{
	size_t found = 0;

	for (int pass = 0; pass < 4 && !found; pass++) {
		for (uint32_t i = 0; i < m->nfuncs; i++) {
			const struct model_func *fn = &m->funcs[i];
			const char *f = fn->name;
			size_t b = base_len(f);
			bool hit;
			if (pass == 0)
				hit = strlen(f) == want && !strncmp(f, name, want);
			else if (pass == 1)
				hit = (fn->link && strlen(fn->link) == want && !strncmp(fn->link, name, want)) ||
				      is_alias(fn->aliases, name, want);
			else if (pass == 2)
				hit = b == want && !strncmp(f, name, want);
			else
				hit = b > want && !strncmp(f, name, want) && f[want] == '.';
			if (hit && qual && !qualifier_matches(fn, qual, qlen))
				hit = false;
			if (hit) {
				if (found < max)
					ids[found] = i;
				found++;
			}
		}
	}
	return found;
}

int model_funcs_shorten(struct model *m)
{
	for (uint32_t i = 1; i < m->nfuncs; i++) {
		struct model_func *f = &m->funcs[i];
		if (f->name[0] == '<')   /* a pseudo-function (<Truncated-stack>): no C++ name
		                            begins with '<', and its whole name is its text */
			continue;
		const char *clone = strstr(f->name, " [clone ");
		if (clone)        /* "f(int) [clone .isra.0]": the clone is f */
			f->name[clone - f->name] = 0;
		size_t n = base_len(f->name);
		bool inl = uninline_len(f->name, strlen(f->name)) != strlen(f->name);
		char *s = malloc(n + sizeof(INLINED_MARK)), *o = s;
		int depth = 0;
		bool op = strstr(f->name, "operator") != NULL;   /* < and > are the name there */
		if (!s)
			return -1;
		for (size_t k = 0; k < n; k++) {
			char c = f->name[k];
			if (!op && c == '<' && depth++ == 0) {
				memcpy(o, "<...", 4);
				o += 4;
			} else if (!op && c == '>' && depth > 0) {
				if (--depth == 0)
					*o++ = '>';
			} else if (!depth) {
				*o++ = c;
			}
		}
		*o = 0;
		if (inl)              /* "f (inlined)" stays marked */
			strcpy(o, INLINED_MARK);
		free(f->name);
		f->name = s;
	}
	return 0;
}

size_t model_func_find(const struct model *m, const char *name, uint32_t *ids, size_t max)
{
	size_t found = 0, want = strlen(name);
	char buf[4096];

	/* A gprof listing's index: "name [12]". */
	if (want > 3 && name[want - 1] == ']') {
		size_t k = want - 1;
		while (k > 0 && name[k - 1] >= '0' && name[k - 1] <= '9')
			k--;
		if (k >= 2 && k < want - 1 && name[k - 1] == '[' && name[k - 2] == ' ')
			want = k - 2;
	}
	/* As a view prints it. */
	for (uint32_t i = 0; i < m->nfuncs; i++) {
		const char *label = model_func_label(m, i, buf, sizeof(buf));
		if (strlen(label) == want && !strncmp(label, name, want)) {
			if (found < max)
				ids[found] = i;
			found++;
		}
	}
	if (found)
		return found;
	found = find_by_name(m, name, want, NULL, 0, ids, max);
	if (found)
		return found;
	/* "NAME (QUALIFIER)": the qualifier is the text in the last
	 * parentheses preceded by a space. */
	if (want > 4 && name[want - 1] == ')') {
		int depth = 0;
		for (size_t k = want; k-- > 1;) {
			if (name[k] == ')')
				depth++;
			else if (name[k] == '(' && --depth == 0) {
				if (name[k - 1] == ' ')
					found = find_by_name(m, name, k - 1, name + k + 1, want - k - 2, ids, max);
				break;
			}
		}
	}
	return found;
}

/* Edit distance between a and b (at most 255 bytes each), or `limit` + 1
 * once it must exceed `limit`. */
static size_t distance(const char *a, size_t na, const char *b, size_t nb, size_t limit)
{
	size_t row[256];

	if (na > 255 || nb > 255)
		return limit + 1;
	if ((na > nb ? na - nb : nb - na) > limit)
		return limit + 1;
	for (size_t j = 0; j <= nb; j++)
		row[j] = j;
	for (size_t i = 1; i <= na; i++) {
		size_t diag = row[0], best;
		row[0] = best = i;
		for (size_t j = 1; j <= nb; j++) {
			size_t up = row[j];
			size_t v = diag + (a[i - 1] != b[j - 1]);
			if (row[j - 1] + 1 < v)
				v = row[j - 1] + 1;
			if (up + 1 < v)
				v = up + 1;
			row[j] = v;
			diag = up;
			if (v < best)
				best = v;
		}
		if (best > limit)
			return limit + 1;
	}
	return row[nb];
}

size_t model_func_suggest(const struct model *m, const char *name, uint32_t *ids, size_t max)
{
	size_t want = strlen(name), limit = want / 3 > 2 ? want / 3 : 2, n = 0;
	size_t score[16];

	if (max > 16)
		max = 16;
	for (uint32_t i = 1; i < m->nfuncs && max; i++) {
		const char *f = m->funcs[i].name;
		size_t d = distance(name, want, f, base_len(f), limit);
		if (d > limit)
			d = want >= 3 && strstr(f, name) ? limit + 1 : SIZE_MAX;   /* contains it */
		if (d == SIZE_MAX)
			continue;
		bool dup = false;
		for (size_t k = 0; k < n && !dup; k++)
			dup = !strcmp(m->funcs[ids[k]].name, f);
		if (dup)
			continue;
		/* Insert in order of score, then name. */
		size_t at = n;
		while (at > 0 && (score[at - 1] > d ||
				  (score[at - 1] == d && strcmp(m->funcs[ids[at - 1]].name, f) > 0)))
			at--;
		if (at >= max)
			continue;
		size_t last = n < max ? n : max - 1;
		for (size_t k = last; k > at; k--) {
			ids[k] = ids[k - 1];
			score[k] = score[k - 1];
		}
		ids[at] = i;
		score[at] = d;
		if (n < max)
			n++;
	}
	return n;
}

static enum model_metric sort_metric;

static int cmp_edge(const void *a, const void *b)
{
	const struct model_edge *x = a, *y = b;

	if (x->v[sort_metric] != y->v[sort_metric])
		return x->v[sort_metric] > y->v[sort_metric] ? -1 : 1;
	return x->func < y->func ? -1 : x->func > y->func;
}

/* Add entry weights to the edge of function f in `idx` (function -> slot + 1);
 * -1 if out of memory. */
static int edge_add(struct model_edge **arr, size_t *n, uint32_t *idx, uint32_t f,
		    const struct model_entry *e)
{
	int nz[MODEL_METRIC_COUNT], nnz = model_entry_nonzero(e, nz);

	if (!idx[f]) {
		struct model_edge *q = realloc(*arr, (*n + 1) * sizeof(**arr));
		if (!q)
			return -1;
		*arr = q;
		memset(&q[*n], 0, sizeof(q[*n]));
		q[*n].func = f;
		idx[f] = (uint32_t)++*n;
	}
	for (int q = 0; q < nnz; q++)
		(*arr)[idx[f] - 1].v[nz[q]] += model_entry_value(e, nz[q]);
	return 0;
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
	int rc = 0;
	for (size_t i = 0; i < m->nentries && !rc; i++) {
		const struct model_entry *e = &m->entries[i];
		uint32_t gen = (uint32_t)i + 1;
		if (focus == MODEL_TOTAL && e->n) {   /* <Total> calls every stack's root */
			rc = edge_add(callees, ncallees, eidx, e->funcs[0], e);
			continue;
		}
		for (uint32_t j = 0; j < e->n && !rc; j++) {
			if (e->funcs[j] != focus)
				continue;
			uint32_t caller = j ? e->funcs[j - 1] : MODEL_TOTAL;
			if (cstamp[caller] != gen) {
				cstamp[caller] = gen;
				rc = edge_add(callers, ncallers, cidx, caller, e);
			}
			if (j + 1 < e->n) {
				uint32_t callee = e->funcs[j + 1];
				if (estamp[callee] != gen && !rc) {
					estamp[callee] = gen;
					rc = edge_add(callees, ncallees, eidx, callee, e);
				}
			}
		}
	}
	free(cidx), free(eidx), free(cstamp), free(estamp);
	if (rc) {
		free(*callers);
		free(*callees);
		*callers = *callees = NULL;
		*ncallers = *ncallees = 0;
		return -1;
	}
	sort_metric = sort_by;
	if (*ncallers)
		qsort(*callers, *ncallers, sizeof(**callers), cmp_edge);
	if (*ncallees)
		qsort(*callees, *ncallees, sizeof(**callees), cmp_edge);
	return 0;
}
