/* SPDX-License-Identifier: MIT
 *
 * report_html_tree.c — the call tree the HTML page draws its flame graphs,
 * functions table and callers from (see report_html.h for the JSON).
 *
 * Entries are rewritten into sequences of page function ids (functions
 * deduplicated by name and object, so two runs of a rebuilt binary line up
 * in a diff, and a renamed one's too: report_exe_renamed), sorted, and walked once: sorted sequences create the trie's
 * nodes in preorder, each node summing the values of the entries below it.
 * O(frames + entries · log entries) (a multikey quicksort, report_seqsort.c).
 */
#include <stdlib.h>
#include <string.h>

#include "model/model_map.h"
#include "report/report.h"
#include "report/report_html.h"
#include "report/report_json_write.h"
#include "report/report_seqsort.h"

/* Functions of the page: model function -> page id, and the page's list. */
struct page_funcs {
	uint32_t *of_model;        /* nfuncs slots */
	uint32_t *first_model;     /* page id -> a model function with its name */
	uint32_t n;
	struct model_map by_name;  /* hash(name, object) -> page id + 1 */
	uint32_t nprocs_first;     /* page ids [nprocs_first, +nprocs) are processes */
};

/* In a diff (base_nexps: A's experiments), the main executable B renamed:
 * *from (B's name) is *to (A's); both NULL if none, -1 out of memory. */
static int renamed_exe(const struct model *m, size_t base_nexps, const struct exp_experiment *exps,
		       const char **from, const char **to)
{
	const char **v = malloc((m->nprocs + 1) * sizeof(*v)), **w = malloc((m->nprocs + 1) * sizeof(*w));
	size_t nv = 0, nw = 0;

	*from = *to = NULL;
	if (!v || !w) {
		free(v);
		free(w);
		return -1;
	}
	for (size_t i = 0; base_nexps && i < m->nprocs; i++) {
		const struct model_proc *p = &m->procs[i];
		if (!p->src || !p->src->name)
			continue;
		if ((size_t)(p->exp - exps) < base_nexps)
			v[nv++] = p->src->name;
		else
			w[nw++] = p->src->name;
	}
	if (base_nexps)
		report_exe_renamed(v, nv, w, nw, to, from);
	free(v);
	free(w);
	return 0;
}

static int page_funcs_build(struct page_funcs *pf, const struct model *m, const char *from, const char *to)
{
	pf->of_model = malloc((m->nfuncs + 1) * sizeof(*pf->of_model));
	pf->first_model = malloc((m->nfuncs + m->nprocs + 1) * sizeof(*pf->first_model));
	if (!pf->of_model || !pf->first_model)
		return -1;
	for (uint32_t f = 0; f < m->nfuncs; f++) {
		const struct model_func *fn = &m->funcs[f];
		const char *obj = from && !strcmp(fn->object, from) ? to : fn->object;
		uint64_t key = model_hash_str(model_hash_str(0, fn->name), obj) | 1;
		for (;;) {
			bool inserted;
			uint64_t *v = model_map_put(&pf->by_name, key, pf->n + 1, &inserted);
			if (!v)
				return -1;
			if (inserted) {
				pf->first_model[pf->n] = f;
				pf->of_model[f] = pf->n++;
				break;
			}
			const struct model_func *g = &m->funcs[pf->first_model[*v - 1]];
			const char *gobj = from && !strcmp(g->object, from) ? to : g->object;
			if (!strcmp(g->name, fn->name) && !strcmp(gobj, obj)) {
				pf->of_model[f] = (uint32_t)*v - 1;
				break;
			}
			key = model_hash64(key) | 1;
		}
	}
	pf->nprocs_first = pf->n;
	return 0;
}

static void page_funcs_out(FILE *out, const struct model *m, const struct page_funcs *pf)
{
	struct model_map objs = { 0 };
	const char **names = malloc((pf->n + 1) * sizeof(*names));
	uint32_t nobjs = 0;

	fputs("\"funcs\":[", out);
	for (uint32_t i = 0; i < pf->n + (uint32_t)m->nprocs; i++) {
		const char *name, *obj = "";
		if (i < pf->n) {
			name = m->funcs[pf->first_model[i]].name;
			obj = m->funcs[pf->first_model[i]].object;
		} else {
			name = m->procs[i - pf->n].label;
		}
		uint64_t key = model_hash_str(0, obj) | 1;
		uint64_t *v = NULL;
		while ((v = model_map_get(&objs, key)) && strcmp(names[*v], obj))
			key = model_hash64(key) | 1;
		if (!v && names) {
			names[nobjs] = obj;
			model_map_put(&objs, key, nobjs++, NULL);
			v = model_map_get(&objs, key);
		}
		fputs(i ? ",[" : "[", out);
		report_json_string(out, name);
		fprintf(out, ",%llu]", v ? (unsigned long long)*v : 0ull);
	}
	fputs("],\n\"objs\":[", out);
	for (uint32_t i = 0; i < nobjs; i++) {
		fputs(i ? "," : "", out);
		report_json_string(out, names[i]);
	}
	fputs("],\n", out);
	model_map_free(&objs);
	free(names);
}

/* The trie in preorder: node func, depth, parent, values [node][side][metric]. */
struct trie {
	uint32_t *func, *depth, *parent;
	uint64_t *val;             /* n x sides x nm */
	size_t n, cap;
	int nm, sides;
};

static long trie_add(struct trie *t, uint32_t func, uint32_t depth, uint32_t parent)
{
	if (t->n == t->cap) {
		size_t cap = t->cap ? t->cap * 2 : 1024;
		uint32_t *f = realloc(t->func, cap * sizeof(*f));
		if (f)
			t->func = f;
		uint32_t *d = realloc(t->depth, cap * sizeof(*d));
		if (d)
			t->depth = d;
		uint32_t *p = realloc(t->parent, cap * sizeof(*p));
		if (p)
			t->parent = p;
		uint64_t *v = realloc(t->val, cap * (size_t)(t->sides * t->nm) * sizeof(*v));
		if (v)
			t->val = v;
		if (!f || !d || !p || !v)
			return -1;
		t->cap = cap;
	}
	t->func[t->n] = func;
	t->depth[t->n] = depth;
	t->parent[t->n] = parent;
	memset(&t->val[t->n * (size_t)(t->sides * t->nm)], 0, (size_t)(t->sides * t->nm) * sizeof(*t->val));
	return (long)t->n++;
}

/* Build the trie from the keyed entries (sorted): each entry's values go
 * to its own node, then every node's to its parent, children first (a
 * node's children come after it in preorder). */
static int trie_build(struct trie *t, const struct model *m, const struct report_seq *k, size_t nk,
		      const struct report_html_metrics *hm, size_t base_nexps,
		      const struct exp_experiment *exps, uint32_t *node_of_entry)
{
	uint32_t *path = malloc((EXP_MAX_FRAMES + 8) * sizeof(*path));
	uint32_t depth = 0;           /* nodes on path below the root */
	size_t stride = (size_t)(t->sides * t->nm);

	if (!path || trie_add(t, 0, 0, 0) < 0) {
		free(path);
		return -1;
	}
	for (size_t i = 0; i < nk; i++) {
		const struct model_entry *e = &m->entries[k[i].entry];
		uint32_t keep = 0;
		if (i)
			while (keep < depth && keep < k[i].n && k[i - 1].ids[keep] == k[i].ids[keep])
				keep++;
		depth = keep;
		for (; depth < k[i].n && depth < EXP_MAX_FRAMES + 8; depth++) {
			long nd = trie_add(t, k[i].ids[depth], depth + 1, depth ? path[depth - 1] : 0);
			if (nd < 0) {
				free(path);
				return -1;
			}
			path[depth] = (uint32_t)nd;
		}
		int side = base_nexps && e->proc < m->nprocs &&
			   (size_t)(m->procs[e->proc].exp - exps) >= base_nexps ? 1 : 0;
		if (base_nexps)
			side = 1 - side;      /* "vo" (side 0) is the run compared, "ao" (1) the baseline */
		uint32_t node = depth ? path[depth - 1] : 0;
		node_of_entry[k[i].entry] = node;
		uint64_t *v = &t->val[node * stride + (size_t)(side * t->nm)];
		for (int j = 0; j < t->nm; j++)
			v[j] += model_entry_value(e, hm->m[j]);
	}
	for (size_t i = t->n; i-- > 1;)
		for (size_t j = 0; j < stride; j++)
			t->val[t->parent[i] * stride + j] += t->val[i * stride + j];
	free(path);
	return 0;
}

static uint64_t shown(const struct report_html_metrics *hm, int j, uint64_t v)
{
	return model_metric_info(hm->m[j])->is_time ? (v + 500) / 1000 : v;
}

/* Which nodes to write: all, or with too many, those whose value is at
 * least `*pct` percent of the total in some metric and side. */
static uint8_t *trie_keep(const struct trie *t, double *pct, size_t *folded)
{
	uint8_t *keep = malloc(t->n + 1);
	size_t stride = (size_t)(t->sides * t->nm);

	*folded = 0;
	if (!keep)
		return NULL;
	memset(keep, 1, t->n);
	for (*pct = 0.0001; ; *pct *= 2) {
		size_t kept = 0;
		if (t->n <= REPORT_HTML_MAX_NODES) {
			*pct = 0;
			return keep;
		}
		for (size_t i = 0; i < t->n; i++) {
			bool big = i == 0;
			for (size_t j = 0; j < stride && !big; j++)
				big = (double)t->val[i * stride + j] * 100.0 >= *pct * (double)t->val[j];
			keep[i] = big;
			kept += big;
		}
		if (kept <= REPORT_HTML_MAX_NODES) {
			*folded = t->n - kept;
			return keep;
		}
	}
}

/* Each entry's node: its index in the tree as written (a folded node's
 * nearest written ancestor's). */
static void written_nodes(const struct trie *t, const uint8_t *keep, const struct model *m,
			  uint32_t *node_of_entry)
{
	uint32_t *at = malloc((t->n + 1) * sizeof(*at));
	uint32_t c = 0;

	for (size_t i = 0; i < t->n && at; i++)
		at[i] = keep[i] ? c++ : at[t->parent[i]];
	for (size_t i = 0; i < m->nentries; i++)
		if (node_of_entry[i] != UINT32_MAX)
			node_of_entry[i] = at ? at[node_of_entry[i]] : UINT32_MAX;
	free(at);
}

/* binErrors: each page function's exclusive and inclusive share error in
 * points from time bins (report_bins.c), as `tally report --errors=bins`
 * gives it, where the bins lie (from_s after the first process's start),
 * and null for a function without one.  0, or -1 when out of memory. */
static int bin_errors_out(FILE *out, const struct model *m, const struct exp_experiment *exps,
			  const struct page_funcs *pf)
{
	struct report_bins b;

	if (report_bins_build(&b, m, pf->of_model, pf->n))
		return -1;
	uint64_t base = exps[0].nprocs ? exps[0].procs[0].start_ns : 0;
	fprintf(out, "\"binErrors\":{\"bins\":%d,\"used\":%u,\"from_s\":%.9f,\"width_s\":%.9f",
		REPORT_BINS, b.used, b.t0 > base ? (double)(b.t0 - base) / 1e9 : 0.0, (double)b.width / 1e9);
	for (int incl = 0; incl < 2; incl++) {
		fputs(incl ? "],\"incl\":[" : ",\"excl\":[", out);
		for (uint32_t i = 0; i < pf->n; i++) {
			double e = report_bins_error(&b, i, incl);
			if (e != e)
				fputs(i ? ",null" : "null", out);
			else
				fprintf(out, i ? ",%.4f" : "%.4f", e);
		}
	}
	fputs("]},\n", out);
	report_bins_free(&b);
	return 0;
}

int report_html_tree(FILE *out, const struct model *m, const struct report_html_metrics *hm,
		     size_t base_nexps, const struct exp_experiment *exps, uint32_t *node_of_entry,
		     bool bin_errors)
{
	struct page_funcs pf = { 0 };
	struct trie t = { .nm = hm->n, .sides = base_nexps ? 2 : 1 };
	struct report_seq *k = malloc((m->nentries + 1) * sizeof(*k));
	uint32_t *pool = NULL;
	long long *own = NULL;
	size_t nk = 0, frames = 0;
	bool by_proc = m->nprocs > 1 && !base_nexps && !m->merged;
	const char *from = NULL, *to = NULL;
	int rc = -1;

	if (!k || renamed_exe(m, base_nexps, exps, &from, &to) || page_funcs_build(&pf, m, from, to))
		goto out;
	for (size_t i = 0; i < m->nentries; i++)
		frames += m->entries[i].n + 1;
	if (!(pool = malloc((frames + 1) * sizeof(*pool))))
		goto out;
	frames = 0;
	for (size_t i = 0; i < m->nentries; i++) {
		const struct model_entry *e = &m->entries[i];
		bool any = false;
		for (int j = 0; j < hm->n; j++)
			any |= model_entry_value(e, hm->m[j]) != 0;
		if (!any)
			continue;
		struct report_seq *q = &k[nk++];
		uint32_t *ids = pool + frames;
		q->ids = ids;
		q->n = 0;
		q->lead = 0;            /* the process, when by_proc, is ids[0] */
		q->entry = (uint32_t)i;
		if (by_proc)
			ids[q->n++] = pf.nprocs_first + e->proc;
		for (uint32_t j = 0; j < e->n; j++)
			ids[q->n++] = pf.of_model[e->funcs[j]];
		frames += q->n;
	}
	report_seq_sort(k, nk);
	for (size_t i = 0; i < m->nentries; i++)
		node_of_entry[i] = UINT32_MAX;
	if (trie_build(&t, m, k, nk, hm, base_nexps, exps, node_of_entry))
		goto out;
	page_funcs_out(out, m, &pf);
	if (bin_errors && bin_errors_out(out, m, exps, &pf))
		goto out;

	double pct;
	size_t folded;
	uint8_t *keep = trie_keep(&t, &pct, &folded);
	if (!keep)
		goto out;
	written_nodes(&t, keep, m, node_of_entry);
	size_t stride = (size_t)(t.sides * t.nm);
	fputs("\"tree\":{\"f\":[", out);
	for (size_t i = 0, c = 0; i < t.n; i++)
		if (keep[i])
			fprintf(out, c++ ? ",%u" : "%u", t.func[i]);
	fputs("],\n\"d\":[", out);
	for (size_t i = 0, c = 0; i < t.n; i++)
		if (keep[i])
			fprintf(out, c++ ? ",%u" : "%u", t.depth[i]);
	if (!(own = malloc((t.n + 1) * sizeof(*own)))) {
		free(keep);
		goto out;
	}
	for (int side = 0; side < t.sides; side++) {
		fputs(side ? "],\n\"ao\":[" : "],\n\"vo\":[", out);
		for (int j = 0; j < t.nm; j++) {
			size_t col = (size_t)(side * t.nm + j);
			/* Each node's own value: its total as shown less its written
			 * children's as shown (a folded node's parent is written), so
			 * that the page's sums give back every total exactly. */
			for (size_t i = 0; i < t.n; i++)
				own[i] = keep[i] ? (long long)shown(hm, j, t.val[i * stride + col]) : 0;
			for (size_t i = 1; i < t.n; i++)
				if (keep[i])
					own[t.parent[i]] -= (long long)shown(hm, j, t.val[i * stride + col]);
			fputs(j ? "],[" : "[", out);
			for (size_t i = 0, c = 0; i < t.n; i++)
				if (keep[i])
					fprintf(out, c++ ? ",%lld" : "%lld", own[i]);
			if (j == t.nm - 1)
				fputc(']', out);
		}
	}
	fputs("]},\n", out);
	if (folded)
		fprintf(out, "\"pruned\":%zu,\"prunedPct\":%g,\n", folded, pct);
	free(keep);
	rc = ferror(out) ? -1 : 0;
out:
	free(t.func);
	free(t.depth);
	free(t.parent);
	free(t.val);
	free(pool);
	free(own);
	free(k);
	free(pf.of_model);
	free(pf.first_model);
	model_map_free(&pf.by_name);
	return rc;
}
