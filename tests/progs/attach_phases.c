/* attach_phases.c — a target for `tally record -p --states`
 * (tests/e2e/test_attach_states.sh): its main thread repeats, for SECONDS
 * (default 3), four phases of about PHASE_MS (default 40) each:
 *   phase_burn   its own CPU time;
 *   phase_sleep  nanosleep;
 *   phase_read   blocked reading a pipe that a writer thread fills PHASE_MS
 *                after being asked;
 *   phase_lock   blocked on a mutex a holder thread takes when asked and
 *                keeps PHASE_MS (the handshake, a sem_wait, is a lock wait
 *                too);
 * and measures each occurrence itself.  At the end it writes one line per
 * occurrence to LOG:
 *   PHASE START_NS END_NS RUNNABLE_NS CPU_NS
 * (CLOCK_MONOTONIC; RUNNABLE its schedstat run_delay's growth, CPU its
 * thread CPU clock's, all three read at once by run_delay_stamp: before,
 * a preemption at the exit of the run delay's read after the phase counted
 * in its RUNNABLE, not in its wall), then "main TID".  Under load the phases drift
 * (a sleep lasts longer, a burn waits for the CPU): tests compare tally with
 * these lines, not with PHASE_MS.  Prints "ready" on stderr after its first
 * cycle.  usage: attach_phases LOG [SECONDS [PHASE_MS]]
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <semaphore.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include "run_delay.h"

#define NOIPA __attribute__((noinline, noipa))
#define MAX_OCC 100000

static long long phase_ns = 40000000;
static int fds[2];
static sem_t write_go, hold_go, held;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static volatile unsigned long sink;

struct occ {
	char what;
	long long start, end, runnable, cpu;
};
static struct occ occs[MAX_OCC];
static int nocc;

static long long now(clockid_t c)
{
	struct timespec t;
	clock_gettime(c, &t);
	return t.tv_sec * 1000000000LL + t.tv_nsec;
}

static void nap(long long ns)
{
	struct timespec t = { (time_t)(ns / 1000000000LL), (long)(ns % 1000000000LL) };
	while (nanosleep(&t, &t))
		;
}

NOIPA void phase_burn(void)
{
	long long end = now(CLOCK_THREAD_CPUTIME_ID) + phase_ns;
	unsigned long x = 1;
	while (now(CLOCK_THREAD_CPUTIME_ID) < end)
		for (int i = 0; i < 20000; i++)
			x = x * 6364136223846793005UL + 1442695040888963407UL;
	sink = x;
}

NOIPA void phase_sleep(void)
{
	nap(phase_ns);
}

NOIPA void phase_read(void)
{
	char c;
	sem_post(&write_go);
	if (read(fds[0], &c, 1) != 1)
		exit(3);
}

NOIPA void phase_lock(void)
{
	sem_post(&hold_go);
	while (sem_wait(&held))
		;
	pthread_mutex_lock(&lock);
	pthread_mutex_unlock(&lock);
}

static void *writer(void *arg)
{
	(void)arg;
	for (;;) {
		while (sem_wait(&write_go))
			;
		nap(phase_ns);
		if (write(fds[1], "x", 1) != 1)
			exit(4);
	}
	return NULL;
}

static void *holder(void *arg)
{
	(void)arg;
	for (;;) {
		while (sem_wait(&hold_go))
			;
		pthread_mutex_lock(&lock);
		sem_post(&held);
		nap(phase_ns);
		pthread_mutex_unlock(&lock);
	}
	return NULL;
}

static void measure(char what, void (*phase)(void))
{
	long long w0, c0, d0 = run_delay_stamp(&w0, &c0);
	phase();
	long long w1, c1, d1 = run_delay_stamp(&w1, &c1);
	if (nocc < MAX_OCC)
		occs[nocc++] = (struct occ){ what, w0, w1, d1 - d0, c1 - c0 };
}

int main(int argc, char **argv)
{
	pthread_t w, h;

	if (argc < 2)
		return 2;
	double seconds = argc > 2 ? atof(argv[2]) : 3;
	if (argc > 3)
		phase_ns = (long long)(atof(argv[3]) * 1e6);
	if (pipe(fds) || sem_init(&write_go, 0, 0) || sem_init(&hold_go, 0, 0) || sem_init(&held, 0, 0) ||
	    pthread_create(&w, NULL, writer, NULL) || pthread_create(&h, NULL, holder, NULL))
		return 2;
	long long end = now(CLOCK_MONOTONIC) + (long long)(seconds * 1e9);
	for (int cycle = 0; now(CLOCK_MONOTONIC) < end; cycle++) {
		measure('b', phase_burn);
		measure('s', phase_sleep);
		measure('r', phase_read);
		measure('l', phase_lock);
		if (cycle == 0)
			fprintf(stderr, "ready\n");
	}
	FILE *log = fopen(argv[1], "w");
	if (!log)
		return 2;
	static const char *names[128] = { ['b'] = "burn", ['s'] = "sleep", ['r'] = "read", ['l'] = "lock" };
	for (int i = 0; i < nocc; i++)
		fprintf(log, "%s %lld %lld %lld %lld\n", names[(int)occs[i].what], occs[i].start, occs[i].end,
			occs[i].runnable, occs[i].cpu);
	fprintf(log, "main %d\n", (int)gettid());
	return fclose(log) == 0 ? 0 : 2;
}
