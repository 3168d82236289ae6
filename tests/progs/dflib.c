/* dflib.c — a library and its loader in one file, for test_unwind.sh: built
 * with -DDFLIB_LIBRARY -shared (and -fno-asynchronous-unwind-tables
 * -fno-unwind-tables: its CFI in .debug_frame alone), it is libdflib.so,
 * whose outer_lib() calls inner(); built plainly, it is the program that
 * dlopens ./libdflib.so and calls outer_lib() UNITS times, so every sample
 * is main;outer_lib;inner.  With "threaded", a second thread is alive
 * (asleep) at the dlopen, so the collector's scan opens the library's file
 * aside, in its helper (col_fds_use) rather than in place.  With "cycles
 * N", it first loads, calls briefly and unloads the library N times,
 * printing the count of its own mappings (/proc/self/maps lines) after the
 * 20th and the Nth unload (`maps CYCLE COUNT`), then loads it once more
 * for the UNITS calls.
 * usage: dflib [UNITS [threaded | cycles N]]
 */
#ifdef DFLIB_LIBRARY
__attribute__((noinline, noclone)) static unsigned long inner(long n)
{
	unsigned long s = 0;

	for (long i = 0; i < n; i++)
		s += (unsigned long)i * 3 ^ (s >> 2);
	return s;
}

unsigned long outer_lib(long n);
__attribute__((noinline)) unsigned long outer_lib(long n)
{
	volatile char pad[32];

	pad[0] = 1;
	return inner(n) + (unsigned long)pad[0];   /* no tail call */
}
#else
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void *idle(void *arg)
{
	(void)arg;
	pause();
	return NULL;
}

static int count_maps(void)
{
	FILE *f = fopen("/proc/self/maps", "r");
	int n = 0, c;

	if (!f)
		return -1;
	while ((c = getc(f)) != EOF)
		n += c == '\n';
	fclose(f);
	return n;
}

/* Load, call briefly and unload the library `n` times. */
static int cycle(long n)
{
	for (long c = 1; c <= n; c++) {
		void *h = dlopen("./libdflib.so", RTLD_NOW);
		if (!h) {
			fprintf(stderr, "%s\n", dlerror());
			return 1;
		}
		unsigned long (*f)(long) = (unsigned long (*)(long))dlsym(h, "outer_lib");
		if (!f || f(100000) == 1 || dlclose(h) != 0)
			return 1;
		if (c == 20 || c == n)
			printf("maps %ld %d\n", c, count_maps());
	}
	return 0;
}

int main(int argc, char **argv)
{
	long units = argc > 1 ? atol(argv[1]) : 20;
	pthread_t t;

	if (argc > 2 && !strcmp(argv[2], "threaded") && pthread_create(&t, NULL, idle, NULL) != 0)
		return 1;
	if (argc > 3 && !strcmp(argv[2], "cycles") && cycle(atol(argv[3])) != 0)
		return 1;
	void *h = dlopen("./libdflib.so", RTLD_NOW);

	if (!h) {
		fprintf(stderr, "%s\n", dlerror());
		return 1;
	}
	unsigned long (*f)(long) = (unsigned long (*)(long))dlsym(h, "outer_lib");
	unsigned long s = 0;
	for (long i = 0; i < units; i++)
		s += f(10000000);
	printf("%lu\n", s);
	return 0;
}
#endif
