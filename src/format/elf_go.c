/* SPDX-License-Identifier: MIT
 *
 * elf_go.c — see elf_go.h.  Reads the program headers, the notes and the
 * dynamic string table with pread; for `tally record`, not the collector.
 */
#include <elf.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "format/elf_go.h"
#include "format/elf_peek.h"

#define MAX_PHDRS 128
#define MAX_NOTES 4096
#define MAX_DYNSTR (4u << 20)

static bool read_exact(int fd, void *buf, size_t n, uint64_t off)
{
	for (size_t done = 0; done < n;) {
		ssize_t got = pread(fd, (char *)buf + done, n - done, (off_t)(off + done));
		if (got <= 0)
			return false;
		done += (size_t)got;
	}
	return true;
}


/* The file offset of virtual address `va`, from the PT_LOAD headers. */
static bool va_to_off(const Elf64_Phdr *ph, size_t n, uint64_t va, uint64_t *off)
{
	for (size_t i = 0; i < n; i++)
		if (ph[i].p_type == PT_LOAD && va >= ph[i].p_vaddr && va - ph[i].p_vaddr < ph[i].p_filesz) {
			*off = ph[i].p_offset + (va - ph[i].p_vaddr);
			return true;
		}
	return false;
}

bool elf_go_without_cgo(int fd)
{
	Elf64_Ehdr eh;
	Elf64_Phdr ph[MAX_PHDRS];
	uint8_t notes[MAX_NOTES];
	bool go = false;
	const Elf64_Phdr *dyn = NULL;

	if (!read_exact(fd, &eh, sizeof(eh), 0) || memcmp(eh.e_ident, ELFMAG, SELFMAG) ||
	    eh.e_ident[EI_CLASS] != ELFCLASS64 || eh.e_phentsize != sizeof(Elf64_Phdr) ||
	    eh.e_phnum == 0 || eh.e_phnum > MAX_PHDRS ||
	    !read_exact(fd, ph, (size_t)eh.e_phnum * sizeof(Elf64_Phdr), eh.e_phoff))
		return false;
	for (size_t i = 0; i < eh.e_phnum; i++) {
		if (ph[i].p_type == PT_DYNAMIC)
			dyn = &ph[i];
		if (ph[i].p_type != PT_NOTE || go)
			continue;
		size_t len = ph[i].p_filesz < sizeof(notes) ? (size_t)ph[i].p_filesz : sizeof(notes);
		go = len && read_exact(fd, notes, len, ph[i].p_offset) && elf_notes_go(notes, len);
	}
	if (!go || !dyn || dyn->p_filesz > 64 * 1024)
		return false;
	size_t nd = (size_t)dyn->p_filesz / sizeof(Elf64_Dyn);
	Elf64_Dyn *d = malloc(nd * sizeof(Elf64_Dyn) + 1);
	if (!d || !read_exact(fd, d, nd * sizeof(Elf64_Dyn), dyn->p_offset)) {
		free(d);
		return false;
	}
	uint64_t strtab = 0, strsz = 0, off;
	for (size_t i = 0; i < nd && d[i].d_tag != DT_NULL; i++) {
		if (d[i].d_tag == DT_STRTAB)
			strtab = d[i].d_un.d_ptr;
		else if (d[i].d_tag == DT_STRSZ)
			strsz = d[i].d_un.d_val;
	}
	free(d);
	if (!strtab || !strsz || strsz > MAX_DYNSTR || !va_to_off(ph, eh.e_phnum, strtab, &off))
		return false;
	char *s = malloc(strsz + 1);
	if (!s)
		return false;
	bool cgo = true;                   /* unread: assume the preload can work */
	if (read_exact(fd, s, strsz, off)) {
		s[strsz] = 0;
		cgo = memmem(s, strsz, "_cgo_", 5) != NULL;
	}
	free(s);
	return !cgo;
}
