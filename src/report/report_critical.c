/* SPDX-License-Identifier: MIT
 *
 * report_critical.c — `tally report --critical-path`: the functions on the
 * critical path across threads (model_critical.c), by their time on it
 * (inclusive: a function's callees' time is its; and exclusive),
 * with Amdahl's bound on the path: making a function twice as fast
 * shortens the run by at most half its time on the path (less if another
 * chain of work then becomes the longest).  Largest first.
 */
#include <stdlib.h>

#include "report/report.h"

static int cmp_ns(const void *a, const void *b)
{
	const struct model_crit *x = a, *y = b;

	if (x->ns != y->ns)
		return x->ns < y->ns ? 1 : -1;
	return x->func < y->func ? -1 : x->func > y->func;
}

void report_critical(struct report_doc *d, const struct model *m, const struct report_opts *o)
{
	char buf[4096];

	if (!m->crit_procs || !m->ncrit) {
		report_note(d, "No critical path: record with -s (the path follows joins, the "
			       "holders of mutexes, the signallers of condition variables and "
			       "semaphores and the last arrivals at barriers from the end of the main "
			       "thread; with -i too, the writers into pipes, FIFOs, sockets and eventfds, "
			       "and into the descriptors of waits in poll, select and epoll).");
		return;
	}
	struct model_crit *r = malloc(m->ncrit * sizeof(*r));
	if (!r) {
		report_doc_fail(d, "the critical path");
		return;
	}
	for (size_t i = 0; i < m->ncrit; i++)
		r[i] = m->crit[i];
	qsort(r, m->ncrit, sizeof(*r), cmp_ns);
	report_note(d, "Critical path: %.3f s, the main thread's wall time %.3f s%s%s.", m->crit_path_ns / 1e9,
		    m->crit_wall_ns / 1e9, m->crit_procs > 1 ? " (processes summed)" : "",
		    m->crit_cut ? "; the walk was cut short (a loop in the records)" : "");
	if (m->crit_stretch > 0)
		report_note(d, "Without --states: a running stretch's samples stand for at most their CPU "
			       "times twice their thread's ratio of running wall time to CPU (at most 4 "
			       "times the process's, %.1f); the rest is <not sampled> (off the CPU, or not seen).",
			    m->crit_stretch);
	struct report_table *t = report_table_new("critical_path", "Critical path");
	report_col(t, "path", "Path s", COL_SEC);
	report_col(t, "path_pct", "%", COL_PCT);
	report_col(t, "path_excl", "Excl. s", COL_SEC);
	report_col(t, "waiting", "Waiting s", COL_SEC);
	report_col(t, "twice_as_fast", "2x faster: at most -s", COL_SEC);
	report_col(t, "name", "Name", COL_STR);
	for (size_t i = 0; i < m->ncrit && (!o->limit || i < o->limit); i++) {
		report_row(t);
		report_u64(t, r[i].ns);
		report_pct(t, report_pct_of(r[i].ns, m->crit_path_ns));
		report_u64(t, r[i].excl_ns);
		report_u64(t, r[i].wait_ns);
		report_u64(t, r[i].ns / 2);
		report_str(t, model_func_label(m, r[i].func, buf, sizeof(buf)));
	}
	free(r);
	report_table_emit(d, t);
}
