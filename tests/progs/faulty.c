/* faulty.c — page faults known by construction: touch_pages() writes one
 * byte into each of N fresh anonymous pages (N minor page faults), after
 * some work of another function.  Prints "touched N".
 * usage: faulty [N] */
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>

#define NOIPA __attribute__((noinline, noipa))

static volatile long sink;

NOIPA void touch_pages(char *p, long n)
{
	for (long i = 0; i < n; i++)
		p[i * 4096] = 1;
}

NOIPA void other_work(void)
{
	long x = 0;
	for (long i = 0; i < 20000000; i++)
		x += i ^ (x >> 3);
	sink = x;
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 20000;
	char *p = mmap(NULL, (size_t)n * 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		return 1;
	other_work();
	touch_pages(p, n);
	printf("touched %ld\n", n);
	return 0;
}
