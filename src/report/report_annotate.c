/* SPDX-License-Identifier: MIT
 *
 * report_annotate.c — annotated source and disassembly (`tally annotate`),
 * as the Sun Performance Analyzer describes them (ch. 5, "Annotated Code"):
 *
 *  - source: the whole source file of the function, each line with the
 *    metrics of every instruction of the object mapped to it (so clones and
 *    other functions of the file count too); lines whose metric reaches 75%
 *    of the file's hottest line for that metric are marked `##`; the
 *    instructions of a function without a line number are one special line
 *    at the top, `FUNCTION -- <instructions without line numbers>`; the
 *    compiler's commentary on a line comes right before it;
 *  - disassembly: the function's instructions with their metrics, call and
 *    jump targets named (`<f+0x1c>`); source lines interleaved by the Sun analyzer's
 *    rule: before an instruction of line N, every line of the function's
 *    file up to N not yet shown.
 * Metrics come from report_lines.c: exclusive on the leaf's instruction,
 * inclusive on each caller's call, an event counted once per instruction
 * and once per line however often its stack recurs there.  Sources are
 * found by report_source.c, commentary read by report_commentary.c.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/report.h"
#include "report/report_commentary.h"
#include "report/report_lines.h"
#include "report/report_source.h"
#include "symbols/sym.h"
#include "symbols/sym_capstone.h"

#define HOT_FRACTION 0.75       /* `##`: at least this share of the hottest line */

struct want_path {
	const char *path;
};

static bool same_object(const struct model *m, uint32_t f, void *arg)
{
	return !strcmp(m->funcs[f].path, ((struct want_path *)arg)->path);
}

/* The function's source file: that of its first instruction with a line
 * (an inlined function has no range: that of its address). */
static const char *file_of(struct sym_object *obj, const struct model_func *fn, int *first_line)
{
	const char *file;
	int line;
	uint64_t end = fn->addr + (!fn->size ? 1 : fn->size < 4096 ? fn->size : 4096);

	for (uint64_t a = fn->addr; a < end; a++)
		if (sym_object_line(obj, a, &file, &line)) {
			*first_line = line;
			return file;
		}
	return NULL;
}

const char *report_func_source(const struct model *m, uint32_t f)
{
	const struct model_func *fn = &m->funcs[f];
	bool mismatch;
	char err[512];
	int line;

	if ((fn->flags & (MODEL_FUNC_JAVA | MODEL_FUNC_DYNAMIC | MODEL_FUNC_ARTIFICIAL)) == MODEL_FUNC_JAVA)
		return fn->link;   /* a Java method: "pkg/Class.java" (report_annotate_java) */
	if (fn->flags & MODEL_FUNC_ARTIFICIAL || !fn->path[0])
		return NULL;
	struct sym_object *obj = sym_object_get(fn->path, NULL, 0, &mismatch, err, sizeof(err));
	return obj ? file_of(obj, fn, &line) : NULL;
}

/* Columns of an annotation table: metrics, then kind, hot mark, line, text. */
static struct report_table *annotation_table(const struct report_opts *o, const char *key,
					     const char *title, bool disasm)
{
	struct report_table *t = report_table_new(key, title);

	report_metric_cols(t, o, "excl", "Excl.");
	report_metric_cols(t, o, "incl", "Incl.");
	if (o->fmt != REPORT_TEXT)
		report_col(t, "kind", "Kind", COL_STR);
	if (disasm)
		report_col(t, "address", "Address", COL_HEX);
	else
		report_col(t, "hot", "", COL_STR);
	report_col(t, "line", "Line", COL_U64);
	report_col(t, disasm ? "instruction" : "text", disasm ? "Instruction" : "Source", COL_STR);
	return t;
}

/* The kind of a row (line, nolines, commentary, source, insn, undecoded):
 * a column in CSV and JSON, where rows are read by programs. */
static void kind_cell(struct report_table *t, const struct report_opts *o, const char *kind)
{
	if (o->fmt != REPORT_TEXT)
		report_str(t, kind);
}

/* The metric cells of a row; in text, a row nothing was measured at shows
 * blanks, not "0.000 0.00" on every cold line. */
static void metric_cells(struct report_table *t, const struct model *m, const struct report_opts *o,
			 const uint64_t *excl, const uint64_t *incl)
{
	bool any = false;

	for (int k = 0; k < MODEL_METRIC_COUNT; k++)
		any |= excl[k] != 0 || incl[k] != 0;
	if (any || o->fmt != REPORT_TEXT) {
		report_metric_cells(t, m, o, excl);
		report_metric_cells(t, m, o, incl);
		return;
	}
	for (int i = 0; i < (o->percent_only ? 2 : 4) * o->nmetrics; i++)
		report_str(t, "");
}

/* A row without metrics: a source line or a commentary in the disassembly,
 * commentary in the source. */
static void text_row(struct report_table *t, const struct report_opts *o, const char *kind,
		     bool disasm, int line, const char *text)
{
	report_row(t);
	for (int i = 0; i < 4 * o->nmetrics; i++)
		report_str(t, "");
	kind_cell(t, o, kind);
	report_str(t, "");
	if (line > 0)
		report_u64(t, (uint64_t)line);
	else
		report_str(t, "");
	(void)disasm;
	report_str(t, text);
}

static void commentary_rows(struct report_table *t, const struct report_opts *o,
			    const struct report_commentary *c, int line, bool disasm)
{
	char buf[1200];

	for (size_t i = 0; i < c->n; i++)
		if (c->notes[i].line == line) {
			snprintf(buf, sizeof(buf), "    // %s", c->notes[i].text);
			text_row(t, o, "commentary", disasm, 0, buf);
		}
}

/* ---- source ------------------------------------------------------------ */

struct line_row {
	int line;
	uint64_t excl[MODEL_METRIC_COUNT], incl[MODEL_METRIC_COUNT];
};

static bool is_hot(const struct report_opts *o, const uint64_t *ex, const uint64_t *in,
		   const uint64_t *max_ex, const uint64_t *max_in)
{
	for (int i = 0; i < o->nmetrics; i++) {
		enum model_metric k = o->metrics[i];
		if ((ex[k] && (double)ex[k] >= HOT_FRACTION * (double)max_ex[k]) ||
		    (in[k] && (double)in[k] >= HOT_FRACTION * (double)max_in[k]))
			return true;
	}
	return false;
}

/* With --hot (o->hot_pct > 0): does a shown metric, exclusive or inclusive,
 * reach hot_pct% of its total? */
static bool above_hot_pct(const struct model *m, const struct report_opts *o, const uint64_t *ex,
			  const uint64_t *in)
{
	for (int i = 0; i < o->nmetrics; i++) {
		enum model_metric k = o->metrics[i];
		double min = o->hot_pct / 100.0 * (double)m->total[k];
		if (m->total[k] && ((double)ex[k] >= min || (double)in[k] >= min))
			return true;
	}
	return false;
}

/* With --hot: the lines 1..last to show, those within o->context lines of
 * one above_hot_pct (calloc'd, NULL if out of memory); without: NULL. */
static bool *hot_shown(const struct model *m, const struct report_opts *o, const struct line_row *rows,
		       int last, bool *oom)
{
	if (o->hot_pct <= 0)
		return NULL;
	bool *shown = calloc((size_t)last + 2, sizeof(*shown));
	if (!shown) {
		*oom = true;
		return NULL;
	}
	for (int line = 1; line <= last; line++) {
		if (!above_hot_pct(m, o, rows[line].excl, rows[line].incl))
			continue;
		int from = line > o->context ? line - o->context : 1;
		for (int j = from; j <= line + o->context && j <= last; j++)
			shown[j] = true;
	}
	return shown;
}

static int annotate_source(struct report_doc *d, const struct model *m, const struct report_opts *o,
			   uint32_t f, struct sym_object *obj)
{
	const struct model_func *fn = &m->funcs[f];
	int first_line = 0;
	const char *file = file_of(obj, fn, &first_line);
	struct want_path wp = { fn->path };
	struct report_pcs p;

	if (report_pcs_collect(m, same_object, &wp, &p))
		return -1;
	/* The file's lines with metrics, and functions of the file whose other
	 * instructions have no line. */
	int maxline = 0;
	uint64_t max_ex[MODEL_METRIC_COUNT] = { 0 }, max_in[MODEL_METRIC_COUNT] = { 0 };
	bool *of_file = calloc(m->nfuncs + 1, sizeof(*of_file));
	if (!of_file) {
		report_pcs_free(&p);
		return -1;
	}
	of_file[f] = true;
	for (size_t i = 0; i < p.npcs; i++) {
		const struct report_line *l = &p.lines[p.pcs[i].line];
		if (file && l->file && !strcmp(l->file, file))
			of_file[p.pcs[i].func] = true;
	}
	for (size_t i = 0; i < p.nlines; i++) {
		const struct report_line *l = &p.lines[i];
		if (!file || !l->file || strcmp(l->file, file))
			continue;
		if (l->line > maxline)
			maxline = l->line;
		for (int k = 0; k < MODEL_METRIC_COUNT; k++) {
			max_ex[k] = l->excl[k] > max_ex[k] ? l->excl[k] : max_ex[k];
			max_in[k] = l->incl[k] > max_in[k] ? l->incl[k] : max_in[k];
		}
	}
	const char *comp_dir = sym_object_comp_dir(obj, fn->addr);
	struct report_source src = { 0 };
	bool found = file && report_source_open(file, comp_dir, o->source_path, &src);
	struct report_commentary com = { 0 };
	if (file)
		report_commentary_load(file, comp_dir, found ? src.found : NULL, o->source_path,
				       o->commentary, &com);
	char title[8400], buf[1200];
	if (file)
		snprintf(title, sizeof(title), "Source of %s: %s%s%s%s", fn->name,
			 found ? src.found : src.hidden[0] ? src.hidden : file,
			 found ? "" : src.hidden[0] ? " (lines with metrics only)" :
			 " (not found: lines with metrics only; see --source-path)",
			 fn->aliases ? "\n  aliases: " : "", fn->aliases ? fn->aliases : "");
	else
		snprintf(title, sizeof(title), "Source of %s: no line information (built without -g?); see --disasm",
			 fn->name);
	struct report_table *t = annotation_table(o, "source", title, false);

	/* The special lines: instructions without line numbers, by function. */
	for (size_t i = 0; i < p.nlines; i++) {
		const struct report_line *l = &p.lines[i];
		if (l->file || !of_file[l->func] || (o->hot_pct > 0 && !above_hot_pct(m, o, l->excl, l->incl)))
			continue;
		snprintf(buf, sizeof(buf), "%s -- <instructions without line numbers>", m->funcs[l->func].name);
		report_row(t);
		report_metric_cells(t, m, o, l->excl);
		report_metric_cells(t, m, o, l->incl);
		kind_cell(t, o, "nolines");
		report_str(t, is_hot(o, l->excl, l->incl, max_ex, max_in) ? "##" : "");
		report_str(t, "");
		report_str(t, buf);
	}
	/* Every line of the file (or, without it, the lines with metrics). */
	int last = found && (int)src.nlines > maxline ? (int)src.nlines : maxline;
	struct line_row *rows = calloc((size_t)last + 1, sizeof(*rows));
	if (!rows || com.oom)
		report_doc_fail(d, "source");
	for (size_t i = 0; rows && i < p.nlines; i++) {
		const struct report_line *l = &p.lines[i];
		if (!file || !l->file || strcmp(l->file, file) || l->line < 1 || l->line > last)
			continue;
		for (int k = 0; k < MODEL_METRIC_COUNT; k++) {
			rows[l->line].excl[k] += l->excl[k];
			rows[l->line].incl[k] += l->incl[k];
		}
	}
	bool oom = false;
	bool *shown = rows ? hot_shown(m, o, rows, last, &oom) : NULL;
	if (oom)
		report_doc_fail(d, "source");
	for (int line = 1; rows && !oom && line <= last; line++) {
		struct line_row *r = &rows[line];
		bool any = false;
		for (int k = 0; k < MODEL_METRIC_COUNT; k++)
			any |= r->incl[k] != 0;
		if ((!found && !any) || (shown && !shown[line]))
			continue;
		commentary_rows(t, o, &com, line, false);
		report_row(t);
		metric_cells(t, m, o, r->excl, r->incl);
		kind_cell(t, o, "line");
		report_str(t, is_hot(o, r->excl, r->incl, max_ex, max_in) ? "##" : "");
		report_u64(t, (uint64_t)line);
		const char *text = report_source_line(&src, line);
		report_str(t, text ? text : "");
	}
	report_table_emit(d, t);
	if (o->hot_pct > 0)
		report_note(d, "(lines at or above %.2f%% of a total, with %d lines of context; --hot=0 shows all)",
			    o->hot_pct, o->context);
	free(shown);
	free(rows);
	free(of_file);
	report_commentary_free(&com);
	report_source_free(&src);
	report_pcs_free(&p);
	return 0;
}

/* ---- disassembly --------------------------------------------------------- */

static const struct report_pc *sort_pcs;

static int cmp_pc_addr(const void *a, const void *b)
{
	uint64_t x = sort_pcs[*(const size_t *)a].addr, y = sort_pcs[*(const size_t *)b].addr;

	return x < y ? -1 : x > y;
}

static bool same_func(const struct model *m, uint32_t f, void *arg)
{
	(void)m;
	return f == *(const uint32_t *)arg;
}

/* " <f+0x1c>" for the target of a direct call or jump, or "". */
static void name_target(struct sym_object *obj, const cs_insn *in, char *out, size_t len)
{
	char *end;
	unsigned long long target;

	out[0] = 0;
	if (strncmp(in->op_str, "0x", 2) || (in->mnemonic[0] != 'c' && in->mnemonic[0] != 'j' &&
					     strncmp(in->mnemonic, "loop", 4) && strncmp(in->mnemonic, "bnd", 3)))
		return;
	target = strtoull(in->op_str, &end, 16);
	if (*end)
		return;
	const struct sym_func *sf = sym_object_lookup(obj, target);
	if (!sf)
		return;
	if (target == sf->start)
		snprintf(out, len, " <%s>", sf->name);
	else
		snprintf(out, len, " <%s+0x%llx>", sf->name, (unsigned long long)(target - sf->start));
}

static int annotate_disasm(struct report_doc *d, const struct model *m, const struct report_opts *o,
			   uint32_t f, struct sym_object *obj, char *err, size_t errlen)
{
	const struct model_func *fn = &m->funcs[f];
	size_t size = fn->size > (1u << 20) ? (1u << 20) : (size_t)fn->size;
	uint8_t *code = malloc(size ? size : 1);
	struct report_pcs p;
	csh cs;
	cs_insn *insn = NULL;

	if (!code)
		return -1;
	size_t got = sym_object_read(obj, fn->addr, code, size);
	if (got == 0 || sym_cs_open(CS_ARCH_X86, CS_MODE_64, &cs) != CS_ERR_OK) {
		snprintf(err, errlen, "%s: cannot read the code of %s", fn->path, fn->name);
		free(code);
		return -1;
	}
	if (report_pcs_collect(m, same_func, &f, &p)) {
		sym_cs_close(&cs);
		free(code);
		return -1;
	}
	size_t n = sym_cs_disasm(cs, code, got, fn->addr, 0, &insn);
	int first_line = 0;
	const char *file = file_of(obj, fn, &first_line);
	const char *comp_dir = sym_object_comp_dir(obj, fn->addr);
	struct report_source src = { 0 };
	bool found = file && report_source_open(file, comp_dir, o->source_path, &src);
	struct report_commentary com = { 0 };
	if (file)
		report_commentary_load(file, comp_dir, found ? src.found : NULL, o->source_path,
				       o->commentary, &com);
	/* Interleaving starts at the function's first line in its file. */
	int shown = 0;
	for (size_t i = 0; i < n; i++) {
		const char *lf;
		int line;
		if (sym_object_line(obj, insn[i].address, &lf, &line) && file && !strcmp(lf, file) &&
		    (!shown || line - 1 < shown))
			shown = line - 1;
	}
	char title[8400], text[512], target[300];
	snprintf(title, sizeof(title), "Disassembly of %s (%s)%s%s", fn->name, fn->object,
		 fn->aliases ? "\n  aliases: " : "", fn->aliases ? fn->aliases : "");
	struct report_table *t = annotation_table(o, "disassembly", title, true);
	bool *used = calloc(p.npcs + 1, sizeof(*used));
	size_t *by_addr = malloc((p.npcs + 1) * sizeof(*by_addr)), next = 0;
	if (!used || !by_addr || com.oom)
		report_doc_fail(d, "disassembly");
	for (size_t k = 0; by_addr && k < p.npcs; k++)
		by_addr[k] = k;
	sort_pcs = p.pcs;
	if (by_addr && p.npcs)
		qsort(by_addr, p.npcs, sizeof(*by_addr), cmp_pc_addr);
	for (size_t i = 0; used && by_addr && i < n; i++) {
		uint64_t ex[MODEL_METRIC_COUNT] = { 0 }, in[MODEL_METRIC_COUNT] = { 0 };
		const char *lf = NULL;
		int line = 0;
		bool has_line = sym_object_line(obj, insn[i].address, &lf, &line);
		bool own = has_line && file && !strcmp(lf, file);
		for (; found && own && shown < line; shown++) {
			commentary_rows(t, o, &com, shown + 1, true);
			const char *s = report_source_line(&src, shown + 1);
			text_row(t, o, "source", true, shown + 1, s ? s : "");
		}
		while (next < p.npcs && p.pcs[by_addr[next]].addr < insn[i].address)
			next++;
		for (size_t q = next; q < p.npcs && p.pcs[by_addr[q]].addr < insn[i].address + insn[i].size; q++) {
			size_t k = by_addr[q];
			used[k] = true;
			for (int j = 0; j < MODEL_METRIC_COUNT; j++) {
				ex[j] += p.pcs[k].excl[j];
				in[j] += p.pcs[k].incl[j];
			}
		}
		name_target(obj, &insn[i], target, sizeof(target));
		snprintf(text, sizeof(text), "%s %s%s", insn[i].mnemonic, insn[i].op_str, target);
		report_row(t);
		metric_cells(t, m, o, ex, in);
		kind_cell(t, o, "insn");
		report_u64(t, insn[i].address);
		if (has_line || o->fmt != REPORT_TEXT)
			report_u64(t, (uint64_t)(has_line ? line : 0));
		else
			report_str(t, "");     /* no line: blank, not "Line 0" */
		report_str(t, text);
	}
	/* Addresses no decoded instruction holds (data in code, a bad decode). */
	uint64_t ex[MODEL_METRIC_COUNT] = { 0 }, in[MODEL_METRIC_COUNT] = { 0 };
	bool rest = false;
	for (size_t k = 0; used && k < p.npcs; k++) {
		if (used[k])
			continue;
		rest = true;
		for (int j = 0; j < MODEL_METRIC_COUNT; j++) {
			ex[j] += p.pcs[k].excl[j];
			in[j] += p.pcs[k].incl[j];
		}
	}
	if (rest) {
		report_row(t);
		report_metric_cells(t, m, o, ex);
		report_metric_cells(t, m, o, in);
		kind_cell(t, o, "undecoded");
		report_str(t, "");
		report_str(t, "");
		report_str(t, "<addresses not decoded as instructions>");
	}
	report_table_emit(d, t);
	free(by_addr);
	free(used);
	if (n)
		sym_cs_free(insn, n);
	sym_cs_close(&cs);
	free(code);
	report_commentary_free(&com);
	report_source_free(&src);
	report_pcs_free(&p);
	return 0;
}

int report_annotate(struct report_doc *d, const struct model *m, const struct report_opts *o,
		    const char *name, bool disasm, char *err, size_t errlen)
{
	uint32_t ids[16];
	size_t n = model_func_find(m, name, ids, 16);

	err[0] = 0;
	if (!n) {
		snprintf(err, errlen, "no function named '%s' in the profile", name);
		return -1;
	}
	for (size_t i = 0; i < n && i < 16; i++) {
		const struct model_func *fn = &m->funcs[ids[i]];
		bool mismatch;
		char e2[512];
		if ((fn->flags & MODEL_FUNC_JAVA) && !(fn->flags & MODEL_FUNC_DYNAMIC)) {
			if (disasm) {
				snprintf(err, errlen, "%s: a Java method's compiled code is not in the "
					 "experiment (annotate without --disasm shows its lines)", fn->name);
				return -1;
			}
			if (report_annotate_java(d, m, o, ids[i], err, errlen))
				return -1;
			continue;
		}
		if (fn->flags & MODEL_FUNC_ARTIFICIAL || !fn->path[0]) {
			snprintf(err, errlen, "%s is artificial: nothing to annotate", fn->name);
			return -1;
		}
		struct sym_object *obj = sym_object_get(fn->path, NULL, 0, &mismatch, e2, sizeof(e2));
		if (!obj) {
			snprintf(err, errlen, "%s", e2);
			return -1;
		}
		int rc = disasm ? annotate_disasm(d, m, o, ids[i], obj, err, errlen)
				: annotate_source(d, m, o, ids[i], obj);
		if (rc) {
			if (!err[0])
				snprintf(err, errlen, "out of memory");
			return rc;
		}
	}
	return 0;
}
