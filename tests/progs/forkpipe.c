/* forkpipe.c — a producer and a consumer in two processes, handing items
 * over through a pipe, for the critical path across processes
 * (tests/e2e/test_critical_procs.sh).
 *
 *   forkpipe fork ITEMS UNIT_MS      main forks a child that makes ITEMS
 *                                    items, each in slow_child_work()
 *                                    (UNIT_MS of its CPU), and writes a
 *                                    byte per item into a pipe; main reads
 *                                    each and consumes it in
 *                                    quick_consume() (a quarter of UNIT_MS
 *                                    of CPU), then waits for the child.
 *                                    Prints "wall NS produce NS span NS":
 *                                    main's wall time, slow_child_work()'s,
 *                                    summed, and the child's wall from the
 *                                    fork to its last write (the child's,
 *                                    from shared memory).
 *   forkpipe produce ITEMS UNIT_MS   the child's part alone, into stdout;
 *                                    prints "produce NS span NS" on stderr
 *   forkpipe consume ITEMS UNIT_MS   main's part alone, from stdin; prints
 *                                    "wall NS" (its own start to its end)
 *   forkpipe orphan ITEMS UNIT_MS    main forks a child that makes ITEMS
 *                                    items, the first into a pipe that main
 *                                    reads, the others into /dev/null; main
 *                                    ends after that first item without
 *                                    waiting for the child, which outlives
 *                                    it by ITEMS - 1 items; prints
 *                                    "child PID" first
 *
 * The consumer mostly waits for the producer, so the run's length is the
 * producer's work: the path goes from the consumer's reads to the
 * producer's writes, in the other process. */
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define NOIPA __attribute__((noinline, noipa))
#include "spin_ms.h"

static int items = 12;
static long unit_ms = 30;
static uint64_t span_ns;   /* produce()'s wall: from span_from (else its first item's start) to its last write's end */
static uint64_t span_from; /* the fork that made the producer, if it was forked */


NOIPA void slow_child_work(void) { spin((double)unit_ms); sink++; }
NOIPA void quick_consume(void) { spin((double)unit_ms / 4); sink++; }

/* ITEMS items into fd; slow_child_work()'s wall time, summed (and the
 * whole loop's, with the writes, into span_ns). */
static uint64_t produce(int fd)
{
	uint64_t sum = 0, start = span_from ? span_from : clock_ns(CLOCK_MONOTONIC);
	char c = 1;

	for (int i = 0; i < items; i++) {
		uint64_t t0 = clock_ns(CLOCK_MONOTONIC);
		slow_child_work();
		sum += clock_ns(CLOCK_MONOTONIC) - t0;
		if (write(fd, &c, 1) != 1)
			exit(1);
	}
	span_ns = clock_ns(CLOCK_MONOTONIC) - start;
	return sum;
}

/* ITEMS items from fd, each consumed. */
static void consume(int fd)
{
	char c;

	for (int i = 0; i < items; i++) {
		if (read(fd, &c, 1) != 1)
			exit(1);
		quick_consume();
	}
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		fprintf(stderr, "usage: forkpipe fork|produce|consume|orphan [ITEMS [UNIT_MS]]\n");
		return 2;
	}
	if (argc > 2)
		items = atoi(argv[2]);
	if (argc > 3)
		unit_ms = atol(argv[3]);
	uint64_t t0 = clock_ns(CLOCK_MONOTONIC);
	if (!strcmp(argv[1], "produce")) {
		uint64_t p = produce(1);
		fprintf(stderr, "produce %llu span %llu\n", (unsigned long long)p, (unsigned long long)span_ns);
		return 0;
	}
	if (!strcmp(argv[1], "consume")) {
		consume(0);
		printf("wall %llu\n", (unsigned long long)(clock_ns(CLOCK_MONOTONIC) - t0));
		return 0;
	}
	if (!strcmp(argv[1], "orphan")) {
		int fds[2], null = open("/dev/null", O_WRONLY);
		char c;
		if (null < 0 || pipe(fds))
			return 1;
		pid_t child = fork();
		if (child > 0)
			printf("child %d\n", (int)child);
		if (!child) {
			int n = items;
			items = 1;
			produce(fds[1]);
			items = n - 1;
			produce(null);
			_exit(0);
		}
		return child < 0 || read(fds[0], &c, 1) != 1;
	}
	if (strcmp(argv[1], "fork"))
		return 2;
	uint64_t *shared = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	int fds[2];
	if (shared == MAP_FAILED || pipe(fds))
		return 1;
	span_from = clock_ns(CLOCK_MONOTONIC);
	pid_t c = fork();
	if (c < 0)
		return 1;
	if (!c) {
		close(fds[0]);
		shared[0] = produce(fds[1]);
		shared[1] = span_ns;
		_exit(0);
	}
	close(fds[1]);
	consume(fds[0]);
	int st;
	if (waitpid(c, &st, 0) != c || !WIFEXITED(st) || WEXITSTATUS(st))
		return 1;
	printf("wall %llu produce %llu span %llu\n", (unsigned long long)(clock_ns(CLOCK_MONOTONIC) - t0),
	       (unsigned long long)shared[0], (unsigned long long)shared[1]);
	return 0;
}
