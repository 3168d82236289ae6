/* SPDX-License-Identifier: MIT
 *
 * out_debugframe.h — a copy of an object's .debug_frame in .eh_frame's
 * form, for code that has only the former (GCC's -fno-asynchronous-unwind-
 * tables, -fno-unwind-tables: the CFI is kept for debuggers alone), so that
 * the collector's unwinder, which reads .eh_frame, walks it too.
 */
#ifndef TALLY_OUT_DEBUGFRAME_H
#define TALLY_OUT_DEBUGFRAME_H

#include <stdint.h>

/* Convert the .debug_frame `df` (`len` bytes, 32-bit DWARF, addresses of 8
 * bytes) of a position-dependent executable: each CIE with no augmentation
 * (version 1, 3 or 4; 4 loses its address and segment sizes and becomes 3)
 * gets .eh_frame's CIE id 0; each FDE of such a CIE gets its CIE pointer
 * relative to itself; its initial location stays absolute (no augmentation:
 * absptr); FDEs of discarded code (location 0) are left out.  Entries of
 * another kind are skipped; a cut one ends the walk.  Returns the copy
 * (malloc'd, *out_len bytes), or NULL when no FDE was converted or out of
 * memory. */
uint8_t *out_debugframe_convert(const uint8_t *df, uint64_t len, uint64_t *out_len);

#endif
