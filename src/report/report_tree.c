/* SPDX-License-Identifier: MIT
 *
 * report_tree.c — the call tree, depth first, children by inclusive metric,
 * nodes below the threshold (percent of the total) left out and counted;
 * recursion folded (by default) and bottom-up (--inverted) as asked.
 */
#include <stdlib.h>

#include "report/report.h"

void report_tree(struct report_doc *d, const struct model *m, const struct report_opts *o)
{
	struct model_node *nodes;
	size_t n, hidden = 0;
	enum model_metric mm = o->metrics[0];

	bool inverted = o->tree_flags & MODEL_TREE_INVERTED;
	unsigned flags = o->tree_flags | (m->nprocs > 1 && !m->merged && !inverted ? MODEL_TREE_BY_PROCESS : 0);

	if (model_tree_build(m, mm, flags, &nodes, &n)) {
		report_doc_fail(d, "the call tree");
		return;
	}
	/* Iterative depth-first walk. */
	uint32_t *stack = malloc((n + 1) * sizeof(*stack));
	int *depth = malloc((n + 1) * sizeof(*depth));
	if (!stack || !depth) {
		report_doc_fail(d, "the call tree");
		free(stack);
		free(depth);
		free(nodes);
		return;
	}
	struct report_table *t = report_table_new("tree", inverted ? "Call tree, bottom-up (callers below each function)"
								    : "Call tree");
	report_metric_cols(t, o, "incl", "Incl.");
	report_metric_cols(t, o, "excl", "Excl.");
	report_col(t, "depth", "depth", COL_DEPTH);
	report_col(t, "name", "Name", COL_STR);
	size_t sp = 0;
	stack[sp] = 0;
	depth[sp++] = 0;
	double min = o->threshold_pct / 100.0 * (double)m->total[mm];
	char name[4096];
	while (sp) {
		uint32_t i = stack[--sp];
		int dp = depth[sp];
		if (i && (double)nodes[i].incl[mm] < min) {
			hidden++;
			continue;
		}
		report_row(t);
		report_metric_cells(t, m, o, nodes[i].incl);
		report_metric_cells(t, m, o, nodes[i].excl);
		report_depth(t, dp);
		report_str(t, model_node_name(m, nodes, i, name, sizeof(name)));
		/* push children in reverse so the largest comes out first */
		size_t first = sp;
		for (uint32_t c = nodes[i].first_child; c; c = nodes[c].next_sibling) {
			stack[sp] = c;
			depth[sp++] = dp + 1;
		}
		for (size_t a = first, b = sp ? sp - 1 : 0; a < b; a++, b--) {
			uint32_t tmp = stack[a];
			stack[a] = stack[b];
			stack[b] = tmp;
		}
	}
	report_table_emit(d, t);
	if (hidden)
		report_note(d, "(%zu subtrees below %.2f%% not shown; --threshold 0 shows all)", hidden,
			    o->threshold_pct);
	if (o->tree_flags & MODEL_TREE_FOLD_RECURSION)
		report_note(d, "(recursive calls folded into their outermost call; --no-fold shows every level)");
	free(stack);
	free(depth);
	free(nodes);
}
