/* envchurn.c — fork children that change their environment while their
 * threads start and compute: the parent grows its environment by PAD
 * variables (so that environ is an array of malloc's and a walk of it takes
 * microseconds), then ROUNDS times forks a child that starts THREADS
 * threads, each computing for MS milliseconds of its CPU, while the child's
 * main thread adds and removes variables in a loop (setenv and unsetenv:
 * environ's array is reallocated and the old one freed under any reader)
 * until they are done (with no THREADS, for MS of its own CPU: its own
 * sampling signal may land inside setenv).  The child then ends by _exit.  A profiler reading
 * the environment at the child's first sample or write (getenv, in a
 * signal handler or in a new thread's start) reads it under those changes.
 * usage: envchurn ROUNDS [THREADS [MS [PAD]]]
 * prints: "children R crashed K" (K: children ended by a signal); exit 0
 * when none crashed. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static double cpu_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static _Atomic int running;

/* Variables added and removed until no thread computes. */
static void churn(double seconds)
{
	char name[64];
	double until = cpu_s() + seconds;

	while (running || cpu_s() < until) {
		for (int i = 0; i < 64; i++) {       /* the array grows: moved, the old freed */
			snprintf(name, sizeof(name), "ENVCHURN_%d", i);
			setenv(name, "x", 1);
		}
		for (int i = 0; i < 64; i++) {
			snprintf(name, sizeof(name), "ENVCHURN_%d", i);
			unsetenv(name);
		}
	}
}

__attribute__((noinline)) static void *compute(void *arg)
{
	volatile double x = 1.0;
	double until = cpu_s() + *(double *)arg;

	while (cpu_s() < until)
		for (int i = 0; i < 1000; i++)
			x = x * 1.0000001 + 1e-9;
	running--;
	return NULL;
}

int main(int argc, char **argv)
{
	int rounds = argc > 1 ? atoi(argv[1]) : 20;
	int threads = argc > 2 ? atoi(argv[2]) : 1;
	double ms = argc > 3 ? atof(argv[3]) : 5;
	int pad = argc > 4 ? atoi(argv[4]) : 1000;
	int crashed = 0;
	char name[64];

	for (int i = 0; i < pad; i++) {
		snprintf(name, sizeof(name), "ENVCHURN_PAD_%d", i);
		setenv(name, "padding", 1);
	}
	fflush(stdout);
	for (int r = 0; r < rounds; r++) {
		pid_t p = fork();
		if (p < 0)
			return 2;
		if (p == 0) {
			pthread_t t;
			double seconds = ms / 1000;
			running = threads;
			for (int i = 0; i < threads; i++)
				if (pthread_create(&t, NULL, compute, &seconds) != 0)
					running--;
			churn(threads ? 0 : seconds);
			_exit(0);
		}
		int st;
		if (waitpid(p, &st, 0) != p)
			return 2;
		crashed += WIFSIGNALED(st);
	}
	printf("children %d crashed %d\n", rounds, crashed);
	return crashed ? 1 : 0;
}
