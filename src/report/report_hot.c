/* SPDX-License-Identifier: MIT
 *
 * report_hot.c — `tally report --lines` and `--pcs`: the hottest source
 * lines and instructions of the whole program, every object and function
 * together, with the metrics report_lines.c computes (exclusive on the
 * leaf's instruction, inclusive counted once per line or instruction per
 * stack).  Sorted by the first metric, exclusive (or --sort incl); --limit
 * rows.  Lines show their text when the source is found (--source-path),
 * instructions their disassembly.  A Java method's frames are source lines
 * (model_java.c): --lines shows them, --pcs leaves them out and says so.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/report.h"
#include "report/report_lines.h"
#include "report/report_source.h"
#include "symbols/sym.h"
#include "symbols/sym_capstone.h"

static const char *base_of(const char *path)
{
	const char *s = strrchr(path, '/');
	return s ? s + 1 : path;
}

static struct sym_object *object_at(const char *path)
{
	bool mismatch;
	char err[256];

	return path[0] ? sym_object_get(path, NULL, 0, &mismatch, err, sizeof(err)) : NULL;
}

/* Sources read so far, by file name. */
struct sources {
	struct report_source *v;
	char **names;
	size_t n;
	bool oom;                  /* a line's text was lost: out of memory */
};

static const char *line_text(struct sources *s, const struct model *m, const struct report_opts *o,
			     const struct report_line *l)
{
	size_t i;

	for (i = 0; i < s->n && strcmp(s->names[i], l->file); i++)
		;
	if (i == s->n) {
		struct report_source *v = realloc(s->v, (s->n + 1) * sizeof(*v));
		char **names = realloc(s->names, (s->n + 1) * sizeof(*names));
		if (v)
			s->v = v;
		if (names)
			s->names = names;
		if (!v || !names || !(s->names[s->n] = strdup(l->file))) {
			s->oom = true;
			return NULL;
		}
		const char *comp_dir = sym_object_comp_dir(object_at(l->path), m->funcs[l->func].addr);
		bool java = m->funcs[l->func].flags & MODEL_FUNC_JAVA;
		if (!(java ? report_source_open_java(l->file, o->source_path, &s->v[s->n])
			   : report_source_open(l->file, comp_dir, o->source_path, &s->v[s->n])))
			memset(&s->v[s->n], 0, sizeof(s->v[s->n]));
		s->n++;
	}
	const char *t = report_source_line(&s->v[i], l->line);
	if (t)
		while (*t == ' ' || *t == '\t')
			t++;
	return t;
}

/* The functions of line l: "f", "f + g" (two functions' code on one
 * line, as inlined from a header) or "f + g + others". */
static const char *line_funcs(const struct model *m, const struct report_line *l, char *buf, size_t len)
{
	char one[2048], two[2048];

	if (!l->func2)
		return report_func_label(m, l->func, buf, len);
	snprintf(buf, len, "%s + %s%s", report_func_label(m, l->func, one, sizeof(one)),
		 report_func_label(m, l->func2, two, sizeof(two)), l->more ? " + others" : "");
	return buf;
}

static void sources_free(struct sources *s)
{
	for (size_t i = 0; i < s->n; i++) {
		report_source_free(&s->v[i]);
		free(s->names[i]);
	}
	free(s->v);
	free(s->names);
}

static const uint64_t *(*sort_key)(const void *, size_t);
static const void *sort_base;
static enum model_metric sort_metric;

static const uint64_t *line_excl(const void *b, size_t i) { return ((const struct report_line *)b)[i].excl; }
static const uint64_t *line_incl(const void *b, size_t i) { return ((const struct report_line *)b)[i].incl; }
static const uint64_t *pc_excl(const void *b, size_t i) { return ((const struct report_pc *)b)[i].excl; }
static const uint64_t *pc_incl(const void *b, size_t i) { return ((const struct report_pc *)b)[i].incl; }

static int cmp_rows(const void *a, const void *b)
{
	size_t x = *(const size_t *)a, y = *(const size_t *)b;
	uint64_t vx = sort_key(sort_base, x)[sort_metric], vy = sort_key(sort_base, y)[sort_metric];

	if (vx != vy)
		return vx > vy ? -1 : 1;
	return x < y ? -1 : x > y;
}

static bool shows(const struct report_opts *o, const uint64_t *incl)
{
	for (int i = 0; i < o->nmetrics; i++)
		if (incl[o->metrics[i]])
			return true;
	return false;
}

static void hot_lines(struct report_doc *d, const struct model *m, const struct report_opts *o,
		      const struct report_pcs *p, const size_t *order, size_t n)
{
	struct report_table *t = report_table_new("lines", "Hottest source lines");
	struct sources s = { 0 };
	char loc[4200], buf[4096];

	report_metric_cols(t, o, "excl", "Excl.");
	report_metric_cols(t, o, "incl", "Incl.");
	report_col(t, "location", "Line", COL_STR);
	report_col(t, "function", "Function", COL_STR);
	report_col(t, "object", "Object", COL_STR);
	if (o->fmt != REPORT_TEXT) {
		report_col(t, "file", "File", COL_STR);
		report_col(t, "line", "Line", COL_U64);
	}
	report_col(t, "text", "Source", COL_STR);
	for (size_t r = 0; r < n; r++) {
		const struct report_line *l = &p->lines[order[r]];
		if (l->file)
			snprintf(loc, sizeof(loc), "%s:%d", base_of(l->file), l->line);
		else
			snprintf(loc, sizeof(loc), "<instructions without line numbers>");
		report_row(t);
		report_metric_cells(t, m, o, l->excl);
		report_metric_cells(t, m, o, l->incl);
		report_str(t, loc);
		report_str(t, line_funcs(m, l, buf, sizeof(buf)));
		report_str(t, m->funcs[l->func].object);
		if (o->fmt != REPORT_TEXT) {
			report_str(t, l->file ? l->file : "");
			report_u64(t, (uint64_t)l->line);
		}
		const char *text = l->file ? line_text(&s, m, o, l) : NULL;
		report_str(t, text ? text : "");
	}
	report_table_emit(d, t);
	if (s.oom)
		report_doc_fail(d, "lines");
	sources_free(&s);
}

static void hot_pcs(struct report_doc *d, const struct model *m, const struct report_opts *o,
		    const struct report_pcs *p, const size_t *order, size_t n)
{
	struct report_table *t = report_table_new("pcs", "Hottest instructions");
	char where[4200], buf[4096], text[256];
	csh cs;
	bool have_cs = sym_cs_open(CS_ARCH_X86, CS_MODE_64, &cs) == CS_ERR_OK;

	report_metric_cols(t, o, "excl", "Excl.");
	report_metric_cols(t, o, "incl", "Incl.");
	report_col(t, "address", "Address", COL_HEX);
	report_col(t, "function", "Function", COL_STR);
	report_col(t, "object", "Object", COL_STR);
	report_col(t, "location", "Line", COL_STR);
	report_col(t, "instruction", "Instruction", COL_STR);
	for (size_t r = 0; r < n; r++) {
		const struct report_pc *pc = &p->pcs[order[r]];
		const struct model_func *fn = &m->funcs[pc->func];
		const struct report_line *l = &p->lines[pc->line];
		uint8_t code[16];
		cs_insn *in = NULL;
		size_t got = sym_object_read(object_at(fn->path), pc->addr, code, sizeof(code));
		text[0] = 0;
		if (have_cs && got && sym_cs_disasm(cs, code, got, pc->addr, 1, &in) == 1) {
			snprintf(text, sizeof(text), "%s %s", in->mnemonic, in->op_str);
			sym_cs_free(in, 1);
		}
		snprintf(where, sizeof(where), "%s+0x%llx", report_func_label(m, pc->func, buf, sizeof(buf)),
			 (unsigned long long)(pc->addr - fn->addr));
		report_row(t);
		report_metric_cells(t, m, o, pc->excl);
		report_metric_cells(t, m, o, pc->incl);
		report_u64(t, pc->addr);
		report_str(t, where);
		report_str(t, fn->object);
		if (l->file)
			snprintf(buf, sizeof(buf), "%s:%d", base_of(l->file), l->line);
		else
			buf[0] = 0;
		report_str(t, buf);
		report_str(t, text);
	}
	report_table_emit(d, t);
	if (have_cs)
		sym_cs_close(&cs);
}

int report_hot(struct report_doc *d, const struct model *m, const struct report_opts *o, bool pcs)
{
	struct report_pcs p;

	if (report_pcs_collect(m, NULL, NULL, &p))
		return -1;
	size_t total = pcs ? p.npcs : p.nlines, n = 0;
	size_t *order = malloc((total + 1) * sizeof(*order));
	if (!order) {
		report_pcs_free(&p);
		return -1;
	}
	size_t java = 0;
	for (size_t i = 0; i < total; i++) {
		if (!shows(o, pcs ? p.pcs[i].incl : p.lines[i].incl))
			continue;
		if (pcs && (m->funcs[p.pcs[i].func].flags & MODEL_FUNC_JAVA))
			java++;        /* a source line, not an instruction */
		else
			order[n++] = i;
	}
	sort_base = pcs ? (const void *)p.pcs : (const void *)p.lines;
	bool incl = o->sort == REPORT_SORT_INCL;
	sort_key = pcs ? (incl ? pc_incl : pc_excl) : (incl ? line_incl : line_excl);
	sort_metric = o->sort_metric >= 0 ? (enum model_metric)o->sort_metric : o->metrics[0];
	qsort(order, n, sizeof(*order), cmp_rows);
	size_t shown = o->limit && o->limit < n ? o->limit : n;
	if (pcs)
		hot_pcs(d, m, o, &p, order, shown);
	else
		hot_lines(d, m, o, &p, order, shown);
	if (shown < n)
		report_note(d, "(%zu more %s below; --limit 0 shows all)", n - shown, pcs ? "instructions" : "lines");
	if (java)
		report_note(d, "(Java methods' frames are source lines, not instructions (the JIT's code is "
			    "not kept): --lines shows them)");
	free(order);
	report_pcs_free(&p);
	return 0;
}
