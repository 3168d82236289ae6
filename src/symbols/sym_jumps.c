/* SPDX-License-Identifier: MIT
 *
 * sym_jumps.c — the tail calls of one function: the functions its code
 * jumps to.  A function whose last act is a call ends, from gcc or clang at
 * -O2, with `jmp callee` (or a conditional jump to it); the function's frame
 * is gone while the callee runs.  The analyzer asks this of the OpenMP
 * bodies, to know which body a function under the runtime was jumped to
 * from (docs/structure.md, "OpenMP").  Direct jumps only (an indirect jump's
 * target is not in the code); decoded with capstone, as annotate does.
 */
#include <stdlib.h>

#include "symbols/sym_capstone.h"
#include "symbols/sym_int.h"

#define SYM_JUMPS_MAX_CODE (64u << 10)  /* bodies are small; a huge one is read in part */

size_t sym_object_tail_calls(struct sym_object *o, const struct sym_func *f,
			     const struct sym_func **out, size_t max)
{
	size_t size = f->size > SYM_JUMPS_MAX_CODE ? SYM_JUMPS_MAX_CODE : (size_t)f->size;
	uint8_t *code = malloc(size ? size : 1);
	size_t found = 0;
	csh cs;

	if (!code)
		return 0;
	size_t got = sym_object_read(o, f->start, code, size);
	if (got == 0 || sym_cs_open(CS_ARCH_X86, CS_MODE_64, &cs) != CS_ERR_OK) {
		free(code);
		return 0;
	}
	sym_cs_option(cs, CS_OPT_DETAIL, CS_OPT_ON);
	cs_insn *insn = NULL;
	size_t n = sym_cs_disasm(cs, code, got, f->start, 0, &insn);
	for (size_t i = 0; i < n && found < max; i++) {
		const cs_detail *d = insn[i].detail;
		if (!d || !sym_cs_insn_group(cs, &insn[i], CS_GRP_JUMP) || d->x86.op_count != 1 ||
		    d->x86.operands[0].type != X86_OP_IMM)
			continue;
		uint64_t to = (uint64_t)d->x86.operands[0].imm;
		if (to >= f->start && to < f->start + f->size)
			continue;               /* a jump inside the function */
		const struct sym_func *t = sym_object_lookup(o, to);
		if (!t || t->start != to || t == f)
			continue;               /* not to a function's start */
		bool seen = false;
		for (size_t j = 0; j < found; j++)
			seen |= out[j] == t;
		if (!seen)
			out[found++] = t;
	}
	if (n)
		sym_cs_free(insn, n);
	sym_cs_close(&cs);
	free(code);
	return found;
}
