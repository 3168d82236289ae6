/* SPDX-License-Identifier: MIT
 *
 * sym_data.c — data objects of an ELF file, for dataspace profiling
 * (docs/dataspace.md): its loadable segments (which addresses are the
 * file's at all) and its data symbols (STT_OBJECT, and STT_TLS / sized
 * STT_NOTYPE in a non-executable section), from .symtab, else .dynsym.
 * Opened once per path, kept until sym_data_free_all.  Read by the model
 * (model_dataspace.c), never in the collector.
 */
#include <gelf.h>
#include <stdlib.h>
#include <string.h>

#include "symbols/sym_int.h"

struct sym_data_seg {
	uint64_t vaddr, memsz;
};

struct sym_data {
	char *path;
	bool ok;                          /* the file was read */
	struct sym_data_seg *segs;        /* PT_LOAD */
	size_t nsegs;
	struct sym_data_sym *syms;        /* sorted by start */
	size_t nsyms;
	struct sym_arena arena;           /* names */
	struct sym_data *next;
};

static struct sym_data *cache;

static int cmp_sym(const void *a, const void *b)
{
	const struct sym_data_sym *x = a, *y = b;

	return x->start < y->start ? -1 : x->start > y->start;
}

static void read_segments(struct sym_data *d, Elf *elf)
{
	size_t n;

	if (elf_getphdrnum(elf, &n) != 0 || !(d->segs = calloc(n + 1, sizeof(*d->segs))))
		return;
	for (size_t i = 0; i < n; i++) {
		GElf_Phdr ph;
		if (gelf_getphdr(elf, (int)i, &ph) && ph.p_type == PT_LOAD && ph.p_memsz)
			d->segs[d->nsegs++] = (struct sym_data_seg){ ph.p_vaddr, ph.p_memsz };
	}
}

/* Is section `ndx` of the file allocated and not executable? */
static bool data_section(Elf *elf, size_t ndx)
{
	GElf_Shdr sh;
	Elf_Scn *scn = elf_getscn(elf, ndx);

	return scn && gelf_getshdr(scn, &sh) && (sh.sh_flags & SHF_ALLOC) && !(sh.sh_flags & SHF_EXECINSTR);
}

static void read_symbols(struct sym_data *d, Elf *elf)
{
	GElf_Shdr sh;
	Elf_Scn *scn = sym_elf_section_type(elf, SHT_SYMTAB, &sh);

	if (!scn)
		scn = sym_elf_section_type(elf, SHT_DYNSYM, &sh);
	Elf_Data *data = scn ? elf_getdata(scn, NULL) : NULL;
	if (!data || !sh.sh_entsize)
		return;
	size_t n = sh.sh_size / sh.sh_entsize;
	d->syms = calloc(n + 1, sizeof(*d->syms));
	for (size_t i = 0; d->syms && i < n; i++) {
		GElf_Sym s;
		if (!gelf_getsym(data, (int)i, &s) || !s.st_size || s.st_shndx == SHN_UNDEF ||
		    s.st_shndx >= SHN_LORESERVE)
			continue;
		int type = GELF_ST_TYPE(s.st_info);
		if (type != STT_OBJECT && !(type == STT_NOTYPE && data_section(elf, s.st_shndx)))
			continue;
		const char *name = elf_strptr(elf, sh.sh_link, s.st_name);
		if (!name || !*name)
			continue;
		d->syms[d->nsyms++] = (struct sym_data_sym){
			.name = sym_arena_strdup(&d->arena, sym_demangle(name)), .start = s.st_value,
			.size = s.st_size, .local = GELF_ST_BIND(s.st_info) == STB_LOCAL,
		};
	}
	if (d->nsyms)
		qsort(d->syms, d->nsyms, sizeof(*d->syms), cmp_sym);
}

const struct sym_data *sym_data_get(const char *path)
{
	char err[256];
	struct sym_data *d;

	for (d = cache; d; d = d->next)
		if (!strcmp(d->path, path))
			return d->ok ? d : NULL;
	d = calloc(1, sizeof(*d));
	if (!d || !(d->path = strdup(path))) {
		free(d);
		return NULL;
	}
	d->next = cache;
	cache = d;
	Elf *elf = sym_elf_open(path, err, sizeof(err));
	if (!elf)
		return NULL;
	read_segments(d, elf);
	read_symbols(d, elf);
	elf_end(elf);
	d->ok = true;
	return d;
}

bool sym_data_contains(const struct sym_data *d, uint64_t vaddr)
{
	for (size_t i = 0; i < d->nsegs; i++)
		if (vaddr - d->segs[i].vaddr < d->segs[i].memsz)
			return true;
	return false;
}

const struct sym_data_sym *sym_data_lookup(const struct sym_data *d, uint64_t vaddr)
{
	size_t lo = 0, hi = d->nsyms;

	while (lo < hi) {                  /* the last symbol starting at or before vaddr */
		size_t mid = (lo + hi) / 2;
		if (d->syms[mid].start <= vaddr)
			lo = mid + 1;
		else
			hi = mid;
	}
	/* Symbols may nest (a struct and its alias): look back a little. */
	for (size_t i = lo, k = 0; i-- > 0 && k < 8; k++)
		if (vaddr - d->syms[i].start < d->syms[i].size)
			return &d->syms[i];
	return NULL;
}

void sym_data_free_all(void)
{
	while (cache) {
		struct sym_data *d = cache;
		cache = d->next;
		free(d->path);
		free(d->segs);
		free(d->syms);
		sym_arena_free(&d->arena);
		free(d);
	}
}
