/* spin.c — a leaf/parent CPU split known by construction: parent() calls
 * leaf_one() for 1 unit of work and leaf_two() for 2 units, so leaf_one has
 * 1/3 and leaf_two 2/3 of the CPU, all under main;parent.  Built -O2 without
 * frame pointers, so unwinding needs the CFI.  usage: spin [units] */
#include <stdlib.h>

#define NOIPA __attribute__((noinline, noipa))

static volatile unsigned long sink;

/* The loop is in each leaf (a call to a shared helper would be a tail call,
 * and the leaf would vanish from the stack). */
#define WORK(n)                                                              \
	do {                                                                 \
		unsigned long x = sink;                                      \
		for (unsigned long i = 0; i < (n); i++) {                    \
			x = x * 6364136223846793005ul + 1442695040888963407ul; \
			__asm__ volatile("" : "+r"(x));                      \
		}                                                            \
		sink = x;                                                    \
	} while (0)

NOIPA void leaf_one(unsigned long n) { WORK(n); }
NOIPA void leaf_two(unsigned long n) { WORK(2 * n); }

/* The leaves alternate every millisecond or so: on a loaded machine the
 * speed of an iteration changes over time (another job on the core's
 * sibling), and short turns give both leaves the same mix of speeds (ten
 * turns of 100 ms once gave leaf_one 0.387 of the CPU). */
NOIPA void parent(unsigned long n)
{
	for (int i = 0; i < 1000; i++) {
		leaf_one(n / 1000);
		leaf_two(n / 1000);
	}
}

int main(int argc, char **argv)
{
	double units = argc > 1 ? atof(argv[1]) : 1.0;
	parent((unsigned long)(units * 250e6));
	return 0;
}
