/* shapes.c — code shapes the seed maps (test_structure.sh): a signal
 * handler interrupting work_sig (SIGVTALRM every 4 ms of CPU, the handler
 * burning 1 ms in in_handler), a tail call (via_tail ends with a jump to
 * tail_leaf), and an inlined function (inl_mix, always inlined into host).
 * Prints the CPU seconds of each phase as it measured them (process CPU
 * time), and how many of its handler's runs found SIGTRAP (a profiler's
 * signal) blocked, read with the raw system call (tally's interposed
 * sigprocmask would not say): `work_sig W handler H tail T host I
 * trap_blocked B`.  usage: shapes [SCALE] */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#define NOINLINE __attribute__((noinline))

static volatile unsigned sink;
static double handler_s;
static int trap_blocked;

static double cpu(void)
{
	struct timespec t;
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

NOINLINE void in_handler(void)
{
	double t0 = cpu();
	while (cpu() - t0 < 0.001)
		sink++;
	handler_s += cpu() - t0;
}

static void on_tick(int sig)
{
	unsigned long mask = 0;

	(void)sig;
	if (syscall(SYS_rt_sigprocmask, SIG_BLOCK, NULL, &mask, sizeof(mask)) == 0 &&
	    (mask & (1ul << (SIGTRAP - 1))))
		trap_blocked++;
	in_handler();
}

NOINLINE void work_sig(double s)
{
	double t0 = cpu();
	while (cpu() - t0 < s)
		sink++;
}

NOINLINE unsigned tail_leaf(unsigned n, double s)
{
	double t0 = cpu();
	while (cpu() - t0 < s)
		for (int i = 0; i < 1000; i++)
			n = n * 1103515245u + 12345u;
	return n;
}

/* Its last act is a call: gcc -O2 makes it a jump. */
NOINLINE unsigned via_tail(unsigned n, double s)
{
	return tail_leaf(n ^ 0x5555u, s);
}

static inline __attribute__((always_inline)) unsigned inl_mix(unsigned n)
{
	for (int i = 0; i < 1000; i++)
		n = (n ^ (n >> 7)) * 2654435761u;
	return n;
}

NOINLINE unsigned host(unsigned n, double s)
{
	double t0 = cpu();
	while (cpu() - t0 < s)
		n = inl_mix(n);
	return n;
}

int main(int argc, char **argv)
{
	double scale = argc > 1 ? atof(argv[1]) : 1.0;
	struct sigaction sa = { .sa_handler = on_tick };
	sigaction(SIGVTALRM, &sa, NULL);
	struct itimerval on = { { 0, 4000 }, { 0, 4000 } }, off = { { 0, 0 }, { 0, 0 } };
	double t0 = cpu();
	setitimer(ITIMER_VIRTUAL, &on, NULL);
	work_sig(0.4 * scale);
	setitimer(ITIMER_VIRTUAL, &off, NULL);
	double t1 = cpu();
	unsigned n = via_tail(1, 0.2 * scale);
	double t2 = cpu();
	n = host(n, 0.2 * scale);
	double t3 = cpu();
	sink = n;
	printf("work_sig %.6f handler %.6f tail %.6f host %.6f trap_blocked %d\n", t1 - t0, handler_s, t2 - t1,
	       t3 - t2, trap_blocked);
	return 0;
}
