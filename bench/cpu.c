/* SPDX-License-Identifier: MIT
 *
 * cpu.c — the CPU-bound benchmark workload: shallow stacks, tight loops.
 *
 * Each thread renders UNITS slices of a Mandelbrot set (floating point) and
 * hashes a buffer (integer mixing), alternating.  Every thread does the same
 * work, so T threads cost T times the CPU of one.  The program prints a
 * checksum that depends on all of the work (and on nothing else), so the
 * benchmark can check that every run, profiled or not, did the same job.
 *
 * usage: cpu [UNITS [THREADS]]   (UNITS may be fractional; 1 unit ~ 0.1 s)
 *        cpu -t SECONDS [THREADS]
 * -t: work until the process has used SECONDS of CPU time (all threads, as
 * CLOCK_PROCESS_CPUTIME_ID counts it, a profiler's handlers included): a
 * profiled run then yields a known number of CPU-time samples.  The checksum
 * then depends on how much work was done, which is printed too.
 */
#include "workload.h"

#define NOINLINE __attribute__((noinline))

/* One slice: rows [row0, row0+rows) of a 320-wide image, 256 iterations. */
NOINLINE static uint64_t mandel_slice(int row0, int rows)
{
	uint64_t iters = 0;

	for (int y = row0; y < row0 + rows; y++) {
		double ci = -1.25 + 2.5 * (y % 240) / 240.0;
		for (int x = 0; x < 320; x++) {
			double cr = -2.0 + 2.6 * x / 320.0, zr = 0, zi = 0;
			int k = 0;
			while (k < 256 && zr * zr + zi * zi <= 4.0) {
				double t = zr * zr - zi * zi + cr;
				zi = 2 * zr * zi + ci;
				zr = t;
				k++;
			}
			iters += (uint64_t)k;
		}
	}
	return iters;
}

/* xorshift-multiply mixing over a small buffer that stays in L1. */
NOINLINE static uint64_t hash_block(uint64_t *buf, int n, int rounds, uint64_t h)
{
	for (int r = 0; r < rounds; r++)
		for (int i = 0; i < n; i++) {
			uint64_t v = buf[i] ^ h;
			v ^= v >> 33;
			v *= 0xff51afd7ed558ccdull;
			v ^= v >> 29;
			buf[i] = v;
			h = h * 31 + v;
		}
	return h;
}

static void *worker(void *arg)
{
	struct job *j = arg;
	uint64_t buf[512], h = 1469598103934665603ull;
	long slices = (long)(units * 220);

	for (int i = 0; i < 512; i++)
		buf[i] = (uint64_t)i * 0x9e3779b97f4a7c15ull;
	uint64_t it = 0;
	long s;
	for (s = 0; keep_working(s, slices); s++) {
		it += mandel_slice((int)(s % 240), 6);
		h = hash_block(buf, 512, 40, h);
	}
	j->sum = it * 0x100000001b3ull ^ h;
	j->rounds = s;
	return NULL;
}

int main(int argc, char **argv)
{
	int nthreads = workload_args(argc, argv, "cpu");

	if (!nthreads)
		return 64;
	struct job all = run_workers(worker, nthreads);
	if (cpu_limit > 0)
		printf("cpu checksum %016llx cpu-seconds %g threads %d slices %ld\n",
		       (unsigned long long)all.sum, cpu_limit, nthreads, all.rounds);
	else
		printf("cpu checksum %016llx units %g threads %d\n", (unsigned long long)all.sum, units,
		       nthreads);
	return 0;
}
