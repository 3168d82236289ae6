/* SPDX-License-Identifier: MIT
 *
 * sym_object.c — the cache of load objects: opens an ELF file once, builds
 * its function table (sym_elf.c, sym_plt.c, sym_table.c), finds its separate
 * debug file (sym_debuglink.c), and answers the per-object queries of sym.h
 * that are not lookups: lines, bytes, names.  Called by sym_space.c on the
 * first pc of each mapping, and by report code (annotate, export).
 *
 * The cache is a list keyed by the file read: a process maps tens of files,
 * and the lookups that matter go through the mapping's pointer, not here.
 * An object lives until sym_objects_free; every string and sym_func it hands
 * out lives as long.  Single-threaded.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "symbols/sym_int.h"

static struct sym_object *sym_objects;   /* the cache */

static void sym_object_free(struct sym_object *o)
{
	free(o->owned_image);
	free(o->dyn_lines);
	sym_lines_free(o->lines);
	if (o->dbg_elf)
		elf_end(o->dbg_elf);
	if (o->elf)
		elf_end(o->elf);
	sym_arena_free(&o->arena);
	free(o->xsecs);
	free(o->funcs);
	free(o->segs);
	free(o->dbg_file);
	free(o->file);
	free(o->path);
	free(o);
}

/* Read symbols and sections of a freshly opened o->elf.  Takes the .symtab
 * and DWARF of a separate debug file when the object lacks its own. */
static int sym_object_load(struct sym_object *o, char *err, size_t errlen)
{
	struct sym_rawvec raw = { 0 };
	GElf_Shdr sh;
	bool has_symtab, has_dwarf;
	int rc;

	o->image = (const uint8_t *)elf_rawfile(o->elf, &o->image_size);
	o->build_id_len = sym_elf_build_id(o->elf, o->build_id,
					   sizeof(o->build_id));
	if (sym_elf_xsecs(o->elf, &o->xsecs, &o->nxsecs, err, errlen) < 0)
		return -1;
	has_symtab = sym_elf_section_type(o->elf, SHT_SYMTAB, &sh) != NULL;
	has_dwarf = sym_elf_section(o->elf, ".debug_info", &sh) != NULL;
	if (!has_symtab || !has_dwarf)
		o->dbg_elf = sym_debug_find(o->file, o->elf, o->build_id,
					    o->build_id_len, &o->dbg_file);
	o->dwarf_elf = has_dwarf ? o->elf : o->dbg_elf;
	rc = 0;
	if (!has_symtab && o->dbg_elf)
		rc = sym_elf_symbols(o->dbg_elf, o->xsecs, o->nxsecs, &o->arena, &raw);
	if (rc == 0)                   /* no debug file, or a useless one */
		rc = sym_elf_symbols(o->elf, o->xsecs, o->nxsecs, &o->arena, &raw);
	if (rc == 0)                   /* a stripped Go binary keeps its own table */
		rc = sym_go_symbols(o->elf, o->xsecs, o->nxsecs, &raw);
	if (rc >= 0)
		rc = sym_plt_symbols(o, &raw);
	if (rc >= 0) {
		o->nfde_starts = sym_elf_fde_starts(o->elf, &o->fde_starts);
		rc = sym_table_build(o, &raw);
		free(o->fde_starts);
		o->fde_starts = NULL;
		o->nfde_starts = 0;
	}
	free(raw.v);
	if (rc < 0)
		snprintf(err, errlen, "%s: out of memory", o->file);
	return rc < 0 ? -1 : 0;
}

struct sym_object *sym_object_made(const char *key, const char *path, const char *display)
{
	struct sym_object *o = calloc(1, sizeof(*o));

	if (!o)
		return NULL;
	o->file = strdup(key);
	o->path = strdup(path);
	o->name = sym_arena_strdup(&o->arena, display);
	if (!o->file || !o->path || !o->name) {
		sym_object_release(o);
		return NULL;
	}
	return o;
}

struct sym_object *sym_object_find_cached(const char *file)
{
	for (struct sym_object *o = sym_objects; o; o = o->next)
		if (!strcmp(o->file, file))
			return o;
	return NULL;
}

void sym_object_cache_add(struct sym_object *o)
{
	o->next = sym_objects;
	sym_objects = o;
}

void sym_object_release(struct sym_object *o)
{
	sym_object_free(o);
}

/* Open (or find in the cache) `file`, standing for `path`.  See sym.h. */
struct sym_object *sym_object_get_as(const char *file, const char *path,
				     const uint8_t *build_id,
				     size_t build_id_len, bool *mismatch,
				     char *err, size_t errlen)
{
	struct sym_object *o;
	const char *slash;

	for (o = sym_objects; o; o = o->next) {
		if (strcmp(o->file, file) == 0 && strcmp(o->path, path) == 0)
			break;
	}
	if (!o) {
		o = calloc(1, sizeof(*o));
		if (!o || !(o->file = strdup(file)) ||
		    !(o->path = strdup(path))) {
			snprintf(err, errlen, "%s: out of memory", file);
			if (o)
				free(o->file);
			free(o);
			return NULL;
		}
		slash = strrchr(o->path, '/');
		o->name = slash ? slash + 1 : o->path;
		o->elf = sym_elf_open(file, err, errlen);
		if (!o->elf || sym_object_load(o, err, errlen) < 0) {
			sym_object_free(o);
			return NULL;
		}
		o->next = sym_objects;
		sym_objects = o;
	}
	if (mismatch)
		*mismatch = build_id_len > 0 &&
			    (o->build_id_len != build_id_len ||
			     memcmp(o->build_id, build_id, build_id_len) != 0);
	return o;
}

struct sym_object *sym_object_get(const char *path, const uint8_t *build_id,
				  size_t build_id_len, bool *mismatch,
				  char *err, size_t errlen)
{
	return sym_object_get_as(path, path, build_id, build_id_len, mismatch,
				 err, errlen);
}

static struct sym_lines *sym_object_lines(struct sym_object *o)
{
	if (!o->lines_tried) {
		o->lines_tried = true;
		if (o->dwarf_elf)
			o->lines = sym_lines_open(o->dwarf_elf);
	}
	return o->lines;
}

bool sym_dyn_line(const struct sym_object *o, uint64_t vaddr, const char **file, int *line)
{
	if (!o->ndyn_lines || o->nfuncs != 1 || vaddr < o->funcs[0].start)
		return false;
	uint64_t off = vaddr - o->funcs[0].start;
	long k = -1;
	for (uint32_t i = 0; i < o->ndyn_lines && o->dyn_lines[i][0] <= off; i++)
		k = i;
	if (k < 0 || off >= o->funcs[0].size)
		return false;
	*file = o->name;
	*line = (int)o->dyn_lines[k][1];
	return true;
}

/* Source position of `vaddr`; opens the DWARF on first use. */
bool sym_object_line(struct sym_object *o, uint64_t vaddr, const char **file,
		     int *line)
{
	if (o && o->dyn_lines)
		return sym_dyn_line(o, vaddr, file, line);
	return o && sym_object_lines(o) && sym_lines_find(o->lines, vaddr, file, line);
}

const char *sym_object_comp_dir(struct sym_object *o, uint64_t vaddr)
{
	return o && sym_object_lines(o) ? sym_lines_comp_dir(o->lines, vaddr) : NULL;
}

const struct sym_func *sym_object_enclosing(struct sym_object *o, uint64_t vaddr)
{
	const char *link = o && sym_object_lines(o) ? sym_lines_enclosing(o->lines, vaddr) : NULL;

	return link ? sym_object_find(o, link) : NULL;
}

size_t sym_object_inlines(struct sym_object *o, uint64_t vaddr, struct sym_inline *out, size_t max)
{
	return o && !o->dyn_lines && sym_object_lines(o) ? sym_lines_inlines(o->lines, vaddr, out, max) : 0;
}

const char *sym_object_name(const struct sym_object *o)
{
	return o->name;
}

size_t sym_object_build_id(const struct sym_object *o, const uint8_t **id)
{
	*id = o->build_id;
	return o->build_id_len;
}

const char *sym_object_path(const struct sym_object *o)
{
	return o->path;
}

/* Copy up to `len` bytes at `vaddr` from the executable section holding it;
 * stops at the end of that section.  Returns the bytes copied (0 when
 * `vaddr` is in no executable section). */
size_t sym_object_read(struct sym_object *o, uint64_t vaddr, void *buf,
		       size_t len)
{
	long k = o ? sym_elf_xsec_find(o->xsecs, o->nxsecs, vaddr) : -1;
	const struct sym_xsec *x;
	uint64_t skip;

	if (k < 0)
		return 0;
	x = &o->xsecs[k];
	skip = vaddr - x->addr;
	if (len > x->size - skip)
		len = (size_t)(x->size - skip);
	memcpy(buf, o->image + x->offset + skip, len);   /* sym_elf_xsecs checked */
	return len;
}

/* Close every object and drop the demangling cache.  Pointers into them
 * (sym_mapping.obj included) are dangling afterwards. */
void sym_objects_free(void)
{
	while (sym_objects) {
		struct sym_object *o = sym_objects;

		sym_objects = o->next;
		sym_object_free(o);
	}
	sym_demangle_free();
}
