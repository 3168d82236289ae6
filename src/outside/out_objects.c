/* SPDX-License-Identifier: MIT
 *
 * out_objects.c — mappings and loaded object files (out_objects.h).
 *
 * A file is read whole with pread and laid out as its PT_LOAD segments
 * (file bytes at their virtual addresses, the rest zero); its
 * .eh_frame_hdr search table is checked as the collector checks a loaded
 * object's (col_objects.c).  Snapshots for the unwinder are never freed
 * while tally runs (the unwinder's cache is keyed by their generation);
 * there are as many as a process changes its mappings.
 */
#include <elf.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/stat.h>
#include <unistd.h>

#include "format/elf_peek.h"
#include "outside/out_debugframe.h"
#include "outside/out_ehindex.h"
#include "outside/out_objects.h"

#define MAX_FILE_BYTES (1ull << 31)   /* larger objects are not loaded (no CFI) */

static struct out_file **files;      /* every file loaded, shared */
static size_t nfiles, cap_files;
static uint64_t generation;

/* Check .eh_frame_hdr at vaddr `hv` (as col_objects.c does). */
static void find_eh_frame_hdr(struct out_file *f, const Elf64_Phdr *ph, int n)
{
	for (int i = 0; i < n; i++) {
		if (ph[i].p_type != PT_GNU_EH_FRAME || ph[i].p_memsz < 12)
			continue;
		uint64_t hv = ph[i].p_vaddr;
		if (hv < f->lo_vaddr || hv - f->lo_vaddr + 12 > f->size)
			return;
		const uint8_t *h = f->image + (hv - f->lo_vaddr);
		if (h[0] != 1 || h[2] != 0x03 || h[3] != 0x3b)
			return;
		int32_t rel;
		memcpy(&rel, h + 4, 4);
		uint64_t eh_frame;
		if (h[1] == 0x1b)
			eh_frame = hv + 4 + (uint64_t)(int64_t)rel;
		else if (h[1] == 0x3b)
			eh_frame = hv + (uint64_t)(int64_t)rel;
		else
			return;
		uint32_t count;
		memcpy(&count, h + 8, 4);
		if ((uint64_t)count * 8 > ph[i].p_memsz - 12 || hv - f->lo_vaddr + 12 + (uint64_t)count * 8 > f->size)
			return;
		for (int j = 0; j < n; j++) {
			uint64_t lo = ph[j].p_vaddr, hi = lo + ph[j].p_memsz;
			if (ph[j].p_type == PT_LOAD && (ph[j].p_flags & PF_R) && eh_frame >= lo && eh_frame < hi &&
			    hv >= lo && hv < hi) {
				f->ro_lo_vaddr = lo;
				f->ro_hi_vaddr = hi;
			}
		}
		if (f->ro_hi_vaddr && f->ro_hi_vaddr - f->lo_vaddr <= f->size) {
			f->eh_hdr_vaddr = hv;
			f->fde_count = count;
		}
		return;
	}
}

static void find_build_id(struct out_file *f, const Elf64_Phdr *ph, int n)
{
	for (int i = 0; i < n && !f->build_id_len; i++) {
		if (ph[i].p_type != PT_NOTE || ph[i].p_vaddr < f->lo_vaddr ||
		    ph[i].p_vaddr - f->lo_vaddr + ph[i].p_memsz > f->size)
			continue;
		size_t len = elf_notes_build_id(f->image + (ph[i].p_vaddr - f->lo_vaddr), ph[i].p_memsz,
						f->build_id, EXP_BUILD_ID_MAX);
		f->build_id_len = (uint8_t)(len < EXP_BUILD_ID_MAX ? len : EXP_BUILD_ID_MAX);
	}
}

/* Order of two search-table pairs: by their first sdata4 (the location). */
static int by_loc32(const void *a, const void *b)
{
	int32_t x, y;

	memcpy(&x, a, 4);
	memcpy(&y, b, 4);
	return x < y ? -1 : x > y;
}

/* Merge two search tables made for the same header address (12 bytes of
 * header, then sorted (loc, fde) pairs of sdata4): `a`'s header with the
 * sum of the counts.  Frees both; NULL if out of memory. */
static uint8_t *merge_tables(uint8_t *a, uint32_t na, uint8_t *b, uint32_t nb, uint64_t *len)
{
	*len = 12 + 8 * ((uint64_t)na + nb);
	uint8_t *t = malloc(*len);
	if (t) {
		uint32_t n = na + nb;
		memcpy(t, a, 12);
		memcpy(t + 8, &n, 4);
		memcpy(t + 12, a + 12, 8 * (size_t)na);
		memcpy(t + 12 + 8 * (size_t)na, b + 12, 8 * (size_t)nb);
		qsort(t + 12, n, 8, by_loc32);
	}
	free(a);
	free(b);
	return t;
}

/* The .debug_frame `sh` of an object (`gnu`: a GNU `.zdebug_frame`), in
 * .eh_frame's form for virtual address `cv` (out_debugframe.c): NULL when
 * it cannot be read or holds no FDE. */
static uint8_t *debug_frame_copy(int fd, const Elf64_Shdr *sh, int gnu, uint64_t cv, uint64_t *len)
{
	uint64_t rawlen;
	uint8_t *raw = out_debugframe_read(fd, sh, gnu, &rawlen);
	if (!raw)
		return NULL;
	uint8_t *conv = out_debugframe_convert(raw, rawlen, cv, len);
	free(raw);
	return conv;
}

/* No .eh_frame_hdr (a static executable linked by GCC), or a .debug_frame
 * beside it (code with CFI for debuggers only): make the search table from
 * .eh_frame, found by the section headers, and from .debug_frame (copied in
 * .eh_frame's form), and put the copy and the table just past the image, at
 * virtual addresses the program does not use: the unwinder reads them here
 * only.  With a linker's table and no .debug_frame, nothing changes. */
static void index_eh_frame(struct out_file *f, int fd, const Elf64_Ehdr *eh, const Elf64_Phdr *ph)
{
	if (eh->e_shentsize != sizeof(Elf64_Shdr) || eh->e_shnum == 0 || eh->e_shnum > 4096 ||
	    eh->e_shstrndx >= eh->e_shnum)
		return;
	size_t bytes = (size_t)eh->e_shnum * sizeof(Elf64_Shdr);
	Elf64_Shdr *sh = malloc(bytes);
	char names[16384];
	if (!sh || pread(fd, sh, bytes, (off_t)eh->e_shoff) != (ssize_t)bytes) {
		free(sh);
		return;
	}
	const Elf64_Shdr *str = &sh[eh->e_shstrndx];
	size_t nlen = str->sh_size < sizeof(names) - 1 ? str->sh_size : sizeof(names) - 1;
	ssize_t got = pread(fd, names, nlen, (off_t)str->sh_offset);
	names[got > 0 ? got : 0] = 0;
	int ie = -1, id = -1, gnu = 0;
	for (int i = 0; i < eh->e_shnum; i++) {
		if (sh[i].sh_name >= (uint64_t)(got > 0 ? got : 0))
			continue;
		if (id < 0 && (!strcmp(names + sh[i].sh_name, ".debug_frame") ||
			       !strcmp(names + sh[i].sh_name, ".zdebug_frame"))) {
			id = i;
			gnu = names[sh[i].sh_name + 1] == 'z';
		}
		if (strcmp(names + sh[i].sh_name, ".eh_frame") || ie >= 0 ||
		    !sh[i].sh_addr || sh[i].sh_addr < f->lo_vaddr ||
		    sh[i].sh_addr - f->lo_vaddr + sh[i].sh_size > f->size)
			continue;
		ie = i;
	}
	uint64_t clen = 0, len = 0, len2 = 0;
	uint64_t cv = (f->lo_vaddr + f->size + 15) & ~15ull;         /* the copy */
	uint8_t *conv = id >= 0 ? debug_frame_copy(fd, &sh[id], gnu, cv, &clen) : NULL;
	if (f->eh_hdr_vaddr && !conv) {    /* the linker's table serves */
		free(sh);
		return;
	}
	uint64_t hdr = (cv + clen + 15) & ~15ull;                     /* the table */
	uint32_t count = 0, count2 = 0;
	uint8_t *t = ie >= 0 ? out_ehindex_build(f->image + (sh[ie].sh_addr - f->lo_vaddr),
						  sh[ie].sh_size, sh[ie].sh_addr, hdr, &len, &count)
			     : NULL;
	uint8_t *t2 = conv ? out_ehindex_build(conv, clen, cv, hdr, &len2, &count2) : NULL;
	if (t && t2) {
		t = merge_tables(t, count, t2, count2, &len);
		count += count2;
	} else if (t2) {
		t = t2;
		len = len2;
		count = count2;
	}
	uint8_t *grown = t ? realloc(f->image, hdr - f->lo_vaddr + len) : NULL;
	if (!grown) {
		free(t);
		free(conv);
		free(sh);
		return;
	}
	f->image = grown;
	memset(f->image + f->size, 0, hdr - f->lo_vaddr - f->size);
	if (conv)
		memcpy(f->image + (cv - f->lo_vaddr), conv, clen);
	memcpy(f->image + (hdr - f->lo_vaddr), t, len);
	free(t);
	free(conv);
	f->ro_lo_vaddr = cv;
	for (int j = 0; ie >= 0 && j < eh->e_phnum; j++)
		if (ph[j].p_type == PT_LOAD && sh[ie].sh_addr >= ph[j].p_vaddr &&
		    sh[ie].sh_addr < ph[j].p_vaddr + ph[j].p_memsz)
			f->ro_lo_vaddr = ph[j].p_vaddr;
	f->ro_hi_vaddr = hdr + len;
	f->size = hdr - f->lo_vaddr + len;
	f->eh_hdr_vaddr = hdr;
	f->fde_count = count;
	free(sh);
}

/* Lay out the PT_LOAD segments of the ELF file `fd`; 0 or -1. */
static int load_file(struct out_file *f, int fd)
{
	Elf64_Ehdr eh;
	struct stat st;

	if (fstat(fd, &st) != 0 || pread(fd, &eh, sizeof(eh), 0) != (ssize_t)sizeof(eh) ||
	    memcmp(eh.e_ident, ELFMAG, SELFMAG) || eh.e_ident[EI_CLASS] != ELFCLASS64 ||
	    eh.e_phentsize != sizeof(Elf64_Phdr) || eh.e_phnum == 0 || eh.e_phnum > 512)
		return -1;
	Elf64_Phdr ph[512];
	size_t phbytes = (size_t)eh.e_phnum * sizeof(Elf64_Phdr);
	if (pread(fd, ph, phbytes, (off_t)eh.e_phoff) != (ssize_t)phbytes)
		return -1;
	uint64_t lo = UINT64_MAX, hi = 0;
	for (int i = 0; i < eh.e_phnum; i++) {
		if (ph[i].p_type != PT_LOAD)
			continue;
		if (ph[i].p_vaddr < lo)
			lo = ph[i].p_vaddr & ~0xfffull;
		if (ph[i].p_vaddr + ph[i].p_memsz > hi)
			hi = ph[i].p_vaddr + ph[i].p_memsz;
	}
	if (lo >= hi || hi - lo > MAX_FILE_BYTES)
		return -1;
	f->image = calloc(1, hi - lo);
	if (!f->image)
		return -1;
	f->mem_owned = 1;
	f->lo_vaddr = lo;
	f->size = hi - lo;
	for (int i = 0; i < eh.e_phnum; i++) {
		if (ph[i].p_type != PT_LOAD || !ph[i].p_filesz)
			continue;
		uint64_t n = ph[i].p_filesz < ph[i].p_memsz ? ph[i].p_filesz : ph[i].p_memsz;
		if (ph[i].p_offset + n > (uint64_t)st.st_size ||
		    pread(fd, f->image + (ph[i].p_vaddr - lo), n, (off_t)ph[i].p_offset) != (ssize_t)n)
			return -1;
	}
	find_eh_frame_hdr(f, ph, eh.e_phnum);
	index_eh_frame(f, fd, &eh, ph);    /* no table, or a .debug_frame to add */
	find_build_id(f, ph, eh.e_phnum);
	return 0;
}

/* tally's own vDSO stands for the target's: one kernel, one vDSO. */
static int load_vdso(struct out_file *f)
{
	const uint8_t *base = (const uint8_t *)getauxval(AT_SYSINFO_EHDR);
	if (!base)
		return -1;
	const Elf64_Ehdr *eh = (const Elf64_Ehdr *)base;
	const Elf64_Phdr *ph = (const Elf64_Phdr *)(base + eh->e_phoff);
	uint64_t hi = 0;
	for (int i = 0; i < eh->e_phnum; i++)
		if (ph[i].p_type == PT_LOAD && ph[i].p_vaddr + ph[i].p_memsz > hi)
			hi = ph[i].p_vaddr + ph[i].p_memsz;
	f->image = (uint8_t *)base;
	f->lo_vaddr = 0;
	f->size = hi;
	find_eh_frame_hdr(f, ph, eh->e_phnum);
	find_build_id(f, ph, eh->e_phnum);
	return 0;
}

static struct out_file *file_get(const char *path, uint64_t dev, uint64_t ino)
{
	int vdso = !strcmp(path, "[vdso]");

	for (size_t i = 0; i < nfiles; i++)
		if (!strcmp(files[i]->path, path) && files[i]->dev == dev && files[i]->ino == ino)
			return files[i];
	if (nfiles == cap_files) {
		size_t cap = cap_files ? 2 * cap_files : 16;
		struct out_file **t = realloc(files, cap * sizeof(*t));
		if (!t)
			return NULL;
		files = t;
		cap_files = cap;
	}
	struct out_file *f = calloc(1, sizeof(*f));
	if (!f || !(f->path = strdup(path))) {
		free(f);
		return NULL;
	}
	f->dev = dev;
	f->ino = ino;
	int rc = -1;
	if (vdso) {
		rc = load_vdso(f);
	} else if (path[0] == '/') {
		int fd = open(path, O_RDONLY | O_CLOEXEC);
		struct stat st;
		/* The file at that path now must be the one mapped. */
		if (fd >= 0 && fstat(fd, &st) == 0 && (!ino || ((uint64_t)st.st_ino == ino)))
			rc = load_file(f, fd);
		if (fd >= 0)
			close(fd);
	}
	if (rc != 0 && f->mem_owned) {
		free(f->image);
		f->image = NULL;
		f->size = 0;
	}
	files[nfiles++] = f;
	return f;
}

const struct out_map *out_objects_add(struct out_objects *o, const char *path, uint64_t start,
				      uint64_t len, uint64_t pgoff, uint64_t dev, uint64_t ino)
{
	for (uint32_t i = 0; i < o->n; i++)
		if (o->maps[i].start == start && o->maps[i].end == start + len &&
		    !strcmp(o->maps[i].path, path))
			return NULL;
	if (o->n == o->cap) {
		uint32_t cap = o->cap ? 2 * o->cap : 16;
		struct out_map *t = realloc(o->maps, cap * sizeof(*t));
		if (!t)
			return NULL;
		o->maps = t;
		o->cap = cap;
	}
	struct out_map *m = &o->maps[o->n];
	memset(m, 0, sizeof(*m));
	if (!(m->path = strdup(path)))
		return NULL;
	m->start = start;
	m->end = start + len;
	m->file = file_get(path, dev, ino);
	if (!strcmp(path, "[vdso]")) {
		m->flags = EXP_MAP_VDSO;
	} else if (path[0] == '/' && !o->have_main) {
		m->flags = EXP_MAP_MAIN;
		o->have_main = 1;
	}
	/* bias: the segment holding file offset pgoff maps its vaddr at start.
	 * Segments are page-aligned; a file laid out by vaddr has offset and
	 * vaddr congruent, so vaddr = pgoff + (p_vaddr - p_offset) of the
	 * PT_LOAD that holds it.  Without the file: bias start - pgoff (true of
	 * every object linked with its text at the file offset it has). */
	m->bias = start - pgoff;
	if (m->file && m->file->image && m->file->mem_owned) {
		int fd = open(path, O_RDONLY | O_CLOEXEC);
		Elf64_Ehdr eh;
		Elf64_Phdr ph[512];
		if (fd >= 0 && pread(fd, &eh, sizeof(eh), 0) == (ssize_t)sizeof(eh) && eh.e_phnum <= 512 &&
		    pread(fd, ph, eh.e_phnum * sizeof(*ph), (off_t)eh.e_phoff) == (ssize_t)(eh.e_phnum * sizeof(*ph)))
			for (int i = 0; i < eh.e_phnum; i++)
				if (ph[i].p_type == PT_LOAD && pgoff >= (ph[i].p_offset & ~0xfffull) &&
				    pgoff < ph[i].p_offset + ph[i].p_filesz)
					m->bias = start - (pgoff + ph[i].p_vaddr - ph[i].p_offset);
		if (fd >= 0)
			close(fd);
	} else if (m->flags & EXP_MAP_VDSO) {
		m->bias = start;
	}
	o->n++;
	o->dirty = 1;
	return m;
}

int out_objects_copy(struct out_objects *dst, const struct out_objects *src)
{
	memset(dst, 0, sizeof(*dst));
	if (!src->n)
		return 0;
	dst->maps = calloc(src->n, sizeof(*dst->maps));
	if (!dst->maps)
		return -1;
	for (uint32_t i = 0; i < src->n; i++) {
		dst->maps[i] = src->maps[i];
		dst->maps[i].path = strdup(src->maps[i].path);
		if (!dst->maps[i].path)
			return -1;
		dst->n++;
	}
	dst->cap = src->n;
	dst->have_main = src->have_main;
	dst->dirty = 1;
	return 0;
}

static int by_start(const void *a, const void *b)
{
	const struct col_object *x = a, *y = b;

	return x->text_lo < y->text_lo ? -1 : x->text_lo > y->text_lo;
}

const struct col_object_set *out_objects_set(struct out_objects *o)
{
	if (!o->dirty && o->set)
		return o->set;
	struct col_object_set *s = calloc(1, sizeof(*s) + (o->n ? o->n : 1) * sizeof(struct col_object));
	if (!s)
		return o->set;
	s->generation = ++generation;
	for (uint32_t i = 0; i < o->n; i++) {
		const struct out_map *m = &o->maps[i];
		struct col_object *c = &s->obj[s->n];
		memset(c, 0, sizeof(*c));
		c->text_lo = m->start;
		c->text_hi = m->end;
		c->bias = m->bias;
		const struct out_file *f = m->file;
		if (!f || !f->image) {
			c->text_hi = c->text_lo;       /* nothing readable: fp only */
		} else {
			/* runtime A = vaddr + bias is read at image + vaddr - lo */
			c->mem_delta = (int64_t)((uint64_t)(uintptr_t)f->image - f->lo_vaddr - m->bias);
			/* the code bytes must be there too (return addresses,
			 * the signal trampoline) */
			if (m->start - m->bias < f->lo_vaddr || m->end - m->bias > f->lo_vaddr + f->size) {
				c->mem_delta = 0;
				c->text_hi = c->text_lo;     /* nothing readable: fp only */
			} else if (f->eh_hdr_vaddr) {
				c->ro_lo = f->ro_lo_vaddr + m->bias;
				c->ro_hi = f->ro_hi_vaddr + m->bias;
				c->eh_hdr = f->image + (f->eh_hdr_vaddr - f->lo_vaddr);
				c->fde_table = c->eh_hdr + 12;
				c->fde_count = f->fde_count;
			}
		}
		s->n++;
	}
	qsort(s->obj, s->n, sizeof(s->obj[0]), by_start);
	o->set = s;   /* the old one stays allocated: see the file comment */
	o->dirty = 0;
	return s;
}

void out_objects_free(struct out_objects *o)
{
	for (uint32_t i = 0; i < o->n; i++)
		free(o->maps[i].path);
	free(o->maps);
	memset(o, 0, sizeof(*o));
}
