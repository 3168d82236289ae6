/* omp_tail: OpenMP parallel regions whose body is one call, which gcc and
 * clang at -O2 compile to a body that jumps to the called function (`jmp
 * work_a`): the body's frame is in no stack (tests/e2e/test_omp_tail.sh).
 *
 *   region()       opens a region sharing `n` with its body: region stays
 *                  on the opening thread's stack, under main
 *   region_tail()  opens a region sharing nothing, so it jumps to the
 *                  runtime (gcc: `jmp GOMP_parallel`): the function that
 *                  opened the region is in no stack either
 * usage: omp_tail [scale]      (run with OMP_NUM_THREADS=2)
 */
#include <stdio.h>
#include <stdlib.h>

#define NOIPA __attribute__((noinline))
static volatile unsigned long sink;
static unsigned long unit;

#define SPIN(n) do { unsigned long x_ = sink; for (unsigned long i_ = 0; i_ < (n); i_++) { \
	x_ = x_ * 6364136223846793005UL + 1442695040888963407UL; __asm__ volatile("" : "+r"(x_)); } \
	sink = x_; } while (0)

NOIPA void work_a(unsigned long n) { SPIN(n); }
NOIPA void work_b(void) { SPIN(unit); }

NOIPA void region(unsigned long n)
{
#pragma omp parallel
	{ work_a(n); }
}

NOIPA void region_tail(void)
{
#pragma omp parallel
	{ work_b(); }
}

int main(int argc, char **argv)
{
	double scale = argc > 1 ? atof(argv[1]) : 1.0;
	unit = (unsigned long)(25000000 * scale);
	for (int i = 0; i < 8; i++) {
		region(unit);
		region_tail();
	}
	printf("sink %lu\n", sink);
	return 0;
}
