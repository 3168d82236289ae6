/* deep.c — recursion 3000 frames deep with all the work at the bottom, to
 * check that stacks deeper than the collector's limit are kept and marked
 * truncated.  usage: deep [depth] */
#include <stdlib.h>

static volatile unsigned long sink;

__attribute__((noinline)) unsigned long descend(int n)
{
	volatile int frame[4] = { n, n, n, n };   /* a real frame at every level */

	if (n == 0) {
		unsigned long x = sink;
		for (unsigned long i = 0; i < 200000000ul; i++)
			x = x * 6364136223846793005ul + 1;
		sink = x;
		return x;
	}
	unsigned long r = descend(n - 1);
	return r + (unsigned long)frame[n & 3];
}

int main(int argc, char **argv)
{
	return (int)(descend(argc > 1 ? atoi(argv[1]) : 3000) & 1) * 0;
}
