/* SPDX-License-Identifier: MIT
 *
 * elf_cfi.c — .debug_frame rewritten as .eh_frame, and .eh_frame's search
 * table (elf_cfi.h).
 *
 * The two formats differ in a CIE's id (all ones, not 0), an FDE's CIE
 * pointer (an offset from the section's start, not back from the
 * pointer), the offsets' size (64-bit DWARF has 8-byte lengths and ids;
 * .eh_frame is written 32-bit here), version 4's address and segment
 * sizes, and the pointers: .debug_frame's are absolute link-time
 * addresses.  The copy's are pcrel|sdata8, relative to where each is in
 * the copy, which the unwinder reads where the copy is: right for a
 * position-dependent executable and a PIE alike.  The call-frame programs
 * are the same but for DW_CFA_set_loc's operand, rewritten the same way;
 * walking them to find it also rejects an instruction the unwinder could
 * not skip.  One pass over the section; no allocation, no system call:
 * linked into the collector (col_debugframe.c) and `tally record`'s
 * outside mode (out_debugframe.c, out_ehindex.c).
 */
#include <string.h>

#include "format/elf_cfi.h"

#define PTR_PCREL_SDATA8 0x1c         /* DW_EH_PE_pcrel | DW_EH_PE_sdata8 */

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
 * address, moved by `bias`) made relative to where it sits.  False on an instruction this
 * does not know (its operands' length is unknown) or one cut short. */
static int copy_insns(const uint8_t *p, const uint8_t *end, uint8_t *out, uint64_t out_vaddr,
		      uint64_t bias)
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
			a += bias - (out_vaddr + at);
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

/* The CIE copied from section offset `from`, or NULL.  CIEs are met in
 * section order: `v` is sorted. */
static const struct elf_cfi_cie *moved_from(const struct elf_cfi_cie *v, uint64_t n, uint64_t from)
{
	uint64_t lo = 0, hi = n;

	while (lo < hi) {
		uint64_t mid = (lo + hi) / 2;
		if (v[mid].from < from)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < n && v[lo].from == from ? &v[lo] : NULL;
}

/* Write the CIE `ci` (its entry ends at `end`) at out + o; returns its
 * whole length, or 0 if its instructions cannot be copied. */
static uint64_t put_cie(uint8_t *out, uint64_t o, uint64_t copy_vaddr, uint64_t bias,
			const struct cie_in *ci, const uint8_t *end)
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
	if (!copy_insns(ci->insns, end, w + ins, copy_vaddr + o + ins, bias))
		return 0;
	return 4 + (uint64_t)nlen;
}

/* Write an FDE of the CIE `cie`: location `loc`, range `range`, the
 * instructions [insns, end); returns its whole length, or 0 if they cannot
 * be copied. */
static uint64_t put_fde(uint8_t *out, uint64_t o, uint64_t copy_vaddr, uint64_t bias,
			const struct elf_cfi_cie *cie, uint64_t loc, uint64_t range,
			const uint8_t *insns, const uint8_t *end)
{
	uint64_t ninsns = (uint64_t)(end - insns);
	uint32_t nlen = (uint32_t)(4 + 8 + 8 + 1 + ninsns);
	uint32_t back = (uint32_t)(o + 4 - cie->to);
	uint64_t rel = loc + bias - (copy_vaddr + o + 8);
	uint8_t *w = out + o;

	memcpy(w, &nlen, 4);
	memcpy(w + 4, &back, 4);
	memcpy(w + 8, &rel, 8);
	memcpy(w + 16, &range, 8);
	w[24] = 0;                                       /* no augmentation data */
	if (!copy_insns(insns, end, w + 25, copy_vaddr + o + 25, bias))
		return 0;
	return 4 + (uint64_t)nlen;
}

uint64_t elf_cfi_from_debug_frame(const uint8_t *df, uint64_t len, uint64_t copy_vaddr, uint64_t bias,
				  uint8_t *out, struct elf_cfi_cie *cies)
{
	uint64_t ncies = 0, ncap = elf_cfi_cie_room(len), nfdes = 0;
	uint64_t o = 0, at = 0;

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
		if (elen < idlen || elen > len - at - hdr || elen > ELF_CFI_MAX_BYTES)
			break;                           /* cut */
		id = 0;
		memcpy(&id, df + at + hdr, idlen);
		const uint8_t *body = df + at + hdr + idlen, *end = df + at + hdr + elen;
		struct cie_in ci;
		if (id == cie_id) {
			if (ncies < ncap && parse_cie(body, end, &ci)) {
				uint64_t n = put_cie(out, o, copy_vaddr, bias, &ci, end);
				if (n) {
					cies[ncies++] = (struct elf_cfi_cie){ at, o, ci.zaug };
					o += n;
				}
			}
		} else {
			const struct elf_cfi_cie *cie = moved_from(cies, ncies, id);
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
				uint64_t n = put_fde(out, o, copy_vaddr, bias, cie, loc, range, c.p, end);
				o += n;
				nfdes += n != 0;
			}
		}
		at += hdr + elen;
	}
	return nfdes ? o : 0;
}

/* ---- the search table ---------------------------------------------------- */

static uint64_t uleb_at(const uint8_t **p, const uint8_t *end)
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

/* The FDE pointer encoding of the .eh_frame CIE at `c` (its length word), or -1. */
static int cie_fde_enc(const uint8_t *c, const uint8_t *end)
{
	uint32_t len32;

	if (end - c < 9)
		return -1;
	memcpy(&len32, c, 4);
	const uint8_t *p = c + 8, *e = c + 4 + len32;
	if (len32 == 0xffffffffu || (uint64_t)len32 > (uint64_t)(end - c - 4) || c[4] | c[5] | c[6] | c[7])
		return -1;
	uint8_t version = *p++;
	const char *aug = (const char *)p;
	const uint8_t *z = memchr(p, 0, (size_t)(e - p));
	if (!z || (version != 1 && version != 3))
		return -1;
	p = z + 1;
	uleb_at(&p, e);                    /* code alignment */
	uleb_at(&p, e);                    /* data alignment (sleb: skipped alike) */
	if (version == 1)
		p++;
	else
		uleb_at(&p, e);
	if (aug[0] != 'z')
		return 0;                  /* absptr */
	uleb_at(&p, e);                    /* augmentation length */
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

uint64_t elf_cfi_pairs(const uint8_t *eh, uint64_t eh_len, uint64_t eh_vaddr, uint64_t hdr_vaddr,
		       struct elf_cfi_pair *out)
{
	const uint8_t *p = eh, *end = eh + eh_len;
	const uint8_t *last_cie = NULL;
	uint64_t n = 0, cap = elf_cfi_pair_room(eh_len);
	int enc = -1;

	while (end - p >= 8 && n < cap) {
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
				int64_t l = (int64_t)(loc - hdr_vaddr);
				int64_t d = (int64_t)(eh_vaddr + (uint64_t)(p - eh) - hdr_vaddr);
				if (l == (int32_t)l && d == (int32_t)d)
					out[n++] = (struct elf_cfi_pair){ (int32_t)l, (int32_t)d };
			}
		}
		p += 4 + len32;
	}
	return n;
}

static void sift_down(struct elf_cfi_pair *v, uint64_t root, uint64_t n)
{
	for (uint64_t child; (child = 2 * root + 1) < n; root = child) {
		if (child + 1 < n && v[child + 1].loc > v[child].loc)
			child++;
		if (v[root].loc >= v[child].loc)
			return;
		struct elf_cfi_pair t = v[root];
		v[root] = v[child];
		v[child] = t;
	}
}

void elf_cfi_sort(struct elf_cfi_pair *v, uint64_t n)
{
	for (uint64_t i = n / 2; i-- > 0;)
		sift_down(v, i, n);
	for (uint64_t end = n; end > 1; end--) {
		struct elf_cfi_pair t = v[0];
		v[0] = v[end - 1];
		v[end - 1] = t;
		sift_down(v, 0, end - 1);
	}
}

void elf_cfi_write_hdr(uint8_t *t, uint64_t eh_vaddr, uint64_t hdr_vaddr,
		       const struct elf_cfi_pair *v, uint32_t n)
{
	int32_t eh_rel = (int32_t)(eh_vaddr - (hdr_vaddr + 4));

	t[0] = 1;
	t[1] = 0x1b;               /* eh_frame_ptr: pcrel sdata4 */
	t[2] = 0x03;               /* fde_count: udata4 */
	t[3] = 0x3b;               /* table: datarel sdata4 */
	memcpy(t + 4, &eh_rel, 4);
	memcpy(t + 8, &n, 4);
	memcpy(t + 12, v, 8 * (size_t)n);
}
