/* SPDX-License-Identifier: MIT
 *
 * model_filter.c — the stack filters of model_options, applied once per
 * entry as model_entry_new (model_entries.c) makes it:
 *   --hide-object O   O's frames become one frame "<O>" (gprofng's
 *                     -object_hide): time in libc shows under its caller;
 *   --object O        only stacks with a frame in O (perf's --dso, for
 *                     whole stacks);
 *   --symbol F        only stacks through F (pprof's --focus).
 * An entry that fails is marked MODEL_ENTRY_FILTERED and model_add counts
 * its events nowhere, so totals, threads and every view agree.
 */
#include <stdio.h>
#include <string.h>

#include "model/model_build_int.h"

bool model_filter_object_is(const char *path, const char *want)
{
	const char *base = strrchr(path, '/');
	size_t n = strlen(path), w = strlen(want);

	base = base ? base + 1 : path;
	return !strcmp(base, want) || !strcmp(path, want) ||
	       (n > w && path[n - w - 1] == '/' && !strcmp(path + n - w, want));
}

/* Is `name` function `want`: the same, or `want` followed by its argument
 * list or a clone suffix (f.part.0)? */
static bool symbol_is(const char *name, const char *want)
{
	size_t w = strlen(want);

	return !strncmp(name, want, w) && (!name[w] || name[w] == '(' || name[w] == '.' || name[w] == ' ');
}

uint32_t model_filter_hidden(struct build *b, const char *path)
{
	char label[300];
	const char *base = strrchr(path, '/');

	snprintf(label, sizeof(label), "<%s>", base ? base + 1 : path);
	return model_func_by_name(b, label, path, MODEL_FUNC_ARTIFICIAL);
}

void model_filter_entry(const struct build *b, struct model_entry *e, const struct model_options *o)
{
	bool object = !o->object, symbol = !o->symbol;

	for (uint32_t j = 0; j < e->n && !(object && symbol); j++) {
		const struct model_func *f = &b->m->funcs[e->funcs[j]];
		object = object || (f->path[0] && model_filter_object_is(f->path, o->object));
		symbol = symbol || symbol_is(f->name, o->symbol);
	}
	if (!object || !symbol)
		e->flags |= MODEL_ENTRY_FILTERED;
}
