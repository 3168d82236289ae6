/* dfchain.c — callers known by construction, for a build whose CFI is in
 * .debug_frame alone (test_unwind.sh: -fno-asynchronous-unwind-tables
 * -fno-unwind-tables -fomit-frame-pointer, dynamically linked).
 *
 * usage: dfchain UNITS
 * main calls path_a (3 units of work) then path_b (1 unit); each reaches
 * the same leaf, work(), through a chain of its own:
 *   main -> path_a -> mid_a -> work     main -> path_b -> mid_b -> work
 * Prints each path's CPU time (CLOCK_PROCESS_CPUTIME_ID, ns) as
 *   a NS
 *   b NS
 * so the expected shares come from the run itself.
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static volatile unsigned long sink;

static long long cpu_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
	return (long long)t.tv_sec * 1000000000LL + t.tv_nsec;
}

/* Keeps values in callee-saved registers across the calls, so each frame
 * has CFI of its own to follow (pushes, a stack adjustment). */
__attribute__((noinline, noclone)) static unsigned long work(long n, unsigned long k)
{
	unsigned long s = 0;

	for (long i = 0; i < n; i++)
		s += (unsigned long)i * k ^ (s >> 3);
	return s;
}

__attribute__((noinline, noclone)) static unsigned long mid_a(long n)
{
	volatile char pad[40];
	unsigned long r = 0;

	pad[0] = 1;
	for (int i = 0; i < 3; i++)
		r += work(n, 7 + (unsigned long)i + pad[0]);
	return r;
}

__attribute__((noinline, noclone)) static unsigned long mid_b(long n)
{
	volatile char pad[24];

	pad[0] = 2;
	return work(n, 5 + (unsigned long)pad[0]) + (unsigned long)pad[0];   /* no tail call */
}

__attribute__((noinline, noclone)) static void path_a(long units)
{
	for (long u = 0; u < units; u++)
		sink += mid_a(10000000);
}

__attribute__((noinline, noclone)) static void path_b(long units)
{
	for (long u = 0; u < units; u++)
		sink += mid_b(10000000);
}

int main(int argc, char **argv)
{
	long units = argc > 1 ? atol(argv[1]) : 10;
	long long t0 = cpu_ns();

	path_a(units);
	long long t1 = cpu_ns();
	path_b(units);
	long long t2 = cpu_ns();
	printf("a %lld\nb %lld\n", t1 - t0, t2 - t1);
	return 0;
}
