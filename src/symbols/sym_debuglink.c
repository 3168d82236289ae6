/* SPDX-License-Identifier: MIT
 *
 * sym_debuglink.c — finds the separate debug file of a stripped object, the
 * way gdb does: first by build-id, then by .gnu_debuglink.  Called by
 * sym_object.c when an object has no .symtab or no DWARF of its own.
 *
 * Places tried, in order (DIR is the directory of the object's real path):
 *   /usr/lib/debug/.build-id/xx/yyyy.debug   (build-id from NT_GNU_BUILD_ID)
 *   DIR/NAME, DIR/.debug/NAME, /usr/lib/debug/DIR/NAME   (NAME from
 *                                                          .gnu_debuglink)
 * A candidate is taken only if it is an ELF file with a .symtab or
 * .debug_info, and if it matches: same build-id when the object has one,
 * otherwise the CRC-32 stored in .gnu_debuglink.
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "format/exp_launch.h"
#include "symbols/sym_int.h"

#define SYM_DEBUG_ROOT "/usr/lib/debug"
#define SYM_BUILD_ID_HEX_MAX 64   /* longest build-id looked up by name, in bytes */

/* The CRC-32 of .gnu_debuglink (the zlib/IEEE one, reflected 0xEDB88320). */
static uint32_t sym_crc32(const uint8_t *p, size_t len)
{
	static uint32_t table[256];
	uint32_t crc = 0xffffffffu;
	size_t i;

	if (!table[1]) {
		for (uint32_t n = 0; n < 256; n++) {
			uint32_t c = n;

			for (int k = 0; k < 8; k++)
				c = c & 1 ? 0xedb88320u ^ (c >> 1) : c >> 1;
			table[n] = c;
		}
	}
	for (i = 0; i < len; i++)
		crc = table[(crc ^ p[i]) & 0xff] ^ (crc >> 8);
	return crc ^ 0xffffffffu;
}

/* Open `cand` if it is a usable debug file for an object with build-id
 * `bid` (or, when bid_len is 0, whose debuglink CRC is `crc`). */
static Elf *sym_debug_try(const char *cand, const uint8_t *bid, size_t bid_len,
			  uint32_t crc)
{
	uint8_t cbid[SYM_BUILD_ID_MAX];
	char err[64];
	GElf_Shdr sh;
	Elf *elf = sym_elf_open(cand, err, sizeof(err));
	bool ok;

	if (!elf)
		return NULL;
	ok = sym_elf_section_type(elf, SHT_SYMTAB, &sh) ||
	     sym_elf_section(elf, ".debug_info", &sh);
	if (ok && bid_len) {
		ok = sym_elf_build_id(elf, cbid, sizeof(cbid)) == bid_len &&
		     memcmp(cbid, bid, bid_len) == 0;
	} else if (ok) {
		size_t size;
		const char *image = elf_rawfile(elf, &size);

		ok = image && sym_crc32((const uint8_t *)image, size) == crc;
	}
	if (!ok) {
		elf_end(elf);
		return NULL;
	}
	return elf;
}

/* The debug file named by `elf`'s .gnu_debuglink, looked for next to `file`;
 * `found` (found_len bytes) gets its path. */
static Elf *sym_debuglink_find(const char *file, Elf *elf, const uint8_t *bid,
			       size_t bid_len, char *found, size_t found_len)
{
	char real[PATH_MAX], *slash;
	const char *name;
	size_t namelen, crc_off;
	uint32_t crc;
	GElf_Shdr sh;
	Elf_Scn *scn = sym_elf_section(elf, ".gnu_debuglink", &sh);
	Elf_Data *d = scn ? elf_getdata(scn, NULL) : NULL;

	if (!d || !d->d_buf || d->d_size < 8)
		return NULL;
	name = d->d_buf;
	namelen = strnlen(name, d->d_size);
	crc_off = (namelen + 4) & ~(size_t)3;
	if (namelen == 0 || namelen == d->d_size || crc_off + 4 > d->d_size ||
	    strchr(name, '/'))
		return NULL;
	memcpy(&crc, (const char *)d->d_buf + crc_off, 4);   /* x86-64: LE */
	if (!realpath(file, real) && snprintf(real, sizeof(real), "%s", file) >=
					     (int)sizeof(real))
		return NULL;
	slash = strrchr(real, '/');
	if (slash)
		*slash = '\0';
	else
		snprintf(real, sizeof(real), ".");
	for (int i = 0; i < 3; i++) {
		Elf *dbg;
		int n = i == 0 ? snprintf(found, found_len, "%s/%s", real, name)
			: i == 1 ? snprintf(found, found_len, "%s/.debug/%s",
					    real, name)
				 : snprintf(found, found_len,
					    SYM_DEBUG_ROOT "%s/%s", real, name);

		if (n < 0 || (size_t)n >= found_len)
			continue;
		dbg = sym_debug_try(found, bid, bid_len, crc);
		if (dbg)
			return dbg;
	}
	return NULL;
}

/* The separate debug file of `elf` (read from `file`, build-id `bid`), or
 * NULL if none is found.  *dbg_file gets its path (malloc'd, the caller
 * frees it); unchanged when NULL is returned. */
Elf *sym_debug_find(const char *file, Elf *elf, const uint8_t *bid,
		    size_t bid_len, char **dbg_file)
{
	char path[PATH_MAX + 64];
	Elf *dbg = NULL;

	if (bid_len >= 2 && bid_len <= SYM_BUILD_ID_HEX_MAX) {
		char hex[2 * SYM_BUILD_ID_HEX_MAX + 1];
		exp_build_id_hex(bid, bid_len, hex);
		snprintf(path, sizeof(path), SYM_DEBUG_ROOT "/.build-id/%.2s/%s.debug", hex, hex + 2);
		dbg = sym_debug_try(path, bid, bid_len, 0);
	}
	if (!dbg)
		dbg = sym_debuglink_find(file, elf, bid, bid_len, path,
					 sizeof(path));
	if (dbg) {
		*dbg_file = strdup(path);
		if (!*dbg_file) {
			elf_end(dbg);
			dbg = NULL;
		}
	}
	return dbg;
}
