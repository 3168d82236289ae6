/* SPDX-License-Identifier: MIT
 *
 * schedreads.c — the cost of what an attach reads per thread at its start
 * and stop (issue 25: collector/col_sched.c's col_sched_read_many, an
 * open, read and close of /proc/self/task/TID/schedstat each).  Starts N
 * threads that sleep, then reads every one's schedstat ROUNDS times the
 * same way, timed with its own clocks.  Prints "ns_per_read NS
 * cpu_ns_per_read NS": wall time per read, and the reading thread's CPU
 * time per read, which a loaded machine does not stretch.
 * usage: schedreads N ROUNDS
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

static pid_t *tids;
static int started;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

static void *sleeper(void *arg)
{
	pthread_mutex_lock(&lock);
	tids[started++] = (pid_t)syscall(SYS_gettid);
	pthread_mutex_unlock(&lock);
	(void)arg;
	pause();
	return NULL;
}

int main(int argc, char **argv)
{
	int n = argc > 2 ? atoi(argv[1]) : 0, rounds = argc > 2 ? atoi(argv[2]) : 0;
	char path[64], buf[128];
	struct timespec a, b, ca, cb;
	pthread_t t;

	if (n <= 0 || rounds <= 0 || !(tids = calloc((size_t)n, sizeof(*tids))))
		return fprintf(stderr, "usage: schedreads N ROUNDS\n"), 2;
	for (int i = 0; i < n; i++)
		if ((errno = pthread_create(&t, NULL, sleeper, NULL)) != 0)
			return fprintf(stderr, "schedreads: thread %d: %s\n", i, strerror(errno)), 1;
	while (__atomic_load_n(&started, __ATOMIC_ACQUIRE) < n)
		usleep(1000);
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ca);
	clock_gettime(CLOCK_MONOTONIC, &a);
	for (int r = 0; r < rounds; r++)
		for (int i = 0; i < n; i++) {
			snprintf(path, sizeof(path), "/proc/self/task/%d/schedstat", (int)tids[i]);
			int fd = open(path, O_RDONLY | O_CLOEXEC);
			if (fd < 0 || read(fd, buf, sizeof(buf)) <= 0)
				return perror(path), 1;
			close(fd);
		}
	clock_gettime(CLOCK_MONOTONIC, &b);
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &cb);
	printf("ns_per_read %.0f cpu_ns_per_read %.0f\n",
	       ((double)(b.tv_sec - a.tv_sec) * 1e9 + (double)(b.tv_nsec - a.tv_nsec)) / ((double)n * rounds),
	       ((double)(cb.tv_sec - ca.tv_sec) * 1e9 + (double)(cb.tv_nsec - ca.tv_nsec)) / ((double)n * rounds));
	return 0;
}
