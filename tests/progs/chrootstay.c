/* chrootstay.c — changes its root, then works on there without an exec (a
 * sandboxed server or build step does): under tally, its log lines after
 * the chroot (its end: end.mono_ns, cpu.end_ns) must still reach its
 * experiment, which no path from the new root names.  Used by
 * test_procfile.sh (needs root).
 *
 * usage: chrootstay DIR [SECONDS]   (CPU time to burn after the chroot)
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

static double cpu_seconds(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		fprintf(stderr, "usage: chrootstay DIR [SECONDS]\n");
		return 2;
	}
	if (chroot(argv[1]) != 0 || chdir("/") != 0) {
		perror("chrootstay: chroot");
		return 2;
	}
	double until = cpu_seconds() + (argc > 2 ? atof(argv[2]) : 0);
	volatile unsigned long x = 0;
	while (cpu_seconds() < until)
		for (int i = 0; i < 100000; i++)
			x += (unsigned long)i * i;
	printf("chrooted\n");
	return 0;
}
