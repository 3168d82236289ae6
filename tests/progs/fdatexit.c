/* fdatexit.c — a program whose thread opens files while the process ends,
 * counting on the numbers open() gives it.  main writes a perf map of LINES
 * lines (/tmp/perf-PID.map, the JIT convention the collector reads at the
 * process's end), starts a thread that opens and closes /dev/null without
 * end, reporting each open that did not get the lowest free number at once
 * ("elsewhere N", write(2) to stdout), spins SECONDS of CPU and returns:
 * the process's end (the collector's with it) runs while the thread still
 * opens.  Bare, it prints no "elsewhere" line.  It prints its pid first
 * ("pid N"): the caller removes the map.  With `blocked`, the opening
 * thread blocks every signal by a raw system call first (as a runtime's
 * own thread may): it is never sampled, and the end of the process, which
 * names such threads, reads their status and name while they still open.
 * usage: fdatexit SECONDS LINES [blocked] */
#define _GNU_SOURCE
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

static int first = -1;          /* the lowest free number */
static atomic_int opening;
static int blocked;             /* the opener blocks every signal */

static void *opener(void *arg)
{
	char line[32];

	(void)arg;
	if (blocked) {
		unsigned long all = ~0ul;
		syscall(SYS_rt_sigprocmask, SIG_SETMASK, &all, NULL, sizeof(all));
	}
	atomic_store(&opening, 1);
	for (;;) {
		int fd = open("/dev/null", O_RDONLY);
		if (fd != first) {
			int n = snprintf(line, sizeof(line), "elsewhere %d\n", fd);
			if (write(1, line, (size_t)n) < 0)
				break;
		}
		if (fd >= 0)
			close(fd);
	}
	return NULL;
}

static double cpu_seconds(void)
{
	struct timespec t;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
	return (double)t.tv_sec + t.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	double seconds = argc > 1 ? atof(argv[1]) : 0.3;
	long lines = argc > 2 ? atol(argv[2]) : 50000;
	blocked = argc > 3 && !strcmp(argv[3], "blocked");
	char path[64];
	pthread_t t;

	printf("pid %d\n", (int)getpid());
	fflush(stdout);
	snprintf(path, sizeof(path), "/tmp/perf-%d.map", (int)getpid());
	FILE *map = fopen(path, "w");
	if (!map)
		return perror(path), 1;
	for (long i = 0; i < lines; i++)
		fprintf(map, "%lx 10 jitted_function_%ld\n", 0x10000000ul + 16 * (unsigned long)i, i);
	if (fclose(map) != 0)
		return perror(path), 1;
	first = open("/dev/null", O_RDONLY);
	if (first < 0)
		return perror("open"), 1;
	close(first);
	if (pthread_create(&t, NULL, opener, NULL) != 0)
		return perror("pthread_create"), 1;
	while (!atomic_load(&opening))
		;
	volatile unsigned long n = 0;
	while (cpu_seconds() < seconds)
		for (int i = 0; i < 100000; i++)
			n++;
	return 0;
}
