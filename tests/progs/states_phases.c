/* states_phases.c — one thread whose states are known by construction: it
 * sleeps (nanosleep) in phase_sleep, burns user CPU in phase_burn, and
 * blocks reading a pipe in phase_read until a helper thread writes to it,
 * each for about SECONDS (default 0.5).
 *
 * It prints what it measured itself, one line per phase: the phase's wall
 * time (CLOCK_MONOTONIC), its CPU time (CLOCK_THREAD_CPUTIME_ID), the
 * time it spent runnable but waiting for a CPU (the kernel's run_delay of
 * /proc/thread-self/schedstat, read with the clocks at once:
 * run_delay_stamp) and its user and system CPU time (getrusage
 * RUSAGE_THREAD: the kernel's split, which a loaded machine moves towards
 * system time), all in ns:
 *   sleep WALL CPU RUNNABLE USER SYSTEM
 *   burn WALL CPU RUNNABLE USER SYSTEM
 *   read WALL CPU RUNNABLE USER SYSTEM
 * and for the helper thread, its id and the wall time from its creation to
 * its first instruction (tally's thread start, before the thread's states
 * are recorded):
 *   writer TID BEFORE
 * Under load the nominal lengths drift (a sleep lasts longer, a burn waits
 * for the CPU); tests compare tally with these, not with SECONDS.
 * usage: states_phases [SECONDS] */
#define _GNU_SOURCE     /* RUSAGE_THREAD */
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "run_delay.h"

#define NOIPA __attribute__((noinline, noipa))

static double seconds = 0.5;
static int fds[2];
static volatile unsigned long sink;

static long long now(clockid_t c)
{
	struct timespec t;
	clock_gettime(c, &t);
	return t.tv_sec * 1000000000LL + t.tv_nsec;
}

NOIPA void phase_sleep(void)
{
	struct timespec t = { (time_t)seconds, (long)((seconds - (time_t)seconds) * 1e9) };
	while (nanosleep(&t, &t))
		;
}

NOIPA void phase_burn(void)
{
	long long end = now(CLOCK_THREAD_CPUTIME_ID) + (long long)(seconds * 1e9);
	unsigned long x = 1;
	while (now(CLOCK_THREAD_CPUTIME_ID) < end)
		for (int i = 0; i < 20000; i++)
			x = x * 6364136223846793005UL + 1442695040888963407UL;
	sink = x;
}

NOIPA void phase_read(void)
{
	char c;
	if (read(fds[0], &c, 1) != 1)
		exit(3);
}

/* The writer's time from its creation to its first instruction, wall
 * (CLOCK_MONOTONIC from just before pthread_create), in ns: tally's thread
 * start before its states are recorded, on the CPU, waiting for one, or
 * blocked (its helper's clone, a file's open: before, only CPU and run
 * delay were counted, and a thread blocked 55 ms in that set-up at load 22
 * failed states_wall_is_the_sum). */
static long long writer_tid, writer_created_ns, writer_before_ns;

static void *writer(void *arg)
{
	(void)arg;
	writer_before_ns = now(CLOCK_MONOTONIC) - writer_created_ns;
	writer_tid = gettid();
	struct timespec t = { (time_t)seconds, (long)((seconds - (time_t)seconds) * 1e9) };
	while (nanosleep(&t, &t))
		;
	if (write(fds[1], "x", 1) != 1)
		exit(4);
	return NULL;
}

/* The calling thread's user and system CPU time so far, in ns. */
static void user_system(long long *user, long long *sys)
{
	struct rusage ru;

	*user = *sys = 0;
	if (getrusage(RUSAGE_THREAD, &ru) == 0) {
		*user = ru.ru_utime.tv_sec * 1000000000LL + ru.ru_utime.tv_usec * 1000LL;
		*sys = ru.ru_stime.tv_sec * 1000000000LL + ru.ru_stime.tv_usec * 1000LL;
	}
}

static void measure(const char *name, void (*phase)(void), int start_writer)
{
	pthread_t w;
	long long u0, s0, u1, s1;
	user_system(&u0, &s0);
	long long w0, c0, d0 = run_delay_stamp(&w0, &c0);
	writer_created_ns = now(CLOCK_MONOTONIC);
	if (start_writer && pthread_create(&w, NULL, writer, NULL))
		exit(5);
	phase();
	long long w1, c1, d1 = run_delay_stamp(&w1, &c1);
	user_system(&u1, &s1);
	printf("%s %lld %lld %lld %lld %lld\n", name, w1 - w0, c1 - c0, d1 - d0, u1 - u0, s1 - s0);
	if (start_writer)
		pthread_join(w, NULL);
}

int main(int argc, char **argv)
{
	if (argc > 1)
		seconds = atof(argv[1]);
	if (pipe(fds))
		return 2;
	measure("sleep", phase_sleep, 0);
	measure("burn", phase_burn, 0);
	measure("read", phase_read, 1);
	printf("writer %lld %lld\n", writer_tid, writer_before_ns);
	return 0;
}
