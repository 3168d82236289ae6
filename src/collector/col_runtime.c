/* SPDX-License-Identifier: MIT
 *
 * col_runtime.c — does the program make its own system calls?
 *
 * A Go program's runtime calls the kernel directly, exec included
 * (syscall.Exec, os/exec), so no interposer of ours stands before its
 * exec: an event of ours that overflowed in kernel mode during that exec
 * would signal the new image, whose SIGTRAP is at its default action again
 * (the kernel sends a sigtrap event's signal on the return to user mode,
 * after the exec).  Go programs carry a Go build-id note ("Go", type 4) in
 * a PT_NOTE segment of the executable: that is what is looked for, in the
 * main program's headers in memory (the first object dl_iterate_phdr
 * reports), once.  A C program can exec the same way, by inline assembly
 * (a `syscall` instruction after `mov $59, %eax`, execve, or `mov $322,
 * %eax`, execveat): the main program's executable segments are searched for
 * that (the two bytes of `syscall`, rare outside libc, sixteen positions at
 * a time, then a look at the 32 bytes before each); a number set from a
 * register is not recognised (docs/decisions.md).  The search costs about
 * 0.15-0.2 ms of CPU per MiB of code (memmem's took 0.6-0.9), so it is
 * made at start for a program of at most COL_RUNTIME_SCAN_START bytes of
 * code (1 MiB: bash's 0.9 MiB, no more than the 256 KiB memmem searched
 * before), and otherwise before its first
 * fork (the pthread_atfork prepare handler: once per image, the answer
 * inherited by every child, where such an exec mostly happens).  Called by the first thread that opens a clock, a
 * counter or a switch event (col_clock.c, col_counters.c, col_states.c);
 * layer 2: includes nothing of the collector but its header.
 */
#include <elf.h>
#include <emmintrin.h>
#include <link.h>
#include <stdatomic.h>
#include <stdint.h>
#include <string.h>

#include "collector/col_runtime.h"
#include "format/elf_peek.h"

#define LOOK_BACK 32u               /* bytes before a syscall searched for its number */

#define COL_RUNTIME_SCAN_START (1u << 20)

enum { FOUND_GO = 1, FOUND_EXEC = 2, SCANNED = 4 };

/* What look() is to do and what it found. */
struct look_for {
	size_t max_code;            /* search code only if there is at most this much */
	int found;                  /* FOUND_* | SCANNED */
};

/* Does `nr` (execve's or execveat's number, little-endian) sit as the
 * immediate of a `mov $nr, %eax` (b8 imm32) or `mov $nr, %rax` (48 c7 c0
 * imm32) in the `n` bytes at `p`, which end at a syscall instruction? */
static bool sets_exec_nr(const uint8_t *p, size_t n)
{
	static const uint8_t nrs[2][4] = { { 59, 0, 0, 0 }, { 0x42, 0x01, 0, 0 } };

	for (size_t i = 0; i + 5 <= n; i++)
		for (int k = 0; k < 2; k++) {
			if (p[i] == 0xb8 && !memcmp(p + i + 1, nrs[k], 4))
				return true;
			if (i + 7 <= n && p[i] == 0x48 && p[i + 1] == 0xc7 && p[i + 2] == 0xc0 &&
			    !memcmp(p + i + 3, nrs[k], 4))
				return true;
		}
	return false;
}

/* Does the syscall instruction at `q` (within the code at `p`) make an
 * execve or execveat? */
static bool is_exec_at(const uint8_t *p, const uint8_t *q)
{
	const uint8_t *from = q - p > LOOK_BACK ? q - LOOK_BACK : p;

	return sets_exec_nr(from, (size_t)(q - from));
}

/* Is there an inline execve or execveat in the `bytes` of code at `p`?
 * Sixteen positions at a time (SSE2, x86-64's baseline): the bytes at i and
 * i + 1 compared with the two of `syscall` (0f 05) at once; glibc's memmem
 * for two bytes goes one byte at a time, about 4-5 times slower. */
static bool has_inline_exec(const uint8_t *p, size_t bytes)
{
	const __m128i op0 = _mm_set1_epi8(0x0f), op1 = _mm_set1_epi8(0x05);
	size_t i = 0;

	for (; i + 17 <= bytes; i += 16) {
		__m128i a = _mm_loadu_si128((const __m128i *)(const void *)(p + i));
		__m128i b = _mm_loadu_si128((const __m128i *)(const void *)(p + i + 1));
		unsigned m = (unsigned)_mm_movemask_epi8(_mm_and_si128(_mm_cmpeq_epi8(a, op0), _mm_cmpeq_epi8(b, op1)));
		for (; m; m &= m - 1)
			if (is_exec_at(p, p + i + (unsigned)__builtin_ctz(m)))
				return true;
	}
	for (; i + 2 <= bytes; i++)
		if (p[i] == 0x0f && p[i + 1] == 0x05 && is_exec_at(p, p + i))
			return true;
	return false;
}

static int look(struct dl_phdr_info *info, size_t size, void *data)
{
	struct look_for *l = data;
	size_t code = 0;

	(void)size;
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		if (ph->p_type == PT_NOTE &&
		    elf_notes_go((const uint8_t *)(info->dlpi_addr + ph->p_vaddr), ph->p_memsz))
			l->found |= FOUND_GO;
		else if (ph->p_type == PT_LOAD && (ph->p_flags & PF_X))
			code += ph->p_filesz;
	}
	if (code > l->max_code)
		return 1;
	l->found |= SCANNED;
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		if (ph->p_type == PT_LOAD && (ph->p_flags & PF_X) && (ph->p_flags & PF_R) &&
		    has_inline_exec((const uint8_t *)(info->dlpi_addr + ph->p_vaddr), ph->p_filesz))
			l->found |= FOUND_EXEC;
	}
	return 1;                   /* the main program only */
}

static _Atomic int known = -1;      /* FOUND_* | SCANNED, once looked */

/* What was found in the main program, looked for once (its code searched
 * if there is at most `max_code` of it, or again later with more). */
static int found(size_t max_code)
{
	int v = atomic_load(&known);

	if (v < 0 || (!(v & SCANNED) && max_code > COL_RUNTIME_SCAN_START)) {
		struct look_for l = { max_code, 0 };
		dl_iterate_phdr(look, &l);
		atomic_store(&known, v = l.found);
	}
	return v;
}

bool col_runtime_raw_syscalls(void)
{
	return found(COL_RUNTIME_SCAN_START) & (FOUND_GO | FOUND_EXEC);
}

void col_runtime_scan_before_fork(void)
{
	found(SIZE_MAX);
}

bool col_runtime_go(void)
{
	return found(COL_RUNTIME_SCAN_START) & FOUND_GO;
}
