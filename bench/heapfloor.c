/* SPDX-License-Identifier: MIT
 *
 * heapfloor.c — libheapfloor.so, the floor under heap tracing's cost for
 * bench section 71: interposes malloc, calloc, realloc and free as
 * libtally-heap.so does (the next definitions, found once with dlsym;
 * dlsym's own allocations from a static arena) and takes the caller's
 * return address, stack pointer and frame pointer as its interposers do,
 * but records nothing.  LD_PRELOAD it to measure what interposition alone
 * costs a program.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

static void *(*real_malloc)(size_t), *(*real_calloc)(size_t, size_t), *(*real_realloc)(void *, size_t);
static void (*real_free)(void *);
static _Alignas(16) char arena[1 << 14];
static size_t used;
static volatile uint64_t sink;

static int ready(void)
{
	static int resolving;

	if (real_free)
		return 1;
	if (resolving)
		return 0;
	resolving = 1;
	real_malloc = dlsym(RTLD_NEXT, "malloc");
	real_calloc = dlsym(RTLD_NEXT, "calloc");
	real_realloc = dlsym(RTLD_NEXT, "realloc");
	real_free = dlsym(RTLD_NEXT, "free");
	return real_free != NULL;
}

static void *from_arena(size_t n)
{
	size_t at = (used + 15) & ~(size_t)15;
	if (at + n > sizeof(arena))
		return NULL;
	used = at + n;
	return arena + at;
}

#define CALLER() (sink = (uint64_t)(uintptr_t)__builtin_return_address(0) ^ \
		  (uint64_t)(uintptr_t)__builtin_frame_address(0) ^ *(uint64_t *)__builtin_frame_address(0))

__attribute__((visibility("default"))) void *malloc(size_t n)
{
	if (!ready())
		return from_arena(n);
	CALLER();
	return real_malloc(n);
}

__attribute__((visibility("default"))) void *calloc(size_t n, size_t s)
{
	if (!ready())
		return from_arena(n * s);    /* zeroed */
	CALLER();
	return real_calloc(n, s);
}

__attribute__((visibility("default"))) void *realloc(void *p, size_t n)
{
	if (!ready() || ((char *)p >= arena && (char *)p < arena + sizeof(arena))) {
		void *q = from_arena(n);
		if (q && p)
			memcpy(q, p, n);
		return q;
	}
	CALLER();
	return real_realloc(p, n);
}

__attribute__((visibility("default"))) void free(void *p)
{
	if (!p || ((char *)p >= arena && (char *)p < arena + sizeof(arena)) || !ready())
		return;
	CALLER();
	real_free(p);
}
