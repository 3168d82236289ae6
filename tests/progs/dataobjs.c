/* dataobjs.c — three phases, each reading one data object only, for
 * `tally record --data` (tests/e2e/test_dataobj.sh):
 *   walk_parts  the global array `parts` of struct particle, reading only
 *               member `hot` of each element (a 64-byte stride);
 *   walk_heap   a heap array allocated by make_heap;
 *   walk_stack  an array on walk_stack's own stack.
 * Each loop is unrolled by 8 with one pointer step, so that nearly every
 * instruction the clock interrupts is a load (or follows one in its block
 * with the address registers unchanged).  usage: dataobjs ROUNDS */
#include <stdio.h>
#include <stdlib.h>

#define NPARTS 4096
#define NHEAP 32768
#define NSTACK 8192

struct particle {
	double cold0;
	double hot;
	double cold1[6];
};

struct particle parts[NPARTS];
static volatile double sink;

__attribute__((noinline)) static double walk_parts(int rounds)
{
	double s = 0;

	for (int r = 0; r < rounds; r++)
		for (const struct particle *p = parts; p < parts + NPARTS; p += 8)
			s += p[0].hot + p[1].hot + p[2].hot + p[3].hot + p[4].hot + p[5].hot + p[6].hot + p[7].hot;
	return s;
}

__attribute__((noinline)) static double *make_heap(void)
{
	double *h = malloc(NHEAP * sizeof(*h));

	for (int i = 0; h && i < NHEAP; i++)
		h[i] = i & 7;
	return h;
}

__attribute__((noinline)) static double sum8(const double *v, int n, int rounds)
{
	double s = 0;

	for (int r = 0; r < rounds; r++)
		for (const double *p = v; p < v + n; p += 8)
			s += p[0] + p[1] + p[2] + p[3] + p[4] + p[5] + p[6] + p[7];
	return s;
}

__attribute__((noinline)) static double walk_heap(const double *h, int rounds)
{
	return sum8(h, NHEAP, rounds * NPARTS * 8 / NHEAP);
}

__attribute__((noinline)) static void fill(volatile double *v, int n)
{
	for (int i = 0; i < n; i++)
		v[i] = i & 3;
}

__attribute__((noinline)) static double walk_stack(int rounds)
{
	double buf[NSTACK];

	fill(buf, NSTACK);
	double s = 0;
	for (int r = 0; r < rounds * NPARTS * 8 / NSTACK; r++) {
		for (const double *p = buf; p < buf + NSTACK; p += 8)
			s += p[0] + p[1] + p[2] + p[3] + p[4] + p[5] + p[6] + p[7];
		__asm__ volatile("" ::: "memory");   /* buf is read again each round */
	}
	return s;
}

int main(int argc, char **argv)
{
	int rounds = argc > 1 ? atoi(argv[1]) : 2000;
	double *h = make_heap();

	if (!h)
		return 1;
	for (int i = 0; i < NPARTS; i++)
		parts[i].hot = i & 7;
	sink = walk_parts(rounds);
	sink = walk_heap(h, rounds);
	sink = walk_stack(rounds);
	free(h);
	return 0;
}
