/* SPDX-License-Identifier: MIT
 *
 * threadends.c — bench workload for a thread's end (bench section 4d): N
 * threads one after another, each asleep MS ms then ending; main joins
 * each.  The program measures, per thread, the time from its last act to
 * its join's return: the thread's exit path, the collector's end of the
 * thread included (its records, and for a thread of 50 ms or more its
 * schedstat read, collector/col_sched.c).  Prints
 *   join_us MEDIAN p90 P90 cpu_ms CPU
 * (CPU: the process's, all threads).  usage: threadends N MS
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

static int ms;
static double ended_us;

static double now_us(clockid_t c)
{
	struct timespec t;
	clock_gettime(c, &t);
	return (double)t.tv_sec * 1e6 + (double)t.tv_nsec / 1e3;
}

static void *work(void *arg)
{
	usleep((useconds_t)ms * 1000u);
	ended_us = now_us(CLOCK_MONOTONIC);
	return arg;
}

static int cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 20;
	ms = argc > 2 ? atoi(argv[2]) : 60;
	double *d = malloc((size_t)(n > 0 ? n : 1) * sizeof(*d));

	if (!d || n <= 0)
		return 2;
	for (int i = 0; i < n; i++) {
		pthread_t t;
		if (pthread_create(&t, NULL, work, NULL) || pthread_join(t, NULL))
			return 2;
		d[i] = now_us(CLOCK_MONOTONIC) - ended_us;
	}
	qsort(d, (size_t)n, sizeof(*d), cmp);
	printf("join_us %.0f p90 %.0f cpu_ms %.2f\n", d[n / 2], d[n * 9 / 10],
	       now_us(CLOCK_PROCESS_CPUTIME_ID) / 1e3);
	free(d);
	return 0;
}
