/* fillup.c — fills the file system of FILE (writes it until ENOSPC), then
 * spins for the CPU time given and exits 3: a program that fills the disk
 * its experiment is on while it runs.  With BEFORE, it first spins that
 * long (its thread's first samples claim their block before the disk
 * fills).  usage: fillup FILE SECONDS [BEFORE] */
#include <fcntl.h>
#include <stdlib.h>
#include <unistd.h>

#include "burn_cpu.h"

static __attribute__((noinline, noipa)) void after_full(double seconds)
{
	burn_cpu(seconds);
}

static __attribute__((noinline, noipa)) void before_full(double seconds)
{
	burn_cpu(seconds);
}

int main(int argc, char **argv)
{
	static char block[4096];
	if (argc < 3)
		return 2;
	if (argc > 3)
		before_full(atof(argv[3]));
	int fd = open(argv[1], O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (fd < 0)
		return 2;
	while (write(fd, block, sizeof(block)) > 0)
		;
	close(fd);
	after_full(atof(argv[2]));
	return 3;
}
