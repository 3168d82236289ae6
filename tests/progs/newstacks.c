/* newstacks.c — always-new stacks: a fib-like recursion through two call
 * sites (fa and fb call each other and themselves, 26 deep), so nearly every
 * sample has a stack never seen before, alternating in ~120 ms phases (~1.2 s in all) with
 * `flat`, a loop with one shallow stack, doing the same work.  Shares by
 * construction: incl tree 0.5, excl flat 0.5.  A collector whose cost grows
 * with a stack's novelty inflates `tree` (the rate-invariance test in
 * tests/e2e/test_observer.sh, and `make bench`).  usage: newstacks [SCALE] */
#include <stdlib.h>

#define NOIPA __attribute__((noinline, noipa))

static volatile unsigned long sink;
static unsigned long leaf_n;

static inline void spin(unsigned long n)
{
	unsigned long x = sink;
	for (unsigned long i = 0; i < n; i++) {
		x = x * 6364136223846793005ul + 1442695040888963407ul;
		__asm__ volatile("" : "+r"(x));
	}
	sink = x;
}

#define DEPTH 26
#define LEAVES 196418ul         /* fib(DEPTH + 1): the leaves of one tree */

NOIPA unsigned long fb(int n);
NOIPA unsigned long fa(int n)
{
	if (n < 2) {
		spin(leaf_n);
		return 1;
	}
	unsigned long r = fa(n - 1);
	r += fb(n - 2);
	__asm__ volatile("" : "+r"(r));
	return r;
}

NOIPA unsigned long fb(int n)
{
	if (n < 2) {
		spin(leaf_n);
		return 1;
	}
	unsigned long r = fb(n - 1);
	r += fa(n - 2);
	__asm__ volatile("" : "+r"(r));
	return r;
}

NOIPA void tree(void) { sink += fa(DEPTH); }     /* not a tail call: tree stays on the stack */
NOIPA void flat(void) { spin(LEAVES * leaf_n); }

int main(int argc, char **argv)
{
	double scale = argc > 1 ? atof(argv[1]) : 1.0;

	leaf_n = (unsigned long)(480 * scale);
	for (int r = 0; r < 5; r++) {
		tree();
		flat();
	}
	return 0;
}
