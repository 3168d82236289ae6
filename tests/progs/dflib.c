/* dflib.c — a library and its loader in one file, for test_unwind.sh: built
 * with -DDFLIB_LIBRARY -shared (and -fno-asynchronous-unwind-tables
 * -fno-unwind-tables: its CFI in .debug_frame alone), it is libdflib.so,
 * whose outer_lib() calls inner(); built plainly, it is the program that
 * dlopens ./libdflib.so and calls outer_lib() UNITS times, so every sample
 * is main;outer_lib;inner.  With "threaded", a second thread is alive
 * (asleep) at the dlopen, so the collector's scan opens the library's file
 * aside, in its helper (col_fds_use) rather than in place.
 * usage: dflib [UNITS [threaded]]
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

int main(int argc, char **argv)
{
	long units = argc > 1 ? atol(argv[1]) : 20;
	pthread_t t;

	if (argc > 2 && !strcmp(argv[2], "threaded") && pthread_create(&t, NULL, idle, NULL) != 0)
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
