/* SPDX-License-Identifier: MIT
 *
 * newstacks.c — the always-new-stacks benchmark workload: a fib-like
 * recursion through two call sites (fa and fb call themselves and each
 * other, 26 deep), so nearly every sample of a ~1.5 s run has a stack never
 * seen before.  A collector whose cost per sample grows with a stack's
 * novelty (new nodes to add, cold memory to touch) shows it here: `make
 * bench` compares its handler cost with the CPU-bound workload's.  Built -O2
 * without frame pointers, like calls.c.  Every thread does the same work; it
 * prints a checksum of all of it.
 *
 * usage: newstacks [UNITS [THREADS]]   (1 unit ~ 0.1 s)
 *        newstacks -t SECONDS [THREADS]
 */
#include "workload.h"

#define NOIPA __attribute__((noinline, noipa))

#define DEPTH 26                 /* fib(27) = 196,418 leaves a tree */
#define TREES_PER_UNIT 16

/* A leaf's work: a few rounds of an LCG over the running hash. */
static inline uint64_t leaf(uint64_t h)
{
	for (int i = 0; i < 24; i++) {
		h = h * 6364136223846793005ull + 1442695040888963407ull;
		__asm__ volatile("" : "+r"(h));
	}
	return h;
}

NOIPA uint64_t fb(int n, uint64_t h);

NOIPA uint64_t fa(int n, uint64_t h)
{
	if (n < 2)
		return leaf(h);
	h = fa(n - 1, h);
	h = fb(n - 2, h ^ (uint64_t)n);
	__asm__ volatile("" : "+r"(h));
	return h;
}

NOIPA uint64_t fb(int n, uint64_t h)
{
	if (n < 2)
		return leaf(h + 1);
	h = fb(n - 1, h);
	h = fa(n - 2, h + (uint64_t)n);
	__asm__ volatile("" : "+r"(h));
	return h;
}

static void *worker(void *arg)
{
	struct job *j = arg;
	uint64_t h = 1469598103934665603ull;
	long trees = (long)(units * TREES_PER_UNIT), t;

	for (t = 0; keep_working(t, trees); t++)
		h = fa(DEPTH, h);
	j->sum = h;
	j->rounds = t;
	return NULL;
}

int main(int argc, char **argv)
{
	int nthreads = workload_args(argc, argv, "newstacks");

	if (!nthreads)
		return 64;
	struct job all = run_workers(worker, nthreads);
	if (cpu_limit > 0)
		printf("newstacks checksum %016llx cpu-seconds %g threads %d trees %ld\n",
		       (unsigned long long)all.sum, cpu_limit, nthreads, all.rounds);
	else
		printf("newstacks checksum %016llx units %g threads %d\n", (unsigned long long)all.sum,
		       units, nthreads);
	return 0;
}
