/* SPDX-License-Identifier: MIT
 *
 * out_debugframe.h — a copy of an object's .debug_frame in .eh_frame's
 * form, for code that has only the former (GCC's -fno-asynchronous-unwind-
 * tables, -fno-unwind-tables: the CFI is kept for debuggers alone), so that
 * the collector's unwinder, which reads .eh_frame, walks it too.
 */
#ifndef TALLY_OUT_DEBUGFRAME_H
#define TALLY_OUT_DEBUGFRAME_H

#include <elf.h>
#include <stdint.h>

/* The bytes of the .debug_frame section `sh` of the ELF file `fd`
 * (malloc'd, *len of them): as they are, or inflated when the section is
 * compressed (SHF_COMPRESSED with zlib, or a GNU `.zdebug_frame`, `gnu`
 * set).  NULL when it is empty, unreadable, compressed otherwise (zstd) or
 * damaged, or out of memory. */
uint8_t *out_debugframe_read(int fd, const Elf64_Shdr *sh, int gnu, uint64_t *len);

/* Convert the .debug_frame `df` (`len` bytes) into .eh_frame entries that
 * will sit at virtual address `copy_vaddr` of the object: 32- and 64-bit
 * DWARF; CIE versions 1, 3 and 4 (8-byte addresses, no segments); no
 * augmentation, GNU's "eh", or any of 'z' 'R' 'P' 'L' 'S' 'B' (the 'R'
 * encoding an absolute 8-byte one, as a debugger's section has).  Each CIE
 * becomes version 1 or 3 with augmentation "zR" ("zRS" for a signal
 * frame) and FDE pointers pcrel|sdata8, so the unwinder finds the code of
 * a position-independent object wherever it was loaded; each FDE's
 * location and DW_CFA_set_loc operands are rewritten relative to where
 * they sit in the copy.  FDEs of discarded code (location 0), of an
 * unusable CIE, or with an unknown call-frame instruction are left out;
 * a cut entry ends the walk.  Returns the copy (malloc'd, *out_len bytes),
 * or NULL when no FDE was converted or out of memory. */
uint8_t *out_debugframe_convert(const uint8_t *df, uint64_t len, uint64_t copy_vaddr,
				uint64_t *out_len);

#endif
