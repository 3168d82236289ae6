/* plugins.c — dlopen()s plugin_one.so, runs it, dlclose()s it, then the same
 * with plugin_two.so, which the loader usually maps at the same address:
 * their functions (one_work, two_work) must still be told apart.  The
 * plugins are this file built with -DPLUGIN=1 or 2.  Each function's CPU
 * time, on the program's own clock, goes to stdout ("one_work_ns T"), since
 * equal work need not take equal time on a shared machine.
 * usage: plugins DIR */
#include <dlfcn.h>
#include <stdio.h>
#include <time.h>

#ifdef PLUGIN
static volatile unsigned long sink;
#if PLUGIN == 1
#define WORK one_work
#else
#define WORK two_work
#endif
__attribute__((noinline)) void WORK(void)
{
	unsigned long x = sink;
	for (unsigned long i = 0; i < 150000000ul; i++)
		x = x * 6364136223846793005ul + 1;
	sink = x;
}
#else
__attribute__((noinline)) static int run(const char *dir, const char *name, const char *fn)
{
	char path[4096];
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	void *h = dlopen(path, RTLD_NOW);
	if (!h) {
		fprintf(stderr, "%s\n", dlerror());
		return 1;
	}
	void (*work)(void) = (void (*)(void))dlsym(h, fn);
	struct timespec t0, t1;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t0);
	work();
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t1);
	printf("%s_ns %lld\n", fn, (long long)(t1.tv_sec - t0.tv_sec) * 1000000000LL + (t1.tv_nsec - t0.tv_nsec));
	dlclose(h);
	return 0;
}

int main(int argc, char **argv)
{
	const char *dir = argc > 1 ? argv[1] : ".";
	return run(dir, "plugin_one.so", "one_work") || run(dir, "plugin_two.so", "two_work");
}
#endif
