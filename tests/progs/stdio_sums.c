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
 * the writes instead, the buffer neither flushed nor closed.  With
 * "thread-exit", a second thread makes the writes (fewer than a buffer:
 * its sums pending) and waits forever while main calls exit(); with
 * "_exit", main makes them and calls _exit (the buffer is lost too).
 * usage: stdio_sums FILE N [exec|thread-exit|_exit] */
#include <pthread.h>
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

static FILE *out;
static long calls;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t done = PTHREAD_COND_INITIALIZER;
static int written;

static inline __attribute__((always_inline)) void writes(FILE *f, long n)
{
	for (long i = 0; i < n; i++) {
		from_a(f);
		from_b(f);
		one(f);
		fwrite("12345678", 1, 8, f);
	}
}

static void *writer(void *arg)
{
	(void)arg;
	writes(out, calls);
	pthread_mutex_lock(&lock);
	written = 1;
	pthread_cond_signal(&done);
	pthread_mutex_unlock(&lock);
	for (;;)
		pause();
	return NULL;
}

int main(int argc, char **argv)
{
	if (argc != 3 && argc != 4)
		return 2;
	long n = atol(argv[2]);
	FILE *f = fopen(argv[1], "w");
	if (!f)
		return 1;
	if (argc == 4 && !strcmp(argv[3], "thread-exit")) {
		pthread_t th;
		out = f;
		calls = n;
		if (pthread_create(&th, NULL, writer, NULL))
			return 1;
		pthread_mutex_lock(&lock);
		while (!written)
			pthread_cond_wait(&done, &lock);
		pthread_mutex_unlock(&lock);
		exit(0);
	}
	writes(f, n);
	if (argc == 4 && !strcmp(argv[3], "_exit"))
		_exit(0);
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
