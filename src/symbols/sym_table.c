/* SPDX-License-Identifier: MIT
 *
 * sym_table.c — turns an object's raw symbols into its function table and
 * lookup index, and answers sym_object_lookup.  Built once per object by
 * sym_object.c; the lookup runs once per distinct pc of an experiment
 * (~10^5), so it is a binary search over a sorted array of disjoint pieces.
 *
 * Rules (the Sun analyzer's naming rules, sym.h):
 *  - symbols at one address are one function; the name is the best by rank
 *    (global > weak > local > synthesized @plt), then fewer leading
 *    underscores, then the last in alphabetical order (of link names); the
 *    other names, demangled, sorted and without duplicates, are its
 *    `aliases`;
 *  - the size is the largest among the aliases; a size of 0 extends to the
 *    next symbol of the same section, or to the end of the section; no
 *    function extends past the end of its section;
 *  - every stretch of an executable section that no function covers is one
 *    artificial function: `<static>@0xOFFSET (object)` with the file offset
 *    of its start, or `@plt` inside a PLT section (PLT0 and lazy stubs);
 *    a stretch is cut where the unwind table starts a function (one FDE per
 *    function, kept in stripped objects), so stripped functions stay apart;
 *    except a stretch of mere alignment fill (NOPs, int3, zeros) after a
 *    function, which is no function of its own: lookups there return the
 *    function before it (its size is not changed);
 *  - where functions overlap, the one that starts later owns the overlap
 *    (a nested symbol wins over its container).
 * Invariant: funcs is sorted by start and funcs[i].id == i; segs is sorted,
 * disjoint, and covers every executable section but the alignment fill.
 */
#include <stdlib.h>
#include <string.h>

#include "symbols/sym_int.h"

static size_t sym_underscores(const char *s)
{
	size_t n = 0;

	while (s[n] == '_')
		n++;
	return n;
}

/* By address, then best name first. */
static int sym_raw_cmp(const void *a, const void *b)
{
	const struct sym_raw *x = a, *y = b;
	size_t ux, uy;

	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	if (x->rank != y->rank)
		return x->rank > y->rank ? -1 : 1;
	ux = sym_underscores(x->name);
	uy = sym_underscores(y->name);
	if (ux != uy)
		return ux < uy ? -1 : 1;
	return -strcmp(x->name, y->name);
}

static int sym_str_cmp(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* Display name of a PLT stub `callee@plt`: the callee demangled. */
static const char *sym_plt_display(struct sym_object *o, const char *link)
{
	size_t len = strlen(link) - 4;         /* sym_plt.c appends "@plt" */
	char *callee = malloc(len + 1);
	const char *dem, *name = link;

	if (!callee)
		return link;
	memcpy(callee, link, len);
	callee[len] = '\0';
	dem = sym_demangle(callee);
	if (dem != callee)
		name = sym_arena_printf(&o->arena, "%s@plt", dem);
	free(callee);
	return name ? name : link;
}

/* Display name of raw symbol `r`. */
static const char *sym_display(struct sym_object *o, const struct sym_raw *r)
{
	return r->rank == SYM_RANK_PLT ? sym_plt_display(o, r->name) :
					 sym_demangle(r->name);
}

/* The aliases string of the group g[0..n) whose display name is `name`: the
 * other display names, sorted, without duplicates, ", "-separated; NULL if
 * there are none.  Sets *oom when out of memory. */
static const char *sym_aliases(struct sym_object *o, const struct sym_raw *g,
			       size_t n, const char *name, bool *oom)
{
	const char **names, *res = NULL;
	size_t k = 0, len = 0, i, u;
	char *buf, *p;

	if (n < 2)
		return NULL;
	names = malloc((n - 1) * sizeof(*names));
	if (!names)
		goto fail;
	for (i = 1; i < n; i++) {
		const char *d = sym_display(o, &g[i]);

		if (strcmp(d, name) != 0)
			names[k++] = d;
	}
	qsort(names, k, sizeof(*names), sym_str_cmp);
	for (i = 0, u = 0; i < k; i++) {
		if (u && strcmp(names[i], names[u - 1]) == 0)
			continue;
		names[u++] = names[i];
		len += strlen(names[i]) + 2;
	}
	if (u) {
		buf = malloc(len + 1);
		if (!buf) {
			free(names);
			goto fail;
		}
		for (i = 0, p = buf; i < u; i++) {
			size_t l = strlen(names[i]);

			if (i) {
				memcpy(p, ", ", 2);
				p += 2;
			}
			memcpy(p, names[i], l);
			p += l;
		}
		*p = '\0';
		res = sym_arena_strdup(&o->arena, buf);
		free(buf);
	}
	free(names);
	if (u && !res)
		*oom = true;
	return res;
fail:
	*oom = true;
	return NULL;
}

/* Merge the sorted raw symbols into functions (one per address): fills
 * funcs[0..*n) and their section indices xsec[]. */
static int sym_table_merge(struct sym_object *o, const struct sym_rawvec *raw,
			   struct sym_func *funcs, uint32_t *xsec, size_t *n)
{
	size_t i = 0, j, nf = 0;
	bool oom = false;

	while (i < raw->n) {
		const struct sym_raw *g = &raw->v[i];
		const struct sym_xsec *x = &o->xsecs[g->xsec];
		uint64_t size = 0, room = x->addr + x->size - g->addr;
		struct sym_func *f = &funcs[nf];

		for (j = i; j < raw->n && raw->v[j].addr == g->addr; j++) {
			if (raw->v[j].size > size)
				size = raw->v[j].size;
		}
		if (size == 0)
			size = j < raw->n && raw->v[j].xsec == g->xsec ?
				       raw->v[j].addr - g->addr : room;
		f->start = g->addr;
		f->size = size < room ? size : room;
		f->link_name = g->name;
		f->flags = g->rank == SYM_RANK_PLT ? SYM_FUNC_PLT :
			   g->rank == SYM_RANK_LOCAL ? SYM_FUNC_LOCAL : 0;
		f->name = sym_display(o, g);
		f->aliases = sym_aliases(o, g, j - i, f->name, &oom);
		if (oom)
			return -1;
		xsec[nf++] = g->xsec;
		i = j;
	}
	*n = nf;
	return 0;
}

/* True if the `len` bytes at `p` are only x86 alignment fill: the bytes of
 * the multi-byte NOPs that assemblers emit (90, 66 90, 0f 1f 00, ...,
 * 66 2e 0f 1f 84 00 00 00 00 00), int3 or zeros.  Code always has some other
 * byte (at least its ret or jmp). */
static bool sym_is_padding(const uint8_t *p, uint64_t len)
{
	for (uint64_t i = 0; i < len; i++) {
		switch (p[i]) {
		case 0x00: case 0x0f: case 0x1f: case 0x2e: case 0x40:
		case 0x44: case 0x66: case 0x80: case 0x84: case 0x90:
		case 0xcc:
			continue;
		default:
			return false;
		}
	}
	return true;
}

/* The next function start of the unwind table after `at` and before
 * `end`, or `end`. */
static uint64_t sym_next_fde(const struct sym_object *o, uint64_t at, uint64_t end)
{
	size_t lo = 0, hi = o->nfde_starts;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (o->fde_starts[mid] <= at)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < o->nfde_starts && o->fde_starts[lo] < end ? o->fde_starts[lo] : end;
}

/* Append the artificial function for [start, end) of section x. */
static int sym_gap_add(struct sym_object *o, const struct sym_xsec *x, uint64_t start,
		       uint64_t end, struct sym_func *gaps, size_t *ng, size_t cap)
{
	struct sym_func *f;
	bool plt = sym_plt_section(x->name);

	if (*ng == cap)
		return -1;
	f = &gaps[(*ng)++];
	f->start = start;
	f->size = end - start;
	f->aliases = NULL;
	f->flags = plt ? SYM_FUNC_PLT : SYM_FUNC_STATIC;
	f->name = plt ? "@plt" :
		  sym_arena_printf(&o->arena, "<static>@0x%llx (%s)",
				   (unsigned long long)(x->offset + start - x->addr), o->name);
	f->link_name = f->name;
	return f->name ? 0 : -1;
}

/* The artificial functions for the uncovered stretches of every section:
 * appended to gaps[] (room for `cap`). */
static int sym_table_gaps(struct sym_object *o, const struct sym_func *funcs,
			  const uint32_t *xsec, size_t nf,
			  struct sym_func *gaps, size_t *ngaps, size_t cap)
{
	size_t g = 0, k, ng = 0;

	for (k = 0; k < o->nxsecs; k++) {
		const struct sym_xsec *x = &o->xsecs[k];
		uint64_t covered = x->addr, end = x->addr + x->size;

		for (;; g++) {
			bool last = g >= nf || xsec[g] != k;
			uint64_t next = last ? end : funcs[g].start;

			while (next > covered) {
				uint64_t cut = sym_next_fde(o, covered, next);
				if ((covered == x->addr ||
				     !sym_is_padding(o->image + x->offset + (covered - x->addr),
						     cut - covered)) &&
				    sym_gap_add(o, x, covered, cut, gaps, &ng, cap) < 0)
					return -1;
				covered = cut;
			}
			if (last)
				break;
			if (funcs[g].start + funcs[g].size > covered)
				covered = funcs[g].start + funcs[g].size;
		}
	}
	*ngaps = ng;
	return 0;
}

/* The lookup index: walk the functions by start with a stack of the ones
 * still open; each piece goes to the innermost (latest-starting) function. */
static int sym_table_index(struct sym_object *o)
{
	size_t *stack, sp = 0, ns = 0, cap = o->nfuncs * 2 + 1;
	uint64_t cur = 0;

	stack = malloc((o->nfuncs + 1) * sizeof(*stack));
	o->segs = malloc(cap * sizeof(*o->segs));
	if (!stack || !o->segs) {
		free(stack);
		return -1;
	}
	for (size_t i = 0; i <= o->nfuncs; i++) {
		uint64_t next = i < o->nfuncs ? o->funcs[i].start : UINT64_MAX;

		while (sp > 0 && cur < next) {
			const struct sym_func *t = &o->funcs[stack[sp - 1]];
			uint64_t end = t->start + t->size;

			if (end <= cur) {
				sp--;
				continue;
			}
			if (ns == cap) {
				struct sym_seg *nv;

				cap *= 2;
				nv = realloc(o->segs, cap * sizeof(*nv));
				if (!nv) {
					free(stack);
					return -1;
				}
				o->segs = nv;
			}
			o->segs[ns].start = cur;
			o->segs[ns].end = end < next ? end : next;
			o->segs[ns].func = t->id;
			cur = o->segs[ns++].end;
		}
		if (i < o->nfuncs) {
			stack[sp++] = i;
			cur = next;
		}
	}
	free(stack);
	o->nsegs = ns;
	return 0;
}

/* Build o->funcs and o->segs from `raw` (sorted here).  Needs o->xsecs and
 * o->name.  Returns 0, or -1 when out of memory. */
int sym_table_build(struct sym_object *o, struct sym_rawvec *raw)
{
	struct sym_func *syms = NULL, *gaps = NULL;
	uint32_t *xsec = NULL;
	size_t nsyms = 0, ngaps = 0, a = 0, b = 0, k;
	int rc = -1;

	if (raw->n > 1)
		qsort(raw->v, raw->n, sizeof(*raw->v), sym_raw_cmp);
	syms = malloc((raw->n + 1) * sizeof(*syms));
	xsec = malloc((raw->n + 1) * sizeof(*xsec));
	size_t gcap = raw->n + o->nxsecs + o->nfde_starts + 1;
	gaps = malloc(gcap * sizeof(*gaps));
	if (!syms || !xsec || !gaps ||
	    sym_table_merge(o, raw, syms, xsec, &nsyms) < 0 ||
	    sym_table_gaps(o, syms, xsec, nsyms, gaps, &ngaps, gcap) < 0)
		goto out;
	o->funcs = malloc((nsyms + ngaps + 1) * sizeof(*o->funcs));
	if (!o->funcs)
		goto out;
	for (k = 0; a < nsyms || b < ngaps; k++) {
		if (b == ngaps || (a < nsyms && syms[a].start < gaps[b].start))
			o->funcs[k] = syms[a++];
		else
			o->funcs[k] = gaps[b++];
		o->funcs[k].id = (uint32_t)k;
	}
	o->nfuncs = k;
	rc = sym_table_index(o);
out:
	free(syms);
	free(xsec);
	free(gaps);
	return rc;
}

/* The function containing link-time address `vaddr`, or NULL if `vaddr` is
 * in no executable section.  O(log n). */
const struct sym_func *sym_object_lookup(struct sym_object *o, uint64_t vaddr)
{
	const struct sym_seg *seg;
	size_t lo = 0, hi;
	long k;

	if (!o)
		return NULL;
	hi = o->nsegs;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (o->segs[mid].start <= vaddr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == 0)
		return NULL;
	seg = &o->segs[lo - 1];
	if (vaddr < seg->end)
		return &o->funcs[seg->func];
	/* the only holes inside a section are alignment fill after a function */
	k = sym_elf_xsec_find(o->xsecs, o->nxsecs, vaddr);
	if (k >= 0 && seg->end > o->xsecs[k].addr)
		return &o->funcs[seg->func];
	return NULL;
}

const struct sym_func *sym_object_find(struct sym_object *o, const char *link_name)
{
	for (size_t i = 0; o && i < o->nfuncs; i++)
		if (!(o->funcs[i].flags & (SYM_FUNC_PLT | SYM_FUNC_STATIC)) &&
		    !strcmp(o->funcs[i].link_name, link_name))
			return &o->funcs[i];
	return NULL;
}

/* Every function of `o` in address order; returns their number. */
size_t sym_object_functions(struct sym_object *o, const struct sym_func **funcs)
{
	*funcs = o ? o->funcs : NULL;
	return o ? o->nfuncs : 0;
}
