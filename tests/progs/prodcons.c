/* prodcons.c — a producer and a consumer, handing items over through a
 * condition variable ("cond") or a pipe ("pipe"), for the critical path
 * (tests/e2e/test_critical_wake.sh).  The producer thread makes ITEMS
 * items, each in slow_produce(): UNIT_MS of its CPU (with "sleep": asleep
 * for UNIT_MS in nanosleep, handing over through the condition variable);
 * main consumes each in quick_consume(): a quarter of UNIT_MS of CPU.  So main mostly waits for the
 * producer, and the run's length is the producer's work: the critical path
 * goes from main's waits to the producer that woke them.
 *
 * The program measures its own wall time (main's start to its end) and
 * slow_produce()'s (from each call's start to its end, wall, summed) and
 * prints
 *   wall NS produce NS
 * usage: prodcons cond|pipe|sleep [ITEMS [UNIT_MS]] */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define NOIPA __attribute__((noinline, noipa))

static int items = 12, use_pipe, use_sleep;
static long unit_ms = 30;
static uint64_t produce_ns;
static volatile unsigned long sink;
static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t ready = PTHREAD_COND_INITIALIZER;
static int queued;
static int fds[2];

static uint64_t clock_ns(clockid_t c)
{
	struct timespec ts;
	clock_gettime(c, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* Spin for `ms` ms of this thread's CPU time. */
NOIPA void spin(double ms)
{
	uint64_t end = clock_ns(CLOCK_THREAD_CPUTIME_ID) + (uint64_t)(ms * 1e6);
	while (clock_ns(CLOCK_THREAD_CPUTIME_ID) < end)
		for (int i = 0; i < 1000; i++)
			sink += (unsigned long)i * 7;
}

NOIPA void nap(long ms)
{
	struct timespec t = { ms / 1000, (ms % 1000) * 1000000L };
	while (nanosleep(&t, &t))
		;
	sink++;
}

NOIPA void slow_produce(void)
{
	if (use_sleep)
		nap(unit_ms);
	else
		spin((double)unit_ms);
	sink++;
}
NOIPA void quick_consume(void) { spin((double)unit_ms / 4); sink++; }

NOIPA void hand_over(void)
{
	if (use_pipe) {
		char c = 1;
		if (write(fds[1], &c, 1) != 1)
			abort();
		return;
	}
	pthread_mutex_lock(&m);
	queued++;
	pthread_cond_signal(&ready);
	pthread_mutex_unlock(&m);
}

NOIPA void take_one(void)
{
	if (use_pipe) {
		char c;
		if (read(fds[0], &c, 1) != 1)
			abort();
		return;
	}
	pthread_mutex_lock(&m);
	while (!queued)
		pthread_cond_wait(&ready, &m);
	queued--;
	pthread_mutex_unlock(&m);
}

static void *producer(void *arg)
{
	(void)arg;
	for (int i = 0; i < items; i++) {
		uint64_t t0 = clock_ns(CLOCK_MONOTONIC);
		slow_produce();
		produce_ns += clock_ns(CLOCK_MONOTONIC) - t0;
		hand_over();
	}
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_t t;
	uint64_t t0 = clock_ns(CLOCK_MONOTONIC);

	if (argc < 2 || (strcmp(argv[1], "cond") && strcmp(argv[1], "pipe") && strcmp(argv[1], "sleep"))) {
		fprintf(stderr, "usage: prodcons cond|pipe|sleep [ITEMS [UNIT_MS]]\n");
		return 2;
	}
	use_pipe = !strcmp(argv[1], "pipe");
	use_sleep = !strcmp(argv[1], "sleep");
	if (argc > 2)
		items = atoi(argv[2]);
	if (argc > 3)
		unit_ms = atol(argv[3]);
	if (use_pipe && pipe(fds))
		return 1;
	pthread_create(&t, NULL, producer, NULL);
	for (int i = 0; i < items; i++) {
		take_one();
		quick_consume();
	}
	pthread_join(t, NULL);
	printf("wall %llu produce %llu\n", (unsigned long long)(clock_ns(CLOCK_MONOTONIC) - t0),
	       (unsigned long long)produce_ns);
	return 0;
}
