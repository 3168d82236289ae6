/* own_sigprof.c — a program that profiles itself the old way: it installs a
 * SIGPROF handler with sigaction and runs setitimer(ITIMER_PROF), then
 * installs a second handler with signal() for a timer_create timer, then
 * raises SIGTRAP ten times into a handler of its own.  It must
 * keep working under tally: both handlers fire, and it exits 0 only if they
 * fired often enough.  The work is in busy().  usage: own_sigprof */
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/time.h>
#include <time.h>

static volatile sig_atomic_t ticks, timer_ticks, traps;

static void on_trap(int sig)
{
	(void)sig;
	traps++;
}

static void on_timer(int sig)
{
	(void)sig;
	timer_ticks++;
}

static void on_prof(int sig, siginfo_t *si, void *uc)
{
	(void)sig, (void)si, (void)uc;
	ticks++;
}

__attribute__((noinline)) static void busy(double seconds)
{
	struct timespec t0, t;
	volatile unsigned long x = 1;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t0);
	do {
		for (int i = 0; i < 100000; i++)
			x = x * 6364136223846793005ul + 1;
		clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
	} while ((t.tv_sec - t0.tv_sec) + (t.tv_nsec - t0.tv_nsec) / 1e9 < seconds);
}

int main(void)
{
	struct sigaction sa, old;
	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = on_prof;
	sa.sa_flags = SA_SIGINFO | SA_RESTART;
	sigaction(SIGPROF, &sa, NULL);
	sigaction(SIGPROF, NULL, &old);
	if (old.sa_sigaction != on_prof) {
		fprintf(stderr, "own_sigprof: sigaction did not report our handler back\n");
		return 3;
	}
	struct itimerval it = { { 0, 10000 }, { 0, 10000 } };
	setitimer(ITIMER_PROF, &it, NULL);
	busy(0.6);
	struct itimerval off = { { 0, 0 }, { 0, 0 } };
	setitimer(ITIMER_PROF, &off, NULL);

	/* Second phase: a POSIX CPU-time timer on SIGPROF, handler by signal(). */
	signal(SIGPROF, on_timer);
	struct sigevent sev;
	memset(&sev, 0, sizeof(sev));
	sev.sigev_notify = SIGEV_SIGNAL;
	sev.sigev_signo = SIGPROF;
	timer_t tm;
	if (timer_create(CLOCK_PROCESS_CPUTIME_ID, &sev, &tm) != 0)
		return 4;
	struct itimerspec its = { { 0, 10000000 }, { 0, 10000000 } };
	timer_settime(tm, 0, &its, NULL);
	busy(0.4);
	timer_delete(tm);

	/* Third: the program's own SIGTRAPs (tally samples with SIGTRAP). */
	signal(SIGTRAP, on_trap);
	for (int i = 0; i < 10; i++)
		raise(SIGTRAP);
	printf("ticks %d timer %d traps %d\n", (int)ticks, (int)timer_ticks, (int)traps);
	/* 0.6 s and 0.4 s at 100 Hz: ~60 and ~40 expected */
	return ticks >= 20 && timer_ticks >= 12 && traps == 10 ? 0 : 1;
}
