/* SPDX-License-Identifier: MIT
 *
 * sym_ehframe.c — where functions start, from the unwind tables: the
 * .eh_frame_hdr search table lists one FDE per function (compilers emit one
 * per function, and keep it in stripped binaries, which need it to unwind).
 * sym_table.c cuts the uncovered stretches of a stripped object at these
 * starts, so that each stripped function is a <static>@0x... of its own
 * instead of one region for all (docs/symbols.md).  Called once per object
 * by sym_object.c.
 *
 * Only the table encoding every toolchain writes is read: DW_EH_PE_datarel |
 * sdata4 entries, udata4 count; anything else gives no starts (the old
 * behaviour).  The section is untrusted: the count is bounded by its size.
 */
#include <stdlib.h>
#include <string.h>

#include "symbols/sym_int.h"

static int sym_u64_cmp(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

size_t sym_elf_fde_starts(Elf *elf, uint64_t **starts)
{
	GElf_Shdr sh;
	Elf_Scn *scn = sym_elf_section(elf, ".eh_frame_hdr", &sh);
	Elf_Data *d = scn ? elf_getdata(scn, NULL) : NULL;
	const uint8_t *p;
	uint32_t count;
	int32_t v;
	size_t n = 0;

	*starts = NULL;
	if (!d || !d->d_buf || d->d_size < 12 || sh.sh_type == SHT_NOBITS)
		return 0;
	p = d->d_buf;
	/* version 1; eh_frame_ptr: any 4-byte encoding; count udata4; table datarel sdata4 */
	if (p[0] != 1 || (p[1] & 0x0f) != 0x0b || p[2] != 0x03 || p[3] != 0x3b)
		return 0;
	memcpy(&count, p + 8, 4);
	if (count == 0 || count > (d->d_size - 12) / 8)
		return 0;
	*starts = malloc(count * sizeof(**starts));
	if (!*starts)
		return 0;
	for (uint32_t i = 0; i < count; i++) {
		memcpy(&v, p + 12 + 8 * (size_t)i, 4);
		(*starts)[n++] = sh.sh_addr + (uint64_t)(int64_t)v;
	}
	qsort(*starts, n, sizeof(**starts), sym_u64_cmp);
	return n;
}
