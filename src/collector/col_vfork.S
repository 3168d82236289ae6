/* SPDX-License-Identifier: MIT
 *
 * col_vfork.S — vfork(), interposed without changing what it is.
 *
 * A vfork child runs on its parent's stack until it execs or exits, so the
 * interposer keeps nothing on the stack across the system call (as glibc's
 * own vfork): the return address waits in %rdi, which the kernel gives back
 * to the parent unchanged.  Before the call, col_vfork_enter marks the
 * thread's collector state as the child's; in the parent, col_vfork_leave
 * takes it back and turns an error into errno (col_interpose_exec.c).  The
 * child returns 0 straight away.
 */
#include <sys/syscall.h>

	.text
	.p2align 4
	.globl	vfork
	.type	vfork, @function
vfork:
	.cfi_startproc
	subq	$8, %rsp                /* align the stack for the call */
	.cfi_adjust_cfa_offset 8
	call	col_vfork_enter
	addq	$8, %rsp
	.cfi_adjust_cfa_offset -8
	popq	%rdi                    /* the return address, off the stack */
	.cfi_adjust_cfa_offset -8
	.cfi_register %rip, %rdi
	movl	$SYS_vfork, %eax
	syscall
	pushq	%rdi
	.cfi_adjust_cfa_offset 8
	.cfi_rel_offset %rip, 0
	testq	%rax, %rax
	jz	1f                      /* the child */
	subq	$8, %rsp
	.cfi_adjust_cfa_offset 8
	movq	%rax, %rdi
	call	col_vfork_leave
	addq	$8, %rsp
	.cfi_adjust_cfa_offset -8
1:	ret
	.cfi_endproc
	.size	vfork, .-vfork
	.section .note.GNU-stack,"",@progbits
