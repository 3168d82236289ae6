/* party: gcc -O2 splits big() into a header inlined into its callers and the
 * rest, big.part.0, which main then calls directly (a partial inline); big
 * stays out of line too (called through a pointer), so the part has its
 * parent.  The user view imputes the call big -> big.part.0
 * (tests/e2e/test_structure.sh).  usage: party [N] */
#include <stdio.h>
#include <stdlib.h>

static volatile unsigned long sink;

static unsigned long big(long n)
{
	if (__builtin_expect(n <= 0, 1))
		return 0;
	unsigned long x = sink;
	for (long i = 0; i < n; i++) {
		x = x * 6364136223846793005UL + 1;
		__asm__ volatile("" : "+r"(x));
	}
	for (long i = 0; i < n / 3; i++) {
		x ^= x >> 13;
		__asm__ volatile("" : "+r"(x));
	}
	/* enough code that gcc inlines only the test above */
	if (x % 7 == 1)
		printf("a %lu\n", x);
	if (x % 11 == 1)
		printf("b %lu\n", x);
	if (x % 13 == 1)
		printf("c %lu\n", x);
	if (x % 17 == 1)
		printf("d %lu\n", x);
	if (x % 19 == 1)
		printf("e %lu\n", x);
	if (x % 23 == 1)
		printf("f %lu\n", x);
	sink = x;
	return x & 1;
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 1000000;
	unsigned long s = 0;
	unsigned long (*volatile fp)(long) = big;       /* keeps big out of line */

	for (int i = 0; i < 400; i++)
		s += big(i % 2 ? n : -1);
	for (int i = 0; i < 10; i++)
		s += fp(i - n);
	printf("%lu\n", s);
	return 0;
}
