/* limits.c — a program that uses all of one resource limit, to show that
 * recording leaves it the program's.  It prints what it got; the test runs it
 * bare and recorded under the same `ulimit` and compares the output.
 * Modes:
 *   fsize SECONDS  burn SECONDS of CPU (the experiment grows meanwhile),
 *                  then write 1 KiB blocks to limits.out until the file size
 *                  limit stops it (SIGXFSZ ignored) and print the bytes.
 *   nofile [SECONDS]  burn SECONDS of CPU (0: none; the collector has made
 *                  its files by then), open /dev/null until EMFILE, then
 *                  pipes; print the counts.
 *   hold SECONDS   open /dev/null until EMFILE and keep them all, burn
 *                  SECONDS of CPU, print the count and exit still holding
 *                  them (the collector then has no number of its own).
 *   as MIB         allocate and touch MIB 1 MiB blocks and start a thread;
 *                  print what succeeded.
 *   threads N      start N threads that each burn 2 ms of their own CPU
 *                  and call no malloc, and print the address space
 *                  (VmSize) before the first and while all N live.
 *   maxthreads MIB print VmSize, then (MIB > 0) start threads of MIB MiB
 *                  stacks, one at a time, each blocked on a pipe once it
 *                  runs (no malloc), until pthread_create fails; print
 *                  how many started.
 *   lower KIB SECONDS [raw]  set its own file size limit to KIB KiB
 *                  (setrlimit; with `raw`, syscall(SYS_prlimit64)), then
 *                  burn SECONDS of CPU (the experiment grows past it
 *                  meanwhile) and print that it lived.
 * usage: limits MODE [ARG] */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "burn_cpu.h"

static void *thread_main(void *arg)
{
	return arg;
}

static int fsize(double seconds)
{
	char block[1024];
	long bytes = 0;
	ssize_t n;

	burn_cpu(seconds);
	signal(SIGXFSZ, SIG_IGN);
	int fd = open("limits.out", O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (fd < 0)
		return 2;
	memset(block, 'x', sizeof(block));
	while ((n = write(fd, block, sizeof(block))) > 0 && bytes < (64l << 20))
		bytes += n;
	printf("wrote %ld bytes (%s)\n", bytes, n < 0 ? strerror(errno) : "no limit");
	return close(fd) != 0;
}

static int nofile(double seconds)
{
	int files = 0, pipes = 0, p[2];

	if (seconds > 0)
		burn_cpu(seconds);
	while (open("/dev/null", O_RDONLY) >= 0)
		files++;
	printf("opened %d files (%s)\n", files, strerror(errno));
	for (int fd = 3; fd < 1024; fd++)
		close(fd);
	while (pipe(p) == 0)
		pipes++;
	printf("made %d pipes (%s)\n", pipes, strerror(errno));
	return 0;
}

static int hold(double seconds)
{
	int files = 0;

	while (open("/dev/null", O_RDONLY) >= 0)
		files++;
	int e = errno;
	burn_cpu(seconds);
	printf("opened %d files (%s)\n", files, strerror(e));
	return 0;
}

static int as(int mib)
{
	int got = 0;
	pthread_t t;

	for (; got < mib; got++) {
		char *p = malloc(1 << 20);
		if (!p)
			break;
		memset(p, 1, 1 << 20);
	}
	int e = pthread_create(&t, NULL, thread_main, NULL);
	printf("allocated %d of %d MiB; thread: %s\n", got, mib, e ? strerror(e) : "started");
	if (!e)
		pthread_join(t, NULL);
	return 0;
}

/* VmSize from /proc/self/status in KiB, read without stdio (whose buffer
 * would be a malloc), 0 if unknown. */
static long vmsize_kib(void)
{
	char buf[4096];
	int fd = open("/proc/self/status", O_RDONLY);
	ssize_t n = fd >= 0 ? read(fd, buf, sizeof(buf) - 1) : -1;

	if (fd >= 0)
		close(fd);
	if (n <= 0)
		return 0;
	buf[n] = 0;
	const char *p = strstr(buf, "VmSize:");
	return p ? atol(p + 7) : 0;
}

static pthread_barrier_t all_started, may_end;

static void *work_then_wait(void *arg)
{
	struct timespec t0, t;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t0);
	do {
		for (int i = 0; i < 10000; i++)
			burn_sink = burn_sink * 6364136223846793005ul + 1;
		clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
	} while ((t.tv_sec - t0.tv_sec) * 1000000000l + (t.tv_nsec - t0.tv_nsec) < 2000000l);
	pthread_barrier_wait(&all_started);
	pthread_barrier_wait(&may_end);
	return arg;
}

static int threads(int n)
{
	pthread_t t[256];

	if (n < 1 || n > 256)
		return 64;
	pthread_barrier_init(&all_started, NULL, (unsigned)n + 1);
	pthread_barrier_init(&may_end, NULL, (unsigned)n + 1);
	printf("vmsize before threads: %ld KiB\n", vmsize_kib());
	for (int i = 0; i < n; i++)
		if (pthread_create(&t[i], NULL, work_then_wait, NULL) != 0)
			return 2;
	pthread_barrier_wait(&all_started);
	printf("vmsize with %d threads: %ld KiB\n", n, vmsize_kib());
	pthread_barrier_wait(&may_end);
	for (int i = 0; i < n; i++)
		pthread_join(t[i], NULL);
	return 0;
}

static int gate[2], started[2];

static void *wait_on_gate(void *arg)
{
	char c = 's';

	while (write(started[1], &c, 1) < 0 && errno == EINTR)
		;
	while (read(gate[0], &c, 1) < 0 && errno == EINTR)
		;
	return arg;
}

static int maxthreads(int mib)
{
	pthread_t t[1024];
	pthread_attr_t attr;
	int n = 0, e = 0;

	printf("vmsize before threads: %ld KiB\n", vmsize_kib());
	if (mib <= 0)
		return 0;
	if (pipe(gate) != 0 || pipe(started) != 0 || pthread_attr_init(&attr) != 0 ||
	    pthread_attr_setstacksize(&attr, (size_t)mib << 20) != 0)
		return 2;
	/* Each thread runs before the next is made, as a program's threads
	 * would, set up and started whatever the machine's load. */
	while (n < 1024 && (e = pthread_create(&t[n], &attr, wait_on_gate, NULL)) == 0) {
		char c;
		while (read(started[0], &c, 1) < 0 && errno == EINTR)
			;
		n++;
	}
	printf("started %d threads of %d MiB (%s)\n", n, mib, e ? strerror(e) : "no limit met");
	close(gate[1]);
	for (int i = 0; i < n; i++)
		pthread_join(t[i], NULL);
	return 0;
}

static int lower(long kib, double seconds, int raw)
{
	struct rlimit rl;

	if (getrlimit(RLIMIT_FSIZE, &rl) != 0)
		return 2;
	rl.rlim_cur = (rlim_t)kib * 1024;
	if (raw ? syscall(SYS_prlimit64, 0, RLIMIT_FSIZE, &rl, NULL) != 0 : setrlimit(RLIMIT_FSIZE, &rl) != 0)
		return 2;
	burn_cpu(seconds);
	printf("file size limit %ld KiB set%s; lived\n", kib, raw ? " (raw)" : "");
	return 0;
}

int main(int argc, char **argv)
{
	if (argc >= 4 && !strcmp(argv[1], "lower"))
		return lower(atol(argv[2]), atof(argv[3]), argc > 4 && !strcmp(argv[4], "raw"));
	if (argc >= 2 && !strcmp(argv[1], "fsize"))
		return fsize(argc > 2 ? atof(argv[2]) : 1.0);
	if (argc >= 2 && !strcmp(argv[1], "nofile"))
		return nofile(argc > 2 ? atof(argv[2]) : 0);
	if (argc >= 2 && !strcmp(argv[1], "hold"))
		return hold(argc > 2 ? atof(argv[2]) : 1.0);
	if (argc >= 2 && !strcmp(argv[1], "as"))
		return as(argc > 2 ? atoi(argv[2]) : 20);
	if (argc >= 3 && !strcmp(argv[1], "threads"))
		return threads(atoi(argv[2]));
	if (argc >= 3 && !strcmp(argv[1], "maxthreads"))
		return maxthreads(atoi(argv[2]));
	fprintf(stderr, "usage: limits fsize [SECONDS] | nofile [SECONDS] | hold [SECONDS] | as [MIB] | threads N | maxthreads MIB | lower KIB SECONDS [raw]\n");
	return 64;
}
