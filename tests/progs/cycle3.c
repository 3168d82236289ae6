/* cycle3: a three-member cycle (x -> y -> z -> x) entered at x and at y,
 * with a leaf called from z, and a second, two-member cycle (p <-> q)
 * reached from z (so the first cycle calls the second): cycle numbering,
 * propagation between cycles, members sorted by time.  Call counts:
 *
 *   main -> top1 1, main -> top2 1
 *   top1 -> x 300, top2 -> y 100   (each chain 12 levels: x y z x y z ...)
 *   x -> y, y -> z, z -> x: inside cycle; z -> sink_leaf; z -> p (once per z)
 *   p <-> q: 4 levels per entry
 *
 * usage: cycle3 [scale]
 */
#include <stdlib.h>

#define NOIPA __attribute__((noinline, noipa))
static volatile unsigned long sink;
#define SPIN(n) do { unsigned long x_ = sink, i_, n_ = (n); \
	for (i_ = 0; i_ < n_; i_++) { \
		x_ = x_ * 6364136223846793005UL + 1442695040888963407UL; \
		__asm__ volatile("" : "+r"(x_)); } \
	sink = x_; } while (0)

static unsigned long work = 10000;

NOIPA void q(int n);
NOIPA void p(int n) { SPIN(work / 2); if (n > 0) q(n - 1); __asm__ volatile(""); }
NOIPA void q(int n) { SPIN(work / 2); if (n > 0) p(n - 1); __asm__ volatile(""); }

NOIPA void sink_leaf(void) { SPIN(work * 2); }

NOIPA void y(int n);
NOIPA void z(int n);
NOIPA void x(int n) { SPIN(work); if (n > 0) y(n - 1); __asm__ volatile(""); }
NOIPA void y(int n) { SPIN(work * 2); if (n > 0) z(n - 1); __asm__ volatile(""); }
NOIPA void z(int n) { SPIN(work * 3); sink_leaf(); p(3); if (n > 0) x(n - 1); __asm__ volatile(""); }

NOIPA void top1(void) { for (int i = 0; i < 300; i++) x(11); }
NOIPA void top2(void) { for (int i = 0; i < 100; i++) y(11); }

int main(int argc, char **argv)
{
	double scale = argc > 1 ? atof(argv[1]) : 1.0;
	work = (unsigned long)(work * (scale > 0 ? scale : 1.0));
	top1();
	top2();
	return 0;
}
