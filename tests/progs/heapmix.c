/* heapmix.c — allocation-heavy, for the heap tracer's scale (test_heapscale.sh):
 * THREADS threads each make N allocations of mixed sizes (16..2063 bytes)
 * from two call sites, site_malloc() and site_calloc(), freeing each one 256
 * allocations later; at the end each thread leaves its last 10 blocks of
 * site_calloc unfreed.  Prints the process's own totals:
 *   malloc COUNT BYTES / calloc COUNT BYTES / leaked BYTES
 * usage: heapmix N THREADS */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#define RING 256

static long n;
static long counts[2], bytes[2], leaked;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

__attribute__((noinline)) static char *site_malloc(size_t size)
{
	char *p = malloc(size);
	if (p)
		p[0] = 1;
	return p;
}

__attribute__((noinline)) static char *site_calloc(size_t size)
{
	char *p = calloc(1, size);
	if (p)
		p[size - 1] = 1;
	return p;
}

static void *worker(void *arg)
{
	char *ring[RING] = { 0 };
	size_t sizes[RING] = { 0 };
	long c[2] = { 0 }, b[2] = { 0 }, leak = 0;
	unsigned seed = (unsigned)(uintptr_t)arg * 2654435761u + 1;

	for (long i = 0; i < n; i++) {
		seed = seed * 1103515245u + 12345u;
		size_t size = 16 + ((seed >> 8) & 2047);
		int which = (seed >> 20) & 1;
		char *p = which ? site_calloc(size) : site_malloc(size);
		c[which]++;
		b[which] += (long)size;
		free(ring[i % RING]);
		ring[i % RING] = p;
		sizes[i % RING] = which ? size : 0;
	}
	/* The last 10 blocks allocated by site_calloc stay; the rest go. */
	int kept = 0;
	for (long i = n - 1; i >= 0 && i >= n - RING; i--) {
		long k = i % RING;
		if (sizes[k] && kept < 10) {
			kept++;
			leak += (long)sizes[k];
		} else {
			free(ring[k]);
		}
	}
	pthread_mutex_lock(&lock);
	for (int i = 0; i < 2; i++) {
		counts[i] += c[i];
		bytes[i] += b[i];
	}
	leaked += leak;
	pthread_mutex_unlock(&lock);
	return NULL;
}

int main(int argc, char **argv)
{
	n = argc > 1 ? atol(argv[1]) : 100000;
	int threads = argc > 2 ? atoi(argv[2]) : 2;
	pthread_t t[64];

	if (threads < 1 || threads > 64)
		return 2;
	for (int i = 0; i < threads; i++)
		pthread_create(&t[i], NULL, worker, (void *)(uintptr_t)(i + 1));
	for (int i = 0; i < threads; i++)
		pthread_join(t[i], NULL);
	printf("malloc %ld %ld\ncalloc %ld %ld\nleaked %ld\n", counts[0], bytes[0], counts[1], bytes[1], leaked);
	return 0;
}
