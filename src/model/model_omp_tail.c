/* SPDX-License-Identifier: MIT
 *
 * model_omp_tail.c — OpenMP bodies that tail-call their work
 * (model_build_int.h lists the neighbours; docs/structure.md the rule).
 *
 * `#pragma omp parallel { work(n); }` compiles (gcc or clang, -O2) to a body
 * that ends in `jmp work`: while work runs, the body's frame is gone and
 * work hangs straight under the runtime, where the structure rules would see
 * only runtime time.  Each process that maps an OpenMP runtime has the
 * bodies of its objects read once (sym_object_tail_calls): every function a
 * body jumps to is noted with that body, so a frame of it called from the
 * runtime gets its body back, an imputed frame (model_frames.c), and the
 * rules of a body that called its work apply: the work is the region's, on
 * every thread, and the body's parent (the function that opened the region,
 * from the body's name) is imputed even when that function was itself
 * tail-called away.  A function jumped to through a PLT stub (work in a
 * shared library) is matched by its name.  Several bodies may jump to one
 * function (two regions running the same work): each is kept, and
 * model_frames.c picks the one whose parent is on the stack.
 */
#include <stdlib.h>
#include <string.h>

#include "model/model_build_int.h"

#define TAIL_MAX 16                 /* tail calls kept per body */

struct omp_tail {
	const struct sym_func *body;
	struct sym_object *obj;
	const struct sym_func *target;  /* in the body's object (not a PLT stub) */
	char *name;                     /* or a PLT stub's callee, by name */
	uint32_t next;                  /* another body jumping to it: index + 1 */
};

static uint64_t name_key(const char *name, size_t len)
{
	uint64_t h = 1469598103934665603ull;

	for (size_t i = 0; i < len; i++)
		h = (h ^ (unsigned char)name[i]) * 1099511628211ull;
	return model_hash64(h) | 1;
}

/* Note that `body` of `obj` jumps to `t`. */
static int note(struct build *b, const struct sym_func *body, struct sym_object *obj,
		const struct sym_func *t)
{
	struct omp_tail r = { body, obj, NULL, NULL, 0 };
	uint64_t key;
	struct model_map *map;

	if (t->flags & SYM_FUNC_PLT) {
		const char *at = strstr(t->name, "@plt");
		size_t len = at ? (size_t)(at - t->name) : strlen(t->name);
		if (!len || !(r.name = strndup(t->name, len)))
			return len ? -1 : 0;
		key = name_key(r.name, len);
		map = &b->tail_by_name;
	} else {
		r.target = t;
		key = (uint64_t)(uintptr_t)t;
		map = &b->tail_by_sym;
	}
	if (exp_grow(&b->tails, &b->cap_tails, b->ntails, sizeof(*b->tails))) {
		free(r.name);
		return -1;
	}
	bool inserted;
	uint64_t *v = model_map_put(map, key, b->ntails + 1, &inserted);
	if (!v) {
		free(r.name);
		return -1;
	}
	if (!inserted) {                    /* chain it after the first one */
		uint64_t i = *v - 1;
		while (b->tails[i].next)
			i = b->tails[i].next - 1;
		b->tails[i].next = (uint32_t)b->ntails + 1;
	}
	b->tails[b->ntails++] = r;
	return 0;
}

static int scan_object(struct build *b, struct sym_object *obj)
{
	bool inserted;

	if (!model_map_put(&b->tail_scanned, (uint64_t)(uintptr_t)obj, 1, &inserted))
		return -1;
	if (!inserted || model_omp_runtime_object(sym_object_name(obj)))
		return 0;
	const struct sym_func *funcs;
	size_t n = sym_object_functions(obj, &funcs);
	for (size_t i = 0; i < n; i++) {
		size_t plen;
		if (model_struct_kind(funcs[i].link_name, &plen) != MODEL_FUNC_OMP_BODY)
			continue;
		const struct sym_func *to[TAIL_MAX];
		size_t nt = sym_object_tail_calls(obj, &funcs[i], to, TAIL_MAX);
		for (size_t j = 0; j < nt; j++)
			if (note(b, &funcs[i], obj, to[j]))
				return -1;
	}
	return 0;
}

int model_omp_tail_scan(struct build *b, struct proc_ctx *c)
{
	const struct exp_proc *p = c->p;

	for (size_t i = 0; i < p->nmaps; i++) {
		const struct exp_map_ev *e = &p->maps[i];
		if (e->unmap)
			continue;
		struct sym_mapping *mp = sym_space_find(c->space, e->start, e->time_ns);
		if (mp && mp->obj && scan_object(b, mp->obj))
			return -1;
	}
	return 0;
}

uint32_t model_omp_tail_of(const struct build *b, const struct sym_func *sf)
{
	if (!b->ntails)
		return 0;
	uint64_t *v = model_map_get(&b->tail_by_sym, (uint64_t)(uintptr_t)sf);
	if (v)
		return (uint32_t)*v;
	if (!sf->link_name)
		return 0;
	v = model_map_get(&b->tail_by_name, name_key(sf->link_name, strlen(sf->link_name)));
	for (uint64_t i = v ? *v : 0; i; i = b->tails[i - 1].next)
		if (b->tails[i - 1].name && !strcmp(b->tails[i - 1].name, sf->link_name))
			return (uint32_t)i;
	return 0;
}

uint32_t model_omp_tail_next(const struct build *b, uint32_t tail)
{
	const struct omp_tail *r = &b->tails[tail - 1];

	for (uint32_t i = r->next; i; i = b->tails[i - 1].next) {
		const struct omp_tail *x = &b->tails[i - 1];
		if (x->target == r->target && (!r->name || (x->name && !strcmp(x->name, r->name))))
			return i;           /* the same function (not a hash neighbour) */
	}
	return 0;
}

const struct sym_func *model_omp_tail_body(const struct build *b, uint32_t tail,
					   struct sym_object **obj)
{
	*obj = b->tails[tail - 1].obj;
	return b->tails[tail - 1].body;
}

void model_omp_tail_free(struct build *b)
{
	for (size_t i = 0; i < b->ntails; i++)
		free(b->tails[i].name);
	free(b->tails);
	b->tails = NULL;
	b->ntails = b->cap_tails = 0;
	model_map_free(&b->tail_by_sym);
	model_map_free(&b->tail_by_name);
	model_map_free(&b->tail_scanned);
}
