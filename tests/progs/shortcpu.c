/* shortcpu.c — COUNT threads one after another, each spinning SECONDS of
 * its own CPU and ending: short CPU-bound threads, whose end record's CPU
 * must stay within its life (tests/e2e/test_thread_end.sh).  Each prints
 * "TID CPU_NS": its CPU time when its routine starts (the kernel's and
 * the thread library's work before, and a profiler's set-up). */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>
#include <sys/syscall.h>

static double seconds;
static volatile unsigned long sink;

static long thread_cpu_ns(void)
{
	struct timespec t;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
	return t.tv_sec * 1000000000L + t.tv_nsec;
}

static double thread_cpu(void)
{
	struct timespec t;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

static void *spin(void *arg)
{
	long entry = thread_cpu_ns();
	double t0 = thread_cpu();
	(void)arg;
	printf("%ld %ld\n", (long)syscall(SYS_gettid), entry);
	while (thread_cpu() - t0 < seconds)
		for (int i = 0; i < 1000; i++)
			sink = sink * 6364136223846793005ul + 1;
	return NULL;
}

int main(int argc, char **argv)
{
	if (argc != 3) {
		fprintf(stderr, "usage: shortcpu COUNT SECONDS\n");
		return 2;
	}
	int count = atoi(argv[1]);
	seconds = atof(argv[2]);
	for (int i = 0; i < count; i++) {
		pthread_t th;
		if (pthread_create(&th, NULL, spin, NULL) != 0 || pthread_join(th, NULL) != 0) {
			perror("shortcpu: thread");
			return 1;
		}
	}
	return 0;
}
