/* SPDX-License-Identifier: MIT
 *
 * report_annotate.c — annotated source and disassembly of a function
 * (`tally annotate`), as the Sun analyzer shows them.
 *
 * Every frame of every entry carries its link-time address: the leaf's is the
 * interrupted instruction (exclusive metrics: time spent waiting for that
 * instruction to execute), a caller's is inside its call instruction
 * (inclusive metrics: the time of the callee called from there).  Addresses
 * map to source lines through DWARF (sym_object_line) and to instructions by
 * disassembling the function with capstone.  A stack that holds the function
 * twice (recursion) counts once per address.
 */
#include <capstone/capstone.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/model_map.h"
#include "report/report.h"
#include "symbols/sym.h"

/* Metrics per address of one function. */
struct pcs {
	struct model_map index;   /* addr -> slot + 1 */
	uint64_t *addr;
	uint64_t (*excl)[MODEL_METRIC_COUNT];
	uint64_t (*incl)[MODEL_METRIC_COUNT];
	size_t n, cap;
};

/* Grow one of p's arrays to `cap` elements; false if out of memory. */
static bool grow(void *arr, size_t cap, size_t size)
{
	void **a = arr;
	void *q = realloc(*a, cap * size);

	if (q)
		*a = q;
	return q != NULL;
}

/* The slot of `addr`, created on first use; -1 if out of memory. */
static long slot_of(struct pcs *p, uint64_t addr)
{
	bool inserted;
	uint64_t *v = model_map_put(&p->index, addr + 1, 0, &inserted);

	if (!v)
		return -1;
	if (!inserted)
		return (long)*v - 1;
	if (p->n == p->cap) {
		size_t cap = p->cap ? p->cap * 2 : 64;
		if (!grow(&p->addr, cap, sizeof(*p->addr)) || !grow(&p->excl, cap, sizeof(*p->excl)) ||
		    !grow(&p->incl, cap, sizeof(*p->incl))) {
			model_map_del(&p->index, addr + 1);
			return -1;
		}
		p->cap = cap;
	}
	p->addr[p->n] = addr;
	memset(p->excl[p->n], 0, sizeof(p->excl[p->n]));
	memset(p->incl[p->n], 0, sizeof(p->incl[p->n]));
	*model_map_get(&p->index, addr + 1) = p->n + 1;
	return (long)p->n++;
}

/* Metrics of function f by address; -1 if out of memory. */
static int collect(const struct model *m, uint32_t f, struct pcs *p)
{
	for (size_t i = 0; i < m->nentries; i++) {
		const struct model_entry *e = &m->entries[i];
		size_t counted[8];
		int nc = 0;
		for (uint32_t j = 0; j < e->n; j++) {
			if (e->funcs[j] != f || !e->addrs[j])
				continue;
			long s = slot_of(p, e->addrs[j]);
			bool seen = false;
			if (s < 0)
				return -1;
			for (int k = 0; k < nc; k++)
				seen |= counted[k] == (size_t)s;
			if (!seen) {
				for (int k = 0; k < MODEL_METRIC_COUNT; k++)
					p->incl[s][k] += e->v[k];
				if (nc < 8)
					counted[nc++] = (size_t)s;
			}
			if (j == e->n - 1)
				for (int k = 0; k < MODEL_METRIC_COUNT; k++)
					p->excl[s][k] += e->v[k];
		}
	}
	return 0;
}

static void free_pcs(struct pcs *p)
{
	model_map_free(&p->index);
	free(p->addr);
	free(p->excl);
	free(p->incl);
}

/* Sum the metrics of the addresses in [lo, hi) into ex and in. */
static void sum_range(const struct pcs *p, uint64_t lo, uint64_t hi, uint64_t *ex, uint64_t *in)
{
	memset(ex, 0, MODEL_METRIC_COUNT * sizeof(*ex));
	memset(in, 0, MODEL_METRIC_COUNT * sizeof(*in));
	for (size_t i = 0; i < p->n; i++)
		if (p->addr[i] >= lo && p->addr[i] < hi)
			for (int k = 0; k < MODEL_METRIC_COUNT; k++) {
				ex[k] += p->excl[i][k];
				in[k] += p->incl[i][k];
			}
}

/* ---- source ------------------------------------------------------------ */

struct line_metrics {
	int line;
	uint64_t excl[MODEL_METRIC_COUNT], incl[MODEL_METRIC_COUNT];
};

static int annotate_source(struct report_doc *d, const struct model *m, const struct report_opts *o,
			   const struct model_func *fn, struct sym_object *obj, const struct pcs *p,
			   char *err, size_t errlen)
{
	const char *file = NULL;
	int lo = 0, hi = 0;
	struct line_metrics *lines = NULL;
	size_t nlines = 0;
	uint64_t nolines[2][MODEL_METRIC_COUNT] = { { 0 } };

	/* The function's lines: from its addresses' line table rows. */
	for (uint64_t a = fn->addr; a < fn->addr + fn->size; a++) {
		const char *f;
		int line;
		if (!sym_object_line(obj, a, &f, &line))
			continue;
		if (!file)
			file = f;
		if (strcmp(f, file))
			continue;               /* inlined from another file */
		if (!lo || line < lo)
			lo = line;
		if (line > hi)
			hi = line;
	}
	if (!file) {
		snprintf(err, errlen, "%s: no line information for %s (build with -g), try --disasm",
			 fn->path, fn->name);
		return -1;
	}
	lines = calloc((size_t)(hi - lo + 1), sizeof(*lines));
	if (!lines) {
		snprintf(err, errlen, "%s: out of memory for the %d lines of %s", fn->path, hi - lo + 1,
			 fn->name);
		return -1;
	}
	nlines = (size_t)(hi - lo + 1);
	for (size_t i = 0; i < nlines; i++)
		lines[i].line = lo + (int)i;
	for (size_t i = 0; i < p->n; i++) {
		const char *f;
		int line;
		bool ok = sym_object_line(obj, p->addr[i], &f, &line) && !strcmp(f, file) &&
			  line >= lo && line <= hi;
		for (int k = 0; k < MODEL_METRIC_COUNT; k++) {
			if (ok) {
				lines[line - lo].excl[k] += p->excl[i][k];
				lines[line - lo].incl[k] += p->incl[i][k];
			} else {
				nolines[0][k] += p->excl[i][k];
				nolines[1][k] += p->incl[i][k];
			}
		}
	}
	FILE *src = fopen(file, "r");
	char title[4300], text[4096];
	snprintf(title, sizeof(title), "Source of %s: %s%s", fn->name, file,
		 src ? "" : " (not found: metrics by line number only)");
	struct report_table *t = report_table_new("source", title);
	report_metric_cols(t, o, "excl", "Excl.");
	report_metric_cols(t, o, "incl", "Incl.");
	report_col(t, "line", "Line", COL_U64);
	report_col(t, "text", "Source", COL_STR);
	int at = 1;
	for (size_t i = 0; i < nlines; i++) {
		text[0] = 0;
		while (src && at <= lines[i].line && fgets(text, sizeof(text), src))
			at++;
		text[strcspn(text, "\n")] = 0;
		report_row(t);
		report_metric_cells(t, m, o, lines[i].excl);
		report_metric_cells(t, m, o, lines[i].incl);
		report_u64(t, (uint64_t)lines[i].line);
		report_str(t, text);
	}
	bool any = false;
	for (int k = 0; k < MODEL_METRIC_COUNT; k++)
		any |= nolines[1][k] != 0;
	if (any) {
		report_row(t);
		report_metric_cells(t, m, o, nolines[0]);
		report_metric_cells(t, m, o, nolines[1]);
		report_u64(t, 0);
		report_str(t, "<instructions without line numbers, or inlined from elsewhere>");
	}
	if (src)
		fclose(src);
	report_table_emit(d, t);
	free(lines);
	return 0;
}

/* ---- disassembly --------------------------------------------------------- */

static int annotate_disasm(struct report_doc *d, const struct model *m, const struct report_opts *o,
			   const struct model_func *fn, struct sym_object *obj, const struct pcs *p,
			   char *err, size_t errlen)
{
	size_t size = fn->size > (1u << 20) ? (1u << 20) : (size_t)fn->size;
	uint8_t *code = malloc(size ? size : 1);
	csh cs;
	cs_insn *insn = NULL;

	if (!code) {
		snprintf(err, errlen, "%s: out of memory for the code of %s", fn->path, fn->name);
		return -1;
	}
	size_t got = sym_object_read(obj, fn->addr, code, size);
	if (got == 0 || cs_open(CS_ARCH_X86, CS_MODE_64, &cs) != CS_ERR_OK) {
		snprintf(err, errlen, "%s: cannot read the code of %s", fn->path, fn->name);
		free(code);
		return -1;
	}
	size_t n = cs_disasm(cs, code, got, fn->addr, 0, &insn);
	char title[4300], text[256];
	snprintf(title, sizeof(title), "Disassembly of %s (%s)", fn->name, fn->object);
	struct report_table *t = report_table_new("disassembly", title);
	report_metric_cols(t, o, "excl", "Excl.");
	report_metric_cols(t, o, "incl", "Incl.");
	report_col(t, "address", "Address", COL_HEX);
	report_col(t, "line", "Line", COL_U64);
	report_col(t, "instruction", "Instruction", COL_STR);
	for (size_t i = 0; i < n; i++) {
		uint64_t ex[MODEL_METRIC_COUNT], in[MODEL_METRIC_COUNT];
		const char *f;
		int line = 0;
		sum_range(p, insn[i].address, insn[i].address + insn[i].size, ex, in);
		sym_object_line(obj, insn[i].address, &f, &line);
		snprintf(text, sizeof(text), "%s %s", insn[i].mnemonic, insn[i].op_str);
		/* A direct call or jump: name its target. */
		char *end;
		unsigned long long target = strtoull(insn[i].op_str, &end, 16);
		if (!strncmp(insn[i].op_str, "0x", 2) && !*end &&
		    (insn[i].mnemonic[0] == 'c' || insn[i].mnemonic[0] == 'j')) {
			const struct sym_func *sf = sym_object_lookup(obj, target);
			if (sf) {
				size_t len = strlen(text);
				snprintf(text + len, sizeof(text) - len, " <%s>", sf->name);
			}
		}
		report_row(t);
		report_metric_cells(t, m, o, ex);
		report_metric_cells(t, m, o, in);
		report_u64(t, insn[i].address);
		report_u64(t, (uint64_t)(line > 0 ? line : 0));
		report_str(t, text);
	}
	report_table_emit(d, t);
	if (n)
		cs_free(insn, n);
	cs_close(&cs);
	free(code);
	return 0;
}

int report_annotate(struct report_doc *d, const struct model *m, const struct report_opts *o,
		    const char *name, bool disasm, char *err, size_t errlen)
{
	uint32_t ids[16];
	size_t n = model_func_find(m, name, ids, 16);

	if (!n) {
		snprintf(err, errlen, "no function named '%s' in the profile", name);
		return -1;
	}
	for (size_t i = 0; i < n && i < 16; i++) {
		const struct model_func *fn = &m->funcs[ids[i]];
		bool mismatch;
		char e2[512];
		if (fn->flags & MODEL_FUNC_ARTIFICIAL || !fn->path[0]) {
			snprintf(err, errlen, "%s is artificial: nothing to annotate", fn->name);
			return -1;
		}
		struct sym_object *obj = sym_object_get(fn->path, NULL, 0, &mismatch, e2, sizeof(e2));
		if (!obj) {
			snprintf(err, errlen, "%s", e2);
			return -1;
		}
		struct pcs p = { 0 };
		if (collect(m, ids[i], &p)) {
			free_pcs(&p);
			snprintf(err, errlen, "%s: out of memory collecting the metrics of %s", fn->path,
				 fn->name);
			return -1;
		}
		int rc = disasm ? annotate_disasm(d, m, o, fn, obj, &p, err, errlen)
				: annotate_source(d, m, o, fn, obj, &p, err, errlen);
		free_pcs(&p);
		if (rc)
			return rc;
	}
	return 0;
}
