/* SPDX-License-Identifier: MIT
 *
 * sym_gopclntab.c — function symbols from a Go program's own table,
 * .gopclntab, for a Go binary stripped of .symtab and DWARF (`go build
 * -ldflags=-s`): the Go runtime needs the table for its tracebacks, so it
 * stays.  Called by sym_object.c when an object has no symbol table.
 *
 * The table (Go's runtime/symtab.go, "pcHeader") starts with a magic per
 * layout: 0xfffffffb (Go 1.2 to 1.15), 0xfffffffa (1.16, 1.17),
 * 0xfffffff0 (1.18, 1.19) and 0xfffffff1 (1.20 on, the same layout), the
 * pc quantum and the pointer size, then the number of functions and the
 * offsets of its parts; the function table is nfunc + 1 (entry, offset of
 * the function's _func) pairs, sorted by entry, the last one's entry the
 * end of the text; a _func begins with its entry and the offset of its
 * name in the table of names.  From 1.18 the entries are 32-bit offsets
 * from textStart.
 *
 * The file is untrusted: every offset is checked against the section, and
 * a name must end inside it; a table that fails a check gives no symbols
 * (the object is then split by its unwind table, as any stripped one).
 */
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "symbols/sym_int.h"

#define GO_MAGIC_12 0xfffffffbu
#define GO_MAGIC_116 0xfffffffau
#define GO_MAGIC_118 0xfffffff0u
#define GO_MAGIC_120 0xfffffff1u

struct gotab {
	const uint8_t *p;          /* the section's bytes */
	size_t len;
	unsigned ptr;              /* pointer size: 4 or 8 */
	bool bad;                  /* a read fell outside the section */
};

static uint64_t rd(struct gotab *t, uint64_t off, unsigned size)
{
	uint64_t v = 0;

	if (off > t->len || size > t->len - off) {
		t->bad = true;
		return 0;
	}
	for (unsigned i = 0; i < size; i++)
		v |= (uint64_t)t->p[off + i] << (8 * i);
	return v;
}

/* The NUL-terminated name at `off`, or NULL when it does not end inside
 * the section or is empty. */
static const char *name_at(struct gotab *t, uint64_t off)
{
	if (off >= t->len || !t->p[off])
		return NULL;
	return memchr(t->p + off, 0, t->len - off) ? (const char *)t->p + off : NULL;
}

int sym_go_symbols(Elf *elf, const struct sym_xsec *xs, size_t nxs, struct sym_rawvec *out)
{
	GElf_Shdr sh, text_sh;
	Elf_Scn *scn = sym_elf_section(elf, ".gopclntab", &sh);
	Elf_Data *d = scn && sh.sh_type != SHT_NOBITS ? elf_getdata(scn, NULL) : NULL;

	if (!d || !d->d_buf || d->d_size < 16)
		return 0;
	struct gotab t = { d->d_buf, d->d_size, 0, false };
	uint32_t magic = (uint32_t)rd(&t, 0, 4);
	t.ptr = t.p[7];
	if (t.p[4] || t.p[5] || (t.ptr != 4 && t.ptr != 8))
		return 0;
	uint64_t nfunc = rd(&t, 8, t.ptr);
	uint64_t text = 0, names = 0, ftab, fsize;       /* of the table's parts */
	bool new_layout = magic == GO_MAGIC_118 || magic == GO_MAGIC_120;

	if (magic == GO_MAGIC_12) {
		ftab = 8 + t.ptr;
		fsize = 2 * t.ptr;
	} else if (magic == GO_MAGIC_116) {
		names = rd(&t, 8 + 2 * t.ptr, t.ptr);
		ftab = rd(&t, 8 + 6 * t.ptr, t.ptr);
		fsize = 2 * t.ptr;
	} else if (new_layout) {
		text = rd(&t, 8 + 2 * t.ptr, t.ptr);
		names = rd(&t, 8 + 3 * t.ptr, t.ptr);
		ftab = rd(&t, 8 + 7 * t.ptr, t.ptr);
		fsize = 8;
		/* A position-independent binary's textStart is relocated at
		 * load: in the file it may be 0; the runtime's is .text's. */
		if (!text && sym_elf_section(elf, ".text", &text_sh))
			text = text_sh.sh_addr;
	} else {
		return 0;
	}
	if (t.bad || !nfunc || nfunc >= t.len || ftab > t.len || nfunc + 1 > (t.len - ftab) / fsize)
		return 0;
	int added = 0;
	unsigned esize = new_layout ? 4 : t.ptr;          /* an entry, a function offset */
	for (uint64_t i = 0; i < nfunc; i++) {
		uint64_t at = ftab + i * fsize;
		uint64_t entry = rd(&t, at, esize), end = rd(&t, at + fsize, esize);
		uint64_t func = rd(&t, at + esize, esize);
		/* _func's offset: from the function table (1.16 on), from the
		 * table's start before; its name offset follows its entry. */
		uint64_t fbase = magic == GO_MAGIC_12 ? func : ftab + func;
		int32_t nameoff = (int32_t)rd(&t, fbase + esize, 4);
		if (t.bad)
			return added;
		if (end <= entry || nameoff < 0)
			continue;
		const char *name = name_at(&t, names + (uint64_t)nameoff);
		struct sym_raw r = { text + entry, end - entry, name, 0, SYM_RANK_GLOBAL };
		long k = name ? sym_elf_xsec_find(xs, nxs, r.addr) : -1;
		if (k < 0)
			continue;
		r.xsec = (uint32_t)k;
		if (sym_raw_push(out, &r) < 0)
			return -1;
		added++;
	}
	return added;
}
