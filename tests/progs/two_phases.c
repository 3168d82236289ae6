/* two_phases.c — one thread that burns CPU in first_half for SECONDS of its
 * CPU time, then in second_half for as long (default 0.3 each): a timeline
 * whose first part is one function and whose last part is the other.
 * usage: two_phases [SECONDS] */
#include <stdlib.h>
#include <time.h>

#define NOIPA __attribute__((noinline, noipa))

static volatile unsigned long sink;

static double cpu_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static NOIPA void burn(double seconds)
{
	double end = cpu_now() + seconds;

	while (cpu_now() < end)
		for (int i = 0; i < 100000; i++)
			sink += (unsigned long)i * 7;
}

static NOIPA void first_half(double seconds)
{
	burn(seconds);
	sink++;                     /* no tail call: first_half stays on the stack */
}

static NOIPA void second_half(double seconds)
{
	burn(seconds);
	sink++;
}

int main(int argc, char **argv)
{
	double seconds = argc > 1 ? atof(argv[1]) : 0.3;

	first_half(seconds);
	second_half(seconds);
	return 0;
}
