/* plugins.c — dlopen()s plugin_one.so, runs it, dlclose()s it, then the same
 * with plugin_two.so, which the loader usually maps at the same address:
 * their functions (one_work, two_work) must still be told apart.  The
 * plugins are this file built with -DPLUGIN=1 or 2.  usage: plugins DIR */
#include <dlfcn.h>
#include <stdio.h>

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
	work();
	dlclose(h);
	return 0;
}

int main(int argc, char **argv)
{
	const char *dir = argc > 1 ? argv[1] : ".";
	return run(dir, "plugin_one.so", "one_work") || run(dir, "plugin_two.so", "two_work");
}
#endif
