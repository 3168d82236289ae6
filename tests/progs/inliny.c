/* inliny.c — inlined calls with shares known by construction
 * (tests/e2e/test_inline.sh): host() runs 1 unit of its own loop, then
 * calls outer(), always inlined, which runs 1 unit of its own and calls
 * inner(), always inlined too, for 2 units.  So host has 1/4 of the CPU
 * as its own, outer (inlined) 1/4 and inner (inlined) 1/2, on the path
 * main;host;outer;inner; with --no-inline host has it all.  The turns
 * alternate every few milliseconds (the speed of a loaded machine changes
 * over time).  usage: inliny [units] */
#include <stdlib.h>

#define NOIPA __attribute__((noinline, noipa))
#define INLINE static inline __attribute__((always_inline))

static volatile unsigned long sink;

#define WORK(n)                                                              \
	do {                                                                 \
		unsigned long x = sink;                                      \
		for (unsigned long i = 0; i < (n); i++) {                    \
			x = x * 6364136223846793005ul + 1442695040888963407ul; \
			__asm__ volatile("" : "+r"(x));                      \
		}                                                            \
		sink = x;                                                    \
	} while (0)

INLINE void inner(unsigned long n) { WORK(2 * n); }

INLINE void outer(unsigned long n)
{
	WORK(n);
	inner(n);
}

NOIPA void host(unsigned long n)
{
	for (int i = 0; i < 1000; i++) {
		WORK(n / 1000);
		outer(n / 1000);
	}
}

int main(int argc, char **argv)
{
	double units = argc > 1 ? atof(argv[1]) : 1.0;

	host((unsigned long)(units * 150e6));
	return 0;
}
