/* switchy.c — context switches as fast as two threads can make them: they
 * pass a byte back and forth through two pipes, ROUNDTRIPS times, each
 * blocking in read() until the other writes (two switches per round trip).
 * For `make bench` (bench/sections/98-states.sh): the cost of --states per
 * context switch.  Prints "roundtrips N" (the check) and, on stderr, the
 * rate of switches it made.
 * usage: switchy [ROUNDTRIPS] */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

static long n = 100000;
static int ping[2], pong[2];

static void *peer(void *arg)
{
	char c;
	for (long i = 0; i < n; i++)
		if (read(ping[0], &c, 1) != 1 || write(pong[1], &c, 1) != 1)
			exit(1);
	return arg;
}

int main(int argc, char **argv)
{
	struct timespec a, b;
	pthread_t t;
	char c = 'x';

	if (argc > 1)
		n = atol(argv[1]);
	if (pipe(ping) || pipe(pong))
		return 2;
	clock_gettime(CLOCK_MONOTONIC, &a);
	if (pthread_create(&t, NULL, peer, NULL))
		return 2;
	for (long i = 0; i < n; i++)
		if (write(ping[1], &c, 1) != 1 || read(pong[0], &c, 1) != 1)
			return 1;
	pthread_join(t, NULL);
	clock_gettime(CLOCK_MONOTONIC, &b);
	double s = (double)(b.tv_sec - a.tv_sec) + (double)(b.tv_nsec - a.tv_nsec) * 1e-9;
	printf("roundtrips %ld\n", n);
	fprintf(stderr, "%.0f context switches per second\n", 2.0 * (double)n / s);
	return 0;
}
