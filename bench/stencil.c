/* stencil.c — a LULESH-like time-stepping code for `make bench`
 * (bench/sections/92-omp.sh): a 3D grid of N^3 cells; each time step runs a
 * handful of parallel loops (forces from a 7-point stencil, velocities,
 * positions, an energy update) and a min-reduction for the next time step,
 * each ending at its barrier, as LULESH's CalcForceForNodes ...
 * CalcTimeConstraintsForElems do.  At N=30 a step takes a few hundred
 * microseconds: a few thousand barriers a second on 2 threads.
 * Prints "checksum HEX" (the check).
 * usage: stencil [STEPS] [N]          (run with OMP_NUM_THREADS=2) */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define IDX(i, j, k) (((size_t)(i) * n + (size_t)(j)) * n + (size_t)(k))

int main(int argc, char **argv)
{
	int steps = argc > 1 ? atoi(argv[1]) : 400;
	int n = argc > 2 ? atoi(argv[2]) : 30;
	size_t cells = (size_t)n * n * n;
	double *p = malloc(cells * sizeof(*p)), *f = malloc(cells * sizeof(*f));
	double *v = malloc(cells * sizeof(*v)), *x = malloc(cells * sizeof(*x));
	double *e = malloc(cells * sizeof(*e));
	double dt = 1e-3;

	if (!p || !f || !v || !x || !e)
		return 1;
	for (size_t c = 0; c < cells; c++) {
		p[c] = 1.0 + (double)(c % 17) * 0.01;
		v[c] = x[c] = f[c] = 0;
		e[c] = 1.0;
	}
	for (int s = 0; s < steps; s++) {
#pragma omp parallel for collapse(2)
		for (int i = 1; i < n - 1; i++)
			for (int j = 1; j < n - 1; j++)
				for (int k = 1; k < n - 1; k++)
					f[IDX(i, j, k)] = 6 * p[IDX(i, j, k)] - p[IDX(i - 1, j, k)] -
							  p[IDX(i + 1, j, k)] - p[IDX(i, j - 1, k)] -
							  p[IDX(i, j + 1, k)] - p[IDX(i, j, k - 1)] -
							  p[IDX(i, j, k + 1)];
#pragma omp parallel for
		for (size_t c = 0; c < cells; c++)
			v[c] += dt * f[c];
#pragma omp parallel for
		for (size_t c = 0; c < cells; c++)
			x[c] += dt * v[c];
#pragma omp parallel for
		for (size_t c = 0; c < cells; c++) {
			e[c] -= dt * f[c] * v[c];
			p[c] = e[c] > 0 ? 0.4 * e[c] + 0.6 : 0.6;
		}
		double vmax = 1e-30;
#pragma omp parallel for reduction(max : vmax)
		for (size_t c = 0; c < cells; c++)
			vmax = fmax(vmax, fabs(v[c]));
		dt = fmin(1e-3, 0.5 / (vmax + 1.0));
	}
	double sum = 0;
	for (size_t c = 0; c < cells; c++)
		sum += x[c] + e[c];
	unsigned long h;
	memcpy(&h, &sum, sizeof(h));
	printf("checksum %lx\n", h);
	free(p), free(f), free(v), free(x), free(e);
	return 0;
}
