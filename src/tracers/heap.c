/* SPDX-License-Identifier: MIT
 *
 * heap.c — libtally-heap.so, the heap tracer (`tally record -H`).
 *
 * Interposes malloc, calloc, realloc, reallocarray, free, posix_memalign,
 * aligned_alloc, memalign, valloc and pvalloc (C++ new and delete reach
 * malloc and free, and show as operator new/delete in the stacks).  Each
 * allocation goes to the collector with its call stack, a release with its
 * address only; the collector sums them by thread and stack and keeps the
 * live blocks (collector/col_heap.h), so heap.dat grows with distinct
 * stacks and live blocks, not with events.  The real functions are the collector's table
 * (col_real.h: libc's, or another allocator's); while the collector resolves
 * it, dlsym may itself allocate, and those few blocks come from a static
 * arena that free() recognizes and ignores.  Called from any thread, and from signal
 * handlers (a program that allocates in one): the collector refuses reentry.
 */
#include <errno.h>
#include <malloc.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tracers/tracer.h"

/* The table of real functions (collector/col_real.h), once resolved. */
static const struct col_real *real;

/* Blocks handed out while the collector resolves that table (dlsym may call
 * calloc for its error state).  A few hundred bytes in practice. */
static _Alignas(64) char arena[1 << 16];
static size_t arena_used;

static struct trace_switch on;

static bool in_arena(const void *p)
{
	return (const char *)p >= arena && (const char *)p < arena + sizeof(arena);
}

static void *arena_alloc(size_t n, size_t align)
{
	size_t at = (arena_used + align - 1) & ~(align - 1);

	if (at + n > sizeof(arena))
		return NULL;
	arena_used = at + n;
	return arena + at;
}

#define READY() (__builtin_expect(real != NULL, 1) || (real = tally__real()) != NULL)

__attribute__((constructor)) static void heap_resolve_init(void)
{
	(void)READY();            /* the real functions now: tracer.h, trace_resolve_note */
}

/* Record one allocation with its stack: summed by
 * the collector in heap.dat's tables (collector/col_heap.h).  Inlined, so
 * that `at` stays in registers: passed on the stack, it was stored as
 * words and loaded back as one 16-byte vector, a load no store could
 * forward to, which stalled every traced call (half of the interposers'
 * samples, perf). */
static inline __attribute__((always_inline)) void note(struct trace_caller at, uint64_t size, const void *addr)
{
	if (trace_option(&on, "heap") > 0)
		tally__heap_alloc(size, (uint64_t)(uintptr_t)addr, at.ra, at.sp, at.fp);
}

/* Record a release (no stack). */
static inline __attribute__((always_inline)) void note_free(const void *addr)
{
	if (trace_option(&on, "heap") > 0)
		tally__heap_free((uint64_t)(uintptr_t)addr);
}

TRACE_API void *malloc(size_t n)
{
	if (!READY())
		return arena_alloc(n, 16);
	void *p = real->malloc(n);
	if (p)
		note(TRACE_CALLER(), n, p);
	return p;
}

TRACE_API void *calloc(size_t n, size_t size)
{
	if (!READY()) {
		if (size && n > SIZE_MAX / size)
			return NULL;
		return arena_alloc(n * size, 16);   /* the arena is zeroed */
	}
	void *p = real->calloc(n, size);
	if (p)
		note(TRACE_CALLER(), (uint64_t)n * size, p);
	return p;
}

TRACE_API void free(void *p)
{
	if (!p || in_arena(p))
		return;
	if (!READY())
		return;
	/* Recorded before the block goes: after, another thread's malloc could
	 * get the same address and record it first, and this release would
	 * then remove that thread's block. */
	note_free(p);
	real->free(p);
}

TRACE_API void *realloc(void *p, size_t n)
{
	if (!READY() || in_arena(p)) {
		void *q = malloc(n);
		if (q && p) {
			size_t room = (size_t)(arena + sizeof(arena) - (char *)p);
			memcpy(q, p, n < room ? n : room);
		}
		return q;
	}
	/* The old block's release is recorded before the real realloc, as in
	 * free (a moved block's old address is free for other threads at once);
	 * if the realloc then fails, p stays allocated but untracked: its
	 * release will count as a free of a block never seen allocated. */
	if (p)
		note_free(p);
	void *q = real->realloc(p, n);
	if (q)
		note(TRACE_CALLER(), n, q);
	return q;
}

TRACE_API void *reallocarray(void *p, size_t n, size_t size)
{
	if (size && n > SIZE_MAX / size) {
		errno = ENOMEM;
		return NULL;
	}
	return realloc(p, n * size);
}

TRACE_API void *memalign(size_t align, size_t n)
{
	if (!READY())
		return arena_alloc(n, align >= 16 && !(align & (align - 1)) ? align : 16);
	void *p = real->memalign(align, n);
	if (p)
		note(TRACE_CALLER(), n, p);
	return p;
}

TRACE_API int posix_memalign(void **out, size_t align, size_t n)
{
	if (!READY())
		return (*out = arena_alloc(n, align)) ? 0 : ENOMEM;
	int rc = real->posix_memalign(out, align, n);
	if (rc == 0)
		note(TRACE_CALLER(), n, *out);
	return rc;
}

TRACE_API void *aligned_alloc(size_t align, size_t n)
{
	if (!READY())
		return arena_alloc(n, align);
	void *p = real->aligned_alloc(align, n);
	if (p)
		note(TRACE_CALLER(), n, p);
	return p;
}

TRACE_API void *valloc(size_t n)
{
	if (!READY())
		return NULL;
	void *p = real->valloc(n);
	if (p)
		note(TRACE_CALLER(), n, p);
	return p;
}

TRACE_API void *pvalloc(size_t n)
{
	if (!READY())
		return NULL;
	void *p = real->pvalloc(n);
	if (p)
		note(TRACE_CALLER(), n, p);
	return p;
}
