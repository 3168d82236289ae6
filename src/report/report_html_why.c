/* SPDX-License-Identifier: MIT
 *
 * report_html_why.c — the page's "why" data (see report_html.h): the
 * lock-holder blame (model_blame.c) as waiting stacks each with its
 * holders' stacks, which the page draws as the waiters' flame graph whose
 * leaves open the holders' stacks; and the critical path
 * (model_critical.c): its total, its functions, and its stretches on each
 * thread's timeline track.
 */
#include <inttypes.h>
#include <stdlib.h>

#include "report/report.h"
#include "report/report_html.h"
#include "report/report_json_write.h"

/* `[name, ...]`: n frames of funcs, root first. */
static void frames_out(FILE *out, const struct model *m, const uint32_t *funcs, uint32_t n)
{
	char buf[1024];

	fputc('[', out);
	for (uint32_t k = 0; k < n; k++) {
		fputs(k ? "," : "", out);
		report_json_string(out, model_func_label(m, funcs[k], buf, sizeof(buf)));
	}
	fputc(']', out);
}

static int cmp_crit(const void *a, const void *b)
{
	const struct model_crit *x = a, *y = b;

	return x->ns != y->ns ? (x->ns < y->ns ? 1 : -1) : (x->func > y->func) - (x->func < y->func);
}

int report_html_why(FILE *out, const struct model *m, uint64_t t0_ns)
{
	char where[1024];
	uint64_t before = 0;       /* the path's time before the timeline's start */

	for (size_t i = 0; i < m->ncrit_segs; i++) {
		const struct model_crit_seg *s = &m->crit_segs[i];
		if (s->start_ns < t0_ns)
			before += (s->end_ns < t0_ns ? s->end_ns : t0_ns) - s->start_ns;
	}
	fputs("\"blame\":[", out);
	for (size_t i = 0; i < m->nblames; i++) {
		const struct model_blame *b = &m->blames[i];
		const struct model_entry *we = &m->entries[b->waiter_entry];
		fputs(i ? ",\n{\"w\":" : "\n{\"w\":", out);
		frames_out(out, m, we->funcs, we->n);
		fputs(",\"h\":", out);
		frames_out(out, m, b->holder_funcs, b->holder_funcs ? b->holder_n : 0);
		if (b->holder_func)
			report_blame_where(m, b->holder_func, b->holder_addr, where, sizeof(where));
		else
			snprintf(where, sizeof(where), "%s", report_blame_why(b->why));
		fputs(",\"where\":", out);
		report_json_string(out, where);
		fputs(",\"kind\":", out);
		report_json_string(out, model_sync_kind_name(b->kind));
		fprintf(out, ",\"addr\":\"0x%" PRIx64 "\",\"tid\":%u,\"us\":%" PRIu64 ",\"n\":%" PRIu64 ",\"proc\":%u}",
			b->addr, b->holder_tid, b->held_ns / 1000, b->waits, b->proc);
	}
	fputs("],\n\"critical\":{", out);
	fprintf(out, "\"path_us\":%" PRIu64 ",\"wall_us\":%" PRIu64 ",\"before_us\":%" PRIu64 ",\"procs\":%u,"
		"\"cut\":%s,\"funcs\":[", m->crit_path_ns / 1000, m->crit_wall_ns / 1000, before / 1000, m->crit_procs,
		m->crit_cut ? "true" : "false");
	struct model_crit *r = m->ncrit ? malloc(m->ncrit * sizeof(*r)) : NULL;
	if (r) {
		char buf[1024];
		for (size_t i = 0; i < m->ncrit; i++)
			r[i] = m->crit[i];
		qsort(r, m->ncrit, sizeof(*r), cmp_crit);
		for (size_t i = 0; i < m->ncrit && i < 50; i++) {
			fputs(i ? ",[" : "[", out);
			report_json_string(out, model_func_label(m, r[i].func, buf, sizeof(buf)));
			fprintf(out, ",%" PRIu64 ",%" PRIu64 "]", r[i].ns / 1000, r[i].wait_ns / 1000);
		}
		free(r);
	}
	fputs("]},\n", out);
	return ferror(out) ? -1 : 0;
}

void report_html_track_critical(FILE *out, const struct model *m, uint32_t proc, uint32_t tid, uint64_t t0)
{
	size_t c = 0;

	if (!tid)
		return;
	for (size_t i = 0; i < m->ncrit_segs; i++) {
		const struct model_crit_seg *s = &m->crit_segs[i];
		if (s->proc != proc || s->tid != tid || s->end_ns <= t0)
			continue;
		uint64_t from = s->start_ns > t0 ? s->start_ns : t0;
		fprintf(out, "%s[%" PRIu64 ",%" PRIu64 ",%d,%" PRIu64 "]", c++ ? "," : ",\"cp\":[", (from - t0) / 1000,
			(s->end_ns - from) / 1000, s->wait, s->off_ns / 1000);
	}
	if (c)
		fputc(']', out);
}
