/* SPDX-License-Identifier: MIT
 *
 * sym_elf.c — what the symbolizer reads from ELF headers: the executable
 * sections, the build-id note, and the function symbols of .symtab (or
 * .dynsym when there is no .symtab).  Called by sym_object.c while an object
 * is opened, and by sym_debuglink.c to identify debug files.
 *
 * The files are untrusted.  libelf checks that data lies inside the file and
 * that strings are terminated; this file checks the rest: section indices and
 * sh_link, entry sizes, address ranges that wrap or leave the file, and
 * sections that overlap (the later one is dropped, so that every address
 * belongs to at most one executable section).
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "symbols/sym_int.h"

/* Open `file` as ELF, read into memory (mmap'd), with its descriptor already
 * closed: an analysis of thousands of dlopen'ed libraries does not run out of
 * descriptors.  Returns NULL with `err` set ("file: cause") on failure. */
Elf *sym_elf_open(const char *file, char *err, size_t errlen)
{
	struct stat st;
	Elf *elf;
	int fd;

	if (elf_version(EV_CURRENT) == EV_NONE) {
		snprintf(err, errlen, "%s: libelf: %s", file, elf_errmsg(-1));
		return NULL;
	}
	/* O_NONBLOCK: a FIFO planted at the path must not hang the analyzer */
	fd = open(file, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0) {
		snprintf(err, errlen, "%s: %s", file, strerror(errno));
		return NULL;
	}
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
		snprintf(err, errlen, "%s: not a regular file", file);
		close(fd);
		return NULL;
	}
	elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (!elf || elf_kind(elf) != ELF_K_ELF ||
	    elf_cntl(elf, ELF_C_FDREAD) != 0) {
		snprintf(err, errlen, "%s: not an ELF file%s%s", file,
			 elf ? "" : ": ", elf ? "" : elf_errmsg(-1));
		elf_end(elf);
		close(fd);
		return NULL;
	}
	close(fd);
	return elf;
}

static int sym_xsec_cmp(const void *a, const void *b)
{
	const struct sym_xsec *x = a, *y = b;

	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

/* Append one candidate region if it is sane: non-empty, no wrap, inside the
 * file image of `image_size` bytes. */
static int sym_xsec_add(struct sym_xsec **v, size_t *n, size_t *cap,
			const struct sym_xsec *x, size_t image_size)
{
	if (x->size == 0 || x->addr + x->size < x->addr ||
	    x->offset > image_size || x->size > image_size - x->offset)
		return 0;
	if (*n == *cap) {
		size_t ncap = *cap ? *cap * 2 : 16;
		struct sym_xsec *nv = realloc(*v, ncap * sizeof(*nv));

		if (!nv)
			return -1;
		*v = nv;
		*cap = ncap;
	}
	(*v)[(*n)++] = *x;
	return 0;
}

/* The executable sections of `elf` (SHF_ALLOC + SHF_EXECINSTR, with bytes in
 * the file), sorted by address and disjoint.  A file without section headers
 * gets its executable PT_LOAD segments instead.  *xsecs is malloc'd (NULL if
 * none).  Returns 0, or -1 with `err` set when out of memory. */
int sym_elf_xsecs(Elf *elf, struct sym_xsec **xsecs, size_t *n, char *err,
		  size_t errlen)
{
	struct sym_xsec *v = NULL;
	size_t nv = 0, cap = 0, shstrndx, image_size = 0, phnum, i, j;
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;

	*xsecs = NULL;
	*n = 0;
	if (!elf_rawfile(elf, &image_size))
		return 0;
	if (elf_getshdrstrndx(elf, &shstrndx) != 0)
		shstrndx = SHN_UNDEF;
	while ((scn = elf_nextscn(elf, scn)) != NULL) {
		struct sym_xsec x;
		const char *name;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type == SHT_NOBITS ||
		    (sh.sh_flags & (SHF_ALLOC | SHF_EXECINSTR)) !=
			    (SHF_ALLOC | SHF_EXECINSTR))
			continue;
		name = shstrndx != SHN_UNDEF ?
			       elf_strptr(elf, shstrndx, sh.sh_name) : NULL;
		x.addr = sh.sh_addr;
		x.size = sh.sh_size;
		x.offset = sh.sh_offset;
		x.name = name ? name : "";
		if (sym_xsec_add(&v, &nv, &cap, &x, image_size) < 0)
			goto oom;
	}
	if (nv == 0 && elf_getphdrnum(elf, &phnum) == 0) {
		for (i = 0; i < phnum; i++) {
			GElf_Phdr ph;
			struct sym_xsec x;

			if (!gelf_getphdr(elf, (int)i, &ph) ||
			    ph.p_type != PT_LOAD || !(ph.p_flags & PF_X))
				continue;
			x.addr = ph.p_vaddr;
			x.size = ph.p_filesz;
			x.offset = ph.p_offset;
			x.name = "";
			if (sym_xsec_add(&v, &nv, &cap, &x, image_size) < 0)
				goto oom;
		}
	}
	if (nv > 1)
		qsort(v, nv, sizeof(*v), sym_xsec_cmp);
	for (i = 1, j = 1; i < nv; i++) {        /* drop overlapping ones */
		if (v[i].addr >= v[j - 1].addr + v[j - 1].size)
			v[j++] = v[i];
	}
	*xsecs = v;
	*n = nv ? j : 0;
	return 0;
oom:
	free(v);
	snprintf(err, errlen, "out of memory");
	return -1;
}

/* Index of the section of `xs` (sorted, disjoint) holding `addr`, or -1. */
long sym_elf_xsec_find(const struct sym_xsec *xs, size_t n, uint64_t addr)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {               /* first section starting after addr */
		size_t mid = lo + (hi - lo) / 2;

		if (xs[mid].addr <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == 0 || addr - xs[lo - 1].addr >= xs[lo - 1].size)
		return -1;
	return (long)(lo - 1);
}

/* The first section named `name`, its header in *shdr; NULL if none. */
Elf_Scn *sym_elf_section(Elf *elf, const char *name, GElf_Shdr *shdr)
{
	Elf_Scn *scn = NULL;
	size_t shstrndx;

	if (elf_getshdrstrndx(elf, &shstrndx) != 0)
		return NULL;
	while ((scn = elf_nextscn(elf, scn)) != NULL) {
		const char *n;

		if (!gelf_getshdr(scn, shdr))
			continue;
		n = elf_strptr(elf, shstrndx, shdr->sh_name);
		if (n && strcmp(n, name) == 0)
			return scn;
	}
	return NULL;
}

/* The first section of type `type`, its header in *shdr; NULL if none. */
Elf_Scn *sym_elf_section_type(Elf *elf, uint32_t type, GElf_Shdr *shdr)
{
	Elf_Scn *scn = NULL;

	while ((scn = elf_nextscn(elf, scn)) != NULL) {
		if (gelf_getshdr(scn, shdr) && shdr->sh_type == type)
			return scn;
	}
	return NULL;
}

/* The NT_GNU_BUILD_ID note in `d`, copied to out (at most outlen bytes);
 * returns its length, 0 if there is none. */
static size_t sym_note_build_id(Elf_Data *d, uint8_t *out, size_t outlen)
{
	size_t off = 0, name_off, desc_off, next;
	GElf_Nhdr nh;

	while (d && off < d->d_size &&
	       (next = gelf_getnote(d, off, &nh, &name_off, &desc_off)) > off) {
		if (nh.n_type == NT_GNU_BUILD_ID && nh.n_namesz == 4 &&
		    memcmp((const char *)d->d_buf + name_off, "GNU", 4) == 0 &&
		    nh.n_descsz > 0) {
			size_t len = nh.n_descsz < outlen ? nh.n_descsz : outlen;

			memcpy(out, (const char *)d->d_buf + desc_off, len);
			return len;
		}
		off = next;
	}
	return 0;
}

/* The build-id of `elf` from its note sections (or PT_NOTE segments when it
 * has no section headers), copied to out; returns its length, 0 if none. */
size_t sym_elf_build_id(Elf *elf, uint8_t *out, size_t outlen)
{
	Elf_Scn *scn = NULL;
	size_t len, phnum, i, shnum = 0;
	GElf_Shdr sh;

	while ((scn = elf_nextscn(elf, scn)) != NULL) {
		shnum++;
		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_NOTE)
			continue;
		len = sym_note_build_id(elf_getdata(scn, NULL), out, outlen);
		if (len)
			return len;
	}
	if (shnum || elf_getphdrnum(elf, &phnum) != 0)
		return 0;
	for (i = 0; i < phnum; i++) {
		GElf_Phdr ph;
		Elf_Data *d;

		if (!gelf_getphdr(elf, (int)i, &ph) || ph.p_type != PT_NOTE)
			continue;
		d = elf_getdata_rawchunk(elf, (int64_t)ph.p_offset, ph.p_filesz,
					 ELF_T_NHDR);
		len = sym_note_build_id(d, out, outlen);
		if (len)
			return len;
	}
	return 0;
}

/* Append *r to rv.  Returns 0, or -1 when out of memory. */
int sym_raw_push(struct sym_rawvec *rv, const struct sym_raw *r)
{
	if (rv->n == rv->cap) {
		size_t ncap = rv->cap ? rv->cap * 2 : 256;
		struct sym_raw *nv = realloc(rv->v, ncap * sizeof(*nv));

		if (!nv)
			return -1;
		rv->v = nv;
		rv->cap = ncap;
	}
	rv->v[rv->n++] = *r;
	return 0;
}

static uint8_t sym_bind_rank(unsigned bind)
{
	switch (bind) {
	case STB_GLOBAL:
	case STB_GNU_UNIQUE:
		return SYM_RANK_GLOBAL;
	case STB_WEAK:
		return SYM_RANK_WEAK;
	default:
		return SYM_RANK_LOCAL;
	}
}

/* Append to `out` the function symbols of `elf`'s .symtab, or of its
 * .dynsym if it has no .symtab, that lie in one of the executable sections
 * `xs`: STT_FUNC, STT_GNU_IFUNC, and sized STT_NOTYPE.  Names point into
 * `elf`'s string table, or into `arena` when a version suffix was cut.  Returns the number of symbols appended, 0 when there
 * is no usable table, -1 when out of memory. */
int sym_elf_symbols(Elf *elf, const struct sym_xsec *xs, size_t nxs,
		    struct sym_arena *arena, struct sym_rawvec *out)
{
	GElf_Shdr sh, strsh;
	Elf_Scn *scn, *strscn;
	Elf_Data *d;
	size_t fsize, nsym, i, shnum;
	int added = 0;

	scn = sym_elf_section_type(elf, SHT_SYMTAB, &sh);
	if (!scn)
		scn = sym_elf_section_type(elf, SHT_DYNSYM, &sh);
	if (!scn || elf_getshdrnum(elf, &shnum) != 0 || sh.sh_link == 0 ||
	    sh.sh_link >= shnum)
		return 0;
	strscn = elf_getscn(elf, sh.sh_link);
	if (!strscn || !gelf_getshdr(strscn, &strsh) ||
	    strsh.sh_type != SHT_STRTAB)
		return 0;
	fsize = gelf_fsize(elf, ELF_T_SYM, 1, EV_CURRENT);
	d = elf_getdata(scn, NULL);
	if (!fsize || sh.sh_entsize != fsize || !d || d->d_type != ELF_T_SYM)
		return 0;
	nsym = d->d_size / fsize;
	for (i = 1; i < nsym && i <= INT_MAX; i++) {
		struct sym_raw r;
		GElf_Sym s;
		unsigned type;
		const char *name;
		long k;

		if (!gelf_getsym(d, (int)i, &s))
			break;
		type = GELF_ST_TYPE(s.st_info);
		if (!(type == STT_FUNC || type == STT_GNU_IFUNC ||
		      (type == STT_NOTYPE && s.st_size > 0)))
			continue;
		if (s.st_shndx == SHN_UNDEF || s.st_shndx == SHN_ABS ||
		    s.st_shndx == SHN_COMMON)
			continue;
		k = sym_elf_xsec_find(xs, nxs, s.st_value);
		if (k < 0)
			continue;
		name = elf_strptr(elf, sh.sh_link, s.st_name);
		if (!name || !*name)
			continue;
		/* A symbol-version suffix (memcpy@GLIBC_2.2.5, f@@V2) is not
		 * part of the function's name. */
		const char *at = strchr(name + 1, '@');
		if (at && !(name = sym_arena_printf(arena, "%.*s", (int)(at - name), name)))
			return -1;
		r.addr = s.st_value;
		r.size = s.st_size;
		r.name = name;
		r.xsec = (uint32_t)k;
		r.rank = sym_bind_rank(GELF_ST_BIND(s.st_info));
		if (sym_raw_push(out, &r) < 0)
			return -1;
		added++;
	}
	return added;
}
