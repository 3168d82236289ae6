/* SPDX-License-Identifier: MIT
 *
 * df_frames.c — writes its own registers and stack, three calls deep
 * (leaf <- mid <- main, or leaf <- mid <- hop <- main with -DHOP), to the
 * file named by its argument, so that tests/unit/test_out_debugframe.c can
 * unwind them from outside, as the outside mode unwinds a sample, with only
 * the CFI the executable carries.  Built -static with
 * -fno-asynchronous-unwind-tables -fno-unwind-tables its own functions'
 * CFI is only in .debug_frame.
 *
 * The dump: struct dump, then the stack from rsp to __libc_stack_end (at
 * most 64 KiB).  `ehdr` is where the ELF header was loaded (the load bias
 * of a PIE, plus the first segment's address).
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

extern void *__libc_stack_end;
extern const char __ehdr_start[];

struct dump {
	uint64_t rip, rsp, rbp, rbx, r12, r13, r14, r15;
	uint64_t ehdr, len;
};

static uint8_t copy[65536];
int leaf(FILE *out, int depth);
int mid(FILE *out, int depth);
int hop(FILE *out, int depth);

/* The registers at the asm's first instruction, written to memory only,
 * so no register is changed before it is read. */
__attribute__((noinline, noclone)) int leaf(FILE *out, int depth)
{
	static struct dump d;

	__asm__ volatile("lea 0(%%rip), %%rax\n\t"
			 "mov %%rax, %0\n\t"
			 "mov %%rsp, %1\n\t"
			 "mov %%rbp, %2\n\t"
			 "mov %%rbx, %3\n\t"
			 "mov %%r12, %4\n\t"
			 "mov %%r13, %5\n\t"
			 "mov %%r14, %6\n\t"
			 "mov %%r15, %7\n\t"
			 : "=m"(d.rip), "=m"(d.rsp), "=m"(d.rbp), "=m"(d.rbx), "=m"(d.r12),
			   "=m"(d.r13), "=m"(d.r14), "=m"(d.r15)
			 :
			 : "rax", "memory");
	uint64_t end = (uint64_t)(uintptr_t)__libc_stack_end + 64;
	d.len = end - d.rsp < sizeof(copy) ? end - d.rsp : sizeof(copy);
	memcpy(copy, (const void *)(uintptr_t)d.rsp, d.len);
	d.ehdr = (uint64_t)(uintptr_t)__ehdr_start;
	return fwrite(&d, sizeof(d), 1, out) == 1 && fwrite(copy, d.len, 1, out) == 1 ? depth : -1;
}

__attribute__((noinline, noclone)) int mid(FILE *out, int depth)
{
	volatile int keep = depth;
	return leaf(out, keep + 1) + 1;   /* not a tail call */
}

#ifdef HOP
/* A hand-written frame marked as a signal frame: gas writes its CIE into
 * .debug_frame with augmentation "S". */
__asm__(".text\n"
	".globl hop\n"
	".type hop, @function\n"
	"hop:\n"
	".cfi_startproc\n"
	".cfi_signal_frame\n"
	"\tpush %rbx\n"
	".cfi_adjust_cfa_offset 8\n"
	".cfi_rel_offset %rbx, 0\n"
	"\tsub $32, %rsp\n"
	".cfi_adjust_cfa_offset 32\n"
	"\tcall mid\n"
	"\tadd $32, %rsp\n"
	".cfi_adjust_cfa_offset -32\n"
	"\tpop %rbx\n"
	".cfi_adjust_cfa_offset -8\n"
	"\tret\n"
	".cfi_endproc\n"
	".size hop, .-hop\n");
#else
__attribute__((noinline, noclone)) int hop(FILE *out, int depth)
{
	volatile int keep = depth;
	return mid(out, keep) + 1;
}
#endif

int main(int argc, char **argv)
{
	FILE *out = argc > 1 ? fopen(argv[1], "wb") : NULL;
	if (!out)
		return 2;
	int r = hop(out, 1);
	return fclose(out) == 0 && r > 0 ? 0 : 1;
}
