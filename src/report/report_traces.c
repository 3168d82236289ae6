/* SPDX-License-Identifier: MIT
 *
 * report_traces.c — views of traced data: the stacks that leaked heap
 * memory (and the one that reached the peak of live bytes), and I/O by file.
 */
#include <stdlib.h>
#include <string.h>

#include "report/report.h"

#define STACK_SHOWN 8              /* frames of a stack in one cell */

/* "leaf <- caller <- ..." for an entry. */
static void stack_text(const struct model *m, const struct model_entry *e, char *buf, size_t len)
{
	size_t n = 0;

	buf[0] = 0;
	for (uint32_t k = 0; k < e->n && k < STACK_SHOWN && n + 8 < len; k++) {
		uint32_t f = e->funcs[e->n - 1 - k];
		n += (size_t)snprintf(buf + n, len - n, "%s%s", k ? " <- " : "", m->funcs[f].name);
	}
	if (e->n > STACK_SHOWN && n + 8 < len)
		snprintf(buf + n, len - n, " <- ...");
}

static const struct model *sort_model;

static int cmp_leak(const void *a, const void *b)
{
	uint64_t x = model_entry_value(&sort_model->entries[*(const size_t *)a], MODEL_HEAP_LEAK);
	uint64_t y = model_entry_value(&sort_model->entries[*(const size_t *)b], MODEL_HEAP_LEAK);
	return x > y ? -1 : x < y;
}

void report_leaks(struct report_doc *d, const struct model *m, const struct report_opts *o)
{
	size_t *order = malloc((m->nentries + 1) * sizeof(*order)), n = 0;
	char buf[4096];

	if (!order) {
		report_doc_fail(d, "the table of leaks");
		return;
	}
	for (size_t i = 0; i < m->nentries; i++)
		if (model_entry_value(&m->entries[i], MODEL_HEAP_LEAK))
			order[n++] = i;
	sort_model = m;
	qsort(order, n, sizeof(*order), cmp_leak);
	struct report_table *t = report_table_new("leaks", "Leaks: allocations never freed, by stack");
	report_col(t, "leaked_bytes", "Leaked bytes", COL_COUNT);
	report_col(t, "leaked_pct", "%", COL_PCT);
	report_col(t, "allocs", "Allocs there", COL_U64);
	report_col(t, "stack", "Stack (leaf first)", COL_STR);
	size_t shown = o->limit && o->limit < n ? o->limit : n;
	for (size_t i = 0; i < shown; i++) {
		const struct model_entry *e = &m->entries[order[i]];
		report_row(t);
		report_u64(t, model_entry_value(e, MODEL_HEAP_LEAK));
		report_pct(t, report_pct_of(model_entry_value(e, MODEL_HEAP_LEAK), m->total[MODEL_HEAP_LEAK]));
		report_u64(t, model_entry_value(e, MODEL_HEAP_COUNT));
		stack_text(m, e, buf, sizeof(buf));
		report_str(t, buf);
	}
	report_table_emit(d, t);
	if (shown < n)
		report_note(d, "(%zu more leaking stacks; --limit 0 shows all)", n - shown);
	if (m->heap_peak.entry) {
		report_kv_begin(d, "peak", "Peak of live heap bytes");
		report_kv_num(d, "bytes", "Live bytes", (double)m->heap_peak.bytes, "%llu",
			      (unsigned long long)m->heap_peak.bytes);
		stack_text(m, &m->entries[m->heap_peak.entry - 1], buf, sizeof(buf));
		report_kv(d, "reached_by", "Reached by", "%s", buf);
		report_kv_end(d);
	}
	free(order);
}

static int cmp_file(const void *a, const void *b)
{
	const struct model_file *x = a, *y = b;

	if (x->v[MODEL_IO_BYTES] != y->v[MODEL_IO_BYTES])
		return x->v[MODEL_IO_BYTES] > y->v[MODEL_IO_BYTES] ? -1 : 1;
	return strcmp(x->name, y->name);
}

void report_files(struct report_doc *d, const struct model *m)
{
	struct model_file *f = malloc((m->nfiles + 1) * sizeof(*f));

	if (!f) {
		report_doc_fail(d, "the table of files");
		return;
	}
	memcpy(f, m->files, m->nfiles * sizeof(*f));
	qsort(f, m->nfiles, sizeof(*f), cmp_file);
	struct report_table *t = report_table_new("files", "I/O by file");
	report_col(t, "bytes", "Bytes", COL_COUNT);
	report_col(t, "bytes_pct", "%", COL_PCT);
	report_col(t, "calls", "Read/write calls", COL_U64);
	report_col(t, "time", "Time s", COL_SEC);
	report_col(t, "opens", "Opens", COL_U64);
	report_col(t, "closes", "Closes", COL_U64);
	report_col(t, "seeks", "Seeks", COL_U64);
	report_col(t, "syncs", "Syncs", COL_U64);
	report_col(t, "file", "File", COL_STR);
	for (size_t i = 0; i < m->nfiles; i++) {
		report_row(t);
		report_u64(t, f[i].v[MODEL_IO_BYTES]);
		report_pct(t, report_pct_of(f[i].v[MODEL_IO_BYTES], m->total[MODEL_IO_BYTES]));
		report_u64(t, f[i].v[MODEL_IO_COUNT]);
		report_u64(t, f[i].v[MODEL_IO_TIME]);
		report_u64(t, f[i].ops[EXP_IO_OPEN]);
		report_u64(t, f[i].ops[EXP_IO_CLOSE]);
		report_u64(t, f[i].ops[EXP_IO_SEEK]);
		report_u64(t, f[i].ops[EXP_IO_SYNC]);
		report_str(t, f[i].name);
	}
	report_table_emit(d, t);
	free(f);
}
