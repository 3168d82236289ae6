/* forkleak.c — what a fork child keeps of its parent's other threads.
 * THREADS threads spin 20 ms each (so each has its collector state: its
 * clock, its record cursors) and then wait; meanwhile the main thread forks
 * CHILDREN children one after another.  Each thread mallocs once, so that
 * its malloc arena is the program's own, with or without the collector.  Each child spins 2 ms (its first
 * sample makes its files), then reads its own size: VmSize and VmRSS from
 * /proc/self/status and its open descriptors from /proc/self/fd, sends
 * them to the parent on a pipe and ends by _exit.  Only the forking thread
 * lives in a child, so nothing of the others should stay.
 * With `churn` the threads malloc and free 48 bytes without end instead of
 * waiting (under tally -H, each call in collector code: at a fork, one of
 * them is likely inside it, changing a record window or its heap table).
 * usage: forkleak THREADS CHILDREN [churn]
 * prints: "child vmsize_kb V rss_kb R fds F" (the children's medians)
 *         "child max vmsize_kb V" (the largest child)
 * exit: 0 when every child reported and ended with status 0. */
#define _GNU_SOURCE
#include <dirent.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "spin_ms.h"

#define MAX_CHILDREN 1000

static int hold[2];               /* the threads wait on its read end */
static pthread_barrier_t ready;
static int churn;                 /* the threads malloc and free until the end */
static _Atomic int stop;

static void *worker(void *arg)
{
	char c;

	(void)arg;
	void *volatile block = malloc(64);   /* its arena, with or without tally */
	free(block);
	spin(20);
	pthread_barrier_wait(&ready);
	while (churn && !stop) {
		void *volatile p = malloc(48);
		free(p);
	}
	while (read(hold[0], &c, 1) > 0)
		;
	return NULL;
}

static long status_kb(const char *key)
{
	char line[256];
	long v = -1;
	FILE *f = fopen("/proc/self/status", "r");

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, key, strlen(key)))
			v = atol(line + strlen(key));
	fclose(f);
	return v;
}

static long count_fds(void)
{
	long n = 0;
	DIR *d = opendir("/proc/self/fd");
	struct dirent *e;

	if (!d)
		return -1;
	while ((e = readdir(d)))
		n += e->d_name[0] != '.';
	closedir(d);
	return n - 1;                 /* less opendir's own */
}

static int by_value(const void *a, const void *b)
{
	long x = *(const long *)a, y = *(const long *)b;
	return (x > y) - (x < y);
}

static long median(long *v, int n)
{
	qsort(v, (size_t)n, sizeof(*v), by_value);
	return v[n / 2];
}

int main(int argc, char **argv)
{
	int threads = argc > 1 ? atoi(argv[1]) : 8, children = argc > 2 ? atoi(argv[2]) : 200;
	churn = argc > 3 && strcmp(argv[3], "churn") == 0;
	static long vm[MAX_CHILDREN], rss[MAX_CHILDREN], fds[MAX_CHILDREN];
	pthread_t t[256];
	int bad = 0, got = 0;

	if (threads > 256 || children < 1 || children > MAX_CHILDREN || pipe(hold))
		return 2;
	pthread_barrier_init(&ready, NULL, (unsigned)threads + 1);
	for (int i = 0; i < threads; i++)
		if (pthread_create(&t[i], NULL, worker, NULL))
			return 2;
	pthread_barrier_wait(&ready);
	for (int c = 0; c < children; c++) {
		int out[2];
		if (pipe(out))
			return 2;
		pid_t p = fork();
		if (p < 0)
			return 2;
		if (p == 0) {
			long v[3];
			close(out[0]);
			spin(2);
			v[0] = status_kb("VmSize:");
			v[1] = status_kb("VmRSS:");
			v[2] = count_fds() - 2;   /* less the two pipes' ends still open */
			_exit(write(out[1], v, sizeof(v)) == sizeof(v) ? 0 : 1);
		}
		close(out[1]);
		long v[3];
		if (read(out[0], v, sizeof(v)) == sizeof(v)) {
			vm[got] = v[0];
			rss[got] = v[1];
			fds[got++] = v[2];
		}
		close(out[0]);
		int st;
		if (waitpid(p, &st, 0) < 0 || !WIFEXITED(st) || WEXITSTATUS(st))
			bad++;
	}
	stop = 1;
	close(hold[1]);
	for (int i = 0; i < threads; i++)
		pthread_join(t[i], NULL);
	if (!got)
		return 1;
	printf("child vmsize_kb %ld rss_kb %ld fds %ld\n", median(vm, got), median(rss, got), median(fds, got));
	printf("child max vmsize_kb %ld\n", vm[got - 1]);   /* sorted by median() */
	return bad || got != children ? 1 : 0;
}
