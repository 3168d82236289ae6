/* heldblocks.c — heap blocks under `tally record --data` whose allocating
 * thread is not the one that reads them (tests/e2e/test_datablocks.sh):
 * the collector holds a thread's allocations back until a sample may have
 * seen them (col_datablocks.c), so these are the cases where the owner
 * writes them late or not itself.
 *   churn N        N short-lived blocks (16..1039 bytes, 64 live at a time)
 *   joins S        main allocates a 200 KiB block and joins a worker that
 *                  reads it for S seconds of its CPU
 *   waits S        a worker allocates the block and waits for ever; main
 *                  reads it for S seconds of its CPU, then exits
 * Reading is read_block's, a loop of loads; it prints the checksum. */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define BLOCK (200 * 1024 / 8)   /* doubles: the size class 128K-256K */

static double *block;
static double seconds;
static volatile double sink;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t ready = PTHREAD_COND_INITIALIZER;

static double cpu_now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

__attribute__((noinline)) static double read_block(double *b, double s)
{
	double sum = 0, t0 = cpu_now();
	while (cpu_now() - t0 < s)
		for (int r = 0; r < 16; r++)
			for (size_t i = 0; i < BLOCK; i += 8)
				sum += b[i] + b[i + 1] + b[i + 2] + b[i + 3] + b[i + 4] + b[i + 5] + b[i + 6] + b[i + 7];
	return sum;
}

static double *make_block(void)
{
	double *b = malloc(BLOCK * sizeof(double));
	if (!b)
		exit(1);
	for (size_t i = 0; i < BLOCK; i++)
		b[i] = (double)i;
	return b;
}

static void *reader(void *arg)
{
	(void)arg;
	sink = read_block(block, seconds);
	return NULL;
}

static void *owner(void *arg)
{
	(void)arg;
	pthread_mutex_lock(&lock);
	block = make_block();
	pthread_cond_signal(&ready);
	pthread_mutex_unlock(&lock);
	for (;;)
		pause();
	return NULL;
}

int main(int argc, char **argv)
{
	if (argc != 3)
		return 2;
	if (!strcmp(argv[1], "churn")) {
		long n = atol(argv[2]);
		char *ring[64] = { 0 };
		unsigned long sum = 0;
		for (long i = 0; i < n; i++) {
			size_t size = 16 + (size_t)((i * 2654435761u) & 1023);
			char *p = malloc(size);
			p[0] = (char)i;
			sum += (unsigned char)p[0] + size;
			free(ring[i & 63]);
			ring[i & 63] = p;
		}
		for (int i = 0; i < 64; i++)
			free(ring[i]);
		printf("checksum %lu\n", sum);
		return 0;
	}
	seconds = atof(argv[2]);
	pthread_t th;
	if (!strcmp(argv[1], "joins")) {
		block = make_block();
		pthread_create(&th, NULL, reader, NULL);
		pthread_join(th, NULL);
	} else if (!strcmp(argv[1], "waits")) {
		pthread_mutex_lock(&lock);
		pthread_create(&th, NULL, owner, NULL);
		while (!block)
			pthread_cond_wait(&ready, &lock);
		pthread_mutex_unlock(&lock);
		sink = read_block(block, seconds);
	} else {
		return 2;
	}
	printf("checksum %f\n", sink);
	return 0;
}
