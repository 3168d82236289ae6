/* SPDX-License-Identifier: MIT
 *
 * report_diff_states.c — `tally diff A B` of two `--states` experiments:
 * the change of the threads' wall-clock time split by state (cpu.user,
 * cpu.system, wait.cpu: the run queue, wait.lock, wait.io, wait.sleep,
 * wait.stopped) and by call path, largest change first: "+0.310 s wait.lock
 * in lock_and_work".  Called by report_diff.c when every run of both sides
 * has thread states.
 *
 * A call path is cut at its innermost function of the program's own
 * executables (the frames below it, in libc or another library, are how
 * the state was reached, the same whichever code asked): `main;
 * lock_and_work` for a wait in pthread_mutex_lock under lock_and_work.  A
 * path with no frame of an executable is kept whole.  Values are each
 * side's means over its runs.  The states' changes add up to the change of
 * the threads' summed wall time, which is not the run's elapsed time when
 * threads overlap: both are shown.
 *
 * Summed over threads, one thread's change can hide another's (a helper
 * sleeping 0.3 s less while main sleeps 0.3 s more is no change of
 * wait.sleep), so the same split is shown by thread too.  The threads of
 * two runs have other ids: a thread is known by its process's place among
 * the run's processes, its start routine (main thread: "main thread") and
 * its place among that process's threads of that routine, by start time:
 * "worker #2".
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/model_map.h"
#include "report/report.h"
#include "report/report_units.h"

static const enum model_metric states[] = {
	MODEL_CPU_USER, MODEL_CPU_SYSTEM, MODEL_WAIT_CPU, MODEL_WAIT_LOCK, MODEL_WAIT_IO, MODEL_WAIT_SLEEP,
	MODEL_WAIT_STOPPED,
};
#define NSTATES (sizeof(states) / sizeof(states[0]))
#define WHY_SHOWN 3           /* the largest changes said in the head */

/* One row: a state at a call path, each side's sum over its runs. */
struct srow {
	char *path;                /* "main;lock_and_work" */
	const char *in;            /* its last function (into path) */
	size_t state;              /* index in states[] */
	double a, b;               /* ns, summed over the side's runs */
};

struct srows {
	struct srow *v;
	size_t n, cap;
	struct model_map index;    /* hash(state, path) -> row + 1 */
};

static struct srow *row_of(struct srows *r, size_t state, const char *path)
{
	uint64_t key = model_hash_str(model_hash64(state + 1), path) | 1;

	for (;;) {
		uint64_t *v = model_map_get(&r->index, key);
		if (!v)
			break;
		struct srow *x = &r->v[*v - 1];
		if (x->state == state && !strcmp(x->path, path))
			return x;
		key = model_hash64(key) | 1;
	}
	if (exp_grow(&r->v, &r->cap, r->n, sizeof(*r->v)))
		return NULL;
	struct srow *x = &r->v[r->n];
	memset(x, 0, sizeof(*x));
	if (!(x->path = strdup(path)))
		return NULL;
	const char *semi = strrchr(x->path, ';');
	x->in = semi ? semi + 1 : x->path;
	x->state = state;
	if (!model_map_put(&r->index, key, ++r->n, NULL))
		return NULL;
	return x;
}

/* Whether function f is in one of model m's executables. */
static bool in_program(const struct model *m, uint32_t f)
{
	const char *obj = m->funcs[f].object;

	for (size_t i = 0; i < m->nprocs; i++)
		if (m->procs[i].src && m->procs[i].src->name && !strcmp(m->procs[i].src->name, obj))
			return true;
	return false;
}

/* Add model m's entries' state values (side 0: A) to the rows. */
static int add_model(struct srows *r, const struct model *m, int side)
{
	size_t cap = 4096, len;
	char *buf = malloc(cap);

	for (size_t i = 0; i < m->nentries && buf; i++) {
		const struct model_entry *e = &m->entries[i];
		bool any = false;
		for (size_t k = 0; k < NSTATES && !any; k++)
			any = model_entry_value(e, states[k]) != 0;
		if (!any)
			continue;
		uint32_t cut = e->n;
		while (cut > 0 && !in_program(m, e->funcs[cut - 1]))
			cut--;
		if (!cut)
			cut = e->n;
		len = 0;
		for (uint32_t j = 0; j < cut; j++) {
			const char *nm = m->funcs[e->funcs[j]].name;
			size_t l = strlen(nm);
			if (len + l + 2 > cap) {
				char *q = realloc(buf, (cap = 2 * (len + l + 2)));
				if (!q) {
					free(buf);
					return -1;
				}
				buf = q;
			}
			if (j)
				buf[len++] = ';';
			memcpy(buf + len, nm, l);
			len += l;
		}
		buf[len] = 0;
		for (size_t k = 0; k < NSTATES; k++) {
			uint64_t v = model_entry_value(e, states[k]);
			if (!v)
				continue;
			struct srow *x = row_of(r, k, len ? buf : "<Unknown>");
			if (!x) {
				free(buf);
				return -1;
			}
			*(side ? &x->b : &x->a) += (double)v;
		}
	}
	int rc = buf ? 0 : -1;
	free(buf);
	return rc;
}

/* Thread i of model m as the other run would know it (see the top). */
static void thread_key(const struct model *m, size_t i, char *buf, size_t len)
{
	const struct model_thread *th = &m->threads[i];
	const struct exp_proc *p = m->procs[th->proc].src;
	char proc[32] = "";
	size_t nth = 1;

	if (m->nprocs > 1)
		snprintf(proc, sizeof(proc), "process %u: ", th->proc + 1);
	if (!th->routine && p && th->tid == p->pid) {
		snprintf(buf, len, "%smain thread", proc);
		return;
	}
	uint64_t t = th->src ? th->src->start_ns : th->first_ns;
	for (size_t j = 0; j < m->nthreads; j++) {
		const struct model_thread *o = &m->threads[j];
		uint64_t u = o->src ? o->src->start_ns : o->first_ns;
		if (j != i && o->proc == th->proc && o->routine == th->routine &&
		    !(!o->routine && p && o->tid == p->pid) && (u < t || (u == t && j < i)))
			nth++;
	}
	snprintf(buf, len, "%s%s #%zu", proc, th->routine ? m->funcs[th->routine].name : "thread", nth);
}

/* Add model m's threads' state values (side 0: A) to the rows, by thread. */
static int add_threads(struct srows *r, const struct model *m, int side)
{
	char key[512];

	for (size_t i = 0; i < m->nthreads; i++) {
		const struct model_thread *th = &m->threads[i];
		thread_key(m, i, key, sizeof(key));
		for (size_t k = 0; k < NSTATES; k++) {
			if (!th->v[states[k]])
				continue;
			struct srow *x = row_of(r, k, key);
			if (!x)
				return -1;
			*(side ? &x->b : &x->a) += (double)th->v[states[k]];
		}
	}
	return 0;
}

static double change(const struct srow *x, size_t na, size_t nb)
{
	return x->b / (double)nb - x->a / (double)na;
}

static size_t sort_na, sort_nb;

static int cmp_change(const void *p, const void *q)
{
	const struct srow *x = p, *y = q;
	double a = fabs(change(x, sort_na, sort_nb)), b = fabs(change(y, sort_na, sort_nb));

	if (a != b)
		return a > b ? -1 : 1;
	if (x->state != y->state)
		return x->state < y->state ? -1 : 1;
	return strcmp(x->path, y->path);
}

/* The run's elapsed time: its first process's start to its last's end. */
static double elapsed(const struct model *m)
{
	uint64_t from = 0, to = 0;

	for (size_t i = 0; i < m->nprocs; i++) {
		const struct exp_proc *p = m->procs[i].src;
		if (!p || !p->start_ns || p->end_ns <= p->start_ns)
			continue;
		if (!from || p->start_ns < from)
			from = p->start_ns;
		if (p->end_ns > to)
			to = p->end_ns;
	}
	return (double)(to - from);
}

/* "+0.310 s" or, human, "+310 ms". */
static void signed_time(char *buf, size_t len, double ns, bool human)
{
	char num[48];

	if (human)
		report_units_time(num, sizeof(num), fabs(ns));
	else
		snprintf(num, sizeof(num), "%.3f s", fabs(ns) / 1e9);
	bool zero = !num[strspn(num, "0. s")];     /* below the resolution: no sign */
	snprintf(buf, len, "%s%s", zero ? "" : ns < 0 ? "-" : "+", num);
}

int report_diff_states_apply(const struct model *const *a, size_t na, const struct model *const *b, size_t nb)
{
	size_t with = 0;

	for (size_t i = 0; i < na + nb; i++)
		with += ((i < na ? a[i] : b[i - na])->present & (1u << MODEL_WALL)) != 0;
	return !with ? 0 : with == na + nb ? 1 : -1;
}

void report_diff_states_cols(struct report_table *t)
{
	report_col(t, "state", "State", COL_STR);
	report_col(t, "state_a", "State A s", COL_SEC);
	report_col(t, "state_b", "State B s", COL_SEC);
	report_col(t, "state_delta", "State B-A s", COL_SEC);
	report_col(t, "state_in", "In", COL_STR);
}

static void free_rows(struct srows *r)
{
	for (size_t i = 0; i < r->n; i++)
		free(r->v[i].path);
	free(r->v);
	model_map_free(&r->index);
}

/* One of the two tables of rows: by call path ("states", with the path's
 * last function) and by thread ("thread_states", the thread as the path). */
struct table_kind {
	const char *csv_kind;      /* the rows' kind in the one CSV table */
	const char *id, *title;    /* its own table */
	const char *path_id, *path_label;
	bool in;                   /* a column for the path's last function */
	const char *note;          /* "(states: the N largest changes ...)" */
};

static const struct table_kind by_path = {
	"states", "state_paths", "Wall time by state and call path, by change", "path", "Path", true, "states",
};
static const struct table_kind by_thread = {
	"thread_states", "state_threads", "Wall time by state and thread, by change", "thread", "Thread", false,
	"threads",
};

/* Rows rs, largest changes first: their own table, or rows of the one CSV
 * table `all` (the state columns last, the path in the name column). */
static void emit_rows(struct report_doc *d, const struct srows *rs, const struct table_kind *k, size_t na,
		      size_t nb, const struct report_opts *o, struct report_table *all, size_t all_cols)
{
	struct report_table *t = all;
	size_t limit = o->limit && o->limit < rs->n ? o->limit : rs->n;

	if (!all) {
		t = report_table_new(k->id, k->title);
		report_col(t, "a", "A s", COL_SEC);
		report_col(t, "b", "B s", COL_SEC);
		report_col(t, "delta", "B-A s", COL_SEC);
		report_col(t, "state", "State", COL_STR);
		if (k->in)
			report_col(t, "in", "In", COL_STR);
		report_col(t, k->path_id, k->path_label, COL_STR);
	}
	for (size_t i = 0; i < limit; i++) {
		const struct srow *x = &rs->v[i];
		const char *state = model_metric_info(states[x->state])->name;
		const char *in = k->in ? x->in : "";
		report_row(t);
		if (all) {
			report_str(t, k->csv_kind);
			for (size_t j = 0; j < all_cols; j++)
				report_str(t, "");
			report_str(t, "");        /* status */
			report_str(t, x->path);   /* name */
			report_str(t, "");        /* object */
			report_str(t, state);
			report_num(t, x->a / (double)na);
			report_num(t, x->b / (double)nb);
			report_num(t, change(x, na, nb));
			report_str(t, in);
			continue;
		}
		report_num(t, x->a / (double)na);
		report_num(t, x->b / (double)nb);
		report_num(t, change(x, na, nb));
		report_str(t, state);
		if (k->in)
			report_str(t, in);
		report_str(t, x->path);
	}
	if (!all) {
		report_table_emit(d, t);
		if (limit < rs->n)
			report_note(d, "(%s: the %zu largest changes; --limit 0 shows all)", k->note, limit);
	}
}

int report_diff_states(struct report_doc *d, const struct model *const *a, size_t na, const struct model *const *b,
		       size_t nb, const struct report_opts *o, struct report_table *all, size_t all_cols)
{
	struct srows r = { 0 }, rt = { 0 };
	double ta[NSTATES] = { 0 }, tb[NSTATES] = { 0 }, ea = 0, eb = 0;
	char s1[64], s3[64], why[1024] = "", why_t[1024] = "";
	bool human = report_doc_human(d);
	int rc = -1;

	for (size_t i = 0; i < na; i++)
		if (add_model(&r, a[i], 0))
			goto out;
	for (size_t i = 0; i < nb; i++)
		if (add_model(&r, b[i], 1))
			goto out;
	for (size_t i = 0; i < na; i++)
		if (add_threads(&rt, a[i], 0))
			goto out;
	for (size_t i = 0; i < nb; i++)
		if (add_threads(&rt, b[i], 1))
			goto out;
	for (size_t i = 0; i < na; i++)
		ea += elapsed(a[i]) / (double)na;
	for (size_t i = 0; i < nb; i++)
		eb += elapsed(b[i]) / (double)nb;
	for (size_t i = 0; i < r.n; i++) {
		ta[r.v[i].state] += r.v[i].a / (double)na;
		tb[r.v[i].state] += r.v[i].b / (double)nb;
	}
	sort_na = na;
	sort_nb = nb;
	if (r.n)
		qsort(r.v, r.n, sizeof(*r.v), cmp_change);
	if (rt.n)
		qsort(rt.v, rt.n, sizeof(*rt.v), cmp_change);
	if (!all) {
		double wa = 0, wb = 0;
		for (size_t k = 0; k < NSTATES; k++)
			wa += ta[k], wb += tb[k];
		report_kv_begin(d, "wall_by_state", "Wall time by state");
		signed_time(s3, sizeof(s3), eb - ea, human);
		report_kv_num(d, "elapsed", "Elapsed", (eb - ea) / 1e9, "A %.3f s, B %.3f s: %s (the run's)",
			      ea / 1e9, eb / 1e9, s3);
		signed_time(s3, sizeof(s3), wb - wa, human);
		report_kv_num(d, "wall", "Threads' wall", (wb - wa) / 1e9,
			      "A %.3f s, B %.3f s: %s (summed over threads: the states below add up to it)",
			      wa / 1e9, wb / 1e9, s3);
		for (size_t k = 0; k < NSTATES; k++) {
			const struct model_metric_info *mi = model_metric_info(states[k]);
			if (!ta[k] && !tb[k])
				continue;
			signed_time(s3, sizeof(s3), tb[k] - ta[k], human);
			report_kv_num(d, mi->name, mi->name, (tb[k] - ta[k]) / 1e9,
				      "A %.3f s, B %.3f s: %s (summed over threads)", ta[k] / 1e9, tb[k] / 1e9, s3);
		}
		for (size_t i = 0; i < r.n && i < WHY_SHOWN; i++) {
			size_t l = strlen(why);
			signed_time(s1, sizeof(s1), change(&r.v[i], na, nb), human);
			snprintf(why + l, sizeof(why) - l, "%s%s %s in %s", l ? "; " : "", s1,
				 model_metric_info(states[r.v[i].state])->name, r.v[i].in);
		}
		if (why[0])
			report_kv(d, "why", "Largest changes", "%s", why);
		for (size_t i = 0; i < rt.n && i < WHY_SHOWN; i++) {
			size_t l = strlen(why_t);
			signed_time(s1, sizeof(s1), change(&rt.v[i], na, nb), human);
			snprintf(why_t + l, sizeof(why_t) - l, "%s%s %s in %s", l ? "; " : "", s1,
				 model_metric_info(states[rt.v[i].state])->name, rt.v[i].path);
		}
		if (why_t[0])
			report_kv(d, "why_threads", "Largest by thread", "%s", why_t);
		report_kv_end(d);
	}
	emit_rows(d, &r, &by_path, na, nb, o, all, all_cols);
	emit_rows(d, &rt, &by_thread, na, nb, o, all, all_cols);
	rc = 0;
out:
	free_rows(&r);
	free_rows(&rt);
	return rc;
}
