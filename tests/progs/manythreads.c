/* manythreads.c — N short threads one after another, each burning a little
 * CPU (about US microseconds), as a server making a thread per request.
 * usage: manythreads N US */
#include <pthread.h>
#include <stdlib.h>
#include <time.h>

static volatile unsigned long sink;
static double us;

static __attribute__((noinline)) void *work(void *arg)
{
	struct timespec t0, t;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t0);
	do {
		for (int i = 0; i < 1000; i++)
			sink = sink * 6364136223846793005ul + 1;
		clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
	} while ((double)(t.tv_sec - t0.tv_sec) * 1e6 + (double)(t.tv_nsec - t0.tv_nsec) / 1e3 < us);
	return arg;
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 5000;
	us = argc > 2 ? atof(argv[2]) : 200;
	for (int i = 0; i < n; i++) {
		pthread_t t;
		if (pthread_create(&t, NULL, work, NULL) != 0)
			return 2;
		pthread_join(t, NULL);
	}
	return 0;
}
