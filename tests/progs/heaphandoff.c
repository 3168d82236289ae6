/* heaphandoff.c — blocks handed from thread to thread, for the heap
 * tracer's release order (test_heapscale.sh): a producer allocates N blocks
 * of 48 bytes in bursts of 64 and hands them to a consumer, which frees
 * them (so a released address goes straight back to the producer's arena,
 * where its next malloc takes it: a release recorded after the real free
 * could remove the producer's new block).  The consumer keeps the last KEEP
 * blocks (at most 64).  Prints:  allocated COUNT / leaked BYTES
 * usage: heaphandoff N KEEP */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#define BURST 64
#define SIZE 48

static void *slots[BURST];
static int full;                 /* slots holds a burst for the consumer */
static int done;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cond = PTHREAD_COND_INITIALIZER;
static long n, keep;

__attribute__((noinline)) static void *handoff_site(void)
{
	char *p = malloc(SIZE);
	if (p)
		p[0] = 1;
	return p;
}

static void *consumer(void *arg)
{
	long freed = 0;

	(void)arg;
	for (;;) {
		void *got[BURST];
		pthread_mutex_lock(&lock);
		while (!full && !done)
			pthread_cond_wait(&cond, &lock);
		if (!full && done) {
			pthread_mutex_unlock(&lock);
			break;
		}
		for (int i = 0; i < BURST; i++)
			got[i] = slots[i];
		full = 0;
		pthread_cond_broadcast(&cond);
		pthread_mutex_unlock(&lock);
		for (int i = 0; i < BURST; i++)
			if (freed++ < n - keep)
				free(got[i]);
	}
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_t th;
	void *mine[BURST];

	n = argc > 1 ? atol(argv[1]) : 1000000;
	keep = argc > 2 ? atol(argv[2]) : 10;
	n -= n % BURST;
	if (keep > BURST)
		keep = BURST;
	pthread_create(&th, NULL, consumer, NULL);
	for (long i = 0; i < n; i += BURST) {
		for (int j = 0; j < BURST; j++)
			mine[j] = handoff_site();
		pthread_mutex_lock(&lock);
		while (full)
			pthread_cond_wait(&cond, &lock);
		for (int j = 0; j < BURST; j++)
			slots[j] = mine[j];
		full = 1;
		pthread_cond_broadcast(&cond);
		pthread_mutex_unlock(&lock);
	}
	pthread_mutex_lock(&lock);
	while (full)
		pthread_cond_wait(&cond, &lock);
	done = 1;
	pthread_cond_broadcast(&cond);
	pthread_mutex_unlock(&lock);
	pthread_join(th, NULL);
	printf("allocated %ld\nleaked %ld\n", n, keep * SIZE);
	return 0;
}
