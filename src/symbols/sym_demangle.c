/* SPDX-License-Identifier: MIT
 *
 * sym_demangle.c — C++ and Rust names as people read them, through
 * libiberty's cplus_demangle(DMGL_PARAMS | DMGL_ANSI): the exact text GNU
 * gprof, nm -C and objdump -C print, argument lists and [clone .cold]
 * suffixes included; Rust legacy (_ZN...17h<hash>E) and v0 (_R...) symbols
 * are recognized by libiberty's automatic style.
 *
 * Called by sym_table.c for every symbol of every object (so tens of
 * thousands of calls), and by the model for names from other sources.  The
 * results are cached in an open-addressing hash table keyed by the mangled
 * name, freed by sym_objects_free.  Names that are not mangled, or that
 * libiberty rejects, come back as the very pointer given.
 *
 * gfortran's `master.0.work_` (the body shared by a procedure's ENTRY
 * points) is `work_ [entry master]`.
 * C names with GCC's clone suffixes get the same readable form as C++ ones
 * (`field.constprop.0` is shown `field [clone .constprop.0]`, as
 * cplus_demangle shows `_Z5fieldi.constprop.0`): an identifier followed by
 * groups `.word` or `.word.N...` or `.N`.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <libiberty/demangle.h>

#include "symbols/sym_int.h"

struct sym_dem_entry {
	char *key;                /* mangled name (owned) */
	char *val;                /* demangled (owned), NULL if it failed */
};

static struct sym_dem_entry *sym_dem_tab;
static size_t sym_dem_cap, sym_dem_n;    /* cap: 0 or a power of two */

static uint64_t sym_dem_hash(const char *s)
{
	uint64_t h = 0xcbf29ce484222325ull;    /* FNV-1a */

	while (*s)
		h = (h ^ (uint8_t)*s++) * 0x100000001b3ull;
	return h;
}

/* Slot of `key`: its entry, or the empty slot where it belongs. */
static struct sym_dem_entry *sym_dem_slot(struct sym_dem_entry *tab,
					  size_t cap, const char *key)
{
	size_t i = (size_t)sym_dem_hash(key) & (cap - 1);

	while (tab[i].key && strcmp(tab[i].key, key) != 0)
		i = (i + 1) & (cap - 1);
	return &tab[i];
}

/* Keep the table at most half full.  Returns false when out of memory. */
static bool sym_dem_grow(void)
{
	size_t ncap = sym_dem_cap ? sym_dem_cap * 2 : 1024, i;
	struct sym_dem_entry *nt;

	if (sym_dem_n + 1 <= sym_dem_cap / 2)
		return true;
	nt = calloc(ncap, sizeof(*nt));
	if (!nt)
		return false;
	for (i = 0; i < sym_dem_cap; i++) {
		if (sym_dem_tab[i].key)
			*sym_dem_slot(nt, ncap, sym_dem_tab[i].key) =
				sym_dem_tab[i];
	}
	free(sym_dem_tab);
	sym_dem_tab = nt;
	sym_dem_cap = ncap;
	return true;
}

/* Does the group at `p` (after its `.`) start with a suffix GCC gives its
 * clones?  Go's `main.spin` and `runtime.mstart` are packages and
 * functions, no clones; nor is `runtime.clone` (a stripped Go binary's
 * name from .gopclntab): the suffixes GCC numbers are clones only with
 * their number (`.clone.0`, `.part.1`). */
static bool sym_clone_word(const char *p)
{
	static const char *const numbered[] = {
		"constprop", "isra", "part", "clone", "lto_priv", "_omp_fn", "omp_fn", "specialized", "str",
	};
	static const char *const alone[] = { "cold", "localalias", "resolver", "ifunc", "hot" };
	for (size_t i = 0; i < sizeof(numbered) / sizeof(numbered[0]); i++) {
		size_t n = strlen(numbered[i]);
		if (!strncmp(p, numbered[i], n) && p[n] == '.' && p[n + 1] >= '0' && p[n + 1] <= '9')
			return true;
	}
	for (size_t i = 0; i < sizeof(alone) / sizeof(alone[0]); i++) {
		size_t n = strlen(alone[i]);
		if (!strncmp(p, alone[i], n) && (!p[n] || p[n] == '.'))
			return true;
	}
	return false;
}

/* Length of the identifier that starts a C clone name (`field` of
 * `field.constprop.0`), or 0 if `name` is not one: an identifier, then only
 * groups of `.` + letters/digits/underscores, each group that does not
 * start with a digit one of GCC's clone suffixes (sym_clone_word). */
static size_t sym_clone_base(const char *name)
{
	size_t n = 0;

	while (name[n] == '_' || name[n] == '$' || (name[n] >= 'a' && name[n] <= 'z') ||
	       (name[n] >= 'A' && name[n] <= 'Z') || (n && name[n] >= '0' && name[n] <= '9'))
		n++;
	if (!n || name[n] != '.')
		return 0;
	for (const char *p = name + n; *p; p++) {
		if (*p == '.' && p[1] && !(p[1] >= '0' && p[1] <= '9') && !sym_clone_word(p + 1))
			return 0;
		if (*p == '.' ? !p[1] || p[1] == '.' :
		    !(*p == '_' || (*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
		      (*p >= '0' && *p <= '9')))
			return 0;
	}
	return n;
}

/* `base [clone .a.1] [clone .b]` for the C clone name `name` (base length
 * `n`): a group starts at each `.` followed by a non-digit, as
 * cplus_demangle groups them.  malloc'd; NULL when out of memory. */
static char *sym_clone_display(const char *name, size_t n)
{
	size_t len = strlen(name), cap = len * 6 + 16, o = 0;
	char *out = malloc(cap);

	if (!out)
		return NULL;
	memcpy(out, name, n);
	out[n] = 0;              /* a name with no groups is its base alone */
	o = n;
	for (const char *p = name + n; *p;) {
		const char *q = p + 1;
		while (*q && !(*q == '.' && !(q[1] >= '0' && q[1] <= '9')))
			q++;
		o += (size_t)snprintf(out + o, cap - o, " [clone %.*s]", (int)(q - p), p);
		p = q;
	}
	return out;
}

/* gfortran's shared body of a procedure with ENTRY points is
 * `master.N.NAME` (then perhaps GCC's clone groups), NAME being the
 * procedure's own symbol; each entry is a stub that tail-calls it.  Shown
 * `NAME [entry master] [clone ...]`: the procedure the user wrote, marked.
 * malloc'd; NULL if `name` is not one (or out of memory). */
static char *sym_fortran_master(const char *name)
{
	const char *p = name + 7;

	if (strncmp(name, "master.", 7) || !(*p >= '0' && *p <= '9'))
		return NULL;
	while (*p >= '0' && *p <= '9')
		p++;
	if (*p != '.')
		return NULL;
	size_t n = sym_clone_base(p + 1);     /* NAME, clone groups after it */
	if (!n && !p[1])
		return NULL;
	if (!n)                               /* NAME without clone groups */
		n = strlen(p + 1);
	char *rest = sym_clone_display(p + 1, n);
	if (!rest)
		return NULL;
	size_t len = strlen(rest) + sizeof(" [entry master]");
	char *out = malloc(len);
	if (out)
		snprintf(out, len, "%.*s [entry master]%s", (int)n, rest, rest + n);
	free(rest);
	return out;
}

/* Demangled `name`, or `name` itself if it is not a mangled C++/Rust name
 * (or cannot be demangled) nor a C clone name.  The result lives until
 * sym_objects_free. */
const char *sym_demangle(const char *name)
{
	struct sym_dem_entry *e;
	size_t clone = 0;

	if (!name)
		return name;
	if (name[0] != '_' || (name[1] != 'Z' && name[1] != 'R')) {
		clone = strchr(name, '.') ? sym_clone_base(name) : 0;
		if (!clone && strncmp(name, "master.", 7))
			return name;
	}
	if (sym_dem_cap) {
		e = sym_dem_slot(sym_dem_tab, sym_dem_cap, name);
		if (e->key)
			return e->val ? e->val : name;
	}
	if (!sym_dem_grow())
		return name;
	e = sym_dem_slot(sym_dem_tab, sym_dem_cap, name);
	e->key = strdup(name);
	if (!e->key)
		return name;
	e->val = sym_fortran_master(name);
	if (!e->val)
		e->val = clone ? sym_clone_display(name, clone) :
				 cplus_demangle(name, DMGL_PARAMS | DMGL_ANSI);
	sym_dem_n++;
	return e->val ? e->val : name;
}

/* Drop the cache (sym_objects_free). */
void sym_demangle_free(void)
{
	for (size_t i = 0; i < sym_dem_cap; i++) {
		free(sym_dem_tab[i].key);
		free(sym_dem_tab[i].val);
	}
	free(sym_dem_tab);
	sym_dem_tab = NULL;
	sym_dem_cap = sym_dem_n = 0;
}
