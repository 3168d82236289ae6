/* fillup.c — fills the file system of FILE (writes it until ENOSPC), then
 * spins for the CPU time given and exits 3: a program that fills the disk
 * its experiment is on while it runs.  usage: fillup FILE SECONDS */
#include <fcntl.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

static volatile unsigned long sink;

static __attribute__((noinline, noipa)) void after_full(double seconds)
{
	struct timespec t0, t;
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t0);
	do {
		for (int i = 0; i < 100000; i++)
			sink = sink * 6364136223846793005ul + 1;
		clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
	} while ((double)(t.tv_sec - t0.tv_sec) + (double)(t.tv_nsec - t0.tv_nsec) / 1e9 < seconds);
}

int main(int argc, char **argv)
{
	static char block[4096];
	if (argc < 3)
		return 2;
	int fd = open(argv[1], O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (fd < 0)
		return 2;
	while (write(fd, block, sizeof(block)) > 0)
		;
	close(fd);
	after_full(atof(argv[2]));
	return 3;
}
