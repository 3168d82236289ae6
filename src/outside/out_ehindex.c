/* SPDX-License-Identifier: MIT
 *
 * out_ehindex.c — .eh_frame_hdr's search table, made from .eh_frame
 * (out_ehindex.h).
 *
 * The walk (every entry of .eh_frame once, bounded by its length) is
 * format/elf_cfi.c's, which the collector shares; this gives it room.
 * Called by out_objects.c when it loads a file, in `tally record`.
 */
#include <stdlib.h>
#include <string.h>

#include "format/elf_cfi.h"
#include "outside/out_ehindex.h"

uint8_t *out_ehindex_build(const uint8_t *eh, uint64_t eh_len, uint64_t eh_vaddr,
			   uint64_t hdr_vaddr, uint64_t *len, uint32_t *count)
{
	struct elf_cfi_pair *v = malloc(elf_cfi_pair_room(eh_len) * sizeof(*v));
	uint64_t n = v ? elf_cfi_pairs(eh, eh_len, eh_vaddr, hdr_vaddr, v) : 0;
	uint8_t *t = n ? malloc(12 + 8 * n) : NULL;

	if (t) {
		elf_cfi_sort(v, n);
		elf_cfi_write_hdr(t, eh_vaddr, hdr_vaddr, v, (uint32_t)n);
		*len = 12 + 8 * n;
		*count = (uint32_t)n;
	}
	free(v);
	return t;
}
