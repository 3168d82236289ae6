/* stdio_sums.c — buffered stdio calls from several stacks on one file, the
 * same function reached from two callers at one depth (one return address
 * and stack pointer, two stacks), then the file read back a character at a
 * time: test_io_stdio.sh checks each stack's calls and bytes exactly and
 * that calls that stayed in the buffer were summed, not a record each.
 *
 * Writes FILE: N x (4 + 2 + 1 + 8) bytes = 15 N: emit("aaaa") from from_a,
 * emit("bb") from from_b (fputs), one('x') (putc), fwrite of 8 bytes from
 * main.  Reads it back with getc: 15 N characters and the end (one more
 * call, no byte).  With a third argument "exec", execs /bin/true after
 * the writes instead, the buffer neither flushed nor closed.
 * usage: stdio_sums FILE N [exec] */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define KEEP_FRAME() __asm__ volatile("" ::: "memory")   /* no tail call */

static __attribute__((noinline)) void emit(FILE *f, const char *s)
{
	fputs(s, f);
	KEEP_FRAME();
}

static __attribute__((noinline)) void one(FILE *f)
{
	putc('x', f);
	KEEP_FRAME();
}

static __attribute__((noinline)) void from_a(FILE *f)
{
	emit(f, "aaaa");
	KEEP_FRAME();
}

static __attribute__((noinline)) void from_b(FILE *f)
{
	emit(f, "bb");
	KEEP_FRAME();
}

static __attribute__((noinline)) long read_back(FILE *f)
{
	long n = 0;

	while (getc(f) != EOF)
		n++;
	KEEP_FRAME();
	return n;
}

int main(int argc, char **argv)
{
	if (argc != 3 && argc != 4)
		return 2;
	long n = atol(argv[2]);
	FILE *f = fopen(argv[1], "w");
	if (!f)
		return 1;
	for (long i = 0; i < n; i++) {
		from_a(f);
		from_b(f);
		one(f);
		fwrite("12345678", 1, 8, f);
	}
	if (argc == 4 && !strcmp(argv[3], "exec")) {
		execl("/bin/true", "true", (char *)NULL);
		return 1;
	}
	if (fclose(f))
		return 1;
	f = fopen(argv[1], "r");
	if (!f || read_back(f) != 15 * n)
		return 1;
	fclose(f);
	return 0;
}
