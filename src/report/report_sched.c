/* SPDX-License-Identifier: MIT
 *
 * report_sched.c — the overview's `Time by thread` without --states: each
 * thread's life split into CPU, waiting for a CPU and off the CPU by the
 * kernel's scheduler accounting read at its end (THREAD_SCHED records,
 * collector/col_sched.c).  Where it was off the CPU is --states' to say;
 * a thread shorter than the collector's bar (COL_SCHED_MIN_NS, 50 ms) has
 * no record and is counted in a note.
 */
#include "report/report.h"

void report_sched_overview(struct report_doc *d, const struct model *m)
{
	size_t with = 0, rows = 0;

	if (m->present & (1u << MODEL_WALL))
		return;                  /* --states: report_states_overview's table */
	for (size_t i = 0; i < m->nthreads; i++)
		with += m->threads[i].src && m->threads[i].src->has_sched;
	if (!with)
		return;
	struct report_table *t = report_table_new("thread_sched", "Time by thread (the kernel's schedstat; "
								  "--states says where)");
	report_thread_cols(t, m);
	report_col(t, "lifetime", "Lifetime s", COL_SEC);
	report_col(t, "cpu", "CPU s", COL_SEC);
	report_col(t, "wait_cpu", "Waiting for a CPU s", COL_SEC);
	report_col(t, "off_cpu", "Off the CPU s", COL_SEC);
	for (size_t i = 0; i < m->nthreads; i++) {
		const struct model_thread *th = &m->threads[i];
		const struct exp_thread_ev *e = th->src;
		uint64_t life = e && e->has_sched && e->end_ns ? report_thread_lifetime(m, th) : 0;
		if (!life)
			continue;                /* still running at the end: no schedstat */
		uint64_t on = e->sched_cpu_ns + e->run_delay_ns;
		rows++;
		report_row(t);
		report_thread_cells(t, m, th);
		report_u64(t, life);
		report_u64(t, e->sched_cpu_ns);
		report_u64(t, e->run_delay_ns);
		report_u64(t, life > on ? life - on : 0);
	}
	report_table_emit(d, t);
	if (rows < m->nthreads)
		report_note(d, "%zu of %zu threads not in the table: shorter than 50 ms (their schedstat is not "
			       "read), still running at the end, or no schedstat here.", m->nthreads - rows, m->nthreads);
}
