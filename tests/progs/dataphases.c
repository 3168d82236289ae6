/* dataphases.c — five phases, each reading one data object only and
 * running until its own thread CPU time reaches its share of a budget, for
 * `tally record --data` (tests/e2e/test_dataphases.sh).  The program
 * measures what it built: it prints each phase's CPU seconds and the
 * process's, so the test compares tally's shares with the program's own.
 *   stream   the global array `streamed`, read in order;
 *   chase    the global array `chased`, read at random (a pointer chase
 *            through one random cycle: each load's address is the last's
 *            value);
 *   heap     a heap array of struct rec (256 KiB: size class 128K-256K),
 *            member `hot` only;
 *   stack    a buffer in stack_owner's frame, read by its callee sum_buf;
 *   file     a file the program writes, maps (mmap) and reads.
 * Each loop is unrolled by 8 with one pointer step, so that nearly every
 * instruction the clock interrupts is a load.
 * usage: dataphases BUDGET_SECONDS FILE */
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#define NSTREAM 65536             /* 512 KiB of doubles */
#define NCHASE (1u << 21)         /* 8 MiB of uint32_t: beyond the caches */
#define NREC 4096                 /* 64-byte records: 256 KiB */
#define NSTACK 8192               /* 64 KiB of doubles */
#define NFILE 65536               /* 512 KiB of doubles */

struct rec {
	double hot;
	double cold[7];
};

double streamed[NSTREAM];
uint32_t chased[NCHASE];
static volatile double sink;

static double cpu_now(clockid_t id)
{
	struct timespec ts;

	clock_gettime(id, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

__attribute__((noinline)) static double walk_file(const double *v)
{
	double s = 0;

	for (int r = 0; r < 64; r++)
		for (const double *p = v; p < v + NFILE; p += 8)
			s += p[0] + p[1] + p[2] + p[3] + p[4] + p[5] + p[6] + p[7];
	return s;
}

__attribute__((noinline)) static double walk_stream(void)
{
	double s = 0;

	for (int r = 0; r < 64; r++)
		for (const double *p = streamed; p < streamed + NSTREAM; p += 8)
			s += p[0] + p[1] + p[2] + p[3] + p[4] + p[5] + p[6] + p[7];
	return s;
}

__attribute__((noinline)) static uint32_t walk_chase(uint32_t i)
{
	for (int r = 0; r < 16384; r++) {
		i = chased[i]; i = chased[i]; i = chased[i]; i = chased[i];
		i = chased[i]; i = chased[i]; i = chased[i]; i = chased[i];
	}
	return i;
}

__attribute__((noinline)) static double walk_heap(const struct rec *v)
{
	double s = 0;

	for (int r = 0; r < 64; r++)
		for (const struct rec *p = v; p < v + NREC; p += 8)
			s += p[0].hot + p[1].hot + p[2].hot + p[3].hot + p[4].hot + p[5].hot + p[6].hot + p[7].hot;
	return s;
}

__attribute__((noinline)) static double sum_buf(const double *buf)
{
	double s = 0;

	for (int r = 0; r < 64; r++) {
		for (const double *p = buf; p < buf + NSTACK; p += 8)
			s += p[0] + p[1] + p[2] + p[3] + p[4] + p[5] + p[6] + p[7];
		__asm__ volatile("" ::: "memory");
	}
	return s;
}

/* Owns the buffer its callee reads: the stack phase. */
__attribute__((noinline)) static double stack_owner(double until)
{
	volatile double buf[NSTACK];
	double s = 0;

	for (int i = 0; i < NSTACK; i++)
		buf[i] = i & 3;
	while (cpu_now(CLOCK_THREAD_CPUTIME_ID) < until)
		s += sum_buf((const double *)buf);
	return s;
}

static uint32_t rnd_state = 12345;

static uint32_t rnd(void)
{
	rnd_state = rnd_state * 1103515245u + 12345u;
	return rnd_state >> 8;
}

int main(int argc, char **argv)
{
	if (argc != 3) {
		fprintf(stderr, "usage: dataphases BUDGET_SECONDS FILE\n");
		return 2;
	}
	double budget = atof(argv[1]);
	static const double share[] = { 0.25, 0.20, 0.20, 0.15, 0.10 };
	static const char *name[] = { "stream", "chase", "heap", "stack", "file" };
	double spent[5] = { 0 };

	/* Set-up: the arrays, one random cycle (Sattolo), the file. */
	for (int i = 0; i < NSTREAM; i++)
		streamed[i] = i & 7;
	for (uint32_t i = 0; i < NCHASE; i++)
		chased[i] = i;
	for (uint32_t i = NCHASE - 1; i > 0; i--) {
		uint32_t j = rnd() % i, t = chased[i];
		chased[i] = chased[j];
		chased[j] = t;
	}
	struct rec *heap = malloc(NREC * sizeof(*heap));
	int fd = open(argv[2], O_RDWR | O_CREAT | O_TRUNC, 0600);
	if (!heap || fd < 0 || ftruncate(fd, NFILE * sizeof(double)) != 0) {
		perror("dataphases: set-up");
		return 1;
	}
	for (int i = 0; i < NREC; i++)
		heap[i].hot = i & 7;
	double *file = mmap(NULL, NFILE * sizeof(double), PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (file == MAP_FAILED) {
		perror("dataphases: mmap");
		return 1;
	}
	for (int i = 0; i < NFILE; i++)
		file[i] = i & 3;

	for (int k = 0; k < 5; k++) {
		double t0 = cpu_now(CLOCK_THREAD_CPUTIME_ID), until = t0 + share[k] * budget;
		uint32_t at = 0;
		while (k != 3 && cpu_now(CLOCK_THREAD_CPUTIME_ID) < until) {
			switch (k) {
			case 0: sink = walk_stream(); break;
			case 1: at = walk_chase(at); break;
			case 2: sink = walk_heap(heap); break;
			case 4: sink = walk_file(file); break;
			}
		}
		if (k == 3)
			sink = stack_owner(until);
		sink += at;
		spent[k] = cpu_now(CLOCK_THREAD_CPUTIME_ID) - t0;
	}
	munmap(file, NFILE * sizeof(double));
	close(fd);
	free(heap);
	for (int k = 0; k < 5; k++)
		printf("%s %.6f\n", name[k], spent[k]);
	printf("total %.6f\n", cpu_now(CLOCK_PROCESS_CPUTIME_ID));
	return 0;
}
