/* SPDX-License-Identifier: MIT
 *
 * report_arcs.c — `tally export --format arcs` (a contract, docs/decisions.md:
 * scripts that compare call counts read it): one line per call-graph arc of the
 * instrumentation runtime, `caller<TAB>callee<TAB>COUNT`, names as in the
 * reports (model_func_label: "name (object)" when two objects have a
 * function of that name).
 * Tabs separate the fields because demangled C++ names contain spaces.
 * Arcs come from model.arcs, sorted by caller and callee; an experiment
 * without -pg / -finstrument-functions arcs is refused by `tally export`
 * (it says why) before this is called.
 */
#include <stdlib.h>

#include "report/report_clean.h"
#include "report/report_gprof.h"

int report_arcs(FILE *out, const struct model *m)
{
	char a_name[4096], b_name[4096];

	for (size_t i = 0; i < m->narcs; i++) {
		const struct model_arc *a = &m->arcs[i];
		/* Names neutralised (report_clean.h). */
		if (report_clean_fputs(model_func_label(m, a->caller, a_name, sizeof(a_name)), out) ||
		    fputc('\t', out) == EOF ||
		    report_clean_fputs(model_func_label(m, a->callee, b_name, sizeof(b_name)), out))
			return -1;
		fprintf(out, "\t%llu\n", (unsigned long long)a->count);
	}
	return ferror(out) ? -1 : 0;
}
