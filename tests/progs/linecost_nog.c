/* linecost_nog: built without -g, so its instructions have no line numbers
 * (see linecost.c). */
static volatile unsigned long sink_ng;
__attribute__((noinline)) void nolines(unsigned long n)
{
	unsigned long x = sink_ng;
	for (unsigned long i = 0; i < n; i++) { x = x * 6364136223846793005UL + 9; __asm__ volatile("" : "+r"(x)); }
	sink_ng = x;
}
