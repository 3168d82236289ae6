/* SPDX-License-Identifier: MIT
 *
 * model_func_make.c — the model's functions made while building: one added
 * with its name, object and flags (model_func_add), or found or made by
 * name and object (model_func_by_name: <Unknown>, @plt, <O> of a hidden
 * object, Java methods).  The bottom of model_build_int.h's list: the
 * filters, the frame rules and the Java views all make functions, and it
 * calls none of them.
 */
#include <stdlib.h>
#include <string.h>

#include "model/model_build_int.h"

static const char *basename_of(const char *path)
{
	const char *s = strrchr(path, '/');
	return s ? s + 1 : path;
}

uint32_t model_func_add(struct build *b, const char *name, const char *path, uint64_t addr,
			uint64_t size, uint32_t flags, const char *aliases)
{
	struct model *m = b->m;

	if (exp_grow(&m->funcs, &b->cap_funcs, m->nfuncs, sizeof(*m->funcs))) {
		b->oom = true;
		return 0;
	}
	struct model_func *f = &m->funcs[m->nfuncs];
	memset(f, 0, sizeof(*f));
	f->name = strdup(name);
	f->path = strdup(path ? path : "");
	f->object = f->path ? strdup(basename_of(f->path)) : NULL;
	f->aliases = aliases ? strdup(aliases) : NULL;
	if (!f->name || !f->path || !f->object || (aliases && !f->aliases)) {
		free(f->name);
		free(f->path);
		free(f->object);
		free(f->aliases);
		b->oom = true;
		return 0;
	}
	f->addr = addr;
	f->size = size;
	f->flags = flags;
	return m->nfuncs++;
}

uint32_t model_func_by_name(struct build *b, const char *name, const char *path, uint32_t flags)
{
	uint64_t key = model_hash_str(model_hash_str(0, name), path ? path : "") | 1;

	for (;;) {
		uint64_t *v = model_map_get(&b->func_by_name, key);
		if (!v) {
			uint32_t id = model_func_add(b, name, path, 0, 0, flags, NULL);
			if (!model_map_put(&b->func_by_name, key, id, NULL))
				b->oom = true;
			return id;
		}
		const struct model_func *f = &b->m->funcs[*v];
		if (!strcmp(f->name, name) && !strcmp(f->path, path ? path : ""))
			return (uint32_t)*v;
		key = model_hash64(key) | 1;
	}
}
