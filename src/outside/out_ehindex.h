/* SPDX-License-Identifier: MIT
 *
 * out_ehindex.h — a search table for an object's .eh_frame when its linker
 * made none: static executables (GCC asks ld for .eh_frame_hdr only when it
 * links dynamically).  The table has .eh_frame_hdr's layout, so the
 * collector's unwinder reads it as it reads a real one.
 */
#ifndef TALLY_OUT_EHINDEX_H
#define TALLY_OUT_EHINDEX_H

#include <stdint.h>

/* Build the table for the .eh_frame at virtual address `eh_vaddr` (its
 * bytes at `eh`, `eh_len` of them) as if it sat at virtual address
 * `hdr_vaddr`: 12 bytes of header then sorted (sdata4 initial_loc - hdr,
 * sdata4 fde - hdr) pairs.  Returns the table (malloc'd, *len bytes) and
 * the FDE count in *count, or NULL (no FDE, or out of memory). */
uint8_t *out_ehindex_build(const uint8_t *eh, uint64_t eh_len, uint64_t eh_vaddr,
			   uint64_t hdr_vaddr, uint64_t *len, uint32_t *count);

#endif
