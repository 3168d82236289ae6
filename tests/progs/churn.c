/* churn.c — heap churn, enough records to go through the writer's staging
 * windows: THREADS threads each allocate N blocks of 100 bytes in
 * churn_leaf(), freeing each one 64 allocations later; so at any instant a
 * thread holds 64 or 65 blocks.  N 0: forever, printing "running" once a
 * thread has made 100,000 allocations (for the SIGKILL test).  KEEP: blocks
 * each thread holds instead of 64 (for the size limit: -H keeps live blocks).
 * usage: churn N THREADS [KEEP] */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

static long n;
static long keep = 64;

__attribute__((noinline)) static char *churn_leaf(void)
{
	char *p = malloc(100);
	if (p)
		p[0] = 1;
	return p;
}

static void *worker(void *arg)
{
	char **ring = calloc((size_t)keep, sizeof(*ring));

	if (!ring)
		return NULL;
	for (long i = 0; n == 0 || i < n; i++) {
		char *p = churn_leaf();
		free(ring[i % keep]);
		ring[i % keep] = p;
		if (n == 0 && i == 100000 && arg) {
			printf("running\n");
			fflush(stdout);
		}
	}
	for (long i = 0; i < keep; i++)
		free(ring[i]);
	free(ring);
	return NULL;
}

int main(int argc, char **argv)
{
	n = argc > 1 ? atol(argv[1]) : 100000;
	int threads = argc > 2 ? atoi(argv[2]) : 3;
	keep = argc > 3 ? atol(argv[3]) : 64;
	pthread_t t[64];

	if (threads < 1 || threads > 64 || keep < 1)
		return 2;
	for (int i = 0; i < threads; i++)
		pthread_create(&t[i], NULL, worker, i == 0 ? (void *)1 : NULL);
	for (int i = 0; i < threads; i++)
		pthread_join(t[i], NULL);
	return 0;
}
