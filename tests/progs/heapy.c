/* heapy.c — allocations with known sizes in known places, for the heap
 * tracer: ctor_alloc() allocates 1000 bytes in a constructor, before main;
 * keep() allocates 10 x 300 bytes that are never freed; churn() 1000 x 64
 * bytes, all freed; grow() reallocs one block up to 4096 bytes, then to 0;
 * in_handler() mallocs 77 bytes inside a SIGUSR1 handler (and leaks it);
 * a thread allocates 5 x 111 bytes in thread_leak() and exits without
 * freeing them, 50 ms later, so that main's pthread_join waits (the one wait
 * the sync tracer sees here: had the thread ended first, -s recorded
 * nothing, and test_trace's all-tracers run found no sync.dat in 2 of 80
 * runs on a loaded machine); aligned() uses posix_memalign, aligned_alloc, memalign,
 * calloc.  Prints nothing when all went well.  usage: heapy */
#include <malloc.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define NOIPA __attribute__((noinline, noipa))

/* Global, and every block passed through an asm the compiler cannot see
 * through: otherwise GCC deletes allocations whose results are never read. */
void *sink[64];
void *ctor_block;
#define KEEP(p) __asm__ volatile("" : : "r"(p) : "memory")

NOIPA void ctor_alloc(void) { KEEP(ctor_block = malloc(1000)); }
__attribute__((constructor)) static void early(void) { ctor_alloc(); }

NOIPA void keep(void)
{
	for (int i = 0; i < 10; i++)
		KEEP(sink[i] = malloc(300));
}

NOIPA void churn(void)
{
	for (int i = 0; i < 1000; i++) {
		void *p = malloc(64);
		KEEP(p);
		free(p);
	}
}

NOIPA void grow(void)
{
	void *p = NULL;
	for (size_t n = 512; n <= 4096; n *= 2)
		KEEP(p = realloc(p, n));
	p = realloc(p, 0);                       /* frees it */
	KEEP(p);
}

NOIPA void in_handler(int sig)
{
	(void)sig;
	KEEP(sink[20] = malloc(77));
}

NOIPA void *thread_leak(void *arg)
{
	struct timespec nap = { 0, 50000000 };

	for (int i = 0; i < 5; i++)
		KEEP(sink[30 + i] = malloc(111));
	while (nanosleep(&nap, &nap))
		;
	return arg;
}

NOIPA void aligned(void)
{
	void *a, *b, *c, *d;
	if (posix_memalign(&a, 64, 128) != 0)
		abort();
	KEEP(a);
	KEEP(b = aligned_alloc(64, 256));
	KEEP(c = memalign(64, 512));
	KEEP(d = calloc(16, 16));
	free(a);
	free(b);
	free(c);
	free(d);
}

int main(void)
{
	pthread_t t;

	keep();
	churn();
	grow();
	signal(SIGUSR1, in_handler);
	raise(SIGUSR1);
	pthread_create(&t, NULL, thread_leak, NULL);
	pthread_join(t, NULL);
	aligned();
	free(ctor_block);
	return 0;
}
