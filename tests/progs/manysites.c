/* manysites.c — many distinct allocation stacks, for the unwinder's rule
 * cache (test_trace.sh): 4,096 functions site_0000 .. site_4095, each
 * calling alloc_leaf() (which allocates and frees one block) i % 3 + 1
 * times, all of them ROUNDS times over.  Each function is a return
 * address the traced walks have not met before, more than the unwinder's
 * per-thread cache holds.  Prints "allocations N".  With THREADS, as many
 * threads do the same at once, each staying alive until all are done (so
 * each has its own grown cache at the same time); with WAVES, as many
 * waves of THREADS threads one after another, each wave joined before the
 * next starts (a thread's cache given back at its end is another's again).
 * usage: manysites [ROUNDS [THREADS [WAVES]]] */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

static _Atomic long allocations;

__attribute__((noinline)) static void alloc_leaf(int tag)
{
	volatile char *p = malloc(16 + (size_t)(tag & 7));

	p[0] = (char)tag;
	free((void *)p);
	allocations++;
}

/* site_NNNN: (NNNN % 3 + 1) allocations, each from its own call site. */
#define SITE(n)                                                   \
	__attribute__((noinline)) static void site_##n(void)      \
	{                                                         \
		for (int i = 0; i < (0x##n % 3) + 1; i++)         \
			alloc_leaf(0x##n);                        \
		__asm__ volatile("" ::: "memory");                \
	}
#define SITES_16(P) SITE(P##0) SITE(P##1) SITE(P##2) SITE(P##3) SITE(P##4) SITE(P##5) SITE(P##6) SITE(P##7) \
	SITE(P##8) SITE(P##9) SITE(P##a) SITE(P##b) SITE(P##c) SITE(P##d) SITE(P##e) SITE(P##f)
#define SITES_256(P) SITES_16(P##0) SITES_16(P##1) SITES_16(P##2) SITES_16(P##3) SITES_16(P##4) SITES_16(P##5) SITES_16(P##6) \
	SITES_16(P##7) SITES_16(P##8) SITES_16(P##9) SITES_16(P##a) SITES_16(P##b) SITES_16(P##c) SITES_16(P##d) SITES_16(P##e) SITES_16(P##f)
SITES_256(0) SITES_256(1) SITES_256(2) SITES_256(3) SITES_256(4) SITES_256(5) SITES_256(6) SITES_256(7)
SITES_256(8) SITES_256(9) SITES_256(a) SITES_256(b) SITES_256(c) SITES_256(d) SITES_256(e) SITES_256(f)

#define REF(n) site_##n,
#define REFS_16(P) REF(P##0) REF(P##1) REF(P##2) REF(P##3) REF(P##4) REF(P##5) REF(P##6) REF(P##7) \
	REF(P##8) REF(P##9) REF(P##a) REF(P##b) REF(P##c) REF(P##d) REF(P##e) REF(P##f)
#define REFS_256(P) REFS_16(P##0) REFS_16(P##1) REFS_16(P##2) REFS_16(P##3) REFS_16(P##4) REFS_16(P##5) REFS_16(P##6) \
	REFS_16(P##7) REFS_16(P##8) REFS_16(P##9) REFS_16(P##a) REFS_16(P##b) REFS_16(P##c) REFS_16(P##d) REFS_16(P##e) REFS_16(P##f)
static void (*const sites[])(void) = {
	REFS_256(0) REFS_256(1) REFS_256(2) REFS_256(3) REFS_256(4) REFS_256(5) REFS_256(6) REFS_256(7)
	REFS_256(8) REFS_256(9) REFS_256(a) REFS_256(b) REFS_256(c) REFS_256(d) REFS_256(e) REFS_256(f)
};

static int rounds = 3;
static pthread_barrier_t all_done;

static void *every_site(void *threaded)
{
	for (int r = 0; r < rounds; r++)
		for (size_t i = 0; i < sizeof(sites) / sizeof(sites[0]); i++)
			sites[i]();
	if (threaded)
		pthread_barrier_wait(&all_done);
	return NULL;
}

int main(int argc, char **argv)
{
	int threads = argc > 2 ? atoi(argv[2]) : 0;
	int waves = argc > 3 ? atoi(argv[3]) : 1;

	rounds = argc > 1 ? atoi(argv[1]) : 3;
	if (threads <= 0) {
		every_site(NULL);
	} else {
		pthread_t *id = calloc((size_t)threads, sizeof(*id));
		if (!id || pthread_barrier_init(&all_done, NULL, (unsigned)threads) != 0)
			return 1;
		for (int w = 0; w < waves; w++) {
			for (int i = 0; i < threads; i++)
				if (pthread_create(&id[i], NULL, every_site, &all_done) != 0)
					return 1;
			for (int i = 0; i < threads; i++)
				pthread_join(id[i], NULL);
		}
	}
	printf("allocations %ld\n", (long)allocations);
	return 0;
}
