/* SPDX-License-Identifier: MIT
 *
 * col_runtime.c — does the program make its own system calls?
 *
 * A Go program's runtime calls the kernel directly, exec included
 * (syscall.Exec, os/exec), so no interposer of ours stands before its
 * exec: an event of ours that overflowed in kernel mode during that exec
 * would signal the new image, whose SIGTRAP is at its default action again
 * (the kernel sends a sigtrap event's signal on the return to user mode,
 * after the exec).  Go programs carry a Go build-id note ("Go", type 4) in
 * a PT_NOTE segment of the executable: that is what is looked for, in the
 * main program's headers in memory (the first object dl_iterate_phdr
 * reports), once.  Called by the first thread that opens a clock, a
 * counter or a switch event (col_clock.c, col_counters.c, col_states.c);
 * layer 2: includes nothing of the collector but its header.
 */
#include <elf.h>
#include <link.h>
#include <stdatomic.h>
#include <stdint.h>
#include <string.h>

#include "collector/col_runtime.h"

#define GO_NOTE_BUILDID 4u          /* the Go linker's ELF_NOTE_GOBUILDID_TAG */

/* Is there a Go build-id note in `bytes` of notes at `p`? */
static bool has_go_note(const uint8_t *p, size_t bytes)
{
	size_t off = 0;

	while (off + sizeof(Elf64_Nhdr) <= bytes) {
		Elf64_Nhdr n;
		memcpy(&n, p + off, sizeof(n));
		size_t name = off + sizeof(n), desc = name + ((n.n_namesz + 3u) & ~3u);
		size_t next = desc + ((n.n_descsz + 3u) & ~3u);
		if (next > bytes || next <= off)
			return false;
		if (n.n_namesz == 3 && n.n_type == GO_NOTE_BUILDID && !memcmp(p + name, "Go", 3))
			return true;
		if (n.n_namesz == 4 && n.n_type == GO_NOTE_BUILDID && !memcmp(p + name, "Go\0", 4))
			return true;
		off = next;
	}
	return false;
}

static int look(struct dl_phdr_info *info, size_t size, void *data)
{
	(void)size;
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		if (ph->p_type == PT_NOTE &&
		    has_go_note((const uint8_t *)(info->dlpi_addr + ph->p_vaddr), ph->p_memsz)) {
			*(int *)data = 1;
			break;
		}
	}
	return 1;                   /* the main program only */
}

bool col_runtime_raw_syscalls(void)
{
	static _Atomic int known = -1;
	int v = atomic_load(&known);

	if (v < 0) {
		v = 0;
		dl_iterate_phdr(look, &v);
		atomic_store(&known, v);
	}
	return v == 1;
}
