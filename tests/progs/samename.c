/* samename.c — two libraries with the same basename (a/libsame.so and
 * b/libsame.so: this file built with -DLIB, stripped, so that their static
 * spin() is <static>@0x... in each) and a function of the same name in both
 * (same_work): views must tell them apart, and accept what they print.
 * The program dlopen()s both and runs each.  usage: samename DIR */
#include <dlfcn.h>
#include <stdio.h>

#ifdef LIB
static volatile unsigned long sink;

static __attribute__((noinline, noipa)) void spin(unsigned long n)
{
	unsigned long x = sink;
	for (unsigned long i = 0; i < n; i++)
		x = x * 6364136223846793005ul + 1;
	sink = x;
}

__attribute__((noinline)) void same_work(unsigned long n)
{
	spin(n);
	sink++;
}
#else
int main(int argc, char **argv)
{
	const char *dir = argc > 1 ? argv[1] : ".";
	char path[4096];

	for (int i = 0; i < 2; i++) {
		snprintf(path, sizeof(path), "%s/%c/libsame.so", dir, "ab"[i]);
		void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
		void (*work)(unsigned long) = h ? (void (*)(unsigned long))dlsym(h, "same_work") : NULL;
		if (!work) {
			fprintf(stderr, "%s: %s\n", path, dlerror());
			return 1;
		}
		work(100000000ul * (unsigned long)(i + 1));
	}
	return 0;
}
#endif
