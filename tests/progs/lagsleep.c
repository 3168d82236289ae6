/* lagsleep.c — a thread whose clock signal waits for a long system call's
 * end, then sleeps most of a period, then runs: the sleep is not CPU.
 *
 * Each turn: lag_syscall (one getrandom of about 1.5 periods of kernel CPU:
 * the clock's signal that comes due inside it is delivered at its end),
 * a sleep of 0.85 period (timer slack 1 ns), and after_sleep (0.3 period of
 * CPU, spun).  An estimate of the clock from the wall time between two
 * signals took the sleep for CPU and charged it to after_sleep.  Prints
 * each phase's CPU share from the thread's own CPU clock ("share
 * lag_syscall X", "share after_sleep Y") and the most CPU of any turn from
 * lag_syscall's end to after_sleep's ("most_after_syscall_us Z"): a sample
 * in after_sleep, whose previous one came at the system call's end, weighs
 * no more than that.
 * Usage: lagsleep TURNS [PERIOD_US] (default 600 turns of 1000 us). */
#include <stdio.h>
#include <stdlib.h>
#include <sys/prctl.h>
#include <sys/random.h>
#include <time.h>

static char buf[64 << 20];

static double cpu_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

__attribute__((noinline)) void lag_syscall(size_t n)
{
	size_t got = 0;

	while (got < n) {
		ssize_t r = getrandom(buf + got, n - got, 0);
		if (r <= 0)
			break;
		got += (size_t)r;
	}
}

__attribute__((noinline)) void after_sleep(double cpu_s)
{
	double end = cpu_now() + cpu_s;
	volatile unsigned long x = 0;

	while (cpu_now() < end)
		for (int i = 0; i < 2000; i++)
			x += i;
}

int main(int argc, char **argv)
{
	int turns = argc > 1 ? atoi(argv[1]) : 600;
	double period = (argc > 2 ? atof(argv[2]) : 1000) * 1e-6;

	prctl(PR_SET_TIMERSLACK, 1UL);
	/* getrandom's CPU per byte: the median of 5 tries of 4 MB */
	double per_byte[5];
	for (int i = 0; i < 5; i++) {
		double c0 = cpu_now();
		lag_syscall(4 << 20);
		per_byte[i] = (cpu_now() - c0) / (4 << 20);
	}
	for (int i = 0; i < 5; i++)
		for (int j = i + 1; j < 5; j++)
			if (per_byte[j] < per_byte[i]) {
				double s = per_byte[i];
				per_byte[i] = per_byte[j];
				per_byte[j] = s;
			}
	size_t n = (size_t)(1.5 * period / per_byte[2]);
	if (n > sizeof(buf))
		n = sizeof(buf);
	double in_sys = 0, in_after = 0, most = 0;
	struct timespec nap = { 0, (long)(0.85 * period * 1e9) };
	for (int i = 0; i < turns; i++) {
		double c0 = cpu_now();
		lag_syscall(n);
		double c1 = cpu_now();
		nanosleep(&nap, NULL);
		double c2 = cpu_now();
		after_sleep(0.3 * period);
		double c3 = cpu_now();
		in_sys += c1 - c0;
		in_after += c3 - c2;
		if (c3 - c1 > most)
			most = c3 - c1;
	}
	printf("share lag_syscall %.4f\nshare after_sleep %.4f\nmost_after_syscall_us %.0f\n",
	       in_sys / (in_sys + in_after), in_after / (in_sys + in_after), most * 1e6);
	return 0;
}
