/* syscally.c — a program that spends about half its CPU time in the
 * kernel, in small system calls: write and read of a pipe (pipe_io),
 * mmap, a page fault and munmap (map_unmap), between spells of user-mode
 * arithmetic (compute).
 *
 * At the end it prints the CPU time the kernel accounted to it
 * (getrusage RUSAGE_SELF), in ns: `rusage USER SYSTEM`; tests compare
 * tally's kernel frames with these, never with nominal figures.
 * usage: syscally [ROUNDS] (default 1500) */
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <unistd.h>

__attribute__((noinline)) static void pipe_io(int rfd, int wfd)
{
	char buf[64] = { 0 };

	for (int i = 0; i < 200; i++)
		if (write(wfd, buf, sizeof(buf)) != sizeof(buf) || read(rfd, buf, sizeof(buf)) != sizeof(buf))
			exit(1);
}

__attribute__((noinline)) static void map_unmap(void)
{
	for (int i = 0; i < 20; i++) {
		char *p = mmap(NULL, 1 << 16, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (p == MAP_FAILED)
			exit(1);
		p[0] = 1;
		munmap(p, 1 << 16);
	}
}

static volatile double sink;

__attribute__((noinline)) static void compute(long n)
{
	double x = 0;

	for (long i = 0; i < n; i++)
		x += (double)i * 0.5;
	sink = x;
}

int main(int argc, char **argv)
{
	long rounds = argc > 1 ? atol(argv[1]) : 1500;
	struct rusage ru;
	int fds[2];

	if (pipe(fds))
		return 1;
	for (long r = 0; r < rounds; r++) {
		pipe_io(fds[0], fds[1]);
		map_unmap();
		compute(100000);
	}
	getrusage(RUSAGE_SELF, &ru);
	printf("rusage %lld %lld\n", (long long)ru.ru_utime.tv_sec * 1000000000 + ru.ru_utime.tv_usec * 1000,
	       (long long)ru.ru_stime.tv_sec * 1000000000 + ru.ru_stime.tv_usec * 1000);
	return 0;
}
