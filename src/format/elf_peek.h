/* SPDX-License-Identifier: MIT
 *
 * elf_peek.h — a small, bounded look at an ELF file: its class and type,
 * whether it has an interpreter (dynamically linked) or not (static), and
 * its GNU build-id; from the file header, the program headers and the notes
 * they point to, and nothing else.
 *
 * Shared by `tally record` (cli_target.c: can the program be profiled?),
 * its archive (cli_archive.c: is this still the file that was mapped?),
 * attaching (attach_check.c: which architecture, which loader?) and the
 * collector (col_interpose_exec.c: will the new image be profiled?), so
 * it lives in format/, the layer below both, and allocates nothing: reads
 * go through a pread the caller chooses (the collector's own, which the I/O
 * tracer does not see).  Every read is bounded by the limits below; a file
 * that is truncated or whose headers disagree is reported, never trusted.
 */
#ifndef TALLY_ELF_PEEK_H
#define TALLY_ELF_PEEK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#define ELF_PEEK_MAX_PHDRS 512      /* program headers read at most */
#define ELF_PEEK_MAX_NOTES 4096     /* bytes read of one PT_NOTE segment */
#define ELF_PEEK_BUILD_ID_MAX 64    /* bytes of a build-id kept */
#define ELF_PEEK_INTERP_MAX 256     /* bytes of the PT_INTERP path kept, NUL included */

struct elf_peek {
	uint8_t elf_class;             /* ELFCLASS32 or ELFCLASS64; 0: not ELF */
	uint16_t type;                 /* e_type (ET_EXEC, ET_DYN, ...) */
	uint16_t machine;              /* e_machine (EM_X86_64, EM_386, ...) */
	uint16_t nphdrs;               /* program headers read */
	bool has_interp;               /* PT_INTERP: needs a dynamic loader */
	uint8_t build_id_len;          /* 0: none found */
	uint8_t build_id[ELF_PEEK_BUILD_ID_MAX];
	char interp[ELF_PEEK_INTERP_MAX];  /* the loader's path; "" if none or longer */
};

typedef ssize_t (*elf_peek_pread_fn)(int fd, void *buf, size_t n, off_t off);

/* Peek at the ELF file open as `fd` with `pread_fn` (NULL: libc's pread).
 * Returns 0 for an ELF64 file whose program headers were all read;
 * -ENOEXEC if it is not ELF64 (p->elf_class says whether it is ELF32, and
 * then type and machine are set too);
 * -EINVAL if its headers are truncated or inconsistent (entry size,
 * count over ELF_PEEK_MAX_PHDRS, beyond the end of the file). */
int elf_peek_fd(int fd, elf_peek_pread_fn pread_fn, struct elf_peek *p);

/* A program with no interpreter: a static (or static-PIE) executable, into
 * which no library can be preloaded.  Only for a peek that returned 0. */
static inline bool elf_peek_is_static(const struct elf_peek *p)
{
	return p->nphdrs > 0 && !p->has_interp;
}

/* A Go build-id note (the Go linker's, owner "Go", type 4) in a buffer of
 * ELF notes: the program is Go's (its runtime makes its own system calls). */
bool elf_notes_go(const uint8_t *notes, size_t len);

/* The GNU build-id in a buffer of ELF notes (a PT_NOTE segment, from a file
 * or from memory): copies at most `cap` bytes of it into `id` and returns
 * its full length, or 0 if there is none (or the notes are malformed). */
size_t elf_notes_build_id(const uint8_t *notes, size_t len, uint8_t *id, size_t cap);

#endif
