/* SPDX-License-Identifier: MIT
 *
 * out_debugframe.c — .debug_frame rewritten as .eh_frame (out_debugframe.h).
 *
 * Called by out_objects.c when it loads an object that has a .debug_frame,
 * in `tally record` (outside mode), never in the target: the section read
 * (inflated when the linker compressed it) and handed to format/elf_cfi.c,
 * the conversion the collector shares.
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

#include "format/elf_cfi.h"
#include "outside/out_debugframe.h"
#include "outside/out_zstd.h"

#define DF_MAX_BYTES ELF_CFI_MAX_BYTES
#ifndef ELFCOMPRESS_ZSTD
#define ELFCOMPRESS_ZSTD 2            /* the gABI's; glibc's <elf.h> before 2.38 lacks it */
#endif

uint8_t *out_debugframe_convert(const uint8_t *df, uint64_t len, uint64_t copy_vaddr,
				uint64_t *out_len)
{
	uint8_t *out = malloc(elf_cfi_copy_room(len));
	struct elf_cfi_cie *cies = malloc(elf_cfi_cie_room(len) * sizeof(*cies));
	uint64_t n = out && cies ? elf_cfi_from_debug_frame(df, len, copy_vaddr, 0, out, cies) : 0;

	free(cies);
	if (!n) {
		free(out);
		return NULL;
	}
	*out_len = n;
	return out;
}

uint8_t *out_debugframe_read(int fd, const Elf64_Shdr *sh, int gnu, uint64_t *len)
{
	if (sh->sh_type != SHT_PROGBITS || !sh->sh_size || sh->sh_size > DF_MAX_BYTES)
		return NULL;
	uint8_t *raw = malloc(sh->sh_size), *full = NULL;
	if (!raw || pread(fd, raw, sh->sh_size, (off_t)sh->sh_offset) != (ssize_t)sh->sh_size)
		goto fail;
	if (!(sh->sh_flags & SHF_COMPRESSED) && !gnu) {
		*len = sh->sh_size;
		return raw;
	}
	uint64_t size, skipped;
	bool is_zstd = false;
	if (sh->sh_flags & SHF_COMPRESSED) {
		Elf64_Chdr ch;
		if (sh->sh_size < sizeof(ch))
			goto fail;
		memcpy(&ch, raw, sizeof(ch));
		if (ch.ch_type != ELFCOMPRESS_ZLIB && ch.ch_type != ELFCOMPRESS_ZSTD)
			goto fail;
		is_zstd = ch.ch_type == ELFCOMPRESS_ZSTD;
		size = ch.ch_size;
		skipped = sizeof(ch);
	} else {                                         /* "ZLIB", then the size big-endian */
		if (sh->sh_size < 12 || memcmp(raw, "ZLIB", 4))
			goto fail;
		size = 0;
		for (int i = 4; i < 12; i++)
			size = size << 8 | raw[i];
		skipped = 12;
	}
	uLongf got = (uLongf)size;
	if (!size || size > DF_MAX_BYTES || !(full = malloc(size)))
		goto fail;
	if (is_zstd ? !out_zstd_decompress(full, size, raw + skipped, sh->sh_size - skipped)
		    : uncompress(full, &got, raw + skipped, (uLong)(sh->sh_size - skipped)) != Z_OK || got != size)
		goto fail;
	free(raw);
	*len = size;
	return full;
fail:
	free(full);
	free(raw);
	return NULL;
}
