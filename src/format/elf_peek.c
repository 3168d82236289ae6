/* SPDX-License-Identifier: MIT
 *
 * elf_peek.c — see elf_peek.h.  No allocation, no stdio: linked into the
 * collector as well as into `tally`.
 */
#include <elf.h>
#include <errno.h>
#include <stddef.h>
#include <string.h>
#include <unistd.h>

#include "format/elf_peek.h"

size_t elf_notes_build_id(const uint8_t *notes, size_t len, uint8_t *id, size_t cap)
{
	for (size_t off = 0; len >= 12 && off <= len - 12;) {
		Elf64_Nhdr nh;
		memcpy(&nh, notes + off, sizeof(nh));
		size_t name = ((size_t)nh.n_namesz + 3) & ~(size_t)3;
		size_t desc = ((size_t)nh.n_descsz + 3) & ~(size_t)3;
		if (name > len - off - 12 || desc > len - off - 12 - name)
			return 0;
		if (nh.n_type == NT_GNU_BUILD_ID && nh.n_namesz == 4 && nh.n_descsz > 0 &&
		    !memcmp(notes + off + 12, "GNU", 4)) {
			memcpy(id, notes + off + 12 + name, nh.n_descsz < cap ? nh.n_descsz : cap);
			return nh.n_descsz;
		}
		off += 12 + name + desc;
	}
	return 0;
}

bool elf_notes_go(const uint8_t *p, size_t bytes)
{
	size_t off = 0;

	while (off + sizeof(Elf64_Nhdr) <= bytes) {
		Elf64_Nhdr n;
		memcpy(&n, p + off, sizeof(n));
		size_t name = off + sizeof(n), desc = name + ((n.n_namesz + 3u) & ~3u);
		size_t next = desc + ((n.n_descsz + 3u) & ~3u);
		if (next > bytes || next <= off)
			return false;
		if ((n.n_namesz == 3 || n.n_namesz == 4) && n.n_type == 4u /* ELF_NOTE_GOBUILDID_TAG */ &&
		    !memcmp(p + name, "Go\0", n.n_namesz))
			return true;
		off = next;
	}
	return false;
}

/* The file's first bytes, read once: the ELF header, the program headers
 * and the notes of most files are there (one pread instead of one per
 * header: this runs in every exec of a profiled program). */
struct head {
	uint8_t buf[4096];
	size_t len;
};

/* Read exactly `n` bytes at `off`; false if the file is shorter. */
static bool read_at(int fd, elf_peek_pread_fn rd, const struct head *h, void *buf, size_t n,
		    uint64_t off)
{
	if (off > (uint64_t)INT64_MAX - n)
		return false;
	if (off + n <= h->len) {
		memcpy(buf, h->buf + off, n);
		return true;
	}
	for (size_t done = 0; done < n;) {
		ssize_t got = rd(fd, (char *)buf + done, n - done, (off_t)(off + done));
		if (got < 0 && errno == EINTR)
			continue;
		if (got <= 0)
			return false;
		done += (size_t)got;
	}
	return true;
}

int elf_peek_fd(int fd, elf_peek_pread_fn rd, struct elf_peek *p)
{
	Elf64_Ehdr eh;
	uint8_t notes[ELF_PEEK_MAX_NOTES];
	struct head h;

	memset(p, 0, sizeof(*p));
	if (!rd)
		rd = pread;
	h.len = 0;
	for (ssize_t got; h.len < sizeof(h.buf); h.len += (size_t)got) {
		got = rd(fd, h.buf + h.len, sizeof(h.buf) - h.len, (off_t)h.len);
		if (got < 0 && errno == EINTR)
			got = 0;
		else if (got <= 0)
			break;
	}
	/* e_ident, e_type and e_machine: the same 20 bytes in both classes. */
	if (!read_at(fd, rd, &h, &eh, offsetof(Elf64_Ehdr, e_version), 0) ||
	    memcmp(eh.e_ident, ELFMAG, SELFMAG))
		return -ENOEXEC;
	if (eh.e_ident[EI_CLASS] != ELFCLASS32 && eh.e_ident[EI_CLASS] != ELFCLASS64)
		return -ENOEXEC;
	p->elf_class = eh.e_ident[EI_CLASS];
	p->type = eh.e_type;
	p->machine = eh.e_machine;
	if (p->elf_class != ELFCLASS64)
		return -ENOEXEC;
	if (!read_at(fd, rd, &h, &eh, sizeof(eh), 0))
		return -EINVAL;
	if (eh.e_phnum == 0)
		return 0;
	if (eh.e_phentsize != sizeof(Elf64_Phdr) || eh.e_phnum > ELF_PEEK_MAX_PHDRS)
		return -EINVAL;
	for (uint16_t i = 0; i < eh.e_phnum; i++) {
		Elf64_Phdr ph;
		if (!read_at(fd, rd, &h, &ph, sizeof(ph), eh.e_phoff + (uint64_t)i * sizeof(ph)))
			return -EINVAL;
		p->nphdrs = (uint16_t)(i + 1);
		if (ph.p_type == PT_INTERP) {
			p->has_interp = true;
			if (ph.p_filesz > 0 && ph.p_filesz <= sizeof(p->interp) &&
			    read_at(fd, rd, &h, p->interp, (size_t)ph.p_filesz, ph.p_offset))
				p->interp[ph.p_filesz - 1] = 0;
			else
				p->interp[0] = 0;
		}
		if (ph.p_type != PT_NOTE || p->build_id_len)
			continue;
		size_t len = ph.p_filesz < sizeof(notes) ? (size_t)ph.p_filesz : sizeof(notes);
		if (len && read_at(fd, rd, &h, notes, len, ph.p_offset)) {
			size_t n = elf_notes_build_id(notes, len, p->build_id, sizeof(p->build_id));
			p->build_id_len = (uint8_t)(n < sizeof(p->build_id) ? n : sizeof(p->build_id));
		}
	}
	return 0;
}
