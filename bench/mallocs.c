/* SPDX-License-Identifier: MIT
 *
 * mallocs.c — malloc-heavy: N iterations, each allocating a block of
 * 16..1039 bytes three calls deep (level1 -> level2 -> level3 -> malloc),
 * touching it, and freeing the block allocated 64 iterations before (so
 * blocks live a while, as in real programs).  For the heap tracer's cost per
 * allocation.  Prints a checksum.  usage: mallocs N
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NOIPA __attribute__((noinline, noipa))
#define KEEP(p) __asm__ volatile("" : : "r"(p) : "memory")

NOIPA char *level3(size_t n) { char *p = malloc(n); KEEP(p); return p; }
NOIPA char *level2(size_t n) { char *p = level3(n); KEEP(p); return p; }
NOIPA char *level1(size_t n) { char *p = level2(n); KEEP(p); return p; }

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 2000000;
	char *ring[64] = { 0 };
	unsigned long sum = 0;

	for (long i = 0; i < n; i++) {
		size_t size = 16 + (size_t)((i * 2654435761u) & 1023);
		char *p = level1(size);
		p[0] = (char)i;
		sum += (unsigned char)p[0] + size;
		free(ring[i & 63]);
		ring[i & 63] = p;
	}
	for (int i = 0; i < 64; i++)
		free(ring[i]);
	printf("checksum %lu\n", sum);
	return 0;
}
