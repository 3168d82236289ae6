/* heapwrap.c — allocations through one wrapper, as a program's xmalloc
 * (test_heapscale.sh): xwrap() is called by caller_a(), caller_b() and
 * caller_c() in turn, N times each, so every traced malloc has the same
 * return address and stack depth, and only the callers above differ.  The
 * collector's memo of traced stacks must keep all three (a set of two
 * entries took turns: every malloc was unwound again).  Prints
 * "allocations COUNT".
 * usage: heapwrap N */
#include <stdio.h>
#include <stdlib.h>

static volatile long sink;

__attribute__((noinline)) static void xwrap(size_t size)
{
	char *p = malloc(size);
	if (!p)
		abort();
	p[0] = 1;
	sink += p[0];
	free(p);
}

__attribute__((noinline)) static void caller_a(void)
{
	xwrap(24);
	sink += 1;
}

__attribute__((noinline)) static void caller_b(void)
{
	xwrap(40);
	sink += 2;
}

__attribute__((noinline)) static void caller_c(void)
{
	xwrap(56);
	sink += 3;
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 10000;

	for (long i = 0; i < n; i++) {
		caller_a();
		caller_b();
		caller_c();
	}
	printf("allocations %ld\n", 3 * n);
	return 0;
}
