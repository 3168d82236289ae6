/* SPDX-License-Identifier: MIT
 *
 * out_ehindex.c — .eh_frame_hdr's search table, made from .eh_frame
 * (out_ehindex.h).
 *
 * Walks every entry of .eh_frame once (bounded by its length): a CIE gives
 * its FDE pointer encoding (augmentation 'R'), an FDE its initial location.
 * Entries that cannot be read end the walk (the FDEs found so far are
 * kept).  Called by out_objects.c when it loads a file, in `tally record`.
 */
#include <stdlib.h>
#include <string.h>

#include "outside/out_ehindex.h"

struct pair {
	int64_t loc, fde;
};

static uint64_t uleb(const uint8_t **p, const uint8_t *end)
{
	uint64_t v = 0;
	unsigned shift = 0;

	while (*p < end) {
		uint8_t b = *(*p)++;
		if (shift < 64)
			v |= (uint64_t)(b & 0x7f) << shift;
		shift += 7;
		if (!(b & 0x80))
			break;
	}
	return v;
}

/* The FDE pointer encoding of the CIE at `c` (its length word), or -1. */
static int cie_fde_enc(const uint8_t *c, const uint8_t *end)
{
	uint32_t len32;

	if (end - c < 9)
		return -1;
	memcpy(&len32, c, 4);
	const uint8_t *p = c + 8, *e = c + 4 + len32;
	if (len32 == 0xffffffffu || e > end || c[4] | c[5] | c[6] | c[7])
		return -1;
	uint8_t version = *p++;
	const char *aug = (const char *)p;
	const uint8_t *z = memchr(p, 0, (size_t)(e - p));
	if (!z || (version != 1 && version != 3))
		return -1;
	p = z + 1;
	uleb(&p, e);                       /* code alignment */
	uleb(&p, e);                       /* data alignment (sleb: skipped alike) */
	if (version == 1)
		p++;
	else
		uleb(&p, e);
	if (aug[0] != 'z')
		return 0;                  /* absptr */
	uleb(&p, e);                       /* augmentation length */
	for (const char *a = aug + 1; *a && p < e; a++) {
		if (*a == 'R')
			return *p;
		if (*a == 'L')
			p++;
		else if (*a == 'P') {
			uint8_t enc = *p++;
			switch (enc & 0x0f) {
			case 0x02: case 0x0a: p += 2; break;
			case 0x03: case 0x0b: p += 4; break;
			default: p += 8; break;
			}
		} else if (*a != 'S' && *a != 'B' && *a != 'G') {
			return -1;
		}
	}
	return 0;
}

static int by_loc(const void *a, const void *b)
{
	const struct pair *x = a, *y = b;

	return x->loc < y->loc ? -1 : x->loc > y->loc;
}

uint8_t *out_ehindex_build(const uint8_t *eh, uint64_t eh_len, uint64_t eh_vaddr,
			   uint64_t hdr_vaddr, uint64_t *len, uint32_t *count)
{
	const uint8_t *p = eh, *end = eh + eh_len;
	struct pair *v = NULL;
	size_t n = 0, cap = 0;
	const uint8_t *last_cie = NULL;
	int enc = -1;

	while (end - p >= 8) {
		uint32_t len32, id;
		memcpy(&len32, p, 4);
		if (len32 == 0 || len32 == 0xffffffffu || (uint64_t)len32 > (uint64_t)(end - p - 4))
			break;                 /* terminator, 64-bit DWARF (unused here), or cut */
		memcpy(&id, p + 4, 4);
		if (id != 0 && id <= (uint64_t)(p + 4 - eh)) {
			const uint8_t *cie = p + 4 - id;
			if (cie != last_cie) {
				enc = cie_fde_enc(cie, end);
				last_cie = cie;
			}
			const uint8_t *f = p + 8;
			uint64_t at = eh_vaddr + (uint64_t)(f - eh), loc = 0;
			int ok = enc >= 0 && len32 >= 8;
			if (ok) {
				switch (enc & 0x0f) {
				case 0x03: { uint32_t u; memcpy(&u, f, 4); loc = u; break; }
				case 0x0b: { int32_t s; memcpy(&s, f, 4); loc = (uint64_t)(int64_t)s; break; }
				case 0x00: case 0x04: case 0x0c:
					if (len32 < 12) ok = 0; else memcpy(&loc, f, 8);
					break;
				default: ok = 0;
				}
				if ((enc & 0x70) == 0x10)
					loc += at;
				else if (enc & 0x70)
					ok = 0;
			}
			if (ok && loc) {
				if (n == cap) {
					cap = cap ? 2 * cap : 1024;
					struct pair *t = realloc(v, cap * sizeof(*t));
					if (!t) {
						free(v);
						return NULL;
					}
					v = t;
				}
				v[n].loc = (int64_t)(loc - hdr_vaddr);
				v[n].fde = (int64_t)(eh_vaddr + (uint64_t)(p - eh) - hdr_vaddr);
				if (v[n].loc == (int32_t)v[n].loc && v[n].fde == (int32_t)v[n].fde)
					n++;
			}
		}
		p += 4 + len32;
	}
	if (!n) {
		free(v);
		return NULL;
	}
	qsort(v, n, sizeof(*v), by_loc);
	*len = 12 + 8 * (uint64_t)n;
	uint8_t *t = malloc(*len);
	if (t) {
		int32_t eh_rel = (int32_t)(eh_vaddr - (hdr_vaddr + 4));
		uint32_t cnt = (uint32_t)n;
		t[0] = 1;
		t[1] = 0x1b;               /* eh_frame_ptr: pcrel sdata4 */
		t[2] = 0x03;               /* fde_count: udata4 */
		t[3] = 0x3b;               /* table: datarel sdata4 */
		memcpy(t + 4, &eh_rel, 4);
		memcpy(t + 8, &cnt, 4);
		for (size_t i = 0; i < n; i++) {
			int32_t a = (int32_t)v[i].loc, b = (int32_t)v[i].fde;
			memcpy(t + 12 + 8 * i, &a, 4);
			memcpy(t + 16 + 8 * i, &b, 4);
		}
		*count = cnt;
	}
	free(v);
	return t;
}
