/* SPDX-License-Identifier: MIT
 *
 * sym_dyn.c — objects for dynamically generated code (the experiment's
 * DYN_FUNC records): one in-memory object per function, holding its copied
 * instructions as its one executable section, the function itself, and its
 * line table if the program gave one.  Made by the model while it rebuilds a
 * process's address space, kept in the object cache under a key of the
 * caller's (so `sym_object_get(key)` finds it again, for annotate), freed
 * with the other objects by sym_objects_free.
 */
#include <stdlib.h>
#include <string.h>

#include "symbols/sym_int.h"

struct sym_object *sym_object_dynamic(const char *key, const char *display, const char *name,
				      uint64_t addr, uint64_t size, const uint8_t *code,
				      size_t code_len, const uint32_t (*lines)[2], uint32_t nlines)
{
	struct sym_object *o = sym_object_find_cached(key);

	if (o)
		return o;
	o = sym_object_made(key, key, display);
	if (!o)
		return NULL;
	o->owned_image = code_len ? malloc(code_len) : NULL;
	o->xsecs = calloc(1, sizeof(*o->xsecs));
	o->funcs = calloc(1, sizeof(*o->funcs));
	o->segs = calloc(1, sizeof(*o->segs));
	o->dyn_lines = nlines ? malloc(8ull * nlines) : NULL;
	const char *fname = sym_arena_strdup(&o->arena, name);
	if ((code_len && !o->owned_image) || !o->xsecs ||
	    !o->funcs || !o->segs || (nlines && !o->dyn_lines) || !fname) {
		sym_object_release(o);
		return NULL;
	}
	if (code_len)
		memcpy(o->owned_image, code, code_len);
	if (nlines)
		memcpy(o->dyn_lines, lines, 8ull * nlines);
	o->ndyn_lines = nlines;
	o->image = o->owned_image;
	o->image_size = code_len;
	o->xsecs[0] = (struct sym_xsec){ addr, code_len ? code_len : 1, 0, "dyntext" };
	o->nxsecs = code_len ? 1 : 0;
	o->funcs[0] = (struct sym_func){ fname, fname, NULL, addr, size, SYM_FUNC_DYNAMIC, 0 };
	o->nfuncs = 1;
	o->segs[0] = (struct sym_seg){ addr, addr + size, 0 };
	o->nsegs = 1;
	o->lines_tried = true;           /* no DWARF: the line table is dyn_lines */
	sym_object_cache_add(o);
	return o;
}

