/* states_stopped.c — spins in spin_here() for SECONDS of wall time, reading
 * the clock every few microseconds of work, so that a stop (the test sends
 * SIGSTOP, then SIGCONT) is the longest gap between two reads.  It touches
 * no new memory while it spins: no page fault before the stop.
 *
 * Prints "ready" on stderr once spinning, then at the end, in ns, the
 * longest gap and the part of it the thread spent runnable waiting for a
 * CPU (the growth of its schedstat run_delay, read at most 1 ms before the
 * gap and right after it): the rest of the gap it was stopped.
 *   stop GAP RUNNABLE
 * usage: states_stopped [SECONDS] */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#define NOIPA __attribute__((noinline, noipa))

static int schedstat_fd = -1;

static long long now(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec * 1000000000LL + t.tv_nsec;
}

static long long run_delay(void)
{
	char buf[96];
	long long cpu = 0, delay = 0;
	ssize_t n = pread(schedstat_fd, buf, sizeof(buf) - 1, 0);

	if (n <= 0)
		return 0;
	buf[n] = 0;
	if (sscanf(buf, "%lld %lld", &cpu, &delay) != 2)
		return 0;
	return delay;
}

NOIPA void spin_here(double seconds, long long *gap, long long *runnable)
{
	volatile unsigned long x = 1;
	long long start = now(), last = start, delay_at = start, delay = run_delay();

	*gap = *runnable = 0;
	while (last - start < seconds * 1e9) {
		for (int i = 0; i < 1000; i++)
			x = x * 6364136223846793005ul + 1442695040888963407ul;
		long long t = now();
		if (t - last > *gap) {
			long long d = run_delay();
			*gap = t - last;
			*runnable = d - delay;
			delay = d;
			delay_at = t;
		} else if (t - delay_at > 1000000) {
			delay = run_delay();
			delay_at = t;
		}
		last = t;
	}
}

int main(int argc, char **argv)
{
	double seconds = argc > 1 ? atof(argv[1]) : 1.5;
	long long gap, runnable;

	schedstat_fd = open("/proc/thread-self/schedstat", O_RDONLY);
	fprintf(stderr, "ready\n");
	spin_here(seconds, &gap, &runnable);
	printf("stop %lld %lld\n", gap, runnable);
	return 0;
}
