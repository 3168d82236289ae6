/* SPDX-License-Identifier: MIT
 *
 * attach_symbol.c — the run-time address, in another process, of a symbol
 * exported by one of its loaded objects: dlopen in its libc, tally__attach in
 * the collector once it is loaded.
 *
 * The ELF file is the one the process mapped: /proc/PID/map_files/ when we
 * may open it (root), else the mapping's path, checked against the mapping's
 * device and inode so a library replaced on disk since (an upgrade) is not
 * trusted.  The load bias comes from the mapping of the first PT_LOAD
 * segment; the symbol from .dynsym, default version (not a hidden one).
 */
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "attach/attach.h"

#define PAGE_MASK_4K (~(uint64_t)0xfff)

/* Open the file behind mapping `m` of process `pid`; -1 with why. */
static int open_mapped(pid_t pid, const struct attach_map *m, char *why, size_t len)
{
	char path[128];
	struct stat st;

	snprintf(path, sizeof(path), "/proc/%d/map_files/%" PRIx64 "-%" PRIx64, (int)pid, m->start,
		 m->end);
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		fd = open(m->path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		snprintf(why, len, "%s: %s", m->path, strerror(errno));
		return -1;
	}
	if (fstat(fd, &st) != 0 || st.st_ino != m->inode || major(st.st_dev) != m->dev_major ||
	    minor(st.st_dev) != m->dev_minor) {
		snprintf(why, len, "%s was replaced on disk since the process loaded it (an upgrade?)",
			 m->path);
		close(fd);
		return -1;
	}
	return fd;
}

/* The object's mapping with the lowest file offset (its first segment). */
static const struct attach_map *first_mapping(const struct attach_maps *maps,
					      const struct attach_map *obj)
{
	const struct attach_map *best = NULL;

	for (size_t i = 0; i < maps->n; i++) {
		const struct attach_map *m = &maps->v[i];
		if (m->inode == obj->inode && m->dev_major == obj->dev_major &&
		    m->dev_minor == obj->dev_minor && !strcmp(m->path, obj->path) &&
		    (!best || m->offset < best->offset))
			best = m;
	}
	return best;
}

static bool bias_of(Elf *elf, const struct attach_map *first, uint64_t *bias)
{
	size_t n;

	if (elf_getphdrnum(elf, &n) != 0)
		return false;
	for (size_t i = 0; i < n; i++) {
		GElf_Phdr ph;
		if (!gelf_getphdr(elf, (int)i, &ph) || ph.p_type != PT_LOAD)
			continue;
		if ((ph.p_offset & PAGE_MASK_4K) != first->offset)
			return false;       /* the first PT_LOAD is not mapped where we look */
		*bias = first->start - (ph.p_vaddr & PAGE_MASK_4K);
		return true;
	}
	return false;
}

static uint64_t lookup(Elf *elf, const char *name)
{
	Elf_Scn *scn = NULL, *dynsym = NULL, *versym = NULL;
	GElf_Shdr sh, dsh = { 0 };

	while ((scn = elf_nextscn(elf, scn)) != NULL) {
		if (!gelf_getshdr(scn, &sh))
			continue;
		if (sh.sh_type == SHT_DYNSYM) {
			dynsym = scn;
			dsh = sh;
		} else if (sh.sh_type == SHT_GNU_versym) {
			versym = scn;
		}
	}
	if (!dynsym || !dsh.sh_entsize)
		return 0;
	Elf_Data *d = elf_getdata(dynsym, NULL);
	Elf_Data *vd = versym ? elf_getdata(versym, NULL) : NULL;
	size_t count = dsh.sh_size / dsh.sh_entsize;
	for (size_t i = 0; d && i < count; i++) {
		GElf_Sym s;
		GElf_Versym v;
		if (!gelf_getsym(d, (int)i, &s) || s.st_shndx == SHN_UNDEF || !s.st_value)
			continue;
		const char *n = elf_strptr(elf, dsh.sh_link, s.st_name);
		if (!n || strcmp(n, name))
			continue;
		if (vd && gelf_getversym(vd, (int)i, &v) && (v & 0x8000))
			continue;           /* a hidden (non-default) version */
		return s.st_value;
	}
	return 0;
}

uint64_t attach_symbol(pid_t pid, const struct attach_maps *maps, const struct attach_map *obj,
		       const char *name, char *why, size_t whylen)
{
	const struct attach_map *first = first_mapping(maps, obj);
	uint64_t bias = 0, value = 0;

	if (!first) {
		snprintf(why, whylen, "%s: no mapping", obj->path);
		return 0;
	}
	int fd = open_mapped(pid, first, why, whylen);
	if (fd < 0)
		return 0;
	elf_version(EV_CURRENT);
	Elf *elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (!elf || elf_kind(elf) != ELF_K_ELF) {
		snprintf(why, whylen, "%s: not an ELF file", obj->path);
	} else if (!bias_of(elf, first, &bias)) {
		snprintf(why, whylen, "%s: its first segment is not where the process mapped it",
			 obj->path);
	} else if (!(value = lookup(elf, name))) {
		snprintf(why, whylen, "%s: no symbol %s", obj->path, name);
	}
	if (elf)
		elf_end(elf);
	close(fd);
	return value ? bias + value : 0;
}
