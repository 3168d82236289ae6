/* SPDX-License-Identifier: MIT
 *
 * report_callgrind.c — `tally export --format callgrind`: the profile in the
 * callgrind format (valgrind.org/docs/manual/cl-format.html), for
 * callgrind_annotate and KCachegrind.
 *
 *   events: one per metric the model has, named by the metric table's
 *     callgrind column (CPU_ns, Heap_bytes, Sync_other_ns, a counter's name);
 *   self cost: each stack's weight at the source line of its leaf pc;
 *   calls: one `calls=COUNT LINE` per arc, COUNT the exact count of the
 *     instrumentation runtime, LINE the callee's first line; an arc seen
 *     only in stacks says calls=1 (the format has no "unknown", and readers
 *     take the cost line after calls=0 for self cost); the cost line after it is at the call site (the
 *     caller's line in the first stack with the arc) and holds the arc's
 *     inclusive cost measured from the stacks as the gprof view's stack
 *     method does (model_gprof.h): a stack counts once per arc, and calls
 *     inside a recursion cycle carry none, so a function's self cost plus
 *     its calls' costs is its inclusive cost, each stack counted once.
 * Names are compressed (`fn=(id) name` once, then `fn=(id)`); positions are
 * absolute line numbers, 0 where the object has no line table.  Out of
 * memory stops the export with -1 and errno ENOMEM.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "format/exp_data.h"
#include "model/model_map.h"
#include "report/report_clean.h"
#include "report/report_gprof.h"
#include "symbols/sym.h"

/* Interned strings (files, objects) with their compression ids. */
struct cg_strs {
	const char **v;            /* id - 1 -> string */
	bool *shown;               /* its `(id) name` was written */
	size_t n, cap;
	struct model_map of;       /* hash -> id, probing on collisions */
};

struct cg_self {                   /* self cost at one line of one function */
	uint32_t func, file, line;
	uint64_t v[MODEL_METRIC_COUNT];
};

struct cg_call {                   /* one arc */
	uint32_t caller, callee;
	uint32_t file, line;       /* call site; file 0 until found */
	uint64_t count;
	uint64_t incl[MODEL_METRIC_COUNT];
};

struct cg {
	FILE *out;
	bool unclean;              /* a name could not be neutralised (out of memory) */
	const struct model *m;
	enum model_metric ev[MODEL_METRIC_COUNT];
	int nev;
	struct sym_object **obj;   /* per function, opened on first use */
	bool *obj_tried, *fn_shown;
	uint32_t *fn_file, *fn_line;    /* function's first line */
	struct cg_strs files, objs;
	struct cg_self *self;
	size_t nself, cap_self;
	struct model_map self_of;
	struct cg_call *calls;
	size_t ncalls, cap_calls;
	struct model_map call_of;  /* (caller, callee) -> index + 1 */
};

/* The id of `str`, interned on first use (ids start at 1); 0 if out of
 * memory. */
static uint32_t cg_intern(struct cg_strs *s, const char *str)
{
	uint64_t key = model_hash_str(0, str) | 1;

	for (;;) {
		uint64_t *v = model_map_get(&s->of, key);
		if (!v)
			break;
		if (!strcmp(s->v[*v - 1], str))
			return (uint32_t)*v;
		key = model_hash64(key) | 1;
	}
	size_t cap = s->cap;
	if (exp_grow(&s->v, &cap, s->n, sizeof(*s->v)))
		return 0;
	bool *shown = realloc(s->shown, cap * sizeof(*s->shown));
	if (!shown)
		return 0;
	s->shown = shown;
	s->cap = cap;
	if (!model_map_put(&s->of, key, s->n + 1, NULL))
		return 0;
	s->v[s->n] = str;
	s->shown[s->n] = false;
	return (uint32_t)++s->n;
}

static void cg_name(struct cg *c, struct cg_strs *s, const char *key, uint32_t id)
{
	if (s->shown[id - 1]) {
		fprintf(c->out, "%s=(%u)\n", key, id);
	} else {
		fprintf(c->out, "%s=(%u) ", key, id);
		c->unclean |= report_clean_fputs(s->v[id - 1], c->out) != 0;
		fputc('\n', c->out);
		s->shown[id - 1] = true;
	}
}

static struct sym_object *cg_obj(struct cg *c, uint32_t f)
{
	char err[256];

	if (!c->obj_tried[f]) {
		c->obj_tried[f] = true;
		if (c->m->funcs[f].path[0])
			c->obj[f] = sym_object_get(c->m->funcs[f].path, NULL, 0, NULL, err, sizeof(err));
	}
	return c->obj[f];
}

/* Source position of link-time address `addr` in function f's object;
 * -1 if out of memory. */
static int cg_where(struct cg *c, uint32_t f, uint64_t addr, uint32_t *file, uint32_t *line)
{
	const char *path;
	int ln;
	struct sym_object *o = addr ? cg_obj(c, f) : NULL;

	if (o && sym_object_line(o, addr, &path, &ln) && ln > 0) {
		*file = cg_intern(&c->files, path);
		*line = (uint32_t)ln;
	} else {
		*file = cg_intern(&c->files, "???");
		*line = 0;
	}
	return *file ? 0 : -1;
}

static int cg_func_pos(struct cg *c, uint32_t f)
{
	if (!c->fn_file[f])
		return cg_where(c, f, c->m->funcs[f].addr, &c->fn_file[f], &c->fn_line[f]);
	return 0;
}

/* The self cost of f at (file, line), created on first use; NULL if out of
 * memory. */
static struct cg_self *cg_self_at(struct cg *c, uint32_t f, uint32_t file, uint32_t line)
{
	uint64_t key = model_hash64(((uint64_t)f << 32 | file) ^ model_hash64(line)) | 1;

	for (;;) {
		uint64_t *v = model_map_get(&c->self_of, key);
		if (!v)
			break;
		struct cg_self *s = &c->self[*v - 1];
		if (s->func == f && s->file == file && s->line == line)
			return s;
		key = model_hash64(key) | 1;
	}
	if (exp_grow(&c->self, &c->cap_self, c->nself, sizeof(*c->self)) ||
	    !model_map_put(&c->self_of, key, c->nself + 1, NULL))
		return NULL;
	struct cg_self *s = &c->self[c->nself++];
	memset(s, 0, sizeof(*s));
	s->func = f;
	s->file = file;
	s->line = line;
	return s;
}

/* The arc (caller, callee): created on first use if `add` (NULL then means
 * out of memory), else NULL if there is none. */
static struct cg_call *cg_call_of(struct cg *c, uint32_t caller, uint32_t callee, bool add)
{
	bool inserted;
	uint64_t key = ((uint64_t)caller << 32 | callee) + 1;

	if (!add) {
		uint64_t *v = model_map_get(&c->call_of, key);
		return v ? &c->calls[*v - 1] : NULL;
	}
	if (exp_grow(&c->calls, &c->cap_calls, c->ncalls, sizeof(*c->calls)))
		return NULL;
	uint64_t *v = model_map_put(&c->call_of, key, 0, &inserted);
	if (!v)
		return NULL;
	if (inserted) {
		memset(&c->calls[c->ncalls], 0, sizeof(*c->calls));
		c->calls[c->ncalls].caller = caller;
		c->calls[c->ncalls].callee = callee;
		*v = ++c->ncalls;
	}
	return &c->calls[*v - 1];
}

/* Self costs by line, call sites, and every arc's inclusive cost. */
static int cg_collect(struct cg *c)
{
	const struct model *m = c->m;

	for (size_t i = 0; i < m->nentries; i++) {
		const struct model_entry *e = &m->entries[i];
		uint32_t file, line, n = e->n;
		bool any = false;
		for (int k = 0; k < c->nev; k++)
			any |= model_entry_value(e, c->ev[k]) != 0;
		if (!any || !n)
			continue;
		struct cg_self *s = NULL;
		if (cg_where(c, e->funcs[n - 1], e->addrs[n - 1], &file, &line) ||
		    !(s = cg_self_at(c, e->funcs[n - 1], file, line)))
			return -1;
		for (int k = 0; k < c->nev; k++)
			s->v[c->ev[k]] += model_entry_value(e, c->ev[k]);
	}
	for (int k = 0; k < c->nev; k++) {
		struct model_gprof g;
		if (model_gprof_from_model(&g, m, c->ev[k], MODEL_GPROF_STACKS)) {
			model_gprof_free(&g);
			return -1;
		}
		for (size_t i = 0; i < g.narcs; i++) {
			const struct model_gprof_arc *a = &g.arcs[i];
			struct cg_call *call = cg_call_of(c, a->caller, a->callee, true);
			if (!call) {
				model_gprof_free(&g);
				return -1;
			}
			call->count = a->count;
			call->incl[c->ev[k]] = (uint64_t)(a->self + a->child + 0.5);
		}
		model_gprof_free(&g);
	}
	for (size_t i = 0; i < m->nentries; i++) {
		const struct model_entry *e = &m->entries[i];
		for (uint32_t j = 0; j + 1 < e->n; j++) {
			struct cg_call *call = cg_call_of(c, e->funcs[j], e->funcs[j + 1], false);
			if (call && !call->file &&
			    cg_where(c, e->funcs[j], e->addrs[j], &call->file, &call->line))
				return -1;
		}
	}
	return 0;
}

static int cg_cmp_self(const void *x, const void *y)
{
	const struct cg_self *a = x, *b = y;

	if (a->func != b->func)
		return a->func < b->func ? -1 : 1;
	if (a->file != b->file)
		return a->file < b->file ? -1 : 1;
	return a->line < b->line ? -1 : a->line > b->line;
}

static int cg_cmp_call(const void *x, const void *y)
{
	const struct cg_call *a = x, *b = y;

	if (a->caller != b->caller)
		return a->caller < b->caller ? -1 : 1;
	return a->callee < b->callee ? -1 : a->callee > b->callee;
}

static void cg_costs(struct cg *c, uint32_t line, const uint64_t *v)
{
	fprintf(c->out, "%u", line);
	for (int k = 0; k < c->nev; k++)
		fprintf(c->out, " %llu", (unsigned long long)v[c->ev[k]]);
	fputc('\n', c->out);
}

static void cg_fn(struct cg *c, const char *key, uint32_t f)
{
	if (c->fn_shown[f]) {
		fprintf(c->out, "%s=(%u)\n", key, f + 1);
	} else {
		fprintf(c->out, "%s=(%u) ", key, f + 1);
		c->unclean |= report_clean_fputs(c->m->funcs[f].name, c->out) != 0;
		fputc('\n', c->out);
		c->fn_shown[f] = true;
	}
}

static uint32_t cg_obj_id(struct cg *c, uint32_t f)
{
	const char *path = c->m->funcs[f].path;

	return cg_intern(&c->objs, path[0] ? path : "???");
}

/* The body; -1 if out of memory. */
static int cg_write(struct cg *c)
{
	const struct model *m = c->m;
	size_t s = 0, k = 0;
	uint32_t cur_obj = 0;

	qsort(c->self, c->nself, sizeof(*c->self), cg_cmp_self);
	qsort(c->calls, c->ncalls, sizeof(*c->calls), cg_cmp_call);
	for (uint32_t f = 0; f < m->nfuncs; f++) {
		bool has_self = s < c->nself && c->self[s].func == f;
		bool has_calls = k < c->ncalls && c->calls[k].caller == f;
		if (!has_self && !has_calls)
			continue;
		uint32_t ob = cg_obj_id(c, f);
		if (!ob || cg_func_pos(c, f))
			return -1;
		if (ob != cur_obj) {
			cg_name(c, &c->objs, "ob", ob);
			cur_obj = ob;
		}
		uint32_t cur_file = c->fn_file[f];
		fputc('\n', c->out);
		cg_name(c, &c->files, "fl", cur_file);
		cg_fn(c, "fn", f);
		for (; s < c->nself && c->self[s].func == f; s++) {
			if (c->self[s].file != cur_file) {
				cur_file = c->self[s].file;
				cg_name(c, &c->files, "fi", cur_file);
			}
			cg_costs(c, c->self[s].line, c->self[s].v);
		}
		for (; k < c->ncalls && c->calls[k].caller == f; k++) {
			struct cg_call *call = &c->calls[k];
			uint32_t callee = call->callee;
			uint32_t cob = cg_obj_id(c, callee);
			if ((!call->file && cg_where(c, f, m->funcs[f].addr, &call->file, &call->line)) ||
			    cg_func_pos(c, callee) || !cob)
				return -1;
			if (call->file != cur_file) {
				cur_file = call->file;
				cg_name(c, &c->files, "fi", cur_file);
			}
			cg_name(c, &c->objs, "cob", cob);
			cg_name(c, &c->files, "cfi", c->fn_file[callee]);
			cg_fn(c, "cfn", callee);
			fprintf(c->out, "calls=%llu %u\n",
				(unsigned long long)(call->count ? call->count : 1), c->fn_line[callee]);
			cg_costs(c, call->line, call->incl);
		}
	}
	return 0;
}

static void cg_header(struct cg *c, const struct exp_experiment *exps, size_t nexps)
{
	const struct model *m = c->m;

	fprintf(c->out, "# callgrind format\nversion: 1\ncreator: tally\n");
	if (nexps && exps[0].nprocs) {
		fprintf(c->out, "pid: %u\n", exps[0].procs[0].pid);
		fputs("cmd: ", c->out);
		c->unclean |= report_clean_fputs(exps[0].procs[0].exe ? exps[0].procs[0].exe : "", c->out) != 0;
		fputc('\n', c->out);
	}
	fprintf(c->out, "part: 1\ndesc: Call counts: %s\npositions: line\nevents:",
		m->narcs ? "exact, from the -pg / -finstrument-functions runtime"
			 : "none recorded: calls=1 stands for an arc seen in sampled stacks");
	for (int k = 0; k < c->nev; k++)
		fprintf(c->out, " %s", model_metric_info(c->ev[k])->callgrind);
	fprintf(c->out, "\nsummary:");
	for (int k = 0; k < c->nev; k++)
		fprintf(c->out, " %llu", (unsigned long long)m->total[c->ev[k]]);
	fputc('\n', c->out);
}

static void cg_free(struct cg *c)
{
	free(c->obj);
	free(c->obj_tried);
	free(c->fn_shown);
	free(c->fn_file);
	free(c->fn_line);
	free(c->files.v);
	free(c->files.shown);
	model_map_free(&c->files.of);
	free(c->objs.v);
	free(c->objs.shown);
	model_map_free(&c->objs.of);
	free(c->self);
	model_map_free(&c->self_of);
	free(c->calls);
	model_map_free(&c->call_of);
}

int report_callgrind(FILE *out, const struct model *m, const struct exp_experiment *exps,
		     size_t nexps)
{
	struct cg c = { .out = out, .m = m };
	size_t n = (size_t)m->nfuncs + 1;
	int rc = -1;

	for (int k = 0; k < MODEL_METRIC_COUNT; k++)
		if (m->present & (1u << k))
			c.ev[c.nev++] = (enum model_metric)k;
	if (!c.nev)
		c.ev[c.nev++] = MODEL_CPU;
	c.obj = calloc(n, sizeof(*c.obj));
	c.obj_tried = calloc(n, sizeof(*c.obj_tried));
	c.fn_shown = calloc(n, sizeof(*c.fn_shown));
	c.fn_file = calloc(n, sizeof(*c.fn_file));
	c.fn_line = calloc(n, sizeof(*c.fn_line));
	if (!c.obj || !c.obj_tried || !c.fn_shown || !c.fn_file || !c.fn_line || cg_collect(&c)) {
		errno = ENOMEM;
	} else {
		cg_header(&c, exps, nexps);
		if (cg_write(&c) || c.unclean)
			errno = ENOMEM;
		else
			rc = ferror(out) ? -1 : 0;
	}
	cg_free(&c);
	return rc;
}
