/* SPDX-License-Identifier: MIT
 *
 * report_common.c — what the report views share: percentages, function
 * labels that tell same-named functions of different objects apart, a
 * thread's label and lifetime (the thread tables'), and the
 * metric columns (value and percent of the total for each shown metric,
 * and with --errors the share's error: from its samples, or for a
 * function's row with --errors=bins from report_bins.c), and which executable of one
 * run is another's renamed (diffs).
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "report/report.h"

double report_pct_of(uint64_t v, uint64_t total)
{
	return total ? 100.0 * (double)v / (double)total : 0.0;
}

const char *report_func_label(const struct model *m, uint32_t f, char *buf, size_t len)
{
	return model_func_label(m, f, buf, len);
}

const char *report_thread_label(const struct model *m, const struct model_thread *th, char *buf, size_t len)
{
	if (th->src && th->src->name[0])
		return th->src->name;
	if (th->routine)
		return report_func_label(m, th->routine, buf, len);
	return "";
}

void report_thread_cols(struct report_table *t, const struct model *m)
{
	if (m->nprocs > 1)
		report_col(t, "process", "Process", COL_STR);
	report_col(t, "tid", "TID", COL_U64);
	report_col(t, "thread", "Thread", COL_STR);
}

void report_thread_cells_as(struct report_table *t, const struct model *m, const struct model_thread *th,
			    const char *thread)
{
	if (m->nprocs > 1)
		report_str(t, m->procs[th->proc].label);
	report_u64(t, th->tid);
	report_str(t, thread);
}

void report_thread_cells(struct report_table *t, const struct model *m, const struct model_thread *th)
{
	char buf[512];

	report_thread_cells_as(t, m, th, report_thread_label(m, th, buf, sizeof(buf)));
}

uint64_t report_thread_lifetime(const struct model *m, const struct model_thread *th)
{
	const struct exp_proc *p = m->procs[th->proc].src;
	uint64_t start = th->src && th->src->start_ns ? th->src->start_ns : 0;
	uint64_t end = th->src && th->src->end_ns ? th->src->end_ns : p ? p->end_ns : 0;

	return start && end > start ? end - start : 0;
}

static void metric_cols(struct report_table *t, const struct report_opts *o, const char *kind,
			const char *title, bool bins)
{
	char key[64], head[96];

	for (int i = 0; i < o->nmetrics; i++) {
		const struct model_metric_info *mi = model_metric_info(o->metrics[i]);
		snprintf(key, sizeof(key), "%s_%s", kind, mi->name);
		snprintf(head, sizeof(head), "%s %s%s", title, mi->title, mi->is_time ? " s" : "");
		if (!o->percent_only)
			report_col(t, key, head, mi->is_time ? COL_SEC : COL_COUNT);
		snprintf(key, sizeof(key), "%s_%s_pct", kind, mi->name);
		snprintf(head, sizeof(head), "%s %s %%", title, mi->title);
		report_col(t, key, o->percent_only ? head : "%", COL_PCT);
		if (!o->errors)
			continue;
		snprintf(key, sizeof(key), "%s_%s_pct_err%s", kind, mi->name, bins ? "_bins" : "");
		report_col(t, key, bins ? "+-bins" : "+-", COL_PCT);
	}
}

void report_metric_cols(struct report_table *t, const struct report_opts *o, const char *kind,
			const char *title)
{
	metric_cols(t, o, kind, title, false);
}

void report_func_metric_cols(struct report_table *t, const struct report_opts *o, const char *kind,
			     const char *title)
{
	metric_cols(t, o, kind, title, o->errors == REPORT_ERRORS_BINS && o->bins);
}

double report_share_error(const struct model *m, enum model_metric mm, const uint64_t *v)
{
	double n = (double)v[MODEL_SAMPLES], total = (double)m->total[MODEL_SAMPLES];

	if (model_metric_info(mm)->kind != MODEL_KIND_SAMPLED || total <= 0)
		return NAN;
	return 100.0 * sqrt(n * (1 - n / total)) / total;
}

/* bins: NULL, or the bins and function f's row (exclusive or inclusive). */
static void metric_cells(struct report_table *t, const struct model *m, const struct report_opts *o,
			 const uint64_t *v, const struct report_bins *bins, uint32_t f, bool incl)
{
	for (int i = 0; i < o->nmetrics; i++) {
		enum model_metric mm = o->metrics[i];
		if (!o->percent_only)
			report_u64(t, v[mm]);
		report_pct(t, report_pct_of(v[mm], m->total[mm]));
		if (!o->errors)
			continue;
		if (!bins || model_metric_info(mm)->kind != MODEL_KIND_SAMPLED)
			report_num(t, report_share_error(m, mm, v));
		else
			report_num(t, report_bins_error(bins, f, incl));
	}
}

void report_metric_cells(struct report_table *t, const struct model *m,
			 const struct report_opts *o, const uint64_t *v)
{
	metric_cells(t, m, o, v, NULL, 0, false);
}

void report_func_metric_cells(struct report_table *t, const struct model *m,
			      const struct report_opts *o, const uint64_t *v, uint32_t f, bool incl)
{
	metric_cells(t, m, o, v, o->errors == REPORT_ERRORS_BINS ? o->bins : NULL, f, incl);
}

/* The one name of v[0..n) not in w[0..nw), or NULL if none or several. */
static const char *only_name(const char *const *v, size_t n, const char *const *w, size_t nw)
{
	const char *one = NULL;

	for (size_t i = 0; i < n; i++) {
		bool in_w = false;
		for (size_t j = 0; j < nw && !in_w; j++)
			in_w = !strcmp(v[i], w[j]);
		if (in_w || (one && !strcmp(one, v[i])))
			continue;
		if (one)
			return NULL;
		one = v[i];
	}
	return one;
}

bool report_exe_renamed(const char *const *a, size_t na, const char *const *b, size_t nb,
			const char **a_name, const char **b_name)
{
	const char *x = only_name(a, na, b, nb), *y = only_name(b, nb, a, na);

	if (!x || !y)
		return false;
	*a_name = x;
	*b_name = y;
	return true;
}
