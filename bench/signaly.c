/* SPDX-License-Identifier: MIT
 *
 * signaly.c — signal-heavy: one thread signals a condition variable no
 * thread waits on and posts (then takes) a semaphore, N times each, for
 * the cost the sync tracer adds to each signal and post (it notes the
 * object's last waker for the critical path: tracers/sync_wakers.c).
 * Prints a checksum.  usage: signaly N
 */
#include <pthread.h>
#include <semaphore.h>
#include <stdio.h>
#include <stdlib.h>

static pthread_cond_t c = PTHREAD_COND_INITIALIZER;

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 1000000;
	unsigned long sum = 0;
	sem_t s;
	int v;

	sem_init(&s, 0, 0);
	for (long i = 0; i < n; i++) {
		pthread_cond_signal(&c);
		sem_post(&s);
		sem_getvalue(&s, &v);
		sum += (unsigned long)v;
		sem_trywait(&s);
	}
	printf("checksum %lu\n", sum);
	return 0;
}
