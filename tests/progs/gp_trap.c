/* gp_trap: gprof's average-call-time trap, small.  f() is called 20 times
 * from main with a large n and 200,000 times from g() with a small n; both
 * call sites do the same work, so f's time is half under main, half under
 * g, while gprof, sharing f's time by call counts, gives main ~0%.
 *
 *   main -> f 20, main -> g 20, g -> f 200000
 *
 * usage: gp_trap [scale]   (scale multiplies the work; counts are fixed)
 */
#include <stdlib.h>

#define NOIPA __attribute__((noinline, noipa))
static volatile unsigned long sink;

NOIPA void f(unsigned long n)
{
	unsigned long x = sink;
	for (unsigned long i = 0; i < n; i++) {
		x = x * 6364136223846793005UL + 1442695040888963407UL;
		__asm__ volatile("" : "+r"(x));
	}
	sink = x;
}

NOIPA void g(unsigned long n)
{
	for (int i = 0; i < 10000; i++) {
		f(n);
		__asm__ volatile("");
	}
}

int main(int argc, char **argv)
{
	double scale = argc > 1 ? atof(argv[1]) : 1.0;
	unsigned long small = (unsigned long)(1200 * (scale > 0 ? scale : 1.0));
	for (int r = 0; r < 20; r++) {
		f(10000 * (small + 2));
		g(small);
	}
	return 0;
}
