/* SPDX-License-Identifier: MIT
 *
 * mc_entry.S — the entry points the compiler calls: mcount / _mcount (-pg:
 * called after the prologue, so the caller's return address is at 8(%rbp))
 * and __fentry__ (-pg -mfentry: called before it, so it is at 8(%rsp)).
 * They must preserve every register an argument may be in.  The common case
 * (the arc is in its first slot) is counted here with two scratch registers
 * and none saved; the rest goes to mc_count_arc, which preserves all
 * registers itself (no_caller_saved_registers).  selfpc is our own return
 * address: inside the callee, just after its call to us.
 */
	.text

/* The fast path, shared by the entries: selfpc is our return address at
 * (%rsp), frompc is at \from.  Hash to the arc's first slot (the same hash
 * as mc_slot_index in mc_hot.c) and count it if it is there, using only
 * %r10 and %r11, which no argument lives in: no register is saved.
 * Anything else (no table yet, another arc in the slot, an empty slot,
 * moncontrol(0)) goes to mc_count_arc, which preserves every register, with
 * frompc in %rdi and selfpc in %rsi (saved around it); \from_pushed is
 * where frompc is once they are pushed. */
.macro COUNT_ARC from, from_pushed
	cmpl	$0, mc_off(%rip)
	jne	9f
	movq	(%rsp), %r11
	shlq	$7, %r11
	xorq	\from, %r11
	imulq	$-1640531535, %r11, %r11	/* 0x9e3779b1, sign-extended */
	shrq	$40, %r11
	movq	mc_self@GOTTPOFF(%rip), %r10
	andq	%fs:8(%r10), %r11		/* mc_self.mask */
	shlq	$5, %r11			/* sizeof(struct exp_arc) */
	addq	%fs:(%r10), %r11		/* mc_self.slots */
	jz	8f				/* no table (mask and slots 0) */
	movq	\from, %r10
	cmpq	%r10, (%r11)
	jne	8f
	movq	(%rsp), %r10
	cmpq	%r10, 8(%r11)
	jne	8f
	incq	16(%r11)
9:	ret
8:	pushq	%rdi
	.cfi_adjust_cfa_offset 8
	pushq	%rsi
	.cfi_adjust_cfa_offset 8
	movq	16(%rsp), %rsi
	movq	\from_pushed, %rdi
	call	mc_count_arc
	popq	%rsi
	.cfi_adjust_cfa_offset -8
	popq	%rdi
	.cfi_adjust_cfa_offset -8
	ret
.endm

	.p2align 4
	.globl	mcount
	.type	mcount, @function
	.globl	_mcount
	.type	_mcount, @function
mcount:
_mcount:
	.cfi_startproc
	COUNT_ARC 8(%rbp), 8(%rbp)	/* frompc: the callee's return address */
	.cfi_endproc
	.size	mcount, .-mcount
	.size	_mcount, .-_mcount

	.p2align 4
	.globl	__fentry__
	.type	__fentry__, @function
__fentry__:
	.cfi_startproc
	COUNT_ARC 8(%rsp), 24(%rsp)	/* frompc: above our return address */
	.cfi_endproc
	.size	__fentry__, .-__fentry__

/* mc_slow_trampoline(frompc, selfpc): mc_insert_slow, which calls into libc
 * (mmap, malloc: they may use vector registers), with every register the
 * instrumented function may still need saved and restored: the general
 * ones by push, the vector and x87 state by XSAVE (FXSAVE if the system
 * has no XSAVE).  Rare: the first call of a thread, a full table. */
	.p2align 4
	.hidden	mc_use_xsave
	.globl	mc_slow_trampoline
	.hidden	mc_slow_trampoline
	.type	mc_slow_trampoline, @function
mc_slow_trampoline:
	.cfi_startproc
	pushq	%rbp
	.cfi_def_cfa_offset 16
	.cfi_offset %rbp, -16
	movq	%rsp, %rbp
	.cfi_def_cfa_register %rbp
	pushq	%rax
	pushq	%rcx
	pushq	%rdx
	pushq	%rsi
	pushq	%rdi
	pushq	%r8
	pushq	%r9
	pushq	%r10
	pushq	%r11
	subq	$8256, %rsp
	andq	$-64, %rsp
	cmpb	$0, mc_use_xsave(%rip)
	je	1f
	xorl	%eax, %eax		/* the XSAVE header must start zeroed */
	movq	%rax, 512(%rsp)
	movq	%rax, 520(%rsp)
	movq	%rax, 528(%rsp)
	movq	%rax, 536(%rsp)
	movq	%rax, 544(%rsp)
	movq	%rax, 552(%rsp)
	movq	%rax, 560(%rsp)
	movq	%rax, 568(%rsp)
	movl	$0xff, %eax		/* x87, SSE, AVX, MPX, AVX-512: < 2.7 KiB */
	xorl	%edx, %edx
	xsave64	(%rsp)
	jmp	2f
1:	fxsave64 (%rsp)
2:	movq	-40(%rbp), %rdi
	movq	-32(%rbp), %rsi
	call	mc_insert_slow
	cmpb	$0, mc_use_xsave(%rip)
	je	3f
	movl	$0xff, %eax
	xorl	%edx, %edx
	xrstor64 (%rsp)
	jmp	4f
3:	fxrstor64 (%rsp)
4:	leaq	-72(%rbp), %rsp
	popq	%r11
	popq	%r10
	popq	%r9
	popq	%r8
	popq	%rdi
	popq	%rsi
	popq	%rdx
	popq	%rcx
	popq	%rax
	popq	%rbp
	.cfi_def_cfa %rsp, 8
	ret
	.cfi_endproc
	.size	mc_slow_trampoline, .-mc_slow_trampoline

	.section .note.GNU-stack,"",@progbits
