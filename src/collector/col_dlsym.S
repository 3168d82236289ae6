/* SPDX-License-Identifier: MIT
 *
 * col_dlsym.S — dlsym(), interposed so that a JVM created through a handle
 * (the java launcher: dlopen of libjvm.so, then dlsym of JNI_CreateJavaVM)
 * is created through the collector's JNI_CreateJavaVM, which adds the JVMTI
 * agent (col_interpose_jvm.c).
 *
 * For RTLD_NEXT and RTLD_DEFAULT, glibc's dlsym looks at its caller (the
 * object after which to search, the caller's namespace): those calls jump
 * to the real dlsym with the caller's return address untouched, so they
 * mean exactly what they meant.  Only lookups in a handle, which do not
 * depend on the caller, go through col_dlsym_handle.
 */
	.text
	.p2align 4
	.globl	dlsym
	.type	dlsym, @function
dlsym:
	.cfi_startproc
	cmpq	$-1, %rdi               /* RTLD_NEXT */
	je	1f
	testq	%rdi, %rdi              /* RTLD_DEFAULT */
	je	1f
	jmp	col_dlsym_handle
1:	movq	col_dlsym_real(%rip), %rax
	testq	%rax, %rax
	jz	2f
	jmp	*%rax
2:	pushq	%rdi                    /* first call: resolve the real one */
	.cfi_adjust_cfa_offset 8
	pushq	%rsi
	.cfi_adjust_cfa_offset 8
	subq	$8, %rsp
	.cfi_adjust_cfa_offset 8
	call	col_dlsym_resolve
	addq	$8, %rsp
	.cfi_adjust_cfa_offset -8
	popq	%rsi
	.cfi_adjust_cfa_offset -8
	popq	%rdi
	.cfi_adjust_cfa_offset -8
	jmp	*%rax
	.cfi_endproc
	.size	dlsym, .-dlsym
	.section .note.GNU-stack,"",@progbits
