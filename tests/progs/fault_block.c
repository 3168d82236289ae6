/* fault_block.c — a thread that blocks in page faults, not in system calls
 * (tests/e2e/test_static.sh, static_states_fault): it writes FILE (MIB MiB)
 * and syncs it, then ROUNDS times drops the file's pages from the page
 * cache (posix_fadvise DONTNEED), maps it and reads a byte of every page in
 * touch_pages: each first touch is a major fault that waits for the disk.
 *
 * It prints what it measured itself of the touch phases, summed (ns, and
 * its own counts from getrusage RUSAGE_THREAD):
 *   touch WALL CPU RUNNABLE MAJFLT NVCSW SLACK
 * RUNNABLE is its schedstat run delay; NVCSW its voluntary switches (0: the
 * faults never blocked, a file on tmpfs).  The clocks cannot be read at one
 * instant: a wait for a CPU between reading the wall clock and the run
 * delay (reading schedstat is an open, a read and a close) falls in WALL
 * but not in RUNNABLE, or the other way, and so moves the blocked time
 * WALL - CPU - RUNNABLE.  SLACK is the run delay that accrued across those
 * reads (read once more before the wall clock, each side): the most the
 * blocked time can be off by.  usage: fault_block FILE MIB ROUNDS
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "run_delay.h"

#define NOIPA __attribute__((noinline, noipa))

static volatile unsigned long sink;

static long long now(clockid_t c)
{
	struct timespec t;
	clock_gettime(c, &t);
	return t.tv_sec * 1000000000LL + t.tv_nsec;
}

NOIPA void touch_pages(const volatile unsigned char *p, size_t len)
{
	unsigned long s = 0;
	for (size_t i = 0; i < len; i += 4096)
		s += p[i];
	sink = s;
}

int main(int argc, char **argv)
{
	if (argc < 4)
		return 2;
	size_t len = (size_t)atoi(argv[2]) << 20;
	int rounds = atoi(argv[3]);
	int fd = open(argv[1], O_RDWR | O_CREAT | O_TRUNC, 0600);
	char *buf = malloc(1 << 20);
	if (fd < 0 || !buf)
		return 2;
	memset(buf, 7, 1 << 20);
	for (size_t done = 0; done < len; done += 1 << 20)
		if (write(fd, buf, 1 << 20) != 1 << 20)
			return 2;
	if (fsync(fd))
		return 2;
	long long wall = 0, cpu = 0, runnable = 0, majflt = 0, nvcsw = 0, slack = 0;
	for (int r = 0; r < rounds; r++) {
		posix_fadvise(fd, 0, (off_t)len, POSIX_FADV_DONTNEED);
		unsigned char *p = mmap(NULL, len, PROT_READ, MAP_SHARED, fd, 0);
		if (p == MAP_FAILED)
			return 2;
		struct rusage a, b;
		getrusage(RUSAGE_THREAD, &a);
		long long e0 = run_delay_ns();
		long long w0 = now(CLOCK_MONOTONIC), c0 = now(CLOCK_THREAD_CPUTIME_ID), d0 = run_delay_ns();
		touch_pages(p, len);
		long long e1 = run_delay_ns();
		long long w1 = now(CLOCK_MONOTONIC), c1 = now(CLOCK_THREAD_CPUTIME_ID), d1 = run_delay_ns();
		getrusage(RUSAGE_THREAD, &b);
		wall += w1 - w0;
		cpu += c1 - c0;
		runnable += d1 - d0;
		majflt += b.ru_majflt - a.ru_majflt;
		nvcsw += b.ru_nvcsw - a.ru_nvcsw;
		slack += (d0 - e0) + (d1 - e1);
		munmap(p, len);
	}
	close(fd);
	unlink(argv[1]);
	printf("touch %lld %lld %lld %lld %lld %lld\n", wall, cpu, runnable, majflt, nvcsw, slack);
	return 0;
}
