/* SPDX-License-Identifier: MIT
 *
 * test_memop.c — sym_object_memop (src/symbols/sym_memop.c), the memory
 * operand a clock sample's registers give an address for, on hand-assembled
 * x86-64 code made into a dynamic object: the pc's own operand, the
 * backtracking within a basic block (and its refusals: an address register
 * written since, a branch between, a branch target), %rip-relative and
 * %fs-relative operands, stack instructions, lea.
 */
#include "format/exp_records.h"
#include "symbols/sym.h"
#include "testhelp.h"

#define BASE 0x1000u

/* The loop of a strided read, then odds and ends (offsets in comments). */
static const uint8_t code[] = {
	0x48, 0x8b, 0x48, 0x08,                   /*  0 mov 0x8(%rax),%rcx        */
	0x48, 0x01, 0xca,                         /*  4 add %rcx,%rdx             */
	0x48, 0x83, 0xc0, 0x40,                   /*  7 add $0x40,%rax            */
	0x48, 0x39, 0xf0,                         /* 11 cmp %rsi,%rax             */
	0x75, 0xf0,                               /* 14 jne 0                     */
	0x8b, 0x05, 0x00, 0x01, 0x00, 0x00,       /* 16 mov 0x100(%rip),%eax      */
	0x64, 0x48, 0x8b, 0x04, 0x25, 0x10, 0x00, 0x00, 0x00, /* 22 mov %fs:0x10,%rax */
	0x53,                                     /* 31 push %rbx                 */
	0x48, 0x8d, 0x44, 0x8f, 0x10,             /* 32 lea 0x10(%rdi,%rcx,4),%rax */
	0x8b, 0x44, 0x8f, 0x10,                   /* 37 mov 0x10(%rdi,%rcx,4),%eax */
	0x01, 0xc2,                               /* 41 add %eax,%edx: a jump target */
	0xeb, 0xfc,                               /* 43 jmp 41                    */
	0xc3,                                     /* 45 ret                       */
};

static struct sym_object *obj(void)
{
	static struct sym_object *o;

	if (!o)
		o = sym_object_dynamic("test_memop", "test_memop", "loop", BASE, sizeof(code), code,
				       sizeof(code), NULL, 0);
	return o;
}

static struct sym_memop at(unsigned off)
{
	struct sym_memop m;

	sym_object_memop(obj(), BASE + off, &m);
	return m;
}

/* rax rdx rcx rbx rsi rdi rbp rsp r8..r15 rip: exp_data_regs order. */
enum { RAX = 0, RDX, RCX, RBX, RSI, RDI };

static void own_operand(void)
{
	struct sym_memop m = at(0);

	CHECK(obj());
	CHECKF(m.status == SYM_MEMOP_OK && !m.backtracked, "status %d", m.status);
	CHECK(m.base == RAX && m.index == -1 && m.disp == 8 && m.insn_vaddr == BASE && m.size == 8);
	CHECK(!m.store);
	m = at(37);
	CHECK(m.status == SYM_MEMOP_OK && m.base == RDI && m.index == RCX && m.scale == 4 && m.disp == 0x10);
}

static void backtracked_in_its_block(void)
{
	struct sym_memop m = at(4);        /* add %rcx,%rdx: the mov before it */

	CHECKF(m.status == SYM_MEMOP_OK && m.backtracked && m.insn_vaddr == BASE, "status %d", m.status);
	m = at(7);                         /* add $0x40,%rax: still the mov's, rax unchanged before it */
	CHECKF(m.status == SYM_MEMOP_OK && m.backtracked && m.base == RAX, "status %d", m.status);
}

static void refused_when_the_address_changed(void)
{
	/* After add $0x40,%rax the mov's address is no longer in rax. */
	CHECKF(at(11).status == SYM_MEMOP_CLOBBERED, "status %d", at(11).status);
	CHECKF(at(14).status == SYM_MEMOP_CLOBBERED, "status %d", at(14).status);
}

static void blocks_end_at_branches_and_targets(void)
{
	CHECKF(at(45).status == SYM_MEMOP_STACK_OP && !at(45).backtracked, "ret: %d", at(45).status);
	/* jmp 41: the add before it has no operand, the mov before that is
	 * another block's (41 is a jump target) */
	CHECKF(at(43).status == SYM_MEMOP_NONE, "jmp: %d", at(43).status);
	/* add %eax,%edx is a jump target: the mov before it is another block's. */
	CHECKF(at(41).status == SYM_MEMOP_NONE, "jump target: %d", at(41).status);
}

static void rip_fs_stack_lea(void)
{
	struct sym_memop m = at(16);

	CHECK(m.status == SYM_MEMOP_OK && m.base == EXP_DREGS_RIP && m.disp == 0x100 && m.insn_size == 6);
	m = at(22);
	CHECK(m.status == SYM_MEMOP_OK && m.seg == 'f' && m.base == -1 && m.index == -1 && m.disp == 0x10);
	CHECK(at(31).status == SYM_MEMOP_STACK_OP);
	/* lea accesses nothing: the nearest access before it is the push's */
	m = at(32);
	CHECKF(m.status == SYM_MEMOP_STACK_OP && m.backtracked, "lea: status %d", m.status);
}

static void not_an_instruction(void)
{
	CHECKF(at(1).status == SYM_MEMOP_NOT_DECODED, "status %d", at(1).status);
}

int main(void)
{
	RUN(own_operand);
	RUN(backtracked_in_its_block);
	RUN(refused_when_the_address_changed);
	RUN(blocks_end_at_branches_and_targets);
	RUN(rip_fs_stack_lea);
	RUN(not_an_instruction);
	sym_objects_free();
	TEST_EXIT();
}
