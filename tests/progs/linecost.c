/* linecost: known costs per source line, for annotate (tests/e2e/
 * test_annotate_lines.sh).  lines() spends 1, 2 and 3 units on three lines
 * (its LINE_A, LINE_B, LINE_C), each a loop of its own; rec() recurses
 * through one line (LINE_R), which must not count a stack more than once;
 * nolines() comes from a file built without -g.
 * usage: linecost [scale] */
#include <stdlib.h>

#define K 6364136223846793005UL
static volatile unsigned long sink;
void nolines(unsigned long n);

__attribute__((noinline)) void lines(unsigned long n)
{
	unsigned long a = sink, b = sink, c = sink;
	for (unsigned long i = 0; i < n; i++) { a = a * K + 1; __asm__ volatile("" : "+r"(a)); }      /* LINE_A */
	for (unsigned long i = 0; i < 2 * n; i++) { b = b * K + 3; __asm__ volatile("" : "+r"(b)); }  /* LINE_B */
	for (unsigned long i = 0; i < 3 * n; i++) { c = c * K + 5; __asm__ volatile("" : "+r"(c)); }  /* LINE_C */
	sink = a + b + c;
}

__attribute__((noinline)) unsigned long rec(int depth, unsigned long n)
{
	unsigned long x = sink, r = 0;
	for (unsigned long i = 0; i < n; i++) { x = x * K + 7; __asm__ volatile("" : "+r"(x)); }
	if (depth > 0) r = rec(depth - 1, n);   /* LINE_R */
	__asm__ volatile("" : "+r"(r));         /* no tail recursion turned into a loop */
	return r + x;
}

int main(int argc, char **argv)
{
	double scale = argc > 1 ? atof(argv[1]) : 1.0;
	unsigned long n = (unsigned long)(1000000 * scale);
	/* lines() in 1,000 short calls: on a loaded machine an iteration's
	 * speed drifts over time, and short turns give the three lines the same
	 * mix of speeds (20 calls of n once gave LINE_C 0.536 of the time, for
	 * 0.5, at load 8). */
	for (int r = 0; r < 20; r++) {
		for (int k = 0; k < 50; k++)
			lines(n / 50);
		sink += rec(8, n / 4);
		nolines(n);
	}
	return 0;
}
