/* SPDX-License-Identifier: MIT
 *
 * report_dataobj.c — data objects from clock samples (`tally record
 * --data`, docs/dataspace.md): `--data-objects` lists them by CPU time, each
 * variable of a structure type followed by its members (`{struct
 * cell}.b`); `--data-layout` lists each structure type's members by offset
 * with the CPU time of the accesses to them, the Sun analyzer's data layout
 * view (cold members too: they come from DWARF).  Both are tables, so text,
 * CSV and JSON carry the same rows.  Reads the model (model_dataclock.c).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/report.h"

static const struct model *sort_model;

static int cmp_object(const void *a, const void *b)
{
	const struct model_data_object *x = &sort_model->data_objects[*(const size_t *)a];
	const struct model_data_object *y = &sort_model->data_objects[*(const size_t *)b];

	return x->value < y->value ? 1 : x->value > y->value ? -1 : strcmp(x->name, y->name);
}

static int cmp_member(const void *a, const void *b)
{
	const struct model_data_member *x = &sort_model->data_members[*(const size_t *)a];
	const struct model_data_member *y = &sort_model->data_members[*(const size_t *)b];

	return x->value < y->value ? 1 : x->value > y->value ? -1 : x->field - y->field;
}

static int cmp_type(const void *a, const void *b)
{
	const struct model_data_type *x = &sort_model->data_types[*(const size_t *)a];
	const struct model_data_type *y = &sort_model->data_types[*(const size_t *)b];

	return x->value < y->value ? 1 : x->value > y->value ? -1 : strcmp(x->name, y->name);
}

/* Members by object, then most counted first (cmp_member). */
static int cmp_member_of_object(const void *a, const void *b)
{
	const struct model_data_member *x = &sort_model->data_members[*(const size_t *)a];
	const struct model_data_member *y = &sort_model->data_members[*(const size_t *)b];

	if (x->object != y->object)
		return x->object < y->object ? -1 : 1;
	return cmp_member(a, b);
}

int report_data_index_build(const struct model *m, struct report_data_index *ix)
{
	size_t no = m->ndata_objects, nm = m->ndata_members;

	ix->members = malloc((nm + 1) * sizeof(*ix->members));
	ix->first = calloc(no + 1, sizeof(*ix->first));
	ix->top_func = calloc(no + 1, sizeof(*ix->top_func));
	ix->top_value = calloc(no + 1, sizeof(*ix->top_value));
	if (!ix->members || !ix->first || !ix->top_func || !ix->top_value) {
		report_data_index_free(ix);
		return -1;
	}
	for (size_t j = 0; j < nm; j++)
		ix->members[j] = j;
	sort_model = m;
	qsort(ix->members, nm, sizeof(*ix->members), cmp_member_of_object);
	for (size_t i = 0, j = 0; i <= no; i++) {      /* object i's run starts at the first member of i or after */
		while (j < nm && m->data_members[ix->members[j]].object < i)
			j++;
		ix->first[i] = j;
	}
	/* The first access of the greatest value wins, as a scan in order would. */
	for (size_t i = 0; i < m->ndata_access; i++) {
		const struct model_data_access *a = &m->data_access[i];
		if (a->object < no && a->value > ix->top_value[a->object]) {
			ix->top_value[a->object] = a->value;
			ix->top_func[a->object] = a->func;
		}
	}
	return 0;
}

void report_data_index_free(struct report_data_index *ix)
{
	free(ix->members);
	free(ix->first);
	free(ix->top_func);
	free(ix->top_value);
	memset(ix, 0, sizeof(*ix));
}

void report_data_object_cells(struct report_table *t, const struct model *m, const struct report_data_index *ix,
			      size_t obj, uint64_t total)
{
	const struct model_data_object *x = &m->data_objects[obj];
	char buf[1024];
	uint32_t f = ix->top_func[obj];

	report_u64(t, x->value);
	report_pct(t, report_pct_of(x->value, total));
	report_u64(t, x->samples);
	report_u64(t, x->size);
	report_str(t, x->name);
	report_str(t, x->object);
	report_str(t, f ? report_func_label(m, f, buf, sizeof(buf)) : "");
	report_pct(t, report_pct_of(ix->top_value[obj], x->value));
}

void report_data_total_cells(struct report_table *t, uint64_t sum, uint64_t samples, uint64_t total)
{
	report_u64(t, sum);
	report_pct(t, report_pct_of(sum, total));
	report_u64(t, samples);
	report_u64(t, 0);
	report_str(t, "<Total>");
	report_str(t, "");
	report_str(t, "");
	report_pct(t, 0);
}

/* "{struct cell}.b", or "{struct cell}.<padding>". */
static const char *member_name(const struct model *m, const struct model_data_member *x, char *buf, size_t len)
{
	const struct model_data_type *t = &m->data_types[x->type];

	snprintf(buf, len, "{%s}.%s", t->name, x->field >= 0 ? t->fields[x->field].name : "<padding>");
	return buf;
}

const size_t *report_data_members_of(const struct report_data_index *ix, size_t obj, size_t *n)
{
	*n = ix->first[obj + 1] - ix->first[obj];
	return ix->members + ix->first[obj];
}

void report_data_member_cells(struct report_table *t, const struct model *m, size_t member, uint64_t total)
{
	const struct model_data_member *y = &m->data_members[member];
	char buf[1024];

	report_u64(t, y->value);
	report_pct(t, report_pct_of(y->value, total));
	report_u64(t, y->samples);
	report_u64(t, y->field >= 0 ? m->data_types[y->type].fields[y->field].size : 0);
	report_str(t, member_name(m, y, buf, sizeof(buf)));
	report_str(t, "");
	report_str(t, "");
	report_pct(t, 0);
}

void report_data_clock(struct report_doc *d, const struct model *m, const struct report_opts *o)
{
	size_t *order = malloc((m->ndata_objects + 1) * sizeof(*order));
	struct report_data_index ix;
	size_t n = 0;
	uint64_t sum = 0, samples = 0;

	if (!order || report_data_index_build(m, &ix)) {
		free(order);
		report_doc_fail(d, "the table of data objects");
		return;
	}
	for (size_t i = 0; i < m->ndata_objects; i++)
		if (m->data_objects[i].metric == MODEL_CPU) {
			order[n++] = i;
			sum += m->data_objects[i].value;
			samples += m->data_objects[i].samples;
		}
	sort_model = m;
	qsort(order, n, sizeof(*order), cmp_object);
	struct report_table *t = report_table_new("data_objects_cpu", "Data objects by CPU time (record --data)");
	report_col(t, "depth", "", COL_DEPTH);
	report_col(t, "cpu", "CPU s", COL_SEC);
	report_col(t, "pct", "%", COL_PCT);
	report_col(t, "samples", "Samples", COL_U64);
	report_col(t, "size", "Size", COL_U64);
	report_col(t, "name", "Data object", COL_STR);
	report_col(t, "object", "Object", COL_STR);
	report_col(t, "top_function", "Accessed most by", COL_STR);
	report_col(t, "top_pct", "% of its time", COL_PCT);
	report_row(t);
	report_depth(t, 0);
	report_data_total_cells(t, sum, samples, m->total[MODEL_CPU]);
	for (size_t i = 0; i < n; i++) {
		if (o->limit && i >= o->limit)
			break;
		report_row(t);
		report_depth(t, 0);
		report_data_object_cells(t, m, &ix, order[i], m->total[MODEL_CPU]);
		size_t k;
		const size_t *mem = report_data_members_of(&ix, order[i], &k);
		for (size_t j = 0; j < k; j++) {
			report_row(t);
			report_depth(t, 1);
			report_data_member_cells(t, m, mem[j], m->total[MODEL_CPU]);
		}
	}
	report_table_emit(d, t);
	report_note(d, "%llu of the %llu samples' addresses are a preceding instruction's (the pc's own "
		       "instruction has no memory operand: the nearest memory instruction before it in its "
		       "basic block).", (unsigned long long)m->data_backtracked, (unsigned long long)m->data_samples);
	free(order);
	report_data_index_free(&ix);
}

void report_data_layout(struct report_doc *d, const struct model *m, const struct report_opts *o)
{
	size_t *order = malloc((m->ndata_types + 1) * sizeof(*order));

	if (!order) {
		report_doc_fail(d, "the data layout");
		return;
	}
	if (!m->ndata_types) {
		free(order);
		report_note(d, "No structures: data layouts come from clock samples recorded with `tally "
			       "record --data` that accessed variables of a structure type described by DWARF "
			       "(compile with -g; docs/dataspace.md).");
		return;
	}
	for (size_t i = 0; i < m->ndata_types; i++)
		order[i] = i;
	sort_model = m;
	qsort(order, m->ndata_types, sizeof(*order), cmp_type);
	struct report_table *t = report_table_new("data_layout", "Data layout (record --data)");
	report_col(t, "depth", "", COL_DEPTH);
	report_col(t, "cpu", "CPU s", COL_SEC);
	report_col(t, "pct", "%", COL_PCT);
	report_col(t, "samples", "Samples", COL_U64);
	report_col(t, "offset", "Offset", COL_U64);
	report_col(t, "size", "Size", COL_U64);
	report_col(t, "name", "Structure / member", COL_STR);
	for (size_t i = 0; i < m->ndata_types; i++) {
		const struct model_data_type *x = &m->data_types[order[i]];
		char buf[512];
		if (o->limit && i >= o->limit)
			break;
		report_row(t);
		report_depth(t, 0);
		report_u64(t, x->value);
		report_pct(t, report_pct_of(x->value, m->total[MODEL_CPU]));
		report_u64(t, x->samples);
		report_u64(t, 0);
		report_u64(t, x->size);
		snprintf(buf, sizeof(buf), "{%s}", x->name);
		report_str(t, buf);
		for (uint32_t k = 0; k < x->nfields; k++) {
			const struct model_data_field *f = &x->fields[k];
			report_row(t);
			report_depth(t, 1);
			report_u64(t, f->value);
			report_pct(t, report_pct_of(f->value, m->total[MODEL_CPU]));
			report_u64(t, f->samples);
			report_u64(t, f->offset);
			report_u64(t, f->size);
			snprintf(buf, sizeof(buf), ".%s", f->name);
			report_str(t, buf);
		}
	}
	report_table_emit(d, t);
	free(order);
}
