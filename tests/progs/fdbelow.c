/* fdbelow.c — which descriptors below its soft limit a threaded program
 * holds once a thread of its has run: a thread spins MS milliseconds of its
 * CPU (so a recorded program's first samples, and the record files made
 * for them, come while it has threads), then the main thread lists
 * /proc/self/fd and prints each number below the soft limit.  Bare and
 * recorded, the lists must be the same.
 * usage: fdbelow MS */
#define _GNU_SOURCE
#include <dirent.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <time.h>

static double ms;

static void *spin(void *arg)
{
	struct timespec t0, t;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t0);
	do
		clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
	while ((double)(t.tv_sec - t0.tv_sec) * 1e3 + (double)(t.tv_nsec - t0.tv_nsec) / 1e6 < ms);
	return arg;
}

int main(int argc, char **argv)
{
	struct rlimit rl;
	pthread_t t;

	ms = argc > 1 ? atof(argv[1]) : 20;
	if (getrlimit(RLIMIT_NOFILE, &rl) != 0 || pthread_create(&t, NULL, spin, NULL) != 0)
		return 2;
	pthread_join(t, NULL);
	DIR *d = opendir("/proc/self/fd");
	if (!d)
		return 2;
	int self = dirfd(d);
	struct dirent *e;
	while ((e = readdir(d))) {
		int fd = atoi(e->d_name);
		if (e->d_name[0] == '.' || fd == self || (rlim_t)fd >= rl.rlim_cur)
			continue;
		printf("%d\n", fd);
	}
	closedir(d);
	return 0;
}
