/* SPDX-License-Identifier: MIT
 *
 * locky.c — lock-heavy: THREADS threads each take one shared mutex N times
 * around a tiny critical section, and a private one N times (uncontended),
 * for the sync tracer's cost.  Prints a checksum.  usage: locky N [THREADS]
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

static pthread_mutex_t shared = PTHREAD_MUTEX_INITIALIZER;
static long n_iter;
static unsigned long counter;

static void *work(void *arg)
{
	pthread_mutex_t mine = PTHREAD_MUTEX_INITIALIZER;
	unsigned long local = (unsigned long)arg;

	for (long i = 0; i < n_iter; i++) {
		pthread_mutex_lock(&shared);
		counter += (unsigned long)i & 7;
		pthread_mutex_unlock(&shared);
		pthread_mutex_lock(&mine);
		local = local * 6364136223846793005ul + 1;
		pthread_mutex_unlock(&mine);
	}
	return (void *)local;
}

int main(int argc, char **argv)
{
	int threads = argc > 2 ? atoi(argv[2]) : 2;
	pthread_t t[16];
	unsigned long sum = 0;

	n_iter = argc > 1 ? atol(argv[1]) : 2000000;
	if (threads < 1 || threads > 16)
		return 2;
	for (int i = 0; i < threads; i++)
		pthread_create(&t[i], NULL, work, (void *)(long)(i + 1));
	for (int i = 0; i < threads; i++) {
		void *r;
		pthread_join(t[i], &r);
		sum += (unsigned long)r;
	}
	printf("checksum %lu %lu\n", sum, counter);
	return 0;
}
