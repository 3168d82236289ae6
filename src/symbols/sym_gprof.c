/* SPDX-License-Identifier: MIT
 *
 * sym_gprof.c — an object's symbol table as GNU gprof reads it, so that
 * `tally gprof` numbers the listing's [N] as gprof does.  gprof gives an
 * index to every symbol of its table, printed or not (cg_arcs.c sorts them
 * all by time, then name), so a function with no time is numbered after
 * the unprinted symbols that sort before it: a weak `data_start`, `etext`,
 * static helpers of crt files.  Which symbols gprof keeps (its
 * core_sym_class and symtab_finalize, binutils 2.40):
 *   - from .symtab only (a stripped file has none);
 *   - global or local symbols of an executable section ('T' / 't' in nm),
 *     weak defined symbols that are no object, in any section ('W');
 *     not: section and file symbols, undefined, common, absolute (unless
 *     weak), GNU_UNIQUE and IFUNC symbols, weak objects;
 *   - a local name is dropped if empty, if it holds '$', if a '.' is not
 *     followed by digits (a nested subprogram's .NNN, also after .clone.
 *     or .constprop.), or if it starts with __gnu_compiled;
 *   - one symbol per address: a global one before a static one, then one
 *     not starting with '_', then one not starting with "__".
 * Called by model_gprof.c for `tally gprof`, in the analyzer only.
 */
#include <ctype.h>
#include <gelf.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "symbols/sym_int.h"

/* gprof's filter on a local symbol's name (core_sym_class), `end` the end
 * of the string table holding it.  After a ".NNN" suffix gprof's scan steps
 * past the name's NUL into the next names of the table, which can reject
 * the symbol too: done here, within the table. */
static bool local_name_ok(const char *name, const char *end)
{
	if (!*name || !strncmp(name, "__gnu_compiled", 14))
		return false;
	for (const char *p = name; p < end && *p; ++p) {
		if (*p == '$')
			return false;
		while (p < end && *p == '.') {
			bool digit = false;
			size_t left = strnlen(p, (size_t)(end - p));
			if (left > 7 && !strncmp(p, ".clone.", 7))
				p += 6;
			else if (left > 11 && !strncmp(p, ".constprop.", 11))
				p += 10;
			for (p++; p < end && *p; p++) {
				if (digit && *p == '.')
					break;
				if (!isdigit((unsigned char)*p))
					return false;
				digit = true;
			}
		}
		if (p >= end)
			break;
	}
	return true;
}

/* Is section `ndx` executable? */
static bool code_section(Elf *elf, size_t ndx)
{
	GElf_Shdr sh;
	Elf_Scn *scn = elf_getscn(elf, ndx);

	return scn && gelf_getshdr(scn, &sh) && (sh.sh_flags & SHF_EXECINSTR);
}

/* gprof's class of symbol s: 'T' (global or weak), 't' (static), 0 (not
 * in its table). */
static int gprof_class(Elf *elf, const GElf_Sym *s, const char *name, const char *end)
{
	unsigned type = GELF_ST_TYPE(s->st_info), bind = GELF_ST_BIND(s->st_info);

	if (type == STT_SECTION || type == STT_FILE || s->st_shndx == SHN_UNDEF ||
	    s->st_shndx == SHN_COMMON || bind == STB_GNU_UNIQUE || type == STT_GNU_IFUNC)
		return 0;
	if (bind == STB_WEAK)
		return type == STT_OBJECT ? 0 : 'T';
	if ((bind != STB_GLOBAL && bind != STB_LOCAL) || s->st_shndx == SHN_ABS ||
	    s->st_shndx >= SHN_LORESERVE || !code_section(elf, s->st_shndx))
		return 0;
	if (bind == STB_GLOBAL)
		return 'T';
	return local_name_ok(name, end) ? 't' : 0;
}

static int cmp_addr(const void *a, const void *b)
{
	const struct sym_gprof_sym *x = a, *y = b;

	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	if (x->is_func != y->is_func)
		return x->is_func ? -1 : 1;
	if (x->is_static != y->is_static)
		return x->is_static ? 1 : -1;
	return x->order < y->order ? -1 : x->order > y->order;
}

/* Should `b` replace `a`, kept for the same address (symtab_finalize)? */
static bool favoured(const struct sym_gprof_sym *b, const struct sym_gprof_sym *a)
{
	if (!b->is_static && a->is_static)
		return true;
	if (b->is_static != a->is_static)
		return false;
	if (b->name[0] != '_' && a->name[0] == '_')
		return true;
	return b->name[0] == '_' && a->name[0] == '_' && b->name[1] != '_' && a->name[1] == '_';
}

long sym_object_gprof_symbols(struct sym_object *o, struct sym_gprof_sym **out)
{
	GElf_Shdr sh;
	Elf_Scn *scn, *strscn;
	Elf_Data *d, *strd;
	size_t fsize, nsym, n = 0;

	*out = NULL;
	if (!o->elf || !(scn = sym_elf_section_type(o->elf, SHT_SYMTAB, &sh)) || sh.sh_link == 0 ||
	    !(strscn = elf_getscn(o->elf, sh.sh_link)) || !(strd = elf_getdata(strscn, NULL)) ||
	    !strd->d_buf)
		return 0;
	const char *str_end = (const char *)strd->d_buf + strd->d_size;
	fsize = gelf_fsize(o->elf, ELF_T_SYM, 1, EV_CURRENT);
	d = elf_getdata(scn, NULL);
	if (!fsize || sh.sh_entsize != fsize || !d || d->d_type != ELF_T_SYM)
		return 0;
	nsym = d->d_size / fsize;
	struct sym_gprof_sym *v = malloc((nsym ? nsym : 1) * sizeof(*v));
	if (!v)
		return -1;
	for (size_t i = 1; i < nsym && i <= INT_MAX; i++) {
		GElf_Sym s;
		if (!gelf_getsym(d, (int)i, &s))
			break;
		const char *name = elf_strptr(o->elf, sh.sh_link, s.st_name);
		if (!name)
			continue;
		int cls = gprof_class(o->elf, &s, name, str_end);
		if (!cls)
			continue;
		v[n++] = (struct sym_gprof_sym){ .addr = s.st_value, .name = name, .is_static = cls == 't',
						 .is_func = GELF_ST_TYPE(s.st_info) == STT_FUNC,
						 .order = (uint32_t)i };
	}
	qsort(v, n, sizeof(*v), cmp_addr);
	size_t kept = 0;
	for (size_t i = 0; i < n; i++) {
		if (kept && v[kept - 1].addr == v[i].addr) {
			if (favoured(&v[i], &v[kept - 1]))
				v[kept - 1] = v[i];
			continue;
		}
		v[kept++] = v[i];
	}
	*out = v;
	return (long)kept;
}
