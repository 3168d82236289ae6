/* spin_to_exit.c — workers that spin until the process exits: main
 * starts N of them (argv[1], default 2), each prints its thread id, main
 * sleeps argv[2] seconds (default 0.3) and returns while they still spin:
 * their ends are written by the ending process, not by themselves
 * (test_thread_end). */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>
#include <sys/syscall.h>

static atomic_int started;

static void *spin(void *arg)
{
	(void)arg;
	printf("worker %ld\n", (long)syscall(SYS_gettid));
	fflush(stdout);
	atomic_fetch_add(&started, 1);
	volatile unsigned long x = 0;
	for (;;)
		x++;
	return NULL;
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 2;
	double s = argc > 2 ? atof(argv[2]) : 0.3;

	for (int i = 0; i < n; i++) {
		pthread_t th;
		if (pthread_create(&th, NULL, spin, NULL) != 0)
			return 1;
	}
	while (atomic_load(&started) < n)
		usleep(1000);
	struct timespec ts = { (time_t)s, (long)((s - (time_t)s) * 1e9) };
	nanosleep(&ts, NULL);
	return 0;
}
