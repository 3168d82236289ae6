/* SPDX-License-Identifier: MIT
 *
 * sym_arena.c — the string arena of a struct sym_object: the names the
 * symbolizer makes up (name@plt, <static>@0x..., alias lists) live here until
 * the object is closed.  Called while an object is built (sym_plt.c,
 * sym_table.c); single-threaded like the rest of the analyzer.
 *
 * Strings are packed into chunks of at least SYM_ARENA_CHUNK bytes; a string
 * longer than that gets a chunk of its own.  Nothing is freed singly.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "symbols/sym_int.h"

#define SYM_ARENA_CHUNK 16384   /* bytes per chunk */

struct sym_arena_chunk {
	struct sym_arena_chunk *next;
	size_t used, cap;         /* bytes of data[] */
	char data[];
};

/* Room for `len` bytes; NULL when out of memory. */
static char *sym_arena_alloc(struct sym_arena *a, size_t len)
{
	struct sym_arena_chunk *c = a->head;

	if (!c || c->cap - c->used < len) {
		size_t cap = len > SYM_ARENA_CHUNK ? len : SYM_ARENA_CHUNK;

		c = malloc(sizeof(*c) + cap);
		if (!c)
			return NULL;
		c->used = 0;
		c->cap = cap;
		c->next = a->head;
		a->head = c;
	}
	c->used += len;
	return c->data + c->used - len;
}

/* Copy of `s` in the arena, or NULL when out of memory. */
const char *sym_arena_strdup(struct sym_arena *a, const char *s)
{
	size_t len = strlen(s) + 1;
	char *p = sym_arena_alloc(a, len);

	if (p)
		memcpy(p, s, len);
	return p;
}

/* Formatted string in the arena, or NULL when out of memory. */
const char *sym_arena_printf(struct sym_arena *a, const char *fmt, ...)
{
	va_list ap;
	int len;
	char *p;

	va_start(ap, fmt);
	len = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (len < 0)
		return NULL;
	p = sym_arena_alloc(a, (size_t)len + 1);
	if (!p)
		return NULL;
	va_start(ap, fmt);
	vsnprintf(p, (size_t)len + 1, fmt, ap);
	va_end(ap);
	return p;
}

/* Free every chunk; the arena is empty and reusable afterwards. */
void sym_arena_free(struct sym_arena *a)
{
	while (a->head) {
		struct sym_arena_chunk *c = a->head;

		a->head = c->next;
		free(c);
	}
}
