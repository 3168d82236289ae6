/* SPDX-License-Identifier: MIT
 *
 * report_threads.c — per-thread (with the collector's cost on each thread),
 * per-process and per-load-object tables.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "format/exp_cost.h"
#include "report/report.h"

void report_threads(struct report_doc *d, const struct model *m, const struct report_opts *o)
{
	char buf[4096];
	struct report_table *t = report_table_new("threads", "Threads");

	report_metric_cols(t, o, "excl", "");
	report_col(t, "samples", "Samples", COL_U64);
	report_col(t, "kernel_cpu", "Kernel CPU s", COL_SEC);
	report_col(t, "collector_cpu", "Collector s", COL_SEC);
	report_col(t, "handler_p99_ns", "Handler p99 ns", COL_U64);
	report_thread_cols(t, m);
	report_col(t, "start", "Start routine", COL_STR);
	for (size_t i = 0; i < m->nthreads; i++) {
		const struct model_thread *th = &m->threads[i];
		report_row(t);
		report_metric_cells(t, m, o, th->v);
		report_u64(t, th->samples);
		report_u64(t, th->src ? th->src->cpu_ns : 0);
		report_u64(t, th->src ? th->src->collector_ns : 0);
		report_u64(t, th->src && th->src->handler_hist ? exp_cost_quantile(th->src->handler_hist, 990) : 0);
		/* Its own name (a reused id's lives told apart as on the
		 * timeline): the start routine has a column of its own. */
		char name[64];
		int at = snprintf(name, sizeof(name), "%s", th->src ? th->src->name : "");
		if ((th->life || th->next_life) && at >= 0 && (size_t)at < sizeof(name))
			snprintf(name + at, sizeof(name) - (size_t)at, " (life %u)", th->life + 1);
		report_thread_cells_as(t, m, th, name);
		report_str(t, th->routine ? report_func_label(m, th->routine, buf, sizeof(buf))
					  : (th->src && th->src->start_routine == 0 &&
					     th->tid == m->procs[th->proc].src->pid ? "(main thread)" : ""));
	}
	report_table_emit(d, t);
}

/* Depth of a lineage in the process tree: one level per fork or spawn
 * ("_f1_x1_f2" is 2: an exec continues its process's level). */
static int lineage_depth(const char *lineage)
{
	int depth = 0;

	for (const char *p = lineage; (p = strstr(p, "_f")); p += 2)
		depth++;
	return depth;
}

void report_processes(struct report_doc *d, const struct model *m, const struct report_opts *o)
{
	struct report_table *t = report_table_new("processes", "Processes");

	report_metric_cols(t, o, "excl", "");
	report_col(t, "pid", "PID", COL_U64);
	report_col(t, "ppid", "PPID", COL_U64);
	report_col(t, "lineage", "Experiment", COL_STR);
	report_col(t, "created_by", "Created by", COL_STR);
	report_col(t, "depth", "depth", COL_DEPTH);
	report_col(t, "program", "Program", COL_STR);
	report_col(t, "exec", "Exec'd", COL_STR);
	report_col(t, "command", "Command", COL_STR);
	for (size_t i = 0; i < m->nprocs; i++) {
		const struct exp_proc *p = m->procs[i].src;
		const char *by = exp_proc_log(p, "created-by");
		char name[300];
		/* A job's experiments: rankN, rankN_f1 ...; the launcher's. */
		if (m->procs[i].rank >= 0)
			snprintf(name, sizeof(name), "rank%d%s", m->procs[i].rank, p->lineage);
		else
			snprintf(name, sizeof(name), "%s%s", m->procs[i].exp->launcher ? "launcher" : "",
				 p->lineage[0] ? p->lineage : m->procs[i].exp->launcher ? "" : "founder");
		report_row(t);
		report_metric_cells(t, m, o, m->procs[i].v);
		report_u64(t, p->pid);
		report_u64(t, p->ppid);
		report_str(t, name);
		report_str(t, by ? by : "");
		report_depth(t, lineage_depth(p->lineage) + (m->procs[i].rank >= 0 && m->nprocs > 1));
		report_str(t, p->exe);
		const char *ex = exp_proc_log(p, "exec");
		report_str(t, ex ? ex : "");
		/* Its command line (the collector's argv line; a fork child
		 * has its parent's until it execs), none in older experiments. */
		const char *argv = exp_proc_log(p, "argv");
		report_str(t, argv ? argv : "");
	}
	report_table_emit(d, t);
}

/* --objects order: the sorted metric's largest first (--sort name or
 * object: by path), <Unknown> last. */
struct obj_row {
	const char *path;
	const uint64_t *v;
};
static int obj_metric, obj_by_name;

static int cmp_obj(const void *x, const void *y)
{
	const struct obj_row *a = x, *b = y;

	if (!a->path[0] != !b->path[0])
		return !a->path[0] ? 1 : -1;
	if (!obj_by_name && a->v[obj_metric] != b->v[obj_metric])
		return a->v[obj_metric] > b->v[obj_metric] ? -1 : 1;
	return strcmp(a->path, b->path);
}

void report_objects(struct report_doc *d, const struct model *m, const struct report_opts *o)
{
	/* Exclusive metrics by the object of the leaf function. */
	char **paths = calloc(m->nfuncs, sizeof(*paths));
	uint64_t (*v)[MODEL_METRIC_COUNT] = calloc(m->nfuncs, sizeof(*v));
	size_t n = 0;

	if (!paths || !v) {
		report_doc_fail(d, "the table of load objects");
		free(paths);
		free(v);
		return;
	}
	for (size_t i = 0; i < m->nentries; i++) {
		const struct model_entry *e = &m->entries[i];
		const char *path = e->n ? m->funcs[e->funcs[e->n - 1]].path : "";
		size_t k;
		for (k = 0; k < n && strcmp(paths[k], path); k++)
			;
		if (k == n)
			paths[n++] = (char *)path;
		for (int j = 0; j < MODEL_METRIC_COUNT; j++)
			v[k][j] += model_entry_value(e, j);
	}
	struct report_table *t = report_table_new("objects", "Load objects");
	report_metric_cols(t, o, "excl", "Excl.");
	report_col(t, "object", "Object", COL_STR);
	struct obj_row *rows = calloc(n + 1, sizeof(*rows));
	if (!rows)
		report_doc_fail(d, "the table of load objects");
	for (size_t k = 0; rows && k < n; k++)
		rows[k] = (struct obj_row){ paths[k], v[k] };
	obj_metric = o->sort_metric >= 0 ? o->sort_metric : (int)o->metrics[0];
	obj_by_name = o->sort == REPORT_SORT_NAME || o->sort == REPORT_SORT_OBJECT;
	if (rows)
		qsort(rows, n, sizeof(*rows), cmp_obj);
	for (size_t k = 0; rows && k < n; k++) {
		report_row(t);
		report_metric_cells(t, m, o, rows[k].v);
		report_str(t, rows[k].path[0] ? rows[k].path : "<Unknown>");
	}
	free(rows);
	report_table_emit(d, t);
	free(paths);
	free(v);
}
