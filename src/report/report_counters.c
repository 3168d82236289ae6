/* SPDX-License-Identifier: MIT
 *
 * report_counters.c — counter profiling (`tally record -c`): the counters'
 * totals and the ratios derived from them where both exist (IPC:
 * instructions per cycle; MPKI: an event's misses per thousand
 * instructions), closing the overview; `tally report --counters`: the
 * function table of every counter with the same ratios per function; and
 * `--data-objects`: precise samples by data object (docs/dataspace.md),
 * with the share of each object's samples served by each level (L1, L2,
 * LLC, DRAM ...) when the samples have a data source.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/report.h"

/* The counter metrics that have data, in metric order; how many. */
static int present_counters(const struct model *m, int *out)
{
	int n = 0;

	for (int k = MODEL_COUNTER_0; k <= MODEL_COUNTER_LAST; k++)
		if (model_metric_is_counter(k) && (m->present & (1u << k)))
			out[n++] = k;
	return n;
}

static int counter_named(const struct model *m, const char *a, const char *b)
{
	int ks[MODEL_COUNTER_LAST - MODEL_COUNTER_0 + 1];
	int n = present_counters(m, ks);

	for (int i = 0; i < n; i++)
		if (!strcmp(model_metric_info(ks[i])->name, a) || (b && !strcmp(model_metric_info(ks[i])->name, b)))
			return ks[i];
	return -1;
}

/* Is counter k a count of misses (cache-misses, LLC-load-misses ...)? */
static bool is_misses(int k)
{
	return strstr(model_metric_info(k)->name, "misses") != NULL;
}

static double ratio(uint64_t a, uint64_t b, double scale)
{
	return b ? scale * (double)a / (double)b : 0;
}

void report_counters_overview(struct report_doc *d, const struct model *m)
{
	int ks[MODEL_COUNTER_LAST - MODEL_COUNTER_0 + 1];
	int n = present_counters(m, ks);
	int cycles = counter_named(m, "cycles", "cpu-cycles"), instr = counter_named(m, "instructions", NULL);

	if (!n)
		return;
	report_kv_begin(d, "counters", "Counters");
	for (int i = 0; i < n; i++) {
		const char *name = model_metric_info(ks[i])->name;
		report_kv_num(d, name, name, (double)m->total[ks[i]], "%llu", (unsigned long long)m->total[ks[i]]);
	}
	if (cycles >= 0 && instr >= 0 && m->total[cycles])
		report_kv_num(d, "ipc", "IPC", ratio(m->total[instr], m->total[cycles], 1), "%.3f instructions per cycle",
			      ratio(m->total[instr], m->total[cycles], 1));
	for (int i = 0; instr >= 0 && m->total[instr] && i < n; i++) {
		char key[64], label[64];
		if (!is_misses(ks[i]))
			continue;
		snprintf(key, sizeof(key), "%s_mpki", model_metric_info(ks[i])->name);
		snprintf(label, sizeof(label), "%s MPKI", model_metric_info(ks[i])->name);
		double v = ratio(m->total[ks[i]], m->total[instr], 1000);
		report_kv_num(d, key, label, v, "%.3f per thousand instructions", v);
	}
	report_kv_end(d);
}

void report_counters(struct report_doc *d, const struct model *m, const struct report_opts *o)
{
	int ks[MODEL_COUNTER_LAST - MODEL_COUNTER_0 + 1];
	int n = present_counters(m, ks);
	int cycles = counter_named(m, "cycles", "cpu-cycles"), instr = counter_named(m, "instructions", NULL);
	char buf[1024], key[64], title[96];

	if (!n) {
		report_note(d, "No counters: record with tally record -c EVENT.");
		return;
	}
	struct model_func_metrics *fm = calloc(m->nfuncs, sizeof(*fm));
	uint32_t *order = calloc(m->nfuncs, sizeof(*order));
	if (!fm || !order || model_func_metrics(m, fm) != 0) {
		free(fm);
		free(order);
		report_doc_fail(d, "the table of counters");
		return;
	}
	struct report_table *t = report_table_new("counters", "Counters by function");
	for (int i = 0; i < n; i++) {
		const char *name = model_metric_info(ks[i])->name;
		snprintf(key, sizeof(key), "excl_%s", name);
		snprintf(title, sizeof(title), "Excl. %s", name);
		report_col(t, key, title, COL_U64);
	}
	bool ipc = cycles >= 0 && instr >= 0;
	if (ipc)
		report_col(t, "ipc", "IPC", COL_STR);
	for (int i = 0; instr >= 0 && i < n; i++) {
		if (!is_misses(ks[i]))
			continue;
		snprintf(key, sizeof(key), "%s_mpki", model_metric_info(ks[i])->name);
		snprintf(title, sizeof(title), "%s MPKI", model_metric_info(ks[i])->name);
		report_col(t, key, title, COL_STR);
	}
	report_col(t, "name", "Name", COL_STR);
	/* <Total> first, then functions by their first counter, largest first. */
	uint32_t nf = 0;
	for (uint32_t f = 1; f < m->nfuncs; f++) {
		bool any = false;
		for (int i = 0; i < n; i++)
			any |= fm[f].excl[ks[i]] != 0;
		if (any)
			order[nf++] = f;
	}
	for (uint32_t i = 1; i < nf; i++)          /* insertion sort: a short list */
		for (uint32_t j = i; j > 0 && fm[order[j]].excl[ks[0]] > fm[order[j - 1]].excl[ks[0]]; j--) {
			uint32_t x = order[j];
			order[j] = order[j - 1];
			order[j - 1] = x;
		}
	for (uint32_t r = 0; r <= nf && (!o->limit || r <= o->limit); r++) {
		uint32_t f = r ? order[r - 1] : MODEL_TOTAL;
		const uint64_t *v = r ? fm[f].excl : m->total;
		report_row(t);
		for (int i = 0; i < n; i++)
			report_u64(t, v[ks[i]]);
		if (ipc) {
			snprintf(buf, sizeof(buf), v[cycles] ? "%.3f" : "-", ratio(v[instr], v[cycles], 1));
			report_str(t, buf);
		}
		for (int i = 0; instr >= 0 && i < n; i++) {
			if (!is_misses(ks[i]))
				continue;
			snprintf(buf, sizeof(buf), v[instr] ? "%.3f" : "-", ratio(v[ks[i]], v[instr], 1000));
			report_str(t, buf);
		}
		report_str(t, r ? report_func_label(m, f, buf, sizeof(buf)) : "<Total>");
	}
	report_table_emit(d, t);
	free(fm);
	free(order);
}

static const struct model *sort_model;

static int cmp_object(const void *a, const void *b)
{
	const struct model_data_object *x = &sort_model->data_objects[*(const size_t *)a];
	const struct model_data_object *y = &sort_model->data_objects[*(const size_t *)b];

	if (x->metric != y->metric)
		return x->metric < y->metric ? -1 : 1;
	return x->value < y->value ? 1 : x->value > y->value ? -1 : strcmp(x->name, y->name);
}

/* The levels any precise sample has a known data source for: a column
 * each (its share of the object's samples), in the levels' order. */
static int known_levels(const struct model *m, const size_t *order, size_t n, enum exp_mem_level *out)
{
	int k = 0;

	for (int l = EXP_MEM_UNKNOWN + 1; l < EXP_MEM_LEVELS; l++) {
		bool any = false;
		for (size_t i = 0; i < n && !any; i++)
			any = m->data_objects[order[i]].level_samples[l] != 0;
		if (any)
			out[k++] = (enum exp_mem_level)l;
	}
	return k;
}

/* An object's (or a counter's <Total>'s) samples by level, as shares. */
static void level_cells(struct report_table *t, const uint64_t *by_level, uint64_t samples,
			const enum exp_mem_level *levels, int nlevels)
{
	for (int i = 0; i < nlevels; i++)
		report_pct(t, report_pct_of(by_level[levels[i]], samples));
}

size_t report_data_precise_objects(const struct model *m)
{
	size_t n = 0;

	for (size_t i = 0; i < m->ndata_objects; i++)
		n += m->data_objects[i].metric != MODEL_CPU;
	return n;
}

void report_data_objects(struct report_doc *d, const struct model *m, const struct report_opts *o)
{
	size_t nprecise = report_data_precise_objects(m);

	if (nprecise < m->ndata_objects)      /* clock samples': report_dataobj.c */
		report_data_clock(d, m, o);
	if (!m->ndata_objects)
		report_note(d, "No data objects: they come from clock samples recorded with "
			       "`tally record --data`, or from precise memory-access samples, which need "
			       "a PMU (docs/dataspace.md).");
	else if (nprecise)
		report_data_precise(d, m, o);
}

void report_data_precise(struct report_doc *d, const struct model *m, const struct report_opts *o)
{
	if (!report_data_precise_objects(m))
		return;
	size_t *order = malloc((m->ndata_objects + 1) * sizeof(*order));
	struct report_data_index ix;

	if (!order || report_data_index_build(m, &ix)) {
		free(order);
		report_doc_fail(d, "the table of data objects");
		return;
	}
	size_t n = 0;
	for (size_t i = 0; i < m->ndata_objects; i++)
		if (m->data_objects[i].metric != MODEL_CPU)
			order[n++] = i;
	sort_model = m;
	qsort(order, n, sizeof(*order), cmp_object);
	struct report_table *t = report_table_new("data_objects", "Data objects");
	report_col(t, "depth", "", COL_DEPTH);       /* a structure's members: 1 */
	report_col(t, "counter", "Counter", COL_STR);
	report_col(t, "events", "Events", COL_U64);
	report_col(t, "pct", "%", COL_PCT);
	report_col(t, "samples", "Samples", COL_U64);
	report_col(t, "size", "Size", COL_U64);
	report_col(t, "name", "Data object", COL_STR);
	report_col(t, "object", "Object", COL_STR);
	report_col(t, "top_function", "Accessed most by", COL_STR);
	report_col(t, "top_pct", "% of its events", COL_PCT);
	enum exp_mem_level levels[EXP_MEM_LEVELS];
	int nlevels = known_levels(m, order, n, levels);
	for (int i = 0; i < nlevels; i++) {   /* the data source: where the access was served */
		char key[32], title[32];
		snprintf(key, sizeof(key), "from_%s", exp_mem_level_key(levels[i]));
		snprintf(title, sizeof(title), "%% %s", exp_mem_level_name(levels[i]));
		report_col(t, key, title, COL_PCT);
	}
	uint32_t last = UINT32_MAX;
	size_t shown = 0;
	for (size_t i = 0; i < n; i++) {
		const struct model_data_object *x = &m->data_objects[order[i]];
		uint64_t total = m->total[x->metric];
		if (x->metric != last) {         /* <Total> of this counter's data samples */
			uint64_t sum = 0, samples = 0, by_level[EXP_MEM_LEVELS] = { 0 };
			for (size_t j = 0; j < m->ndata_objects; j++)
				if (m->data_objects[j].metric == x->metric) {
					sum += m->data_objects[j].value;
					samples += m->data_objects[j].samples;
					for (int l = 0; l < EXP_MEM_LEVELS; l++)
						by_level[l] += m->data_objects[j].level_samples[l];
				}
			report_row(t);
			report_depth(t, 0);
			report_str(t, model_metric_info(x->metric)->name);
			report_data_total_cells(t, sum, samples, total);
			level_cells(t, by_level, samples, levels, nlevels);
			last = x->metric;
			shown = 0;
		}
		if (o->limit && shown++ >= o->limit)
			continue;
		report_row(t);
		report_depth(t, 0);
		report_str(t, model_metric_info(x->metric)->name);
		report_data_object_cells(t, m, &ix, order[i], total);
		level_cells(t, x->level_samples, x->samples, levels, nlevels);
		size_t k;
		const size_t *mem = report_data_members_of(&ix, order[i], &k);
		for (size_t j = 0; j < k; j++) {        /* its structure's members (DWARF) */
			report_row(t);
			report_depth(t, 1);
			report_str(t, model_metric_info(x->metric)->name);
			report_data_member_cells(t, m, mem[j], total);
			for (int l = 0; l < nlevels; l++)
				report_num(t, NAN);     /* levels are counted by object */
		}
	}
	report_table_emit(d, t);
	free(order);
	report_data_index_free(&ix);
}
