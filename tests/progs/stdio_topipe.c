/* stdio_topipe.c — stdout on a file, then a pipe dup2'd onto its number:
 * test_io_stdio.sh checks that the stream's calls on the pipe are events
 * (the critical path matches a pipe's writes), not summed as on the file.
 *
 * Writes N lines of 10 bytes to stdout (a file), flushes, dup2s a pipe's
 * write end onto 1, writes N more lines (fewer than the pipe holds: no
 * reader needed) and flushes.
 * usage: stdio_topipe N >FILE */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#define KEEP_FRAME() __asm__ volatile("" ::: "memory")   /* no tail call */

static __attribute__((noinline)) void to_file(long n)
{
	for (long i = 0; i < n; i++)
		fputs("123456789\n", stdout);
	KEEP_FRAME();
}

static __attribute__((noinline)) void to_pipe(long n)
{
	for (long i = 0; i < n; i++)
		fputs("abcdefghi\n", stdout);
	KEEP_FRAME();
}

int main(int argc, char **argv)
{
	int p[2];

	if (argc != 2 || pipe(p))
		return 2;
	long n = atol(argv[1]);
	to_file(n);
	if (fflush(stdout) || dup2(p[1], 1) < 0)
		return 1;
	to_pipe(n);
	return fflush(stdout) ? 1 : 0;
}
