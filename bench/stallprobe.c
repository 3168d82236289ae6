/* stallprobe.c — a target for `tally record -p` in make bench (section 95-attach):
 * spins reading CLOCK_MONOTONIC for SECS seconds and, at the end, prints
 * every gap between two reads longer than 0.2 ms ("gap START_NS LENGTH_NS",
 * CLOCK_MONOTONIC), so that the time the process was stopped (by an attach,
 * a detach, or the machine) can be matched to what happened then.
 * usage: stallprobe SECS */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define MAX_GAPS 100000

static unsigned long long now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (unsigned long long)ts.tv_sec * 1000000000ull + (unsigned long long)ts.tv_nsec;
}

int main(int argc, char **argv)
{
	static unsigned long long start[MAX_GAPS], len[MAX_GAPS];
	unsigned long long end = now() + (unsigned long long)(atof(argc > 1 ? argv[1] : "5") * 1e9);
	unsigned long long prev = now();
	size_t n = 0;

	fprintf(stderr, "ready\n");
	for (unsigned long long t; (t = now()) < end; prev = t)
		if (t - prev > 200000 && n < MAX_GAPS) {
			start[n] = prev;
			len[n++] = t - prev;
		}
	for (size_t i = 0; i < n; i++)
		printf("gap %llu %llu\n", start[i], len[i]);
	return 0;
}
