/* hotloop.c — one function with one hot line: work()'s multiply (line 14)
 * and its loop (line 13) take all the time; the short loops before and
 * after it take none.  For `tally annotate --hot`. */
#include <stdlib.h>
static volatile unsigned long sink;
__attribute__((noinline)) void work(unsigned long n)
{
	unsigned long x = sink;
	for (int a = 0; a < 3; a++)
		x += a;
	for (int b = 0; b < 3; b++)
		x ^= b;
	for (unsigned long i = 0; i < n; i++)
		x = x * 6364136223846793005ul + 1442695040888963407ul;
	for (int c = 0; c < 3; c++)
		x -= c;
	for (int d = 0; d < 3; d++)
		x |= d;
	for (int e = 0; e < 3; e++)
		x &= ~(unsigned long)e;
	sink = x;
}
int main(void) { work(300000000ul); return 0; }
