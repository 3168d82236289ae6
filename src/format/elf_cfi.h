/* SPDX-License-Identifier: MIT
 *
 * elf_cfi.h — call-frame information made readable by the collector's
 * unwinder, which reads .eh_frame through a .eh_frame_hdr search table:
 * a copy of a .debug_frame in .eh_frame's form (code built with
 * -fno-asynchronous-unwind-tables -fno-unwind-tables keeps its CFI there
 * alone), and the search table of an .eh_frame.
 *
 * Shared by the outside mode (out_debugframe.c, out_ehindex.c: a copied
 * object in `tally record`) and the collector (col_debugframe.c: a loaded
 * object, at each scan of new objects), so it lives in format/, the layer
 * below both.  It allocates nothing and makes no system call: the caller
 * gives the room (the bounds below) and every read is bounded by the
 * lengths given.
 */
#ifndef TALLY_ELF_CFI_H
#define TALLY_ELF_CFI_H

#include <stdint.h>

#define ELF_CFI_MAX_BYTES (1ull << 31)   /* larger .debug_frame sections are not read */

/* Room for the copy of a .debug_frame of `len` bytes: a CIE grows by at
 * most 8 bytes ("zRS", its augmentation data), an FDE by 1, and the
 * smallest entries are 13 and 24 bytes. */
static inline uint64_t elf_cfi_copy_room(uint64_t len)
{
	return 2 * len + 64;
}

/* A CIE copied: its offset in .debug_frame, in the copy, and whether its
 * FDEs carry augmentation data.  The converter's scratch, one per CIE. */
struct elf_cfi_cie {
	uint64_t from, to;
	int zaug;
};

/* Room for the CIEs of a .debug_frame of `len` bytes (13 bytes at least each). */
static inline uint64_t elf_cfi_cie_room(uint64_t len)
{
	return len / 13 + 1;
}

/* Convert the .debug_frame `df` (`len` bytes) into .eh_frame entries at
 * `out` (elf_cfi_copy_room(len) bytes), which will sit at virtual address
 * `copy_vaddr` of the object; `cies` has elf_cfi_cie_room(len) slots.
 * 32- and 64-bit DWARF; CIE versions 1, 3 and 4 (8-byte addresses, no
 * segments); no augmentation, GNU's "eh", or any of 'z' 'R' 'P' 'L' 'S' 'B'
 * (the 'R' encoding an absolute 8-byte one, as a debugger's section has).
 * Each CIE becomes version 1 or 3 with augmentation "zR" ("zRS" for a
 * signal frame) and FDE pointers pcrel|sdata8, so the unwinder finds the
 * code of a position-independent object wherever it was loaded; each FDE's
 * location and DW_CFA_set_loc operands are rewritten relative to where
 * they sit in the copy.  FDEs of discarded code (location 0), of an
 * unusable CIE, or with an unknown call-frame instruction are left out; a
 * cut entry ends the walk.  `bias` is added to every location (the load
 * address of a PIE, when the copy's address is a runtime one; else 0).
 * Returns the copy's length, 0 when no FDE was converted. */
uint64_t elf_cfi_from_debug_frame(const uint8_t *df, uint64_t len, uint64_t copy_vaddr, uint64_t bias,
				  uint8_t *out, struct elf_cfi_cie *cies);

/* One entry of a search table: an FDE's initial location and the FDE,
 * each relative to the table's header (datarel sdata4). */
struct elf_cfi_pair {
	int32_t loc, fde;
};

/* Room for the pairs of an .eh_frame of `len` bytes (12 bytes at least an FDE). */
static inline uint64_t elf_cfi_pair_room(uint64_t len)
{
	return len / 12 + 1;
}

/* The pairs of the .eh_frame at virtual address `eh_vaddr` (its bytes at
 * `eh`, `eh_len` of them) for a table at `hdr_vaddr`, into `out`
 * (elf_cfi_pair_room(eh_len) slots), in section order; an FDE whose
 * location or place is not within 2 GiB of the table is left out, and
 * entries that cannot be read end the walk.  Returns how many. */
uint64_t elf_cfi_pairs(const uint8_t *eh, uint64_t eh_len, uint64_t eh_vaddr, uint64_t hdr_vaddr,
		       struct elf_cfi_pair *out);

/* Sort `n` pairs by location (in place, no allocation). */
void elf_cfi_sort(struct elf_cfi_pair *v, uint64_t n);

/* Write a .eh_frame_hdr of `n` sorted pairs at `t` (12 + 8 n bytes), for
 * a table at `hdr_vaddr` naming an .eh_frame at `eh_vaddr`. */
void elf_cfi_write_hdr(uint8_t *t, uint64_t eh_vaddr, uint64_t hdr_vaddr,
		       const struct elf_cfi_pair *v, uint32_t n);

#endif
