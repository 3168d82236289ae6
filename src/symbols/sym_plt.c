/* SPDX-License-Identifier: MIT
 *
 * sym_plt.c — synthesizes the `callee@plt` names of x86-64 PLT stubs, which
 * have no symbols of their own.  Called by sym_object.c once per object.
 *
 * Like objdump (elf_x86_64_get_synthetic_symtab), each 16-byte entry of
 * .plt, .plt.sec, .plt.bnd and .plt.got (8 bytes there without IBT, as its
 * sh_entsize says) is decoded: after an optional endbr64 and an optional bnd
 * prefix comes `jmp *disp32(%rip)`, whose GOT slot is matched against the
 * dynamic relocations (R_X86_64_JUMP_SLOT, GLOB_DAT, IRELATIVE) to find the
 * callee.  This one rule covers lazy and -z now binaries, PLT0 (which starts
 * with a push and is skipped), and IBT layouts where .plt holds only the lazy
 * stubs and the names belong to .plt.sec.  Entries that do not decode are left
 * unnamed; sym_table.c names what is left of a PLT section `@plt`.
 */
#include <stdlib.h>
#include <string.h>

#include "symbols/sym_int.h"

#define SYM_PLT_ENTRY 16      /* bytes per PLT entry on x86-64 */

/* One GOT slot that a dynamic relocation fills. */
struct sym_slot {
	uint64_t got;             /* link-time address of the slot */
	const char *name;         /* symbol, or NULL for IRELATIVE */
	uint64_t addend;          /* IRELATIVE: the resolver's address */
};

struct sym_slots {
	struct sym_slot *v;
	size_t n, cap;
};

static int sym_slot_cmp(const void *a, const void *b)
{
	const struct sym_slot *x = a, *y = b;

	return x->got < y->got ? -1 : x->got > y->got;
}

static int sym_slot_push(struct sym_slots *s, const struct sym_slot *x)
{
	if (s->n == s->cap) {
		size_t ncap = s->cap ? s->cap * 2 : 64;
		struct sym_slot *nv = realloc(s->v, ncap * sizeof(*nv));

		if (!nv)
			return -1;
		s->v = nv;
		s->cap = ncap;
	}
	s->v[s->n++] = *x;
	return 0;
}

/* True for the names of the sections that hold PLT stubs. */
bool sym_plt_section(const char *name)
{
	return strcmp(name, ".plt") == 0 || strcmp(name, ".plt.sec") == 0 ||
	       strcmp(name, ".plt.got") == 0 || strcmp(name, ".plt.bnd") == 0;
}

/* The name of symbol `symi` of the table in section `symndx`, or NULL. */
static const char *sym_rel_name(Elf *elf, size_t symndx, size_t symi)
{
	GElf_Shdr sh;
	GElf_Sym s;
	size_t shnum;
	Elf_Scn *scn;
	Elf_Data *d;

	if (symi == 0 || symi > INT32_MAX || elf_getshdrnum(elf, &shnum) != 0 ||
	    symndx == 0 || symndx >= shnum)
		return NULL;
	scn = elf_getscn(elf, symndx);
	if (!scn || !gelf_getshdr(scn, &sh) ||
	    (sh.sh_type != SHT_DYNSYM && sh.sh_type != SHT_SYMTAB) ||
	    sh.sh_link == 0 || sh.sh_link >= shnum)
		return NULL;
	d = elf_getdata(scn, NULL);
	if (!d || d->d_type != ELF_T_SYM || !gelf_getsym(d, (int)symi, &s))
		return NULL;
	return elf_strptr(elf, sh.sh_link, s.st_name);
}

/* The GOT slots of every allocated SHT_RELA section, sorted by address. */
static int sym_plt_slots(Elf *elf, struct sym_slots *slots)
{
	size_t fsize = gelf_fsize(elf, ELF_T_RELA, 1, EV_CURRENT);
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;

	while ((scn = elf_nextscn(elf, scn)) != NULL) {
		Elf_Data *d;
		size_t n, i;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_RELA ||
		    !(sh.sh_flags & SHF_ALLOC) || !fsize ||
		    sh.sh_entsize != fsize)
			continue;
		d = elf_getdata(scn, NULL);
		if (!d || d->d_type != ELF_T_RELA)
			continue;
		n = d->d_size / fsize;
		for (i = 0; i < n && i <= INT32_MAX; i++) {
			struct sym_slot x;
			GElf_Rela r;
			uint64_t type;

			if (!gelf_getrela(d, (int)i, &r))
				break;
			type = GELF_R_TYPE(r.r_info);
			x.got = r.r_offset;
			x.addend = (uint64_t)r.r_addend;
			x.name = NULL;
			if (type == R_X86_64_JUMP_SLOT ||
			    type == R_X86_64_GLOB_DAT) {
				x.name = sym_rel_name(elf, sh.sh_link,
						      GELF_R_SYM(r.r_info));
				if (!x.name || !*x.name)
					continue;
			} else if (type != R_X86_64_IRELATIVE) {
				continue;
			}
			if (sym_slot_push(slots, &x) < 0)
				return -1;
		}
	}
	if (slots->n > 1)
		qsort(slots->v, slots->n, sizeof(*slots->v), sym_slot_cmp);
	return 0;
}

static const struct sym_slot *sym_slot_find(const struct sym_slots *s,
					    uint64_t got)
{
	size_t lo = 0, hi = s->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (s->v[mid].got < got)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < s->n && s->v[lo].got == got ? &s->v[lo] : NULL;
}

/* The GOT slot that the PLT entry `e` (`es` bytes at link-time address
 * `addr`) jumps through, or 0 if it is not such an entry. */
static uint64_t sym_plt_decode(const uint8_t *e, size_t es, uint64_t addr)
{
	static const uint8_t endbr64[4] = { 0xf3, 0x0f, 0x1e, 0xfa };
	size_t p = 0;
	int32_t disp;

	if (es >= 4 && memcmp(e, endbr64, 4) == 0)
		p = 4;
	if (p < es && e[p] == 0xf2)              /* bnd */
		p++;
	if (p + 6 > es || e[p] != 0xff || e[p + 1] != 0x25)
		return 0;
	memcpy(&disp, e + p + 2, 4);
	return addr + p + 6 + (uint64_t)(int64_t)disp;
}

/* Append a `name@plt` symbol to `out` for every PLT entry of `o` (built up
 * to its xsecs) that jumps through a relocated GOT slot.  Names go to
 * o->arena.  Returns 0, or -1 when out of memory. */
int sym_plt_symbols(struct sym_object *o, struct sym_rawvec *out)
{
	struct sym_slots slots = { 0 };
	GElf_Ehdr eh;
	int rc = 0;

	if (!gelf_getehdr(o->elf, &eh) || eh.e_machine != EM_X86_64)
		return 0;
	if (sym_plt_slots(o->elf, &slots) < 0) {
		free(slots.v);
		return -1;
	}
	for (size_t k = 0; k < o->nxsecs && slots.n && rc == 0; k++) {
		const struct sym_xsec *x = &o->xsecs[k];
		size_t es = SYM_PLT_ENTRY;
		GElf_Shdr sh;

		if (!sym_plt_section(x->name))
			continue;
		if (strcmp(x->name, ".plt.got") == 0 &&
		    sym_elf_section(o->elf, x->name, &sh) &&
		    (sh.sh_entsize == 8 || sh.sh_entsize == 16))
			es = sh.sh_entsize;
		for (uint64_t off = 0; off + es <= x->size; off += es) {
			const struct sym_slot *s;
			struct sym_raw r;
			uint64_t got = sym_plt_decode(o->image + x->offset + off,
						      es, x->addr + off);

			s = got ? sym_slot_find(&slots, got) : NULL;
			if (!s)
				continue;
			r.name = s->name ?
				sym_arena_printf(&o->arena, "%s@plt", s->name) :
				sym_arena_printf(&o->arena, "*ABS*+0x%llx@plt",
						 (unsigned long long)s->addend);
			r.addr = x->addr + off;
			r.size = es;
			r.xsec = (uint32_t)k;
			r.rank = SYM_RANK_PLT;
			if (!r.name || sym_raw_push(out, &r) < 0) {
				rc = -1;
				break;
			}
		}
	}
	free(slots.v);
	return rc;
}
