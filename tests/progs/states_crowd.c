/* states_crowd.c — more runnable threads than CPUs: THREADS threads each
 * burn SECONDS of their own CPU in spin(); run under `taskset -c 0` they
 * take turns on one CPU, each waiting runnable while the others run.
 *
 * Each thread prints what the kernel accounted to it from its start to its
 * end, in ns: its CPU time and its time runnable but waiting for a CPU
 * (/proc/thread-self/schedstat):
 *   thread TID CPU RUNNABLE
 * usage: states_crowd [THREADS [SECONDS]] */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define NOIPA __attribute__((noinline, noipa))

static double seconds = 0.3;
static volatile unsigned long sink;

static void schedstat(long long *cpu, long long *delay)
{
	FILE *f = fopen("/proc/thread-self/schedstat", "r");
	*cpu = *delay = 0;
	if (f) {
		if (fscanf(f, "%lld %lld", cpu, delay) != 2)
			*cpu = *delay = 0;
		fclose(f);
	}
}

static long long cputime(void)
{
	struct timespec t;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
	return t.tv_sec * 1000000000LL + t.tv_nsec;
}

NOIPA void spin(void)
{
	long long end = cputime() + (long long)(seconds * 1e9);
	unsigned long x = 1;
	while (cputime() < end)
		for (int i = 0; i < 20000; i++)
			x = x * 6364136223846793005UL + 1442695040888963407UL;
	sink = x;
}

static void *worker(void *arg)
{
	long long c0, d0, c1, d1;
	(void)arg;
	schedstat(&c0, &d0);
	spin();
	schedstat(&c1, &d1);
	printf("thread %ld %lld %lld\n", (long)syscall(SYS_gettid), c1 - c0, d1 - d0);
	return NULL;
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 3;
	pthread_t t[64];
	if (argc > 2)
		seconds = atof(argv[2]);
	if (n < 1 || n > 64)
		return 2;
	for (int i = 0; i < n; i++)
		if (pthread_create(&t[i], NULL, worker, NULL))
			return 1;
	for (int i = 0; i < n; i++)
		pthread_join(t[i], NULL);
	return 0;
}
