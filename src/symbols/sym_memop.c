/* SPDX-License-Identifier: MIT
 *
 * sym_memop.c — the memory operand of the instruction at a sampled pc, for
 * data objects from clock samples (docs/dataspace.md).  A clock sample's pc
 * is the next instruction to run: its operands are in the saved registers.
 * When it has no memory operand, the Sun analyzer's backtracking is done:
 * the nearest memory instruction before it in the same basic block (no
 * branch, call or return between, and the pc's instruction not a branch
 * target), used only if no instruction from it up to the pc writes a
 * register of its address (else the saved registers no longer give it).
 *
 * Decoded with capstone (as annotate and sym_jumps.c do) from the start of
 * the function holding the pc, twice: once for the branch targets (basic
 * block starts), once to find the pc's instruction.  Called by the model
 * once per distinct sampled pc (it caches the answers).
 */
#include <stdlib.h>
#include <string.h>

#include "format/exp_records.h"
#include "symbols/sym_capstone.h"
#include "symbols/sym_int.h"

#define MEMOP_MAX_CODE (256u << 10)   /* a larger function: only the pc's own instruction */

/* Our register index (exp_data_regs order) of capstone register `r`, any
 * width (eax, ax, al, ah are rax's); -1 for none of the 17. */
static int reg_index(csh cs, unsigned r)
{
	static const char *const names[EXP_DREGS_NREGS][4] = {
		{ "rax", "eax", "ax", "al" }, { "rdx", "edx", "dx", "dl" }, { "rcx", "ecx", "cx", "cl" },
		{ "rbx", "ebx", "bx", "bl" }, { "rsi", "esi", "si", "sil" }, { "rdi", "edi", "di", "dil" },
		{ "rbp", "ebp", "bp", "bpl" }, { "rsp", "esp", "sp", "spl" }, { "r8", "r8d", "r8w", "r8b" },
		{ "r9", "r9d", "r9w", "r9b" }, { "r10", "r10d", "r10w", "r10b" }, { "r11", "r11d", "r11w", "r11b" },
		{ "r12", "r12d", "r12w", "r12b" }, { "r13", "r13d", "r13w", "r13b" },
		{ "r14", "r14d", "r14w", "r14b" }, { "r15", "r15d", "r15w", "r15b" }, { "rip", "eip", "ip", "" },
	};
	const char *n = r ? sym_cs_reg_name(cs, r) : NULL;

	if (!n)
		return -1;
	if (!strcmp(n, "ah"))
		return 0;
	if (!strcmp(n, "dh"))
		return 1;
	if (!strcmp(n, "ch"))
		return 2;
	if (!strcmp(n, "bh"))
		return 3;
	for (int i = 0; i < EXP_DREGS_NREGS; i++)
		for (int w = 0; w < 4; w++)
			if (*names[i][w] && !strcmp(n, names[i][w]))
				return i;
	return -1;
}

/* The instruction's memory operand that accesses memory (not lea's, not a
 * nop's), or NULL. */
static const cs_x86_op *mem_operand(const cs_insn *in)
{
	const cs_detail *d = in->detail;

	if (!d || in->id == X86_INS_LEA || in->id == X86_INS_NOP)
		return NULL;
	for (int i = 0; i < d->x86.op_count; i++)
		if (d->x86.operands[i].type == X86_OP_MEM)
			return &d->x86.operands[i];
	return NULL;
}

static bool stack_op(unsigned id)
{
	return id == X86_INS_PUSH || id == X86_INS_POP || id == X86_INS_CALL || id == X86_INS_RET ||
	       id == X86_INS_PUSHFQ || id == X86_INS_POPFQ || id == X86_INS_LEAVE;
}

static bool block_end(csh cs, const cs_insn *in)
{
	return sym_cs_insn_group(cs, in, CS_GRP_JUMP) || sym_cs_insn_group(cs, in, CS_GRP_CALL) ||
	       sym_cs_insn_group(cs, in, CS_GRP_RET) || sym_cs_insn_group(cs, in, CS_GRP_INT) ||
	       sym_cs_insn_group(cs, in, CS_GRP_IRET);
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* Fill *out from memory operand `op` of instruction `in`. */
static void take(csh cs, const cs_insn *in, const cs_x86_op *op, struct sym_memop *out)
{
	out->insn_vaddr = in->address;
	out->insn_size = in->size;
	out->disp = op->mem.disp;
	out->scale = op->mem.scale;
	out->base = op->mem.base ? (int8_t)reg_index(cs, op->mem.base) : -1;
	out->index = op->mem.index ? (int8_t)reg_index(cs, op->mem.index) : -1;
	out->seg = 0;
	if (op->mem.segment == X86_REG_FS)
		out->seg = 'f';
	else if (op->mem.segment == X86_REG_GS)
		out->seg = 'g';
	out->status = SYM_MEMOP_OK;
	if ((op->mem.base && out->base < 0) || (op->mem.index && out->index < 0))
		out->status = SYM_MEMOP_VECTOR_INDEX;    /* a gather's xmm/ymm index, or a segment base */
	out->size = op->size;
	out->store = (op->access & CS_AC_WRITE) != 0;
}

/* Does instruction `in` write a register of the address in *m? */
static bool writes_address(csh cs, const cs_insn *in, const struct sym_memop *m)
{
	cs_regs rd, wr;
	uint8_t nrd, nwr;

	if (sym_cs_regs_access(cs, in, rd, &nrd, wr, &nwr) != CS_ERR_OK)
		return true;                     /* not known: assume it does */
	for (uint8_t i = 0; i < nwr; i++) {
		int k = reg_index(cs, wr[i]);
		if (k >= 0 && k != EXP_DREGS_RIP && (k == m->base || k == m->index))
			return true;
	}
	return false;
}

void sym_object_memop(struct sym_object *o, uint64_t vaddr, struct sym_memop *out)
{
	const struct sym_func *f = sym_object_lookup(o, vaddr);
	uint64_t start = f ? f->start : vaddr, size = f ? f->size : 16;
	csh cs;

	memset(out, 0, sizeof(*out));
	out->status = SYM_MEMOP_NO_CODE;
	if (size > MEMOP_MAX_CODE || vaddr - start >= size) {
		start = vaddr;
		size = 16;
	}
	uint8_t *code = malloc(size);
	if (!code)
		return;
	size_t got = sym_object_read(o, start, code, size);
	if (!got || sym_cs_open(CS_ARCH_X86, CS_MODE_64, &cs) != CS_ERR_OK) {
		free(code);
		return;
	}
	sym_cs_option(cs, CS_OPT_DETAIL, CS_OPT_ON);
	cs_insn *in = NULL;
	size_t n = sym_cs_disasm(cs, code, got, start, 0, &in);
	uint64_t *targets = calloc(n + 1, sizeof(*targets));
	size_t ntargets = 0, k = n;
	for (size_t i = 0; i < n; i++) {
		const cs_detail *d = in[i].detail;
		if (in[i].address == vaddr)
			k = i;
		if (targets && d && sym_cs_insn_group(cs, &in[i], CS_GRP_JUMP) && d->x86.op_count == 1 &&
		    d->x86.operands[0].type == X86_OP_IMM)
			targets[ntargets++] = (uint64_t)d->x86.operands[0].imm;
	}
	if (targets)
		qsort(targets, ntargets, sizeof(*targets), cmp_u64);
	out->status = SYM_MEMOP_NOT_DECODED;      /* the pc is not on an instruction decoded */
	if (k < n) {
		const cs_x86_op *op = mem_operand(&in[k]);
		out->status = SYM_MEMOP_NONE;
		if (op) {
			take(cs, &in[k], op, out);
		} else if (stack_op(in[k].id)) {
			out->status = SYM_MEMOP_STACK_OP;
			out->insn_vaddr = in[k].address;
			out->insn_size = in[k].size;
		} else {
			/* backtrack within the basic block */
			for (size_t j = k; j-- > 0;) {
				uint64_t next = in[j + 1].address;
				if (block_end(cs, &in[j]) ||
				    (targets && bsearch(&next, targets, ntargets, sizeof(*targets), cmp_u64)))
					break;
				const cs_x86_op *pop = mem_operand(&in[j]);
				if (!pop && stack_op(in[j].id)) {       /* a push or pop: the stack */
					out->status = SYM_MEMOP_STACK_OP;
					out->backtracked = true;
					out->insn_vaddr = in[j].address;
					out->insn_size = in[j].size;
					break;
				}
				if (!pop)
					continue;
				take(cs, &in[j], pop, out);
				out->backtracked = true;
				for (size_t w = j; w < k && out->status == SYM_MEMOP_OK; w++)
					if (writes_address(cs, &in[w], out))
						out->status = SYM_MEMOP_CLOBBERED;
				break;
			}
		}
	}
	free(targets);
	if (n)
		sym_cs_free(in, n);
	sym_cs_close(&cs);
	free(code);
}
