/* omprhythm.c — the barrier rhythm of OpenMP codes: LOOPS short parallel
 * loops (a few microseconds of work each, then the loop's barrier), so the
 * threads sleep and wake tens of thousands of times a second under
 * OMP_WAIT_POLICY=passive, or spin at each barrier under active.  For `make
 * bench` (bench/sections/92-omp.sh): what a profiler costs a program that
 * lives at its barriers.  Prints "checksum HEX" (the check).
 * usage: omprhythm [LOOPS] [N]        (run with OMP_NUM_THREADS=2) */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static double a[4096];

int main(int argc, char **argv)
{
	long loops = argc > 1 ? atol(argv[1]) : 100000;
	int n = argc > 2 ? atoi(argv[2]) : 2000;
	double s = 0;

	if (n > 4096)
		n = 4096;
	for (long k = 0; k < loops; k++) {
#pragma omp parallel for reduction(+ : s)
		for (int i = 0; i < n; i++) {
			a[i] = a[i] * 0.5 + i;
			s += a[i];
		}
	}
	unsigned long h;
	memcpy(&h, &s, sizeof(h));
	printf("checksum %lx\n", h);
	return 0;
}
