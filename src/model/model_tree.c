/* SPDX-License-Identifier: MIT
 *
 * model_tree.c — the call tree: entries merged into a trie of functions from
 * <Total> down, with each node's inclusive and exclusive metrics.  Unlike
 * the function table, the tree keeps every level of recursion as its own
 * node, unless asked to fold it.  Optionally each process gets a node of its
 * own under the root, and the tree can be built bottom-up (inverted).
 */
#include <stdlib.h>
#include <string.h>

#include "model/model.h"
#include "model/model_map.h"

#define PROC_NODE 0x80000000u       /* model_node.func of a process node */

struct tree {
	struct model_node *nodes;
	size_t n, cap;
	struct model_map child;         /* (parent, func) -> node index */
};

static long child_of(struct tree *t, uint32_t parent, uint32_t func)
{
	uint64_t key = ((uint64_t)parent << 32 | func) + 1;
	bool inserted;
	uint64_t *v = model_map_put(&t->child, key, 0, &inserted);

	if (!v)
		return -1;
	if (!inserted)
		return (long)*v;
	if (t->n == t->cap) {
		size_t ncap = t->cap ? t->cap * 2 : 256;
		struct model_node *q = realloc(t->nodes, ncap * sizeof(*q));
		if (!q)
			return -1;
		t->nodes = q;
		t->cap = ncap;
	}
	struct model_node *nd = &t->nodes[t->n];
	memset(nd, 0, sizeof(*nd));
	nd->func = func;
	nd->parent = parent;
	nd->next_sibling = t->nodes[parent].first_child;
	t->nodes[parent].first_child = (uint32_t)t->n;
	*model_map_get(&t->child, key) = t->n;
	return (long)t->n++;
}

static enum model_metric sort_metric;
static struct model_node *sort_nodes;

static int cmp_child(const void *a, const void *b)
{
	const struct model_node *x = &sort_nodes[*(const uint32_t *)a];
	const struct model_node *y = &sort_nodes[*(const uint32_t *)b];

	if (x->incl[sort_metric] != y->incl[sort_metric])
		return x->incl[sort_metric] > y->incl[sort_metric] ? -1 : 1;
	return x->func < y->func ? -1 : x->func > y->func;
}

/* Re-link every node's children in sorted order. */
static int sort_children(struct tree *t)
{
	uint32_t *kids = malloc(t->n * sizeof(*kids));

	if (!kids)
		return -1;
	sort_nodes = t->nodes;
	for (size_t i = 0; i < t->n; i++) {
		size_t k = 0;
		for (uint32_t c = t->nodes[i].first_child; c; c = t->nodes[c].next_sibling)
			kids[k++] = c;
		if (k < 2)
			continue;
		qsort(kids, k, sizeof(*kids), cmp_child);
		t->nodes[i].first_child = kids[0];
		for (size_t j = 0; j + 1 < k; j++)
			t->nodes[kids[j]].next_sibling = kids[j + 1];
		t->nodes[kids[k - 1]].next_sibling = 0;
	}
	free(kids);
	return 0;
}

/* The path of entry e in the tree, into seq (room for e->n): its functions
 * root first, or leaf first when inverted; with fold, a function already on
 * the path takes the path back to it (recursion shown once, at its
 * outermost call).  Returns the path's length. */
static uint32_t tree_path(const struct model_entry *e, unsigned flags, uint32_t *seq)
{
	uint32_t k = 0;

	for (uint32_t j = 0; j < e->n; j++) {
		uint32_t f = e->funcs[flags & MODEL_TREE_INVERTED ? e->n - 1 - j : j];
		uint32_t at = k;
		if (flags & MODEL_TREE_FOLD_RECURSION)
			for (at = 0; at < k && seq[at] != f; at++)
				;
		if (at < k)
			k = at + 1;
		else
			seq[k++] = f;
	}
	return k;
}

int model_tree_build(const struct model *m, enum model_metric sort_by, unsigned flags,
		     struct model_node **nodes, size_t *nnodes)
{
	struct tree t = { 0 };
	uint32_t *seq = NULL, *prev = NULL, *path = NULL;
	uint32_t nprev = 0;             /* the previous entry's path: prev, its nodes path */
	long prev_root = -1;            /* ... under this node */
	uint64_t used = 0;              /* bit m: metric m has a value */
	size_t maxn = 1;

	for (size_t i = 0; i < m->nentries; i++)
		maxn = m->entries[i].n > maxn ? m->entries[i].n : maxn;
	t.nodes = calloc(256, sizeof(*t.nodes));
	seq = malloc(maxn * sizeof(*seq));
	prev = malloc(maxn * sizeof(*prev));
	path = malloc(maxn * sizeof(*path));
	if (!t.nodes || !seq || !prev || !path) {
		free(t.nodes);
		free(seq);
		free(prev);
		free(path);
		return -1;
	}
	t.cap = 256;
	t.n = 1;                        /* node 0: <Total> */
	for (size_t i = 0; i < m->nentries; i++) {
		const struct model_entry *e = &m->entries[i];
		uint32_t k = tree_path(e, flags, seq);
		long at = 0;
		if (flags & MODEL_TREE_BY_PROCESS)
			at = child_of(&t, 0, PROC_NODE | e->proc);
		/* Entries come mostly in the order their stacks were first
		 * sampled, each sharing a prefix with the one before: its nodes
		 * are those of the previous path, not looked up again. */
		long root = at;
		uint32_t j = 0;
		if (at >= 0 && at == prev_root)
			for (; j < k && j < nprev && seq[j] == prev[j]; j++)
				;
		if (j)
			at = path[j - 1];
		for (; j < k && at >= 0; j++) {
			at = child_of(&t, (uint32_t)at, seq[j]);
			path[j] = (uint32_t)at;
		}
		if (at < 0) {
			free(t.nodes);
			free(seq);
			free(prev);
			free(path);
			model_map_free(&t.child);
			return -1;
		}
		memcpy(prev, seq, k * sizeof(*seq));
		nprev = k;
		prev_root = root;
		/* bottom-up: a function's own value is at its top-level node */
		long own = flags & MODEL_TREE_INVERTED ? (k ? (long)child_of(&t, (flags & MODEL_TREE_BY_PROCESS) ?
			(uint32_t)child_of(&t, 0, PROC_NODE | e->proc) : 0, seq[0]) : 0) : at;
		int nz[MODEL_METRIC_COUNT], nnz = model_entry_nonzero(e, nz);
		uint64_t val[MODEL_METRIC_COUNT];
		for (int q = 0; q < nnz; q++) {
			val[q] = model_entry_value(e, nz[q]);
			t.nodes[own].excl[nz[q]] += val[q];
		}
		for (int q = 0; q < nnz; q++) {   /* its path's sums: below */
			t.nodes[at].incl[nz[q]] += val[q];
			used |= 1ull << nz[q];
		}
	}
	/* Each node's inclusive sums to its parent's, children first: a child
	 * is made after its parent, so has a higher index.  One pass over the
	 * nodes, where adding each entry along its path up was a cache miss a
	 * node (36% of the build). */
	for (size_t n = t.n; n-- > 1;)
		for (uint64_t u = used; u; u &= u - 1)
			t.nodes[t.nodes[n].parent].incl[__builtin_ctzll(u)] +=
				t.nodes[n].incl[__builtin_ctzll(u)];
	free(seq);
	free(prev);
	free(path);
	model_map_free(&t.child);
	sort_metric = sort_by;
	if (sort_children(&t)) {
		free(t.nodes);
		return -1;
	}
	*nodes = t.nodes;
	*nnodes = t.n;
	return 0;
}

const char *model_node_name(const struct model *m, const struct model_node *nodes, size_t i,
			    char *buf, size_t len)
{
	uint32_t f = nodes[i].func;

	if (f & PROC_NODE)
		return m->procs[f & ~PROC_NODE].label;
	return model_func_label(m, f, buf, len);
}
