/* sleep_i386.S — a 32-bit x86 process (no libc: binutils alone builds it),
 * for the foreign-architecture refusal of `tally record -p`.  Sleeps one
 * second at a time, forever (the test kills it).
 *   as --32 -o sleep_i386.o sleep_i386.S && ld -m elf_i386 -o sleep_i386 sleep_i386.o */
	.globl _start
	.text
_start:
	movl	$162, %eax		/* nanosleep */
	movl	$ts, %ebx
	xorl	%ecx, %ecx
	int	$0x80
	jmp	_start
	.data
ts:	.long	1, 0
