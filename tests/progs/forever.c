/* forever.c — burns CPU in burn() until killed; prints "running" once it
 * has run 0.2 s, for tests that kill it halfway.  usage: forever */
#include <stdio.h>
#include <time.h>

__attribute__((noinline)) static void burn(void)
{
	volatile unsigned long x = 1;
	for (int i = 0; i < 1000000; i++)
		x = x * 6364136223846793005ul + 1;
}

int main(void)
{
	struct timespec t0, t;
	int said = 0;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (;;) {
		burn();
		clock_gettime(CLOCK_MONOTONIC, &t);
		if (!said && (t.tv_sec - t0.tv_sec) + (t.tv_nsec - t0.tv_nsec) / 1e9 > 0.2) {
			printf("running\n");
			fflush(stdout);
			said = 1;
		}
	}
}
