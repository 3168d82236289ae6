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
 *
 * And the chain of inlined calls at an address, as eu-addr2line -i finds
 * it: dwarf_getscopes gives the innermost scope holding the address (it
 * then continues with the abstract origin's scopes, which are not the
 * chain), dwarf_getscopes_die the physical scopes around that one, whose
 * DW_TAG_inlined_subroutine entries are the inlined calls, innermost first.
 * Both walk the CU's DIE tree: the model asks once per distinct pc.
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

/* Names of inlined functions known only by DW_AT_name, qualified once per
 * origin DIE: an open-addressing table keyed by the DIE's offset + 1. */
struct sym_qname {
	Dwarf_Off key;
	const char *name;
};

struct sym_lines {
	Dwarf *dw;
	struct sym_cu_range *r;   /* sorted by lo */
	size_t n, cap;
	struct sym_qname *qn;     /* qualified names (a power of two of slots) */
	size_t nqn, cap_qn;
	struct sym_arena arena;   /* their strings */
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

/* `name` of the declaration `origin` with the namespaces and classes around
 * it ("std::__unguarded_partition<...>"), from the scopes of its CU; `name`
 * itself if it has none, or memory runs out.  Cached per DIE. */
static const char *sym_qualified(struct sym_lines *l, Dwarf_Die *origin, const char *name)
{
	Dwarf_Off key = dwarf_dieoffset(origin) + 1;
	size_t mask = l->cap_qn - 1, i;

	if (l->cap_qn) {
		for (i = (size_t)(key * 0x9e3779b97f4a7c15ull) & mask; l->qn[i].key; i = (i + 1) & mask)
			if (l->qn[i].key == key)
				return l->qn[i].name;
	}
	if (2 * (l->nqn + 1) > l->cap_qn) {          /* grow, rehash */
		size_t ncap = l->cap_qn ? 2 * l->cap_qn : 256;
		struct sym_qname *nq = calloc(ncap, sizeof(*nq));
		if (!nq)
			return name;
		for (size_t k = 0; k < l->cap_qn; k++) {
			if (!l->qn[k].key)
				continue;
			size_t j = (size_t)(l->qn[k].key * 0x9e3779b97f4a7c15ull) & (ncap - 1);
			while (nq[j].key)
				j = (j + 1) & (ncap - 1);
			nq[j] = l->qn[k];
		}
		free(l->qn);
		l->qn = nq;
		l->cap_qn = ncap;
		mask = ncap - 1;
	}
	Dwarf_Die *scopes = NULL;
	int ns = dwarf_getscopes_die(origin, &scopes);
	char buf[4096];
	size_t len = strlen(name);
	const char *out = name;

	if (len < sizeof(buf)) {
		memcpy(buf, name, len + 1);
		for (int k = 1; k < ns; k++) {         /* scopes[0] is origin itself */
			int tag = dwarf_tag(&scopes[k]);
			if (tag != DW_TAG_namespace && tag != DW_TAG_class_type &&
			    tag != DW_TAG_structure_type && tag != DW_TAG_union_type)
				continue;
			const char *sn = dwarf_diename(&scopes[k]);
			if (!sn && tag != DW_TAG_namespace)
				break;          /* a lambda's closure type: "operator()" as perf */
			if (!sn)
				sn = "(anonymous namespace)";
			size_t sl = strlen(sn);
			if (len + sl + 2 >= sizeof(buf))
				break;
			memmove(buf + sl + 2, buf, len + 1);
			memcpy(buf, sn, sl);
			memcpy(buf + sl, "::", 2);
			len += sl + 2;
		}
		if (len != strlen(name))
			out = sym_arena_strdup(&l->arena, buf);
	}
	free(scopes);
	if (!out)
		return name;
	for (i = (size_t)(key * 0x9e3779b97f4a7c15ull) & mask; l->qn[i].key; i = (i + 1) & mask)
		;
	l->qn[i].key = key;
	l->qn[i].name = out;
	l->nqn++;
	return out;
}

/* The name of inlined subroutine `d`, from its abstract origin: the
 * demangled linkage name (as a symbol's display name), or DW_AT_name with
 * its namespaces and classes; *link gets the linkage name (or NULL). */
static const char *sym_inline_name(struct sym_lines *l, Dwarf_Die *d, const char **link)
{
	Dwarf_Attribute a;
	Dwarf_Die origin = *d, next;
	const char *ln = dwarf_formstring(dwarf_attr_integrate(d, DW_AT_linkage_name, &a));

	if (!ln)
		ln = dwarf_formstring(dwarf_attr_integrate(d, DW_AT_MIPS_linkage_name, &a));
	*link = ln;
	if (ln)
		return sym_demangle(ln);
	const char *name = dwarf_formstring(dwarf_attr_integrate(d, DW_AT_name, &a));
	if (!name)
		return NULL;
	/* The declaration: through abstract origins (bounded: a loop in a
	 * damaged file ends), then a specification. */
	for (int k = 0; k < 8 && dwarf_formref_die(dwarf_attr(&origin, DW_AT_abstract_origin, &a), &next); k++)
		origin = next;
	if (dwarf_formref_die(dwarf_attr(&origin, DW_AT_specification, &a), &next))
		origin = next;
	return sym_qualified(l, &origin, name);
}

size_t sym_lines_inlines(struct sym_lines *l, uint64_t vaddr, struct sym_inline *out, size_t max)
{
	Dwarf_Die cu, *scopes = NULL, inner, *chain = NULL;
	Dwarf_Files *files = NULL;
	size_t nfiles = 0, n = 0;
	int ns, nc;

	if (!max || !sym_lines_cu(l, vaddr, &cu))
		return 0;
	ns = dwarf_getscopes(&cu, vaddr, &scopes);
	if (ns <= 0) {
		free(scopes);
		return 0;
	}
	inner = scopes[0];
	free(scopes);
	nc = dwarf_getscopes_die(&inner, &chain);
	if (nc <= 0) {
		free(chain);
		return 0;
	}
	if (dwarf_getsrcfiles(&cu, &files, &nfiles) != 0)
		files = NULL;
	/* chain[0] is innermost: count the inlined calls, then fill from the
	 * outermost. */
	size_t total = 0;
	for (int i = 0; i < nc; i++)
		total += dwarf_tag(&chain[i]) == DW_TAG_inlined_subroutine;
	size_t skip = total > max ? total - max : 0;   /* keep the outermost max */
	for (int i = nc; i-- > 0;) {
		Dwarf_Die *d = &chain[i];
		Dwarf_Attribute a;
		Dwarf_Word w;

		if (dwarf_tag(d) != DW_TAG_inlined_subroutine)
			continue;
		if (n >= total - skip)
			break;
		struct sym_inline *in = &out[n];
		in->name = sym_inline_name(l, d, &in->link_name);
		if (!in->name)
			in->name = "<inlined>";
		in->call_file = NULL;
		in->call_line = 0;
		if (files && dwarf_formudata(dwarf_attr(d, DW_AT_call_file, &a), &w) == 0 && w < nfiles)
			in->call_file = dwarf_filesrc(files, w, NULL, NULL);
		if (dwarf_formudata(dwarf_attr(d, DW_AT_call_line, &a), &w) == 0 && w <= INT32_MAX)
			in->call_line = (int)w;
		n++;
	}
	free(chain);
	return n;
}

void sym_lines_free(struct sym_lines *l)
{
	if (!l)
		return;
	dwarf_end(l->dw);
	free(l->r);
	free(l->qn);
	sym_arena_free(&l->arena);
	free(l);
}
