/* SPDX-License-Identifier: MIT
 *
 * sym_lines.c — source file and line of an address, from the DWARF line
 * table, through libdw.  Opened by sym_object.c on the first
 * sym_object_line of an object, on the ELF file that has .debug_info (the
 * object itself or its separate debug file, which sym_debuglink.c already
 * found: so plain libdw is enough, libdwfl's search is not needed).
 *
 * .debug_aranges is optional (GCC omits it in some configurations), so the
 * address → compilation unit index is built here from every CU's
 * DW_AT_low_pc/high_pc/ranges: a sorted array searched in O(log n); then
 * dwarf_getsrc_die finds the row of that CU's line table (libdw parses each
 * table once and caches it).  libdw bounds-checks the DWARF it reads.
 *
 * Also the function a compiler-made body was taken from (clang's
 * `.omp_outlined.` has no parent in its name): the last function declared
 * before the body's own declaration line in the same file of its CU.
 */
#include <dwarf.h>
#include <elfutils/libdw.h>
#include <stdlib.h>
#include <string.h>

#include "symbols/sym_int.h"

struct sym_cu_range {
	uint64_t lo, hi;          /* [lo, hi) link-time addresses */
	Dwarf_Off die;            /* offset of the CU's DIE */
};

struct sym_lines {
	Dwarf *dw;
	struct sym_cu_range *r;   /* sorted by lo */
	size_t n, cap;
};

static int sym_cu_cmp(const void *a, const void *b)
{
	const struct sym_cu_range *x = a, *y = b;

	return x->lo < y->lo ? -1 : x->lo > y->lo;
}

/* Add the address ranges of `cudie` to the index. */
static int sym_lines_add_cu(struct sym_lines *l, Dwarf_Die *cudie)
{
	Dwarf_Addr base, lo, hi;
	ptrdiff_t off = 0;

	while ((off = dwarf_ranges(cudie, off, &base, &lo, &hi)) > 0) {
		if (hi <= lo)
			continue;
		if (l->n == l->cap) {
			size_t ncap = l->cap ? l->cap * 2 : 64;
			struct sym_cu_range *nv = realloc(l->r, ncap * sizeof(*nv));

			if (!nv)
				return -1;
			l->r = nv;
			l->cap = ncap;
		}
		l->r[l->n].lo = lo;
		l->r[l->n].hi = hi;
		l->r[l->n++].die = dwarf_dieoffset(cudie);
	}
	return 0;
}

/* The line tables of `elf`, or NULL if it has no usable DWARF (or memory
 * ran out: lines are an extra, the caller just goes without). */
struct sym_lines *sym_lines_open(Elf *elf)
{
	struct sym_lines *l = calloc(1, sizeof(*l));
	Dwarf_CU *cu = NULL, *next;
	Dwarf_Half version;
	uint8_t unit_type;
	Dwarf_Die cudie, subdie;

	if (!l)
		return NULL;
	l->dw = dwarf_begin_elf(elf, DWARF_C_READ, NULL);
	if (!l->dw) {
		free(l);
		return NULL;
	}
	while (dwarf_get_units(l->dw, cu, &next, &version, &unit_type, &cudie,
			       &subdie) == 0) {
		cu = next;
		if ((unit_type == DW_UT_compile || unit_type == DW_UT_partial ||
		     unit_type == DW_UT_skeleton) &&
		    sym_lines_add_cu(l, &cudie) < 0) {
			sym_lines_free(l);
			return NULL;
		}
	}
	if (l->n == 0) {
		sym_lines_free(l);
		return NULL;
	}
	qsort(l->r, l->n, sizeof(*l->r), sym_cu_cmp);
	return l;
}

/* The CU DIE holding `vaddr`, or false. */
static bool sym_lines_cu(struct sym_lines *l, uint64_t vaddr, Dwarf_Die *die)
{
	size_t lo = 0, hi = l->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (l->r[mid].lo <= vaddr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo > 0 && vaddr < l->r[lo - 1].hi && dwarf_offdie(l->dw, l->r[lo - 1].die, die);
}

/* File and line of the row containing `vaddr`; false if there is none.
 * *file lives as long as `l`. */
bool sym_lines_find(struct sym_lines *l, uint64_t vaddr, const char **file,
		    int *line)
{
	Dwarf_Die die;
	Dwarf_Line *row;
	const char *src;
	int ln;

	if (!sym_lines_cu(l, vaddr, &die))
		return false;
	row = dwarf_getsrc_die(&die, vaddr);
	if (!row || dwarf_lineno(row, &ln) != 0 || ln <= 0)
		return false;
	src = dwarf_linesrc(row, NULL, NULL);
	if (!src)
		return false;
	*file = src;
	*line = ln;
	return true;
}

static const char *sym_die_link(Dwarf_Die *d)
{
	Dwarf_Attribute a;
	const char *s = dwarf_formstring(dwarf_attr_integrate(d, DW_AT_linkage_name, &a));

	return s ? s : dwarf_diename(d);
}

const char *sym_lines_comp_dir(struct sym_lines *l, uint64_t vaddr)
{
	Dwarf_Die cu;
	Dwarf_Attribute a;

	return sym_lines_cu(l, vaddr, &cu) ? dwarf_formstring(dwarf_attr(&cu, DW_AT_comp_dir, &a)) : NULL;
}

const char *sym_lines_enclosing(struct sym_lines *l, uint64_t vaddr)
{
	Dwarf_Die cu, child, body;
	Dwarf_Word file = 0, line = 0, bfile = 0, bline = 0;
	Dwarf_Attribute a;
	const char *best = NULL;
	Dwarf_Word best_line = 0;
	bool found = false;

	if (!sym_lines_cu(l, vaddr, &cu) || dwarf_child(&cu, &child) != 0)
		return NULL;
	body = child;
	do {                                  /* the body's own DIE */
		Dwarf_Addr lo, hi;
		if (dwarf_tag(&body) == DW_TAG_subprogram && dwarf_lowpc(&body, &lo) == 0 &&
		    dwarf_highpc(&body, &hi) == 0 && vaddr >= lo && vaddr < hi) {
			found = true;
			break;
		}
	} while (dwarf_siblingof(&body, &body) == 0);
	if (!found || dwarf_formudata(dwarf_attr_integrate(&body, DW_AT_decl_file, &a), &bfile) ||
	    dwarf_formudata(dwarf_attr_integrate(&body, DW_AT_decl_line, &a), &bline))
		return NULL;
	do {
		const char *name = sym_die_link(&child);
		bool art = dwarf_hasattr(&child, DW_AT_artificial);
		if (dwarf_tag(&child) != DW_TAG_subprogram || !name || name[0] == '.' || art ||
		    strstr(name, "omp_outlined") ||
		    dwarf_formudata(dwarf_attr_integrate(&child, DW_AT_decl_file, &a), &file) ||
		    dwarf_formudata(dwarf_attr_integrate(&child, DW_AT_decl_line, &a), &line) ||
		    file != bfile || line > bline || line < best_line)
			continue;
		best = name;
		best_line = line;
	} while (dwarf_siblingof(&child, &child) == 0);
	return best;
}

void sym_lines_free(struct sym_lines *l)
{
	if (!l)
		return;
	dwarf_end(l->dw);
	free(l->r);
	free(l);
}
