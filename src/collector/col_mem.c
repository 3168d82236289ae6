/* SPDX-License-Identifier: MIT
 *
 * col_mem.c — memory for the collector's own tables (see col_mem.h).
 *
 * col_alloc is a bump allocator over mmap'd chunks: the collector must not
 * use the target's malloc (which it may be tracing, and which is not
 * async-signal-safe), and its tables live as long as the process.  Called from
 * normal context only (a spinlock guards the chunk).
 */
#include <stdatomic.h>
#include <string.h>
#include <sys/mman.h>

#include "collector/col_mem.h"
#include "collector/col_sys.h"

#define CHUNK_BYTES (1u << 20)

static atomic_flag lock = ATOMIC_FLAG_INIT;
static char *chunk;
static size_t chunk_left;

void *col_alloc(size_t bytes)
{
	bytes = (bytes + 15) & ~(size_t)15;
	if (bytes >= CHUNK_BYTES / 4) {
		void *p = col_sys_mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		return p == MAP_FAILED ? NULL : p;
	}
	while (atomic_flag_test_and_set_explicit(&lock, memory_order_acquire))
		;
	if (chunk_left < bytes) {
		void *p = col_sys_mmap(NULL, CHUNK_BYTES, PROT_READ | PROT_WRITE,
				       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (p == MAP_FAILED) {
			atomic_flag_clear_explicit(&lock, memory_order_release);
			return NULL;
		}
		chunk = p;
		chunk_left = CHUNK_BYTES;
	}
	void *r = chunk;
	chunk += bytes;
	chunk_left -= bytes;
	atomic_flag_clear_explicit(&lock, memory_order_release);
	return r;
}
