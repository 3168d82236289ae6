/* SPDX-License-Identifier: MIT
 *
 * col_threadstack.c — a thread's own stack bounds, as pthread_getattr_np
 * gives them, found without malloc and without /proc/self/maps: the
 * initial thread's from the kernel's layout of its stack, another thread's
 * from its thread descriptor.  pthread_getattr_np reads /proc/self/maps for
 * the first (0.2 ms at each process's start) and mallocs for the second,
 * which makes an arena for a thread that never called malloc itself.
 */
#include <errno.h>
#include <pthread.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/resource.h>
#include <sys/syscall.h>

#include "collector/col_sys.h"
#include "collector/col_threadstack.h"

/* The initial thread's stack without /proc/self/maps (col_threadstack.h):
 * glibc's pthread_getattr_np reads it with fopen, getline and sscanf, about
 * 0.2 ms of CPU at each process's start here.  glibc's answer is kept: the
 * top is the page above __libc_stack_end's; the size the stack limit less
 * what lies between that top and the end of the stack's mapping, cut at
 * the mapping below.  That end is found from the kernel's layout: execve
 * puts the program's file name (AT_EXECFN) last on the stack, ending one
 * pointer below the mapping's end; it is checked (page aligned, mapped
 * below, not above: mincore).  The mapping below: the kernel keeps the
 * stack limit free under the stack (mmap_base's gap), so a finite limit of
 * at most 1 GiB needs no cut. */
extern void *__libc_stack_end;
bool col_thread_main_stack(uint64_t *lo, uint64_t *hi)
{
	const uint64_t page = 4096;
	const char *fn = (const char *)getauxval(AT_EXECFN);
	struct rlimit rl;
	unsigned char v;

	if (!fn || !__libc_stack_end || col_syscall(SYS_prlimit64, 0, RLIMIT_STACK, NULL, &rl) != 0 ||
	    rl.rlim_cur == RLIM_INFINITY || rl.rlim_cur > (1ull << 30))
		return false;
	uint64_t to = (uint64_t)(uintptr_t)fn + strlen(fn) + 1 + sizeof(void *);
	uint64_t top = ((uint64_t)(uintptr_t)__libc_stack_end & ~(page - 1)) + page;
	if ((to & (page - 1)) || top > to || to - top >= rl.rlim_cur ||
	    col_syscall(SYS_mincore, to - page, page, &v) != 0 ||
	    col_syscall(SYS_mincore, to, page, &v) != -1 || errno != ENOMEM)
		return false;
	uint64_t size = (rl.rlim_cur - (to - top)) & ~(page - 1);
	uint64_t sp = (uint64_t)(uintptr_t)&v;
	if (sp < top - size || sp >= top)       /* another thread, or a fork child of one */
		return false;
	*lo = top - size;
	*hi = top;
	return true;
}


/* A thread made by the thread library has its descriptor (what
 * pthread_self() points to) at the top of its stack block: glibc's
 * allocate_stack puts the TCB in the block's last bytes, static TLS below
 * it, for its own stacks and a caller's alike.  Among the descriptor's
 * fields are the block, its size and its guard's size, one after the other
 * (struct pthread's stackblock, stackblock_size, guardsize), which
 * pthread_getattr_np reports as [block + guard, block + size).  Their
 * place is glibc's own, so they are found by what they must hold: a block
 * of at least PTHREAD_STACK_MIN bytes that holds the caller's stack
 * pointer and, at its top, the descriptor and these three words, a guard
 * of whole pages below the stack pointer; a block of glibc's own (with a
 * guard) is page aligned.  Words are read within the descriptor's page
 * only, which is mapped (the descriptor is in it): a descriptor of glibc's
 * 2.36, 0x940 bytes at the end of a page-aligned block, lies in it whole,
 * with its stack fields at 0x690.  One candidate, or none is taken. */
#define STACK_MIN_BYTES 16384ull
#define STACK_MAX_BYTES (1ull << 40)
#define TCB_MAX_BYTES (64ull << 10)   /* the descriptor's distance from the top */

static bool holds_stack(const uint64_t *w, uint64_t at, uint64_t pd, uint64_t sp)
{
	const uint64_t page = 4096;
	uint64_t block = w[0], size = w[1], guard = w[2], top = block + size;

	return block >= page && size >= STACK_MIN_BYTES && size <= STACK_MAX_BYTES && top > block &&
	       sp < top && pd < top && top - pd <= TCB_MAX_BYTES && at + 3 * sizeof(uint64_t) <= top &&
	       guard % page == 0 && guard < size && block + guard <= sp && (guard == 0 || block % page == 0);
}

bool col_thread_pthread_stack(uint64_t *lo, uint64_t *hi)
{
	const uint64_t page = 4096;
	uint64_t pd = (uint64_t)(uintptr_t)pthread_self();
	uint64_t sp = (uint64_t)(uintptr_t)&pd;
	uint64_t end = (pd & ~(page - 1)) + page;
	const uint64_t *found = NULL;

	if (!pd || pd % sizeof(uint64_t))
		return false;
	for (uint64_t at = pd; at + 3 * sizeof(uint64_t) <= end; at += sizeof(uint64_t)) {
		const uint64_t *w = (const uint64_t *)(uintptr_t)at;
		if (!holds_stack(w, at, pd, sp))
			continue;
		if (found)
			return false;     /* two: neither is known to be it */
		found = w;
	}
	if (!found)
		return false;
	*lo = found[0] + found[2];
	*hi = found[0] + found[1];
	return true;
}
