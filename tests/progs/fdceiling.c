/* fdceiling.c — a program whose threads live at their descriptor limit, as
 * a select() server that fills its table does.  OPENERS threads each open
 * /dev/null until EMFILE, then close one and open one again, for SECONDS,
 * and count every descriptor they got at or above the soft limit read at
 * the start (a number FD_SET could not hold) and every getrlimit that saw
 * another soft limit; the main thread meanwhile makes and joins threads,
 * each spinning 0.2 ms of its CPU, so that the collector opens each new
 * thread's perf events (--states, -c) while the openers are at the limit.
 * It prints "N at or above the soft limit S, G other limits seen, T
 * threads made": N and G are 0 bare, and must stay 0 recorded.
 * usage: fdceiling SECONDS [OPENERS] */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

static rlim_t soft;
static atomic_long above, other_limits;
static atomic_int stop;

static double now(clockid_t c)
{
	struct timespec ts;
	clock_gettime(c, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void note(int fd)
{
	struct rlimit rl;

	if (fd >= 0 && (rlim_t)fd >= soft)
		atomic_fetch_add(&above, 1);
	if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur != soft)
		atomic_fetch_add(&other_limits, 1);
}

static void *opener(void *arg)
{
	int held[4096], n = 0;

	(void)arg;
	while (!atomic_load(&stop)) {
		int fd = open("/dev/null", O_RDONLY);
		note(fd);
		if (fd >= 0 && n < 4096)
			held[n++] = fd;
		else if (fd >= 0)
			close(fd);
		else if (n > 0)
			close(held[--n]);  /* at the limit: make room, open again */
	}
	while (n > 0)
		close(held[--n]);
	return NULL;
}

static void *spin(void *arg)
{
	double end = now(CLOCK_THREAD_CPUTIME_ID) + 0.0002;

	(void)arg;
	while (now(CLOCK_THREAD_CPUTIME_ID) < end)
		;
	return NULL;
}

int main(int argc, char **argv)
{
	struct rlimit rl;
	pthread_t t[16];
	long made = 0;

	if (argc < 2) {
		fprintf(stderr, "usage: fdceiling SECONDS [OPENERS]\n");
		return 2;
	}
	double end = now(CLOCK_MONOTONIC) + atof(argv[1]);
	int openers = argc > 2 ? atoi(argv[2]) : 2;
	if (openers < 1 || openers > 16 || getrlimit(RLIMIT_NOFILE, &rl) != 0) {
		fprintf(stderr, "fdceiling: bad OPENERS or no limit\n");
		return 2;
	}
	soft = rl.rlim_cur;
	for (int i = 0; i < openers; i++)
		pthread_create(&t[i], NULL, opener, NULL);
	while (now(CLOCK_MONOTONIC) < end) {
		pthread_t s;
		if (pthread_create(&s, NULL, spin, NULL) == 0) {
			pthread_join(s, NULL);
			made++;
		}
	}
	atomic_store(&stop, 1);
	for (int i = 0; i < openers; i++)
		pthread_join(t[i], NULL);
	printf("%ld at or above the soft limit %lu, %ld other limits seen\n",
	       atomic_load(&above), (unsigned long)soft, atomic_load(&other_limits));
	fprintf(stderr, "%ld threads made\n", made);
	return 0;
}
