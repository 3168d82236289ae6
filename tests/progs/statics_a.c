/* statics_a.c, statics_b.c: two file-static functions named helper (the
 * second built from this file with -Drun_a=run_b -DWORK=2); statics_main.c
 * calls run_a and run_b, which do 1 and 2 units of work. */
#ifndef WORK
#define WORK 1
#endif
static volatile unsigned long sink;
static __attribute__((noinline)) void helper(unsigned long n)
{
	unsigned long x = sink;
	for (unsigned long i = 0; i < n * WORK; i++) {
		x = x * 6364136223846793005UL + 1;
		__asm__ volatile("" : "+r"(x));
	}
	sink = x;
}
void run_a(unsigned long n) { helper(n); sink++; }
