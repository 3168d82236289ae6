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
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define NOINLINE __attribute__((noinline))

static double units = 10.0;
static double cpu_limit;         /* -t SECONDS, or 0 */

static double process_cpu_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

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

struct job {
	uint64_t sum;
	long slices;
};

static void *worker(void *arg)
{
	struct job *j = arg;
	uint64_t buf[512], h = 1469598103934665603ull;
	long slices = (long)(units * 220);

	for (int i = 0; i < 512; i++)
		buf[i] = (uint64_t)i * 0x9e3779b97f4a7c15ull;
	uint64_t it = 0;
	long s;
	for (s = 0; cpu_limit > 0 || s < slices; s++) {
		if (cpu_limit > 0 && process_cpu_s() >= cpu_limit)
			break;
		it += mandel_slice((int)(s % 240), 6);
		h = hash_block(buf, 512, 40, h);
	}
	j->sum = it * 0x100000001b3ull ^ h;
	j->slices = s;
	return NULL;
}

int main(int argc, char **argv)
{
	int nthreads = 1;

	if (argc > 2 && strcmp(argv[1], "-t") == 0) {
		cpu_limit = atof(argv[2]);
		argv += 1;
		argc -= 1;
	} else if (argc > 1)
		units = atof(argv[1]);
	if (argc > 2)
		nthreads = atoi(argv[2]);
	if (nthreads < 1 || nthreads > 256 || units <= 0 || cpu_limit < 0) {
		fprintf(stderr, "usage: cpu [UNITS [THREADS]] | cpu -t SECONDS [THREADS]\n");
		return 64;
	}
	struct job *jobs = calloc((size_t)nthreads, sizeof(*jobs));
	pthread_t *t = calloc((size_t)nthreads, sizeof(*t));
	if (!jobs || !t)
		return 1;
	for (int i = 1; i < nthreads; i++)
		if (pthread_create(&t[i], NULL, worker, &jobs[i]) != 0) {
			perror("pthread_create");
			return 1;
		}
	worker(&jobs[0]);
	uint64_t sum = 0;
	long slices = 0;
	for (int i = 0; i < nthreads; i++) {
		if (i)
			pthread_join(t[i], NULL);
		sum += jobs[i].sum;
		slices += jobs[i].slices;
	}
	if (cpu_limit > 0)
		printf("cpu checksum %016llx cpu-seconds %g threads %d slices %ld\n", (unsigned long long)sum,
		       cpu_limit, nthreads, slices);
	else
		printf("cpu checksum %016llx units %g threads %d\n", (unsigned long long)sum, units, nthreads);
	free(jobs);
	free(t);
	return 0;
}
