/* recursion.c — two halves of the CPU, each in recursion: fib (direct, depth
 * 24, work only in the leaves) and ping <-> pong (mutual, 12 levels, work at
 * every level), in alternating phases of ~120 ms (~1.2 s in all: few phase
 * boundaries, where a sample's weight may be the neighbour's, even at 100 Hz).  Shares by construction:
 * excl fib 0.5, excl ping 0.25, excl pong 0.25.  Like the recursion workload
 * of ../shared/workloads, smaller.  usage: recursion [SCALE] */
#include <stdlib.h>

#define NOIPA __attribute__((noinline, noipa))
#define BARRIER() __asm__ volatile("" ::: "memory")

static __thread volatile unsigned long sink;
static unsigned long leaf_n, step_n;

#define SPIN(n)                                                                 \
	do {                                                                    \
		unsigned long x_ = sink, i_, n_ = (n);                          \
		for (i_ = 0; i_ < n_; i_++) {                                   \
			x_ = x_ * 6364136223846793005ul + 1442695040888963407ul; \
			__asm__ volatile("" : "+r"(x_));                        \
		}                                                               \
		sink = x_;                                                      \
	} while (0)

#define FIB_N 24            /* 75,025 leaves */
#define LEVELS 12
#define CYC_CALLS 1000      /* cycle calls per fib call: as much work */

NOIPA unsigned long fib(int n)
{
	if (n < 2) {
		SPIN(leaf_n);
		return 1;
	}
	unsigned long r = fib(n - 1);
	r += fib(n - 2);
	__asm__ volatile("" : "+r"(r));
	return r;
}

NOIPA void pong(int depth);
NOIPA void ping(int depth) { SPIN(step_n); if (depth > 0) pong(depth - 1); BARRIER(); }
NOIPA void pong(int depth) { SPIN(step_n); if (depth > 0) ping(depth - 1); BARRIER(); }

int main(int argc, char **argv)
{
	double scale = argc > 1 ? atof(argv[1]) : 1.0;

	leaf_n = (unsigned long)(1400 * scale);
	step_n = 75025ul * leaf_n / CYC_CALLS / LEVELS;
	for (int r = 0; r < 5; r++) {
		fib(FIB_N);
		for (int i = 0; i < CYC_CALLS; i++)
			ping(LEVELS - 1);
	}
	return 0;
}
