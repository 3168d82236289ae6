/* SPDX-License-Identifier: MIT
 *
 * report_sync.c — `tally report --sync-objects`: synchronization waits by
 * object (the Sun analyzer's view by synchronization object): each mutex, rwlock,
 * condition variable, semaphore, barrier or joined thread waited on, by
 * process and address, with its kind, its total wait and share of
 * sync.wait (a joined thread's: of sync.join), its waits, the threads that waited, and the function whose
 * call waited first (model_sync.c).  Largest wait first.
 */
#include <stdio.h>
#include <stdlib.h>

#include "report/report.h"

static const struct model *sort_model;

static int cmp_wait(const void *a, const void *b)
{
	const struct model_sync_object *x = &sort_model->sync_objects[*(const size_t *)a];
	const struct model_sync_object *y = &sort_model->sync_objects[*(const size_t *)b];

	if (x->wait_ns != y->wait_ns)
		return x->wait_ns < y->wait_ns ? 1 : -1;
	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

void report_sync_objects(struct report_doc *d, const struct model *m, const struct report_opts *o)
{
	char buf[4096];
	size_t *order = malloc((m->nsync_objects + 1) * sizeof(*order));

	if (!order) {
		report_doc_fail(d, "the table of synchronization objects");
		return;
	}
	if (!m->nsync_objects) {
		free(order);
		report_note(d, "No synchronization waits: record with -s (waits shorter than the "
			       "threshold in the log's sync.threshold are not recorded).");
		return;
	}
	for (size_t i = 0; i < m->nsync_objects; i++)
		order[i] = i;
	sort_model = m;
	qsort(order, m->nsync_objects, sizeof(*order), cmp_wait);
	struct report_table *t = report_table_new("sync_objects", "Synchronization objects");
	report_col(t, "wait", "Wait s", COL_SEC);
	report_col(t, "wait_pct", "%", COL_PCT);
	report_col(t, "waits", "Waits", COL_U64);
	report_col(t, "waiters", "Threads", COL_U64);
	report_col(t, "kind", "Kind", COL_STR);
	report_col(t, "address", "Address", COL_HEX);
	report_col(t, "first_waiter", "First waited in", COL_STR);
	if (m->nprocs > 1)
		report_col(t, "process", "Process", COL_STR);
	for (size_t i = 0; i < m->nsync_objects && (!o->limit || i < o->limit); i++) {
		const struct model_sync_object *x = &m->sync_objects[order[i]];
		const struct model_entry *e = x->first_ns != UINT64_MAX ? &m->entries[x->first_entry] : NULL;
		report_row(t);
		report_u64(t, x->wait_ns);
		report_pct(t, report_pct_of(x->wait_ns, m->total[model_sync_metric(x->kind)]));
		report_u64(t, x->count);
		report_u64(t, x->waiters);
		report_str(t, model_sync_kind_name(x->kind));
		report_u64(t, x->addr);
		report_str(t, e && e->n ? model_func_label(m, e->funcs[e->n - 1], buf, sizeof(buf)) : "");
		if (m->nprocs > 1)
			report_str(t, x->proc < m->nprocs ? m->procs[x->proc].label : "");
	}
	free(order);
	report_table_emit(d, t);
}
