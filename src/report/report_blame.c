/* SPDX-License-Identifier: MIT
 *
 * report_blame.c — `tally report --blame`: lock-holder blame.  The waits
 * (record -s) on contended mutexes, grouped by the function that waited,
 * the object, and where its holder took it (the holder's function and the
 * source line of its lock call): "waited 2.4 s in consume on mutex 0x…
 * held by thread T from slow_flush (blamey.c:55)".  Each row is the part
 * of those waits during which that holder held the object (model_blame.c);
 * the parts whose holder is not known say why.  Largest first.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/report.h"
#include "symbols/sym.h"

/* One row: the blames of one (process, waiting function, object, holding
 * function and line, reason). */
struct row {
	uint32_t proc, kind, why;
	uint32_t waiter_func, holder_func;   /* 0 (<Total>): not known */
	uint64_t addr;
	char where[512];           /* the holder's "func (file:line)" */
	uint64_t held_ns, waits;
	uint32_t tid;              /* the holder thread if one, else 0 */
	uint32_t ntids;            /* holder threads (counted up to 2) */
};

static const char *const why_text[] = {
	[EXP_HELD_KNOWN] = "",
	[EXP_HELD_UNTRACKED] = "not known: the object's first contention",
	[EXP_HELD_OVERFLOW] = "not known: more holders than remembered",
	[EXP_HELD_TABLE_FULL] = "not known: too many contended objects",
};

void report_blame_where(const struct model *m, uint32_t f, uint64_t addr, char *buf, size_t len)
{
	char name[1024];
	const char *file = NULL;
	int line = 0;
	bool mismatch;
	char err[256];

	const char *label = model_func_label(m, f, name, sizeof(name));
	struct sym_object *o = m->funcs[f].path[0] && addr
				       ? sym_object_get(m->funcs[f].path, NULL, 0, &mismatch, err, sizeof(err))
				       : NULL;
	if (o && sym_object_line(o, addr, &file, &line) && file) {
		const char *base = strrchr(file, '/');
		snprintf(buf, len, "%s (%s:%d)", label, base ? base + 1 : file, line);
	} else {
		snprintf(buf, len, "%s", label);
	}
}

const char *report_blame_why(uint32_t why)
{
	return why < sizeof(why_text) / sizeof(why_text[0]) && why ? why_text[why] : "not known";
}

static int cmp_held(const void *a, const void *b)
{
	const struct row *x = a, *y = b;

	if (x->held_ns != y->held_ns)
		return x->held_ns < y->held_ns ? 1 : -1;
	return strcmp(x->where, y->where);
}

/* Gather m->blames into rows (*nrows); NULL if out of memory. */
static struct row *rows_make(const struct model *m, size_t *nrows, uint64_t *total)
{
	struct row *r = calloc(m->nblames + 1, sizeof(*r));
	size_t n = 0;

	*total = 0;
	if (!r)
		return NULL;
	for (size_t i = 0; i < m->nblames; i++) {
		const struct model_blame *b = &m->blames[i];
		const struct model_entry *we = &m->entries[b->waiter_entry];
		struct row want = { .proc = b->proc, .kind = b->kind, .why = b->why, .addr = b->addr,
				    .waiter_func = we->n ? we->funcs[we->n - 1] : 0 };
		if (b->holder_func) {
			want.holder_func = b->holder_func;
			report_blame_where(m, b->holder_func, b->holder_addr, want.where, sizeof(want.where));
		} else {
			snprintf(want.where, sizeof(want.where), "%s", report_blame_why(b->why));
		}
		size_t k;
		for (k = 0; k < n; k++)
			if (r[k].proc == want.proc && r[k].kind == want.kind && r[k].why == want.why &&
			    r[k].addr == want.addr && r[k].waiter_func == want.waiter_func &&
			    !strcmp(r[k].where, want.where))
				break;
		if (k == n)
			r[n++] = want;
		r[k].held_ns += b->held_ns;
		r[k].waits += b->waits;
		if (b->holder_tid && r[k].tid != b->holder_tid) {
			r[k].ntids += r[k].ntids < 2;
			r[k].tid = r[k].ntids == 1 ? b->holder_tid : 0;
		}
		*total += b->held_ns;
	}
	*nrows = n;
	return r;
}

void report_blame(struct report_doc *d, const struct model *m, const struct report_opts *o)
{
	char buf[1024];
	size_t n;
	uint64_t total;

	if (!m->nblames) {
		report_note(d, "No lock-holder blame: record with -s (the holders of contended mutexes "
			       "are recorded unless --sync-holders=off; waits on other objects have none).");
		return;
	}
	struct row *r = rows_make(m, &n, &total);
	if (!r) {
		report_doc_fail(d, "the lock-holder blame");
		return;
	}
	qsort(r, n, sizeof(*r), cmp_held);
	struct report_table *t = report_table_new("blame", "Lock-holder blame");
	report_col(t, "wait", "Wait s", COL_SEC);
	report_col(t, "wait_pct", "%", COL_PCT);
	report_col(t, "waits", "Waits", COL_U64);
	report_col(t, "waiter", "Waiting in", COL_STR);
	report_col(t, "kind", "Kind", COL_STR);
	report_col(t, "address", "Address", COL_HEX);
	report_col(t, "holder_thread", "Held by", COL_STR);
	report_col(t, "holder", "Holder took it in", COL_STR);
	if (m->nprocs > 1)
		report_col(t, "process", "Process", COL_STR);
	for (size_t i = 0; i < n && (!o->limit || i < o->limit); i++) {
		report_row(t);
		report_u64(t, r[i].held_ns);
		report_pct(t, report_pct_of(r[i].held_ns, total));
		report_u64(t, r[i].waits);
		report_str(t, r[i].waiter_func ? model_func_label(m, r[i].waiter_func, buf, sizeof(buf)) : "");
		report_str(t, model_sync_kind_name(r[i].kind));
		report_u64(t, r[i].addr);
		if (r[i].tid)
			snprintf(buf, sizeof(buf), "thread %u", r[i].tid);
		else
			snprintf(buf, sizeof(buf), "%s", r[i].ntids ? "several threads" : "?");
		report_str(t, buf);
		report_str(t, r[i].where);
		if (m->nprocs > 1)
			report_str(t, r[i].proc < m->nprocs ? m->procs[r[i].proc].label : "");
	}
	free(r);
	report_table_emit(d, t);
	if (m->blame_unmatched)
		report_note(d, "%llu holder records without their wait (its block lost) are not shown.",
			    (unsigned long long)m->blame_unmatched);
}
