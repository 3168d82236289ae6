/* SPDX-License-Identifier: MIT
 *
 * col_elfsym.c — a name's definition in one loaded object (col_elfsym.h):
 * the object's dynamic section gives its symbol and string tables and a
 * hash table (GNU's, else SysV's), searched as the loader searches them
 * for an unversioned dlsym: the first defined function or data symbol of
 * that name that is not a hidden version (glibc's check_match passes a
 * hidden one over even when it is the name's only version: dlsym of a
 * name defined only as name@VER fails, glibc 2.36, test_col_elfsym).
 *
 * The dynamic section's addresses are absolute where the loader relocated
 * them in place (glibc, a writable dynamic section) and offsets from the
 * load base elsewhere (musl, glibc's vDSO): an address below the base is
 * an offset.  Normal context.
 */
#include <elf.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "collector/col_elfsym.h"

#define BLOOM_BITS (8 * sizeof(ElfW(Addr)))

/* The tables of one object, from its dynamic section. */
struct dyn_tables {
	const ElfW(Sym) *symtab;
	const char *strtab;
	const ElfW(Versym) *versym;     /* NULL: no versions */
	const uint32_t *gnu_hash;
	const ElfW(Word) *sysv_hash;
};

static const void *dyn_address(ElfW(Addr) base, ElfW(Addr) p)
{
	return (const void *)(p < base ? p + base : p);
}

static bool read_tables(ElfW(Addr) base, const ElfW(Dyn) *dynamic, struct dyn_tables *t)
{
	memset(t, 0, sizeof(*t));
	if (!dynamic)
		return false;
	for (const ElfW(Dyn) *d = dynamic; d->d_tag != DT_NULL; d++) {
		switch (d->d_tag) {
		case DT_SYMTAB: t->symtab = dyn_address(base, d->d_un.d_ptr); break;
		case DT_STRTAB: t->strtab = dyn_address(base, d->d_un.d_ptr); break;
		case DT_VERSYM: t->versym = dyn_address(base, d->d_un.d_ptr); break;
		case DT_GNU_HASH: t->gnu_hash = dyn_address(base, d->d_un.d_ptr); break;
		case DT_HASH: t->sysv_hash = dyn_address(base, d->d_un.d_ptr); break;
		}
	}
	return t->symtab && t->strtab && (t->gnu_hash || t->sysv_hash);
}

/* Symbol i, named `name`: the address dlsym would take, or NULL when it is
 * not a definition dlsym accepts without a version. */
static void *definition(ElfW(Addr) base, const struct dyn_tables *t, uint32_t i, const char *name)
{
	const ElfW(Sym) *s = &t->symtab[i];
	unsigned type = ELF64_ST_TYPE(s->st_info), bind = ELF64_ST_BIND(s->st_info);

	if (s->st_shndx == SHN_UNDEF || s->st_value == 0 || strcmp(t->strtab + s->st_name, name))
		return NULL;
	if (type != STT_FUNC && type != STT_GNU_IFUNC && type != STT_OBJECT && type != STT_NOTYPE)
		return NULL;
	if (bind != STB_GLOBAL && bind != STB_WEAK && bind != STB_GNU_UNIQUE)
		return NULL;
	if (t->versym && (t->versym[i] & 0x8000))
		return NULL;            /* name@VER: only a versioned lookup takes it */
	ElfW(Addr) at = s->st_shndx == SHN_ABS ? s->st_value : base + s->st_value;
	if (type == STT_GNU_IFUNC)      /* as the loader does for dlsym: no arguments */
		at = ((ElfW(Addr)(*)(void))at)();
	return (void *)at;
}

static uint32_t gnu_hash_of(const char *name)
{
	uint32_t h = 5381;

	for (const unsigned char *c = (const unsigned char *)name; *c; c++)
		h = h * 33 + *c;
	return h;
}

static void *gnu_lookup(ElfW(Addr) base, const struct dyn_tables *t, const char *name)
{
	const uint32_t *h = t->gnu_hash;
	uint32_t nbuckets = h[0], symoffset = h[1], bloom_size = h[2], bloom_shift = h[3];
	const ElfW(Addr) *bloom = (const ElfW(Addr) *)(const void *)&h[4];
	const uint32_t *buckets = (const uint32_t *)(const void *)&bloom[bloom_size];
	const uint32_t *chain = &buckets[nbuckets];
	uint32_t hash = gnu_hash_of(name);

	if (!nbuckets || !bloom_size)
		return NULL;
	ElfW(Addr) word = bloom[(hash / BLOOM_BITS) % bloom_size];
	ElfW(Addr) mask = ((ElfW(Addr))1 << (hash % BLOOM_BITS)) | ((ElfW(Addr))1 << ((hash >> bloom_shift) % BLOOM_BITS));
	if ((word & mask) != mask)
		return NULL;
	uint32_t i = buckets[hash % nbuckets];
	if (i < symoffset)
		return NULL;
	for (;; i++) {
		uint32_t link = chain[i - symoffset];
		void *p = (link | 1) == (hash | 1) ? definition(base, t, i, name) : NULL;
		if (p)
			return p;
		if (link & 1)
			return NULL;
	}
}

static uint32_t sysv_hash_of(const char *name)
{
	uint32_t h = 0;

	for (const unsigned char *c = (const unsigned char *)name; *c; c++) {
		h = (h << 4) + *c;
		uint32_t g = h & 0xf0000000u;
		h ^= g >> 24;
		h &= ~g;
	}
	return h;
}

static void *sysv_lookup(ElfW(Addr) base, const struct dyn_tables *t, const char *name)
{
	const ElfW(Word) *h = t->sysv_hash;
	ElfW(Word) nbucket = h[0], nchain = h[1];
	const ElfW(Word) *bucket = &h[2], *chain = &bucket[nbucket];

	if (!nbucket)
		return NULL;
	/* At most nchain steps: a damaged chain does not loop. */
	ElfW(Word) i = bucket[sysv_hash_of(name) % nbucket];
	for (ElfW(Word) steps = 0; i != STN_UNDEF && i < nchain && steps < nchain; i = chain[i], steps++) {
		void *p = definition(base, t, i, name);
		if (p)
			return p;
	}
	return NULL;
}

void *col_elfsym_lookup_at(ElfW(Addr) base, const ElfW(Dyn) *dynamic, const char *name)
{
	struct dyn_tables t;

	if (!read_tables(base, dynamic, &t))
		return NULL;
	return t.gnu_hash ? gnu_lookup(base, &t, name) : sysv_lookup(base, &t, name);
}

void *col_elfsym_lookup(const struct link_map *l, const char *name)
{
	return col_elfsym_lookup_at(l->l_addr, l->l_ld, name);
}
