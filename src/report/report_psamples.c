/* SPDX-License-Identifier: MIT
 *
 * report_psamples.c — `tally report --samples`: each process over time,
 * from its PROC_SAMPLE records (`tally record --process-samples S`): seconds
 * since its experiment's start, resident memory, page faults, context
 * switches, CPU time and, with -H, the live heap; one row per sample,
 * processes in the model's order.  Under it, per process, the peaks: the
 * largest resident memory and live heap and when.
 */
#include <stdint.h>
#include <stdio.h>

#include "report/report.h"

void report_psamples(struct report_doc *d, const struct model *m, const struct report_opts *o)
{
	struct report_table *t = report_table_new("samples", "Process samples");
	bool heap = false;
	size_t n = 0;

	(void)o;
	for (size_t i = 0; i < m->nprocs; i++)
		for (size_t k = 0; k < m->procs[i].src->npsamples; k++, n++)
			heap |= m->procs[i].src->psamples[k].heap_live_bytes != EXP_PROC_NO_HEAP;
	report_col(t, "process", "Process", COL_STR);
	report_col(t, "time", "Time s", COL_SEC);
	report_col(t, "rss_bytes", "RSS bytes", COL_COUNT);
	if (heap)
		report_col(t, "heap_live_bytes", "Live heap", COL_COUNT);
	report_col(t, "cpu", "CPU s", COL_SEC);
	report_col(t, "minflt", "Minor faults", COL_COUNT);
	report_col(t, "majflt", "Major faults", COL_COUNT);
	report_col(t, "vcsw", "Vol. switches", COL_COUNT);
	report_col(t, "ivcsw", "Invol. switches", COL_COUNT);
	for (size_t i = 0; i < m->nprocs; i++) {
		const struct exp_proc *p = m->procs[i].src;
		uint64_t t0 = m->procs[i].exp->procs[0].start_ns;
		for (size_t k = 0; k < p->npsamples; k++) {
			const struct exp_proc_sample *s = &p->psamples[k];
			report_row(t);
			report_str(t, m->procs[i].label);
			report_num(t, s->time_ns > t0 ? (double)(s->time_ns - t0) : 0);
			report_u64(t, s->rss_bytes);
			if (heap)
				report_u64(t, s->heap_live_bytes == EXP_PROC_NO_HEAP ? 0 : s->heap_live_bytes);
			report_num(t, (double)s->cpu_ns);
			report_u64(t, s->minflt);
			report_u64(t, s->majflt);
			report_u64(t, s->nvcsw);
			report_u64(t, s->nivcsw);
		}
	}
	report_table_emit(d, t);
	if (!n)
		report_note(d, "No process samples: recorded by a tally before them, or with "
			       "--process-samples 0 (tally record --process-samples S takes one every S s)");
}
