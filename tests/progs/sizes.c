/* sizes.c — a workload with a fixed part and a part that grows with its
 * input: fixed() always does 1 unit of work, scaled() does N units, under
 * main.  Two runs at two sizes differ by (N2 - N1) units in scaled() and by
 * nothing in fixed(): what `tally diff` must show.  usage: sizes [N] */
#include <stdlib.h>

#define NOIPA __attribute__((noinline, noipa))

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

#define UNIT 50000000ul

NOIPA void fixed(void) { WORK(UNIT); }
NOIPA void scaled(unsigned long n) { WORK(n * UNIT); }

int main(int argc, char **argv)
{
	unsigned long n = argc > 1 ? strtoul(argv[1], NULL, 10) : 1;
	fixed();
	scaled(n);
	return 0;
}
