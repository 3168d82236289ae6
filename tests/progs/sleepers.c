/* sleepers.c — N threads that sleep (a server's idle pool), for attaching:
 * prints "ready" on stderr once all run, and ends after SECS seconds.
 * usage: sleepers N SECS */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

static double secs;

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void *sleeper(void *arg)
{
	double end = *(double *)arg;

	while (now_s() < end)
		usleep(20000);
	return NULL;
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 100;
	secs = argc > 2 ? atof(argv[2]) : 5;
	static double end;
	pthread_t *t = calloc((size_t)n, sizeof(*t));

	end = now_s() + secs;
	if (!t)
		return 2;
	for (int i = 0; i < n; i++)
		if (pthread_create(&t[i], NULL, sleeper, &end) != 0)
			return 2;
	fprintf(stderr, "ready\n");
	for (int i = 0; i < n; i++)
		pthread_join(t[i], NULL);
	return 0;
}
