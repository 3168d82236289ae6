/* SPDX-License-Identifier: MIT
 *
 * report_lines.c — metrics by instruction and by source line (see
 * report_lines.h).  One pass over the entries; each new (function, address)
 * is symbolized once to its line (sym_object_line), and a generation stamp
 * per instruction and per line makes an entry count once in each, however
 * many of its frames fall there.  A Java method's frames carry their
 * source line (model_java.c), its file the class's ("pkg/Class.java").
 */
#include <stdlib.h>
#include <string.h>

#include "report/report_lines.h"
#include "symbols/sym.h"

static struct sym_object *object_of(const struct model *m, uint32_t f)
{
	bool mismatch;
	char err[256];

	return m->funcs[f].path[0] ? sym_object_get(m->funcs[f].path, NULL, 0, &mismatch, err, sizeof(err))
				   : NULL;
}

/* The line of (path, file, line), or of f's instructions without a line
 * (file NULL); its index, or -1 if out of memory. */
static long line_slot(struct report_pcs *p, const char *path, const char *file, int line, uint32_t f)
{
	uint64_t key = model_hash64(model_hash_str(model_hash_str(0, path), file ? file : "") ^
				    (file ? (uint64_t)line : (uint64_t)f << 20 | 1)) | 1;

	for (;;) {
		uint64_t *v = model_map_get(&p->line_of, key);
		if (!v)
			break;
		struct report_line *l = &p->lines[*v - 1];
		if (!strcmp(l->path, path) && (file ? l->file && !strcmp(l->file, file) && l->line == line
						    : !l->file && l->func == f))
			return (long)*v - 1;
		key = model_hash64(key) | 1;
	}
	if (exp_grow(&p->lines, &p->cap_lines, p->nlines, sizeof(*p->lines)))
		return -1;
	struct report_line *l = &p->lines[p->nlines];
	memset(l, 0, sizeof(*l));
	l->path = path;
	l->file = file;
	l->line = file ? line : 0;
	l->func = f;
	if (!model_map_put(&p->line_of, key, p->nlines + 1, NULL))
		return -1;
	return (long)p->nlines++;
}

/* The slot of (f, addr), made and symbolized on first use; -1 if out of
 * memory. */
static long pc_slot(const struct model *m, struct report_pcs *p, uint32_t f, uint64_t addr)
{
	uint64_t key = model_hash64(((uint64_t)f << 40) ^ addr) | 1;

	for (;;) {
		uint64_t *v = model_map_get(&p->pc_of, key);
		if (!v)
			break;
		if (p->pcs[*v - 1].func == f && p->pcs[*v - 1].addr == addr)
			return (long)*v - 1;
		key = model_hash64(key) | 1;
	}
	const char *file = NULL;
	int line = 0;
	if (m->funcs[f].flags & MODEL_FUNC_JAVA) {
		/* A Java frame's address is its source line (model_java.c). */
		file = m->funcs[f].link;
		line = (int)addr;
	} else if (!sym_object_line(object_of(m, f), addr, &file, &line)) {
		file = NULL;
	}
	long ls = line_slot(p, m->funcs[f].path, file, line, f);
	if (ls < 0 || exp_grow(&p->pcs, &p->cap_pcs, p->npcs, sizeof(*p->pcs)))
		return -1;
	struct report_line *l = &p->lines[ls];
	if (f != l->func && f != l->func2) {
		if (!l->func2)
			l->func2 = f;
		else
			l->more = true;
	}
	struct report_pc *pc = &p->pcs[p->npcs];
	memset(pc, 0, sizeof(*pc));
	pc->func = f;
	pc->addr = addr;
	pc->line = (uint32_t)ls;
	if (!model_map_put(&p->pc_of, key, p->npcs + 1, NULL))
		return -1;
	return (long)p->npcs++;
}

/* Stamps sized to the slots (grown as slots are added). */
static int stamps_fit(uint32_t **st, size_t *cap, size_t n)
{
	if (n <= *cap)
		return 0;
	size_t ncap = n * 2 + 64;
	uint32_t *q = realloc(*st, ncap * sizeof(*q));
	if (!q)
		return -1;
	memset(q + *cap, 0, (ncap - *cap) * sizeof(*q));
	*st = q;
	*cap = ncap;
	return 0;
}

int report_pcs_collect(const struct model *m, bool (*want)(const struct model *, uint32_t, void *),
		       void *arg, struct report_pcs *p)
{
	uint32_t *pst = NULL, *lst = NULL;
	size_t pcap = 0, lcap = 0;
	int rc = 0;
	uint8_t *wanted = calloc(m->nfuncs + 1, 1);     /* per function: 0 not asked, 1 yes, 2 no */

	memset(p, 0, sizeof(*p));
	if (!wanted)
		return -1;
	for (size_t i = 0; i < m->nentries && !rc; i++) {
		const struct model_entry *e = &m->entries[i];
		uint32_t gen = (uint32_t)i + 1;
		int nz[MODEL_METRIC_COUNT], nnz = model_entry_nonzero(e, nz);
		for (uint32_t j = 0; j < e->n && !rc; j++) {
			uint32_t f = e->funcs[j];
			if (!wanted[f])
				wanted[f] = (m->funcs[f].flags & MODEL_FUNC_ARTIFICIAL) || (want && !want(m, f, arg)) ? 2 : 1;
			if (!e->addrs[j] || wanted[f] == 2)
				continue;
			long s = pc_slot(m, p, f, e->addrs[j]);
			if (s < 0 || stamps_fit(&pst, &pcap, p->npcs) || stamps_fit(&lst, &lcap, p->nlines)) {
				rc = -1;
				break;
			}
			struct report_pc *pc = &p->pcs[s];
			struct report_line *l = &p->lines[pc->line];
			bool leaf = j == e->n - 1;
			for (int q = 0; q < nnz; q++) {
				int k = nz[q];
				if (pst[s] != gen)
					pc->incl[k] += model_entry_value(e, k);
				if (lst[pc->line] != gen)
					l->incl[k] += model_entry_value(e, k);
				if (leaf) {
					pc->excl[k] += model_entry_value(e, k);
					l->excl[k] += model_entry_value(e, k);
				}
			}
			pst[s] = gen;
			lst[pc->line] = gen;
		}
	}
	free(pst);
	free(lst);
	free(wanted);
	return rc;
}

void report_pcs_free(struct report_pcs *p)
{
	free(p->pcs);
	free(p->lines);
	model_map_free(&p->pc_of);
	model_map_free(&p->line_of);
	memset(p, 0, sizeof(*p));
}
