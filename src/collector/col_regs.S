/* SPDX-License-Identifier: MIT
 *
 * col_regs.S — col_regs_capture(struct col_regs *): the caller's registers as
 * they will be right after this call returns, for unwinding from an
 * interposer.  Layout: r[17] in DWARF order (rax rdx rcx rbx rsi rdi rbp rsp
 * r8..r15 rip), then the 32-bit valid mask.  Clobbers only rax.
 */
	.text
	.p2align 4
	.globl	col_regs_capture
	.hidden	col_regs_capture
	.type	col_regs_capture, @function
col_regs_capture:
	.cfi_startproc
	movq	%rax, 0(%rdi)
	movq	%rdx, 8(%rdi)
	movq	%rcx, 16(%rdi)
	movq	%rbx, 24(%rdi)
	movq	%rsi, 32(%rdi)
	movq	%rdi, 40(%rdi)
	movq	%rbp, 48(%rdi)
	leaq	8(%rsp), %rax
	movq	%rax, 56(%rdi)
	movq	%r8, 64(%rdi)
	movq	%r9, 72(%rdi)
	movq	%r10, 80(%rdi)
	movq	%r11, 88(%rdi)
	movq	%r12, 96(%rdi)
	movq	%r13, 104(%rdi)
	movq	%r14, 112(%rdi)
	movq	%r15, 120(%rdi)
	movq	(%rsp), %rax
	movq	%rax, 128(%rdi)
	movl	$0x1ffff, 136(%rdi)
	ret
	.cfi_endproc
	.size	col_regs_capture, .-col_regs_capture
	.section .note.GNU-stack,"",@progbits
