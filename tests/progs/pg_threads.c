/* pg_threads.c — four threads call the same arcs: worker -> step 2,000,000
 * times each, so step is called exactly 8,000,000 times from worker; and
 * main -> worker 4 times (through pthread_create: the caller is the thread
 * library).  Build with -pg.  glibc's mcount loses arcs here when threads
 * contend for its one busy flag; tally's per-thread tables must not.
 * usage: pg_threads [calls-per-thread] */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

static long calls = 2000000;

__attribute__((noinline)) long step(long x)
{
	__asm__ volatile("" : "+r"(x));
	return x + 1;
}

__attribute__((noinline)) void *worker(void *arg)
{
	long x = 0;
	for (long i = 0; i < calls; i++)
		x = step(x);
	return (void *)x;
}

int main(int argc, char **argv)
{
	pthread_t t[4];
	long sum = 0;

	if (argc > 1)
		calls = atol(argv[1]);
	for (int i = 0; i < 4; i++)
		pthread_create(&t[i], NULL, worker, NULL);
	for (int i = 0; i < 4; i++) {
		void *r;
		pthread_join(t[i], &r);
		sum += (long)r;
	}
	printf("%ld\n", sum);
	return sum == 4 * calls ? 0 : 1;
}
