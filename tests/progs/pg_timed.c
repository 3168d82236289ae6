/* pg_timed.c — for -finstrument-functions: slow() sleeps 20 ms and is called
 * 5 times from main, fast() 1000 times; rec() recurses 5 deep around a
 * 10 ms sleep.  The runtime's exact per-call inclusive time must give slow
 * ~100 ms, and rec ~10 ms counted once, not once per level.
 * usage: pg_timed */
#include <time.h>

static void nap(long ms)
{
	struct timespec t = { 0, ms * 1000000L };
	nanosleep(&t, NULL);
}

__attribute__((noinline)) void slow(void) { nap(20); }
__attribute__((noinline)) int fast(int x) { return x * 3 + 1; }

__attribute__((noinline)) int rec(int n)
{
	if (n == 0) {
		nap(10);
		return 0;
	}
	return rec(n - 1) + 1;
}

int main(void)
{
	int x = 0;
	for (int i = 0; i < 5; i++)
		slow();
	for (int i = 0; i < 1000; i++)
		x = fast(x);
	return rec(5) == 5 && x != 0 ? 0 : 1;
}
