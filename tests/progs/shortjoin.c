/* shortjoin.c — fork-join rounds of short threads (each under the
 * collector's 50 ms bar for reading schedstat), one of them slow, for the
 * critical path without --states (issue 25).  Each of ROUNDS rounds starts
 * three workers and joins them: two spin SHORT_MS ms of CPU in
 * short_work(); the slow one spins SLOW_MS / FACTOR ms in slow_work(),
 * then naps NAP_MS ms in nanosleep (no tracer sees it) in nap().  Spun on
 * the thread's CPU clock, so load stretches the work in wall time but not
 * in amount.  SPINNERS threads spin beside them the whole run (they steal
 * the CPU: the workers wait for one), never joined.
 * The program measures its own wall time (main's), and over the rounds
 * slow_work()'s wall time and the naps' summed wall time, and the time
 * main and the slow workers (from their start) spent runnable but waiting
 * for a CPU (the kernel's run delay, schedstat; 0 where it cannot be
 * read), and the
 * first two again over the rounds where the slow worker ended last (a
 * loaded machine may end a short one later: the path then goes there),
 * with the slow worker's run delay inside slow_work() in those rounds, and
 * outside it (from its birth: its wait to start, its naps' wake-ups), and
 * prints
 *   wall NS slow NS napped NS delay NS slow_last NS napped_last NS slow_delay_last NS rounds_last N
 *   out_delay_last NS join_wake NS
 * (join_wake: over all rounds, from the slow worker's last act to the
 * return of main's join of it: its thread's end, and main's wake-up)
 * usage: shortjoin FACTOR [ROUNDS [SPINNERS [SLOW_MS [NAP_MS [SHORT_MS]]]]] */
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "mono_clock.h"
#include "run_delay.h"

#define NOIPA __attribute__((noinline, noipa))

static double factor = 1, slow_ms = 12, short_ms = 6;
static int nap_ms = 12;
static long long slow_ns, napped_ns, delay_ns, ended[3];
static long long slow_last_ns, napped_last_ns, slow_delay_last_ns, out_delay_last_ns; /* ... in the rounds it ended last */
static int rounds_last;
static long long join_wake_ns;     /* from the slow worker's last act to its join's return */
static atomic_int stop;
static volatile unsigned long sink;

static long long cpu_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

/* Spin for `ms` ms of this thread's CPU time. */
NOIPA void spin(double ms)
{
	long long end = cpu_ns() + (long long)(ms * 1e6);
	while (cpu_ns() < end)
		for (int i = 0; i < 1000; i++)
			sink += (unsigned long)i * 7;
}

/* Each calls spin() and counts after it: no tail call, so each is a frame. */
NOIPA void slow_work(void) { spin(slow_ms / factor); sink++; }
NOIPA void short_work(void) { spin(short_ms); sink++; }
NOIPA void nap(void) { sleep_ms(nap_ms); sink++; }

static long long this_slow, this_napped, this_slow_delay, this_out_delay;

static void *worker(void *arg)
{
	long i = (long)arg;

	if (!i) {
		long long started = run_delay_ns();    /* its wait to start overlaps main's work */
		long long d0 = started, t0 = now();
		slow_work();
		long long t1 = now();
		this_slow_delay = run_delay_ns() - d0;
		nap();
		this_slow = t1 - t0;
		this_napped = now() - t1;
		slow_ns += this_slow;
		napped_ns += this_napped;
		long long delay_end = run_delay_ns();
		delay_ns += delay_end - started;
		this_out_delay = delay_end - this_slow_delay;   /* from its birth */
	} else {
		short_work();
	}
	ended[i] = now();
	return NULL;
}

static void *spinner(void *arg)
{
	while (!atomic_load_explicit(&stop, memory_order_relaxed))
		sink++;
	return arg;
}

int main(int argc, char **argv)
{
	int rounds = argc > 2 ? atoi(argv[2]) : 8, spinners = argc > 3 ? atoi(argv[3]) : 0;
	pthread_t t[3], s[8];

	if (argc > 1)
		factor = atof(argv[1]);
	if (argc > 4)
		slow_ms = atof(argv[4]);
	if (argc > 5)
		nap_ms = atoi(argv[5]);
	if (argc > 6)
		short_ms = atof(argv[6]);
	if (factor <= 0 || rounds <= 0 || spinners < 0 || spinners > 8)
		return fprintf(stderr, "usage: shortjoin FACTOR [ROUNDS [SPINNERS [SLOW_MS [NAP_MS [SHORT_MS]]]]]\n"), 2;
	for (int i = 0; i < spinners; i++)
		pthread_create(&s[i], NULL, spinner, NULL);
	long long t0 = now();
	for (int r = 0; r < rounds; r++) {
		for (long i = 0; i < 3; i++)
			pthread_create(&t[i], NULL, worker, (void *)i);
		for (int i = 0; i < 3; i++) {
			pthread_join(t[i], NULL);
			if (!i && now() > ended[0])
				join_wake_ns += now() - ended[0];
		}
		if (ended[0] >= ended[1] && ended[0] >= ended[2]) {
			slow_last_ns += this_slow;
			napped_last_ns += this_napped;
			slow_delay_last_ns += this_slow_delay;
			out_delay_last_ns += this_out_delay;
			rounds_last++;
		}
	}
	long long wall = now() - t0;
	long long main_delay = run_delay_ns();
	/* the spinners are left running (the exit ends them): joined, they
	 * would be the path */
	atomic_store(&stop, 1);
	printf("wall %lld slow %lld napped %lld delay %lld slow_last %lld napped_last %lld slow_delay_last %lld "
	       "rounds_last %d out_delay_last %lld join_wake %lld\n", wall, slow_ns, napped_ns, main_delay + delay_ns,
	       slow_last_ns, napped_last_ns, slow_delay_last_ns, rounds_last, out_delay_last_ns, join_wake_ns);
	return 0;
}
