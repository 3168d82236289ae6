/* SPDX-License-Identifier: MIT
 *
 * sym_dtype.c — the DWARF types of an object's global and static variables,
 * for data objects (docs/dataspace.md): which structure member a byte of a
 * variable belongs to (`{struct cell}.b`), and the members of a structure
 * with their offsets (the data layout view).  Read by the model
 * (model_dataclock.c), never in the collector.
 *
 * Per object (cached by path until sym_dtype_free_all): the variables whose
 * DW_AT_location is one DW_OP_addr, sorted by address, found by a walk of
 * every DIE (file-scope variables and function-static ones); and the
 * structure types met so far, each described once.  A variable's byte is
 * resolved by walking its type: through typedefs and qualifiers, into the
 * element of an array (the offset modulo the element size), into the
 * member of a structure or union holding the byte, down to a type that is
 * neither.  The innermost structure and its member name the byte.
 */
#include <dwarf.h>
#include <elfutils/libdw.h>
#include <stdlib.h>
#include <string.h>

#include "symbols/sym_int.h"

struct dvar {
	uint64_t addr;            /* link-time address */
	Dwarf_Off die;            /* its DW_TAG_variable */
};

struct dtypes {
	char *path;
	Dwarf *dw;                /* NULL: no DWARF */
	struct dvar *vars;        /* sorted by addr */
	size_t nvars, cap;
	struct sym_dtype **types; /* described so far */
	size_t ntypes;
	struct sym_arena arena;
	struct dtypes *next;
};

static struct dtypes *cache;

static int cmp_var(const void *a, const void *b)
{
	const struct dvar *x = a, *y = b;

	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

/* A variable DIE with a fixed address: into the table. */
static void add_var(struct dtypes *t, Dwarf_Die *die)
{
	Dwarf_Attribute at;
	Dwarf_Op *ops;
	size_t nops;

	if (!dwarf_attr(die, DW_AT_location, &at) || dwarf_getlocation(&at, &ops, &nops) != 0 || nops != 1 ||
	    ops[0].atom != DW_OP_addr || !dwarf_attr(die, DW_AT_type, &at))
		return;
	if (t->nvars == t->cap) {
		size_t cap = t->cap ? 2 * t->cap : 256;
		struct dvar *v = realloc(t->vars, cap * sizeof(*v));
		if (!v)
			return;
		t->vars = v;
		t->cap = cap;
	}
	t->vars[t->nvars++] = (struct dvar){ ops[0].number, dwarf_dieoffset(die) };
}

/* Every variable under `die` (its children, recursively). */
static void walk(struct dtypes *t, Dwarf_Die *die, int depth)
{
	Dwarf_Die child;

	if (depth > 16 || dwarf_child(die, &child) != 0)
		return;
	do {
		int tag = dwarf_tag(&child);
		if (tag == DW_TAG_variable)
			add_var(t, &child);
		else if (tag == DW_TAG_subprogram || tag == DW_TAG_lexical_block || tag == DW_TAG_namespace)
			walk(t, &child, depth + 1);
	} while (dwarf_siblingof(&child, &child) == 0);
}

static struct dtypes *open_types(const char *path)
{
	char err[256];
	bool mismatch;

	for (struct dtypes *t = cache; t; t = t->next)
		if (!strcmp(t->path, path))
			return t;
	struct dtypes *t = calloc(1, sizeof(*t));
	if (!t || !(t->path = strdup(path))) {
		free(t);
		return NULL;
	}
	t->next = cache;
	cache = t;
	struct sym_object *o = sym_object_get(path, NULL, 0, &mismatch, err, sizeof(err));
	if (!o || !o->dwarf_elf || !(t->dw = dwarf_begin_elf(o->dwarf_elf, DWARF_C_READ, NULL)))
		return t;
	Dwarf_CU *cu = NULL, *next;
	Dwarf_Half version;
	uint8_t unit_type;
	Dwarf_Die cudie, subdie;
	while (dwarf_get_units(t->dw, cu, &next, &version, &unit_type, &cudie, &subdie) == 0) {
		cu = next;
		if (unit_type == DW_UT_compile || unit_type == DW_UT_partial)
			walk(t, &cudie, 0);
	}
	qsort(t->vars, t->nvars, sizeof(*t->vars), cmp_var);
	return t;
}

/* The type under typedefs and qualifiers; false if there is none. */
static bool peel(Dwarf_Die *type)
{
	return dwarf_peel_type(type, type) == 0;
}

static bool die_type(Dwarf_Die *die, Dwarf_Die *type)
{
	Dwarf_Attribute at;

	return dwarf_attr(die, DW_AT_type, &at) && dwarf_formref_die(&at, type) && peel(type);
}

/* die_type, and in *alias the first typedef's name on the way (a
 * `typedef struct { ... } grid_t` is named grid_t), or NULL. */
static bool die_type_named(Dwarf_Die *die, Dwarf_Die *type, const char **alias)
{
	Dwarf_Attribute at;

	*alias = NULL;
	if (!dwarf_attr(die, DW_AT_type, &at) || !dwarf_formref_die(&at, type))
		return false;
	for (int i = 0; i < 32; i++) {
		int tag = dwarf_tag(type);
		if (tag == DW_TAG_typedef && !*alias)
			*alias = dwarf_diename(type);
		if (tag != DW_TAG_typedef && tag != DW_TAG_const_type && tag != DW_TAG_volatile_type &&
		    tag != DW_TAG_restrict_type && tag != DW_TAG_atomic_type)
			return true;
		if (!dwarf_attr(type, DW_AT_type, &at) || !dwarf_formref_die(&at, type))
			return false;
	}
	return false;
}

static bool aggregate(int tag)
{
	return tag == DW_TAG_structure_type || tag == DW_TAG_union_type || tag == DW_TAG_class_type;
}

/* The description of structure type `die` (made on first use); an
 * anonymous one takes the name of the typedef `alias` when there is one. */
static const struct sym_dtype *describe(struct dtypes *t, Dwarf_Die *die, const char *alias)
{
	Dwarf_Off off = dwarf_dieoffset(die);
	Dwarf_Die m, mt;
	Dwarf_Word size;

	for (size_t i = 0; i < t->ntypes; i++)
		if (t->types[i]->die == off)
			return t->types[i];
	struct sym_dtype **v = realloc(t->types, (t->ntypes + 1) * sizeof(*v));
	if (!v)
		return NULL;
	t->types = v;
	size_t n = 0;
	if (dwarf_child(die, &m) == 0)
		do
			n += dwarf_tag(&m) == DW_TAG_member;
		while (dwarf_siblingof(&m, &m) == 0);
	struct sym_dtype *d = calloc(1, sizeof(*d) + (n + 1) * sizeof(d->fields[0]));
	if (!d)
		return NULL;
	const char *kind = dwarf_tag(die) == DW_TAG_union_type ? "union" : dwarf_tag(die) == DW_TAG_class_type ? "class"
														 : "struct";
	const char *name = dwarf_diename(die);
	d->name = name || !alias ? sym_arena_printf(&t->arena, "%s %s", kind, name ? name : "<anonymous>")
				 : sym_arena_strdup(&t->arena, alias);
	d->die = off;
	d->size = dwarf_aggregate_size(die, &size) == 0 ? size : 0;
	if (n && dwarf_child(die, &m) == 0)
		do {
			Dwarf_Attribute at;
			Dwarf_Word loc = 0;
			if (dwarf_tag(&m) != DW_TAG_member)
				continue;
			struct sym_dfield *f = &d->fields[d->nfields++];
			const char *mn = dwarf_diename(&m);
			f->name = sym_arena_strdup(&t->arena, mn ? mn : "<anonymous>");
			if (dwarf_attr(&m, DW_AT_data_member_location, &at))
				dwarf_formudata(&at, &loc);
			f->offset = loc;
			f->size = die_type(&m, &mt) && dwarf_aggregate_size(&mt, &size) == 0 ? size : 0;
			f->bitfield = dwarf_hasattr(&m, DW_AT_bit_size) || dwarf_hasattr(&m, DW_AT_data_bit_offset);
		} while (dwarf_siblingof(&m, &m) == 0);
	if (!d->name) {
		free(d);
		return NULL;
	}
	t->types[t->ntypes++] = d;
	return d;
}

/* Byte `offset` of an object of type `type` (peeled; alias its typedef's
 * name): down through arrays and members to the innermost structure. */
static void member_walk(struct dtypes *t, Dwarf_Die type, const char *alias, uint64_t offset,
			struct sym_dmember *out);

int sym_dtype_resolve(const char *path, uint64_t var_addr, uint64_t offset, struct sym_dmember *out)
{
	struct dtypes *t = open_types(path);
	Dwarf_Die var, type;

	memset(out, 0, sizeof(*out));
	if (!t || !t->dw)
		return -1;
	size_t lo = 0, hi = t->nvars;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		if (t->vars[mid].addr < var_addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	const char *alias;
	if (lo == t->nvars || t->vars[lo].addr != var_addr || !dwarf_offdie(t->dw, t->vars[lo].die, &var) ||
	    !die_type_named(&var, &type, &alias))
		return -1;
	int tag = dwarf_tag(&type);
	out->scalar = !aggregate(tag) && tag != DW_TAG_array_type;
	member_walk(t, type, alias, offset, out);
	return 0;
}

static void member_walk(struct dtypes *t, Dwarf_Die type, const char *alias, uint64_t offset,
			struct sym_dmember *out)
{
	Dwarf_Word size;
	int tag;

	for (int depth = 0; depth < 32; depth++) {
		tag = dwarf_tag(&type);
		if (tag == DW_TAG_array_type) {
			Dwarf_Die elem;
			if (!die_type_named(&type, &elem, &alias) || dwarf_aggregate_size(&elem, &size) != 0 || !size)
				break;
			offset %= size;
			type = elem;
			continue;
		}
		if (!aggregate(tag))
			break;
		const struct sym_dtype *d = describe(t, &type, alias);
		if (!d)
			break;
		int hit = -1;
		for (uint32_t i = 0; i < d->nfields; i++)
			if (!d->fields[i].bitfield && offset - d->fields[i].offset < d->fields[i].size)
				hit = (int)i;
			else if (d->fields[i].bitfield && offset >= d->fields[i].offset &&
				 (i + 1 == d->nfields || offset < d->fields[i + 1].offset))
				hit = (int)i;
		out->type = d;
		out->field = hit;
		if (hit < 0)
			break;                  /* padding */
		offset -= d->fields[hit].offset;
		/* into the member's own type */
		Dwarf_Die m;
		uint32_t k = 0;
		bool found = false;
		if (dwarf_child(&type, &m) == 0)
			do
				if (dwarf_tag(&m) == DW_TAG_member && k++ == (uint32_t)hit) {
					found = true;
					break;
				}
			while (dwarf_siblingof(&m, &m) == 0);
		Dwarf_Die mt;
		if (!found || !die_type_named(&m, &mt, &alias))
			break;
		type = mt;
	}
}

uint64_t sym_dtype_pointee_at(const struct sym_object *o, uint64_t pc, int reg)
{
	struct dtypes *t = o && o->path ? open_types(o->path) : NULL;
	Dwarf_Die cudie, *scopes = NULL, child, ptr, type;
	uint64_t found = 0;

	if (!t || !t->dw || reg < 0 || reg > 16 || !dwarf_addrdie(t->dw, pc, &cudie))
		return 0;
	int n = dwarf_getscopes(&cudie, pc, &scopes);
	for (int i = 0; i < n && !found; i++) {
		if (dwarf_child(&scopes[i], &child) != 0)
			continue;
		do {
			int tag = dwarf_tag(&child);
			Dwarf_Attribute at;
			Dwarf_Op *expr;
			size_t len;
			const char *alias;
			/* the register itself, or the register plus a constant
			 * (a pointer stepped ahead: `DW_OP_breg0 -512;
			 * DW_OP_stack_value`): the member comes from the
			 * block's offset, the type is all that is wanted */
			if ((tag != DW_TAG_variable && tag != DW_TAG_formal_parameter) ||
			    !dwarf_attr(&child, DW_AT_location, &at) || dwarf_getlocation_addr(&at, pc, &expr, &len, 1) != 1 ||
			    !((len == 1 && (expr[0].atom == DW_OP_reg0 + (unsigned)reg ||
					    (expr[0].atom == DW_OP_regx && expr[0].number == (Dwarf_Word)reg))) ||
			      (len == 2 && expr[0].atom == DW_OP_breg0 + (unsigned)reg && expr[1].atom == DW_OP_stack_value)))
				continue;
			if (!die_type_named(&child, &ptr, &alias) || dwarf_tag(&ptr) != DW_TAG_pointer_type ||
			    !die_type_named(&ptr, &type, &alias) || !aggregate(dwarf_tag(&type)))
				continue;
			found = dwarf_dieoffset(&type);
		} while (!found && dwarf_siblingof(&child, &child) == 0);
	}
	free(scopes);
	return found;
}

int sym_dtype_member_at(const struct sym_object *o, uint64_t die, uint64_t offset, struct sym_dmember *out)
{
	struct dtypes *t = o && o->path ? open_types(o->path) : NULL;
	Dwarf_Die type;
	Dwarf_Word size;

	memset(out, 0, sizeof(*out));
	if (!t || !t->dw || !die || !dwarf_offdie(t->dw, die, &type))
		return -1;
	if (dwarf_aggregate_size(&type, &size) == 0 && size)
		offset %= size;               /* an array of them */
	member_walk(t, type, NULL, offset, out);
	return out->type ? 0 : -1;
}

void sym_dtype_free_all(void)
{
	while (cache) {
		struct dtypes *t = cache;
		cache = t->next;
		for (size_t i = 0; i < t->ntypes; i++)
			free(t->types[i]);
		free(t->types);
		free(t->vars);
		if (t->dw)
			dwarf_end(t->dw);
		sym_arena_free(&t->arena);
		free(t->path);
		free(t);
	}
}
