/* SPDX-License-Identifier: MIT
 *
 * workload.h — what the timed workloads bench/cpu.c and bench/calls.c
 * share: their command line, `NAME [UNITS [THREADS]]` or `NAME -t SECONDS
 * [THREADS]` (-t: work until the process has used SECONDS of CPU time), and
 * running one worker per thread, each doing the same work, into a job that
 * holds its checksum and how many rounds it did.
 */
#ifndef TALLY_BENCH_WORKLOAD_H
#define TALLY_BENCH_WORKLOAD_H

#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double units = 10.0;
static double cpu_limit;         /* -t SECONDS, or 0 */

struct job {
	uint64_t sum;
	long rounds;
};

static double process_cpu_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* Should a worker that has done `round` rounds of `rounds` go on? */
static int keep_working(long round, long rounds)
{
	return cpu_limit > 0 ? process_cpu_s() < cpu_limit : round < rounds;
}

/* Parse the command line into units / cpu_limit; returns the number of
 * threads, or 0 after printing the usage. */
static int workload_args(int argc, char **argv, const char *name)
{
	int nthreads = 1;

	if (argc > 2 && strcmp(argv[1], "-t") == 0) {
		cpu_limit = atof(argv[2]);
		argv += 1;
		argc -= 1;
	} else if (argc > 1) {
		units = atof(argv[1]);
	}
	if (argc > 2)
		nthreads = atoi(argv[2]);
	if (nthreads < 1 || nthreads > 256 || units <= 0 || cpu_limit < 0) {
		fprintf(stderr, "usage: %s [UNITS [THREADS]] | %s -t SECONDS [THREADS]\n", name, name);
		return 0;
	}
	return nthreads;
}

/* Run `worker` in `nthreads` threads (the first in this one); the sum of
 * their jobs.  Exits on failure. */
static struct job run_workers(void *(*worker)(void *), int nthreads)
{
	struct job *jobs = calloc((size_t)nthreads, sizeof(*jobs)), total = { 0, 0 };
	pthread_t *t = calloc((size_t)nthreads, sizeof(*t));

	if (!jobs || !t)
		exit(1);
	for (int i = 1; i < nthreads; i++)
		if (pthread_create(&t[i], NULL, worker, &jobs[i]) != 0) {
			perror("pthread_create");
			exit(1);
		}
	worker(&jobs[0]);
	for (int i = 0; i < nthreads; i++) {
		if (i)
			pthread_join(t[i], NULL);
		total.sum += jobs[i].sum;
		total.rounds += jobs[i].rounds;
	}
	free(jobs);
	free(t);
	return total;
}

#endif
