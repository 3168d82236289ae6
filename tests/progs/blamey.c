/* blamey.c — lock-holder blame with a known truth.  One mutex, two code
 * paths that hold it: slow_flush() sleeps 3 units under it, quick_update()
 * 1 unit (a unit: UNIT_US), each from its own thread, ROUNDS times with a
 * pause between; consume() takes it over and over until both are done, so
 * it waits while the others hold it.  Every acquisition logs its time and
 * path (under the mutex, so in order) and consume() logs each wait's
 * request (after a failed try, as the tracer times it) and grant (it pauses a tenth of a unit between turns, so it asks
 * at any moment of the others' holds and the logs stay small); at the end the program computes, from its own clock,
 * how much of consume()'s waiting overlapped each path's holds (a hold
 * lasts from one acquisition to the next) and prints
 *   truth slow_flush NS quick_update NS other NS uncertain NS
 * which tally's blame view must reproduce.  Its clock reads are not the
 * tracer's: a thread preempted between the grant and its log (a holder's
 * acquisition, consume()'s end of wait) moves time from one hold to the
 * next in the program's account, not in the tracer's.  `uncertain` bounds
 * that: the time each thread was runnable but not running (schedstat's
 * run_delay) from its lock call to its log, summed.
 * usage: blamey [ROUNDS [UNIT_US]] */
#define _GNU_SOURCE     /* pread */
#include <fcntl.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#define NOIPA __attribute__((noinline, noipa))
#define MAXLOG 1000000

enum { PATH_SLOW = 1, PATH_QUICK, PATH_CONSUME };

static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static _Atomic int stop;
static long rounds = 100, unit_us = 1000;
static struct { uint64_t t; int path; } holds[MAXLOG];
static long nholds;
static struct { uint64_t t0, t1; } waits[MAXLOG];
static long nwaits;

static uint64_t now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static _Atomic uint64_t uncertain_ns;
static __thread int schedstat_fd = -1;

/* The calling thread's run_delay so far (0 if it cannot be read). */
static uint64_t run_delay(void)
{
	char buf[96];
	uint64_t v = 0;

	if (schedstat_fd < 0)
		schedstat_fd = open("/proc/thread-self/schedstat", O_RDONLY);
	ssize_t n = schedstat_fd < 0 ? -1 : pread(schedstat_fd, buf, sizeof(buf) - 1, 0);
	if (n <= 0)
		return 0;
	buf[n] = 0;
	if (sscanf(buf, "%*u %lu", &v) != 1)
		return 0;
	return v;
}

static void nap_us(long us)
{
	struct timespec t = { us / 1000000, (us % 1000000) * 1000L };
	while (nanosleep(&t, &t))
		;
}

/* Called with m held. */
static void log_hold(int path)
{
	if (nholds < MAXLOG) {
		holds[nholds].t = now();
		holds[nholds++].path = path;
	}
}

NOIPA void slow_flush(void)
{
	uint64_t d0 = run_delay();
	pthread_mutex_lock(&m);                 /* BLAME-SLOW */
	log_hold(PATH_SLOW);
	uncertain_ns += run_delay() - d0;
	nap_us(3 * unit_us);
	pthread_mutex_unlock(&m);
}

NOIPA void quick_update(void)
{
	uint64_t d0 = run_delay();
	pthread_mutex_lock(&m);                 /* BLAME-QUICK */
	log_hold(PATH_QUICK);
	uncertain_ns += run_delay() - d0;
	nap_us(unit_us);
	pthread_mutex_unlock(&m);
}

NOIPA void consume(void)
{
	while (!stop) {
		/* As the tracer does: a wait starts when a try fails (a
		 * preemption before the lock call is no wait). */
		if (pthread_mutex_trylock(&m) == 0) {
			log_hold(PATH_CONSUME);
			pthread_mutex_unlock(&m);
			nap_us(unit_us / 10);
			continue;
		}
		uint64_t d0 = run_delay(), t0 = now();
		pthread_mutex_lock(&m);
		uint64_t t1 = now();
		log_hold(PATH_CONSUME);
		uncertain_ns += run_delay() - d0;
		if (nwaits < MAXLOG) {
			waits[nwaits].t0 = t0;
			waits[nwaits++].t1 = t1;
		}
		pthread_mutex_unlock(&m);
		nap_us(unit_us / 10);
	}
}

static void *holder(void *arg)
{
	for (long i = 0; i < rounds; i++) {
		if (arg)
			slow_flush();
		else
			quick_update();
		nap_us(unit_us / 2);
	}
	return NULL;
}

static void *consumer(void *arg)
{
	(void)arg;
	consume();
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_t c, a, b;
	uint64_t by[4] = { 0 };

	if (argc > 1)
		rounds = atol(argv[1]);
	if (argc > 2)
		unit_us = atol(argv[2]);
	pthread_create(&c, NULL, consumer, NULL);
	nap_us(10000);
	pthread_create(&a, NULL, holder, (void *)1);
	pthread_create(&b, NULL, holder, NULL);
	pthread_join(a, NULL);
	pthread_join(b, NULL);
	stop = 1;
	pthread_join(c, NULL);
	if (nholds == MAXLOG || nwaits == MAXLOG) {
		fprintf(stderr, "blamey: the logs are full (%ld holds, %ld waits)\n", nholds, nwaits);
		return 1;
	}
	/* Each of consume()'s waits against each hold [t_i, t_i+1). */
	long h = 0;
	for (long w = 0; w < nwaits; w++) {
		while (h + 1 < nholds && holds[h + 1].t <= waits[w].t0)
			h++;
		for (long i = h; i < nholds && holds[i].t < waits[w].t1; i++) {
			uint64_t s = holds[i].t > waits[w].t0 ? holds[i].t : waits[w].t0;
			uint64_t e = i + 1 < nholds && holds[i + 1].t < waits[w].t1 ? holds[i + 1].t : waits[w].t1;
			if (e > s)
				by[holds[i].path == PATH_CONSUME ? 0 : holds[i].path] += e - s;
		}
	}
	printf("truth slow_flush %llu quick_update %llu other %llu uncertain %llu\n", (unsigned long long)by[PATH_SLOW],
	       (unsigned long long)by[PATH_QUICK], (unsigned long long)by[0], (unsigned long long)uncertain_ns);
	return 0;
}
