/* SPDX-License-Identifier: MIT
 *
 * report_annotate_java.c — `tally annotate` of a Java method: its source
 * lines with the metrics spent on each (docs/java.md).
 *
 * A Java frame's address in an entry is its source line (model_java.c maps
 * the bytecode index through the method's line table): the leaf frame's line
 * gets the exclusive metrics, every line of the method on a stack its
 * inclusive ones, once per stack however often the method recurs there.
 * The lines shown run from the first to the last line of the method's line
 * table; the source is the class's package path and SourceFile
 * ("pkg/Class.java"), found by report_source_open_java (--source-path, the
 * current directory, its src/main/java and its src).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/model_java.h"
#include "model/model_map.h"
#include "report/report.h"
#include "report/report_source.h"

struct line_metrics {
	uint64_t excl[MODEL_METRIC_COUNT], incl[MODEL_METRIC_COUNT];
};

/* The first and last line of the method named `name` (a view's name: the
 * expert view adds " [compiled]" and the like) in any process; false if no
 * JAVA_METHOD record names it. */
static bool method_lines(const struct model *m, const char *name, uint32_t *lo, uint32_t *hi)
{
	char full[2048];

	for (size_t p = 0; p < m->nprocs; p++) {
		const struct exp_proc *src = m->procs[p].src;
		for (size_t i = 0; src && i < src->njmethods; i++) {
			const struct exp_java_method_ev *ev = &src->jmethods[i];
			size_t n = model_java_name(ev->klass, ev->name, ev->sig, full, sizeof(full));
			if (!ev->nlines || strncmp(name, full, n) || (name[n] && name[n] != ' '))
				continue;
			*lo = UINT32_MAX;
			*hi = 0;
			for (uint32_t k = 0; k < ev->nlines; k++) {
				uint32_t line = ev->lines[2 * k + 1];
				*lo = line < *lo ? line : *lo;
				*hi = line > *hi ? line : *hi;
			}
			return true;
		}
	}
	return false;
}

int report_annotate_java(struct report_doc *d, const struct model *m, const struct report_opts *o,
			 uint32_t f, char *err, size_t errlen)
{
	const struct model_func *fn = &m->funcs[f];
	uint32_t lo = UINT32_MAX, hi = 0, sampled_lo = UINT32_MAX, sampled_hi = 0;
	struct model_map at = { 0 };       /* line + 1 -> index in `lines` + 1 */
	struct line_metrics *lines = NULL, nolines = { { 0 }, { 0 } };
	size_t n = 0, cap = 0;

	for (size_t i = 0; i < m->nentries; i++) {
		const struct model_entry *e = &m->entries[i];
		uint64_t counted[8];
		int nc = 0;
		for (uint32_t j = 0; j < e->n; j++) {
			if (e->funcs[j] != f)
				continue;
			uint64_t line = e->addrs[j];
			struct line_metrics *lm = &nolines;
			if (line) {
				bool fresh;
				uint64_t *v = model_map_put(&at, line + 1, 0, &fresh);
				if (!v || (fresh && exp_grow(&lines, &cap, n, sizeof(*lines)))) {
					snprintf(err, errlen, "out of memory annotating %s", fn->name);
					free(lines);
					model_map_free(&at);
					return -1;
				}
				if (fresh) {
					memset(&lines[n], 0, sizeof(lines[n]));
					*v = ++n;
				}
				lm = &lines[*v - 1];
				sampled_lo = line < sampled_lo ? (uint32_t)line : sampled_lo;
				sampled_hi = line > sampled_hi ? (uint32_t)line : sampled_hi;
			}
			bool seen = false;
			for (int k = 0; k < nc; k++)
				seen |= counted[k] == line;
			if (!seen && nc < 8)
				counted[nc++] = line;
			for (int k = 0; k < MODEL_METRIC_COUNT; k++) {
				if (!seen)
					lm->incl[k] += model_entry_value(e, k);
				if (j == e->n - 1)
					lm->excl[k] += model_entry_value(e, k);
			}
		}
	}
	if (!method_lines(m, fn->name, &lo, &hi) || lo > hi) {
		lo = sampled_lo;
		hi = sampled_hi;
	}
	lo = sampled_lo < lo ? sampled_lo : lo;
	hi = sampled_hi > hi ? sampled_hi : hi;
	if (lo > hi) {
		snprintf(err, errlen, "%s: no line numbers (the class was compiled with javac -g:none?)",
			 fn->name);
		model_map_free(&at);
		free(lines);
		return -1;
	}
	struct report_source src = { 0 };
	bool found = fn->link && report_source_open_java(fn->link, o->source_path, &src);
	char title[4400];
	snprintf(title, sizeof(title), "Source of %s: %s%s", fn->name,
		 found ? src.found : fn->link ? fn->link : "?",
		 found ? "" : " (not found: metrics by line number only; --source-path DIR)");
	struct report_table *t = report_table_new("source", title);
	report_metric_cols(t, o, "excl", "Excl.");
	report_metric_cols(t, o, "incl", "Incl.");
	report_col(t, "line", "Line", COL_U64);
	report_col(t, "text", "Source", COL_STR);
	for (uint32_t line = lo; line <= hi; line++) {
		static const struct line_metrics none;
		uint64_t *v = model_map_get(&at, (uint64_t)line + 1);
		const struct line_metrics *lm = v ? &lines[*v - 1] : &none;
		const char *text = found ? report_source_line(&src, (int)line) : NULL;
		report_row(t);
		report_metric_cells(t, m, o, lm->excl);
		report_metric_cells(t, m, o, lm->incl);
		report_u64(t, line);
		report_str(t, text ? text : "");
	}
	bool any = false;
	for (int k = 0; k < MODEL_METRIC_COUNT; k++)
		any |= nolines.incl[k] != 0;
	if (any) {
		report_row(t);
		report_metric_cells(t, m, o, nolines.excl);
		report_metric_cells(t, m, o, nolines.incl);
		report_u64(t, 0);
		report_str(t, "<frames without a line number (native, or no line table)>");
	}
	report_source_free(&src);
	report_table_emit(d, t);
	model_map_free(&at);
	free(lines);
	return 0;
}
