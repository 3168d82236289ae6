/* SPDX-License-Identifier: MIT
 *
 * out_debugframe.c — .debug_frame rewritten as .eh_frame (out_debugframe.h).
 *
 * Called by out_objects.c when it loads a position-dependent executable,
 * in `tally record` (outside mode), never in the target.  One pass over the
 * section: the two formats differ in a CIE's id (0xffffffff, not 0), an
 * FDE's CIE pointer (an offset from the section's start, not back from the
 * pointer), version 4's address and segment sizes, and the default pointer
 * encoding, which for a CIE without augmentation is absolute in both.  The
 * call-frame programs are the same and are copied as they are.  The copy is
 * never longer than the section.
 */
#include <stdlib.h>
#include <string.h>

#include "outside/out_debugframe.h"

#define DF_CIE_ID 0xffffffffu

/* A CIE copied: where it was, where it is. */
struct moved {
	uint64_t from, to;
};

/* The copy's offset of the CIE at section offset `from`, or -1 (not
 * copied).  CIEs are met in section order: `v` is sorted. */
static int64_t moved_to(const struct moved *v, size_t n, uint64_t from)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		if (v[mid].from < from)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < n && v[lo].from == from ? (int64_t)v[lo].to : -1;
}

uint8_t *out_debugframe_convert(const uint8_t *df, uint64_t len, uint64_t *out_len)
{
	uint8_t *out = malloc(len ? len : 1);
	struct moved *cies = NULL;
	size_t ncies = 0, cap = 0, nfdes = 0;
	uint64_t o = 0, at = 0;

	if (!out)
		return NULL;
	while (len - at >= 8) {
		uint32_t len32, id;
		memcpy(&len32, df + at, 4);
		if (len32 < 4 || len32 == 0xffffffffu || (uint64_t)len32 > len - at - 4)
			break;                     /* cut, or 64-bit DWARF (not written here) */
		memcpy(&id, df + at + 4, 4);
		const uint8_t *body = df + at + 8, *end = df + at + 4 + len32;
		if (id == DF_CIE_ID) {
			const uint8_t *z = body < end ? memchr(body + 1, 0, (size_t)(end - body - 1)) : NULL;
			uint8_t version = body < end ? body[0] : 0;
			const uint8_t *rest = z ? z + 1 : NULL;
			if (rest && version == 4) {
				if (end - rest < 2 || rest[0] != 8 || rest[1] != 0)
					rest = NULL;       /* not 8-byte addresses, or segments */
				else
					rest += 2;
			}
			if (rest && z == body + 1 && (version == 1 || version == 3 || version == 4)) {
				if (ncies == cap) {
					cap = cap ? 2 * cap : 64;
					struct moved *t = realloc(cies, cap * sizeof(*t));
					if (!t)
						goto fail;
					cies = t;
				}
				cies[ncies++] = (struct moved){ at, o };
				uint32_t nlen = (uint32_t)(4 + 1 + 1 + (uint64_t)(end - rest)), zero = 0;
				memcpy(out + o, &nlen, 4);
				memcpy(out + o + 4, &zero, 4);
				out[o + 8] = version == 1 ? 1 : 3;
				out[o + 9] = 0;            /* no augmentation */
				memcpy(out + o + 10, rest, (size_t)(end - rest));
				o += 4 + nlen;
			}
		} else if (len32 >= 4 + 16) {
			int64_t cie = moved_to(cies, ncies, id);
			uint64_t loc;
			memcpy(&loc, body, 8);
			if (cie >= 0 && loc) {
				uint32_t back = (uint32_t)(o + 4 - (uint64_t)cie);
				memcpy(out + o, &len32, 4);
				memcpy(out + o + 4, &back, 4);
				memcpy(out + o + 8, body, (size_t)(end - body));
				o += 4 + len32;
				nfdes++;
			}
		}
		at += 4 + (uint64_t)len32;
	}
	free(cies);
	if (!nfdes) {
		free(out);
		return NULL;
	}
	*out_len = o;
	return out;
fail:
	free(cies);
	free(out);
	return NULL;
}
