/* SPDX-License-Identifier: MIT
 *
 * out_debugframe.c — .debug_frame rewritten as .eh_frame (out_debugframe.h).
 *
 * Called by out_objects.c when it loads an object that has a .debug_frame,
 * in `tally record` (outside mode), never in the target.  One pass over the
 * section.  The two formats differ in a CIE's id (all ones, not 0), an
 * FDE's CIE pointer (an offset from the section's start, not back from the
 * pointer), the offsets' size (64-bit DWARF has 8-byte lengths and ids;
 * .eh_frame is written 32-bit here), version 4's address and segment
 * sizes, and the pointers: .debug_frame's are absolute link-time
 * addresses.  The copy's are pcrel|sdata8, relative to where each is in
 * the copy, which the unwinder reads at the object's load address: right
 * for a position-dependent executable and a PIE alike.  The call-frame
 * programs are the same but for DW_CFA_set_loc's operand, rewritten the
 * same way; walking them to find it also rejects an instruction the
 * unwinder could not skip.
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

#include "outside/out_debugframe.h"
#include "outside/out_zstd.h"

#define DF_MAX_BYTES (1ull << 31)     /* larger sections are not read */
#define PTR_PCREL_SDATA8 0x1c         /* DW_EH_PE_pcrel | DW_EH_PE_sdata8 */
#ifndef ELFCOMPRESS_ZSTD
#define ELFCOMPRESS_ZSTD 2            /* the gABI's; glibc's <elf.h> before 2.38 lacks it */
#endif

/* A bounded cursor; `bad` once a read went past `end`. */
struct cur {
	const uint8_t *p, *end;
	int bad;
};

static void skip(struct cur *c, uint64_t n)
{
	if (c->bad || (uint64_t)(c->end - c->p) < n)
		c->bad = 1;
	else
		c->p += n;
}

static uint8_t byte(struct cur *c)
{
	if (c->bad || c->p >= c->end) {
		c->bad = 1;
		return 0;
	}
	return *c->p++;
}

/* A LEB128 number, unsigned or signed: only its length matters here. */
static void leb(struct cur *c)
{
	while (!c->bad && (byte(c) & 0x80))
		;
}

static uint64_t uleb(struct cur *c)
{
	uint64_t v = 0;
	unsigned shift = 0;
	uint8_t b;

	do {
		b = byte(c);
		if (shift < 64)
			v |= (uint64_t)(b & 0x7f) << shift;
		shift += 7;
	} while (!c->bad && (b & 0x80));
	return v;
}

/* The size of a DW_EH_PE-encoded value (an augmentation's personality):
 * skipped; false for an encoding of no known size. */
static int skip_ptr(struct cur *c, uint8_t enc)
{
	switch (enc & 0x0f) {
	case 0x00: case 0x04: case 0x0c: skip(c, 8); return 1;
	case 0x02: case 0x0a: skip(c, 2); return 1;
	case 0x03: case 0x0b: skip(c, 4); return 1;
	case 0x01: case 0x09: leb(c); return 1;
	default: return 0;
	}
}

/* Copy the call-frame instructions [p, end) to `out`, which will sit at
 * virtual address `out_vaddr`, with each DW_CFA_set_loc operand (an 8-byte
 * address) made relative to where it sits.  False on an instruction this
 * does not know (its operands' length is unknown) or one cut short. */
static int copy_insns(const uint8_t *p, const uint8_t *end, uint8_t *out, uint64_t out_vaddr)
{
	struct cur c = { p, end, 0 };

	memcpy(out, p, (size_t)(end - p));
	while (c.p < c.end && !c.bad) {
		uint8_t op = byte(&c);
		switch (op & 0xc0) {
		case 0x40: case 0xc0: continue;          /* advance_loc, restore */
		case 0x80: leb(&c); continue;            /* offset */
		}
		switch (op) {
		case 0x00: case 0x0a: case 0x0b: break;  /* nop, remember/restore_state */
		case 0x01: {                             /* set_loc */
			uint64_t a, at = (uint64_t)(c.p - p);
			if (c.end - c.p < 8)
				return 0;
			memcpy(&a, c.p, 8);
			a -= out_vaddr + at;
			memcpy(out + at, &a, 8);
			c.p += 8;
			break;
		}
		case 0x02: skip(&c, 1); break;           /* advance_loc1, 2, 4 */
		case 0x03: skip(&c, 2); break;
		case 0x04: skip(&c, 4); break;
		case 0x06: case 0x07: case 0x08: case 0x0d: case 0x0e: case 0x13: case 0x2e:
			leb(&c);                         /* one operand */
			break;
		case 0x05: case 0x09: case 0x0c: case 0x11: case 0x12: case 0x14: case 0x15: case 0x2f:
			leb(&c);                         /* two */
			leb(&c);
			break;
		case 0x0f:                               /* def_cfa_expression */
			skip(&c, uleb(&c));
			break;
		case 0x10: case 0x16:                    /* expression, val_expression */
			leb(&c);
			skip(&c, uleb(&c));
			break;
		default:
			return 0;
		}
	}
	return !c.bad;
}

/* A CIE of .debug_frame, as far as the copy needs it. */
struct cie_in {
	uint8_t version;
	int zaug;                      /* its FDEs carry augmentation data */
	int signal;                    /* 'S': a signal frame */
	const uint8_t *fields, *fields_end;   /* code and data alignment, return column */
	const uint8_t *insns;
};

/* Parse the CIE whose body (after its id) is [p, end); false if it cannot
 * be copied. */
static int parse_cie(const uint8_t *p, const uint8_t *end, struct cie_in *ci)
{
	struct cur c = { p, end, 0 };

	ci->version = byte(&c);
	if (c.bad || (ci->version != 1 && ci->version != 3 && ci->version != 4))
		return 0;
	const char *aug = (const char *)c.p;
	const uint8_t *z = memchr(c.p, 0, (size_t)(c.end - c.p));
	if (!z)
		return 0;
	c.p = z + 1;
	ci->zaug = aug[0] == 'z';
	ci->signal = 0;
	if (!strcmp(aug, "eh")) {
		skip(&c, 8);                             /* GCC 2's exception table pointer */
	} else {
		for (const char *a = aug + ci->zaug; *a; a++) {
			if (*a == 'S')
				ci->signal = 1;
			else if (!ci->zaug || !strchr("RPLB", *a))
				return 0;                /* data of unknown size */
		}
	}
	if (ci->version == 4) {                          /* address and segment sizes */
		if (c.end - c.p < 2 || c.p[0] != 8 || c.p[1] != 0)
			return 0;
		c.p += 2;
	}
	ci->fields = c.p;
	leb(&c);                                         /* code alignment */
	leb(&c);                                         /* data alignment */
	if (ci->version == 1)
		skip(&c, 1);
	else
		leb(&c);
	ci->fields_end = c.p;
	if (ci->zaug) {
		uint64_t alen = uleb(&c);
		if (c.bad || alen > (uint64_t)(c.end - c.p))
			return 0;
		struct cur a = { c.p, c.p + alen, 0 };
		for (const char *q = aug + 1; *q && !a.bad; q++) {
			uint8_t enc = *q == 'S' || *q == 'B' ? 0 : byte(&a);
			if (*q == 'R' && ((enc & 0x70) || ((enc & 0x0f) != 0x00 && (enc & 0x0f) != 0x04 &&
							   (enc & 0x0f) != 0x0c)))
				return 0;                /* not an absolute 8-byte address */
			if (*q == 'P' && !skip_ptr(&a, enc))
				return 0;
		}
		if (a.bad)
			return 0;
		c.p += alen;
	}
	ci->insns = c.p;
	return !c.bad;
}

/* A CIE copied: where it was, where it is, and whether its FDEs carry
 * augmentation data. */
struct moved {
	uint64_t from, to;
	int zaug;
};

/* The CIE copied from section offset `from`, or NULL.  CIEs are met in
 * section order: `v` is sorted. */
static const struct moved *moved_from(const struct moved *v, size_t n, uint64_t from)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		if (v[mid].from < from)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < n && v[lo].from == from ? &v[lo] : NULL;
}

/* Write the CIE `ci` (its entry ends at `end`) at out + o; returns its
 * whole length, or 0 if its instructions cannot be copied. */
static uint64_t put_cie(uint8_t *out, uint64_t o, uint64_t copy_vaddr, const struct cie_in *ci,
			const uint8_t *end)
{
	const char *aug = ci->signal ? "zRS" : "zR";
	uint64_t nfields = (uint64_t)(ci->fields_end - ci->fields);
	uint64_t alen = strlen(aug) + 1;
	uint64_t ninsns = (uint64_t)(end - ci->insns);
	uint32_t nlen = (uint32_t)(4 + 1 + alen + nfields + 2 + ninsns), zero = 0;
	uint8_t *w = out + o;

	memcpy(w, &nlen, 4);
	memcpy(w + 4, &zero, 4);
	w[8] = ci->version == 1 ? 1 : 3;
	memcpy(w + 9, aug, alen);
	memcpy(w + 9 + alen, ci->fields, nfields);
	w[9 + alen + nfields] = 1;                       /* augmentation data: 1 byte */
	w[10 + alen + nfields] = PTR_PCREL_SDATA8;       /* 'R' */
	uint64_t ins = 11 + alen + nfields;
	if (!copy_insns(ci->insns, end, w + ins, copy_vaddr + o + ins))
		return 0;
	return 4 + (uint64_t)nlen;
}

/* Write an FDE of the CIE `cie`: location `loc`, range `range`, the
 * instructions [insns, end); returns its whole length, or 0 if they cannot
 * be copied. */
static uint64_t put_fde(uint8_t *out, uint64_t o, uint64_t copy_vaddr, const struct moved *cie,
			uint64_t loc, uint64_t range, const uint8_t *insns, const uint8_t *end)
{
	uint64_t ninsns = (uint64_t)(end - insns);
	uint32_t nlen = (uint32_t)(4 + 8 + 8 + 1 + ninsns);
	uint32_t back = (uint32_t)(o + 4 - cie->to);
	uint64_t rel = loc - (copy_vaddr + o + 8);
	uint8_t *w = out + o;

	memcpy(w, &nlen, 4);
	memcpy(w + 4, &back, 4);
	memcpy(w + 8, &rel, 8);
	memcpy(w + 16, &range, 8);
	w[24] = 0;                                       /* no augmentation data */
	if (!copy_insns(insns, end, w + 25, copy_vaddr + o + 25))
		return 0;
	return 4 + (uint64_t)nlen;
}

uint8_t *out_debugframe_convert(const uint8_t *df, uint64_t len, uint64_t copy_vaddr,
				uint64_t *out_len)
{
	/* A CIE grows by at most 8 bytes ("zRS", its augmentation data), an
	 * FDE by 1, and the smallest entries are 13 and 24 bytes. */
	uint8_t *out = malloc(2 * len + 64);
	struct moved *cies = NULL;
	size_t ncies = 0, cap = 0, nfdes = 0;
	uint64_t o = 0, at = 0;

	if (!out)
		return NULL;
	while (len - at >= 4) {
		uint32_t len32;
		uint64_t elen, id, hdr = 4, idlen = 4, cie_id = 0xffffffffu;
		memcpy(&len32, df + at, 4);
		if (len32 == 0) {                        /* padding */
			at += 4;
			continue;
		}
		elen = len32;
		if (len32 == 0xffffffffu) {              /* 64-bit DWARF */
			if (len - at < 12)
				break;
			memcpy(&elen, df + at + 4, 8);
			hdr = 12;
			idlen = 8;
			cie_id = ~0ull;
		}
		if (elen < idlen || elen > len - at - hdr || elen > DF_MAX_BYTES)
			break;                           /* cut */
		id = 0;
		memcpy(&id, df + at + hdr, idlen);
		const uint8_t *body = df + at + hdr + idlen, *end = df + at + hdr + elen;
		struct cie_in ci;
		if (id == cie_id) {
			if (parse_cie(body, end, &ci)) {
				uint64_t n = put_cie(out, o, copy_vaddr, &ci, end);
				if (n) {
					if (ncies == cap) {
						cap = cap ? 2 * cap : 64;
						struct moved *t = realloc(cies, cap * sizeof(*t));
						if (!t)
							goto fail;
						cies = t;
					}
					cies[ncies++] = (struct moved){ at, o, ci.zaug };
					o += n;
				}
			}
		} else {
			const struct moved *cie = moved_from(cies, ncies, id);
			struct cur c = { body, end, 0 };
			uint64_t loc = 0, range = 0;
			if (end - body >= 16) {
				memcpy(&loc, body, 8);
				memcpy(&range, body + 8, 8);
				c.p += 16;
			}
			if (cie && cie->zaug)
				skip(&c, uleb(&c));
			if (cie && loc && range && !c.bad) {
				uint64_t n = put_fde(out, o, copy_vaddr, cie, loc, range, c.p, end);
				o += n;
				nfdes += n != 0;
			}
		}
		at += hdr + elen;
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
