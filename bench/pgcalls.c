/* SPDX-License-Identifier: MIT
 *
 * pgcalls.c — the -pg runtime's per-call cost: each of THREADS threads makes
 * N calls through outer -> middle -> leaf_a / leaf_b (like the workloads'
 * `calls`), so the arcs are a handful and the cost is the monitoring
 * routine's.  Built bare and with -pg by run.sh; prints a checksum.
 * usage: pgcalls N [THREADS]
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#define NOIPA __attribute__((noinline, noipa))

static long n_calls;

NOIPA long leaf_a(long x) { return x * 3 + 1; }
NOIPA long leaf_b(long x) { return x ^ (x >> 3); }

NOIPA long middle(long x, long i)
{
	return (i % 3) ? leaf_a(x) : leaf_b(x);
}

NOIPA void *outer(void *arg)
{
	long x = (long)arg;
	for (long i = 0; i < n_calls; i += 2)
		x = middle(x, i);          /* middle + one leaf: two calls */
	return (void *)x;
}

int main(int argc, char **argv)
{
	int threads = argc > 2 ? atoi(argv[2]) : 1;
	pthread_t t[16];
	unsigned long sum = 0;

	n_calls = argc > 1 ? atol(argv[1]) : 100000000;
	if (threads < 1 || threads > 16)
		return 2;
	for (int i = 0; i < threads; i++)
		pthread_create(&t[i], NULL, outer, (void *)(long)(i + 1));
	for (int i = 0; i < threads; i++) {
		void *r;
		pthread_join(t[i], &r);
		sum += (unsigned long)r;
	}
	printf("checksum %lu\n", sum);
	return 0;
}
