/* cycle2: a two-member cycle (mutual recursion even <-> odd) entered from
 * two callers, a leaf called from inside the cycle, and direct recursion
 * (down), for the gprof view's cycles: <cycle 1 as a whole>, n+r counts,
 * calls among siblings.  Deterministic call counts:
 *
 *   main -> run_a 1, main -> run_b 1, main -> down 1
 *   run_a -> even 200, run_b -> odd 600       (each 10 levels deep)
 *   even <-> odd: 4000 calls inside the cycle; odd -> leaf 2000 (odd levels)
 *   down -> down 99 (depth 100)
 *
 * usage: cycle2 [scale]   (scale multiplies the work per call)
 */
#include <stdlib.h>

#define NOIPA __attribute__((noinline, noipa))
static volatile unsigned long sink;
#define SPIN(n) do { unsigned long x_ = sink, i_, n_ = (n); \
	for (i_ = 0; i_ < n_; i_++) { \
		x_ = x_ * 6364136223846793005UL + 1442695040888963407UL; \
		__asm__ volatile("" : "+r"(x_)); } \
	sink = x_; } while (0)

static unsigned long work = 20000;

NOIPA void leaf(void) { SPIN(work); }

NOIPA void odd(int n);
NOIPA void even(int n) { SPIN(work); if (n > 0) odd(n - 1); __asm__ volatile(""); }
NOIPA void odd(int n) { SPIN(work); leaf(); if (n > 0) even(n - 1); __asm__ volatile(""); }

NOIPA void down(int n) { SPIN(work); if (n > 0) down(n - 1); __asm__ volatile(""); }

NOIPA void run_a(void) { for (int i = 0; i < 200; i++) even(9); }
NOIPA void run_b(void) { for (int i = 0; i < 600; i++) odd(9); }

int main(int argc, char **argv)
{
	double scale = argc > 1 ? atof(argv[1]) : 1.0;
	work = (unsigned long)(work * (scale > 0 ? scale : 1.0));
	run_a();
	run_b();
	down(99);
	return 0;
}
