/* fdnumbers.c — a program that counts on the numbers open() gives it, as
 * one that closes a descriptor and opens another in its place does.  One
 * thread opens and closes /dev/null ROUNDS times and counts the opens that
 * did not get the lowest free number (the first open's, since every open
 * is closed before the next); the other allocates, frees and writes to
 * /dev/null in a loop meanwhile (under `tally record -H -i` its records
 * make the collector claim blocks while the first thread opens).  It prints the
 * count: "0 of N opens elsewhere" bare, and recorded the same.  One arena
 * (M_ARENA_MAX 1): glibc's malloc, shrinking a thread's own arena, opens
 * /proc/sys/vm/overcommit_memory once, and a thread preempted inside that
 * open made the other's opens land elsewhere, bare (strace -f: 6 of 10
 * runs) and recorded alike.  With `exec`, the other thread tries to exec
 * a file that is there but not executable (EACCES: the program goes on),
 * in a loop: the collector's exec interposer peeks at the file first (is
 * it static? 32-bit?), and opened it in place.  With `epoll`, 2,000 epoll
 * sets are made first by raw system calls (as a runtime or a set inherited
 * from a parent would be: the I/O tracer never saw them built), and the
 * other thread adds a pipe to each, one after the other, then again: the
 * tracer reads a set's list from /proc/self/fdinfo at its first epoll_ctl,
 * and opened that file in place.  With `threads`, the other thread makes
 * and joins threads one after the other, each spinning 0.2 ms of its CPU
 * (so that sampled ones take a sample): each new thread's perf events
 * (-c, --states) are opened at the lowest free number and moved high;
 * "T threads made" follows on stderr.
 * usage: fdnumbers ROUNDS [exec|epoll|threads] */
#define _GNU_SOURCE
#include <fcntl.h>
#include <malloc.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

static atomic_int done;
static int out = -1;                /* /dev/null, written by churn() */

/* Allocate and free blocks of varied sizes until told to stop. */
static void *churn(void *arg)
{
	void *keep[64] = { 0 };
	unsigned i = 0;

	(void)arg;
	while (!atomic_load_explicit(&done, memory_order_relaxed)) {
		unsigned k = i % 64;
		free(keep[k]);
		keep[k] = malloc(16 + (i * 37) % 4000);
		if (i % 4 == 0 && write(out, keep[k], 1 + i % 64) < 0)
			break;
		i++;
	}
	for (int k = 0; k < 64; k++)
		free(keep[k]);
	return NULL;
}

#define NOEXEC "fdnumbers.noexec"
#define SETS 2000

static int sets[SETS], pipe_rd = -1;

/* Add the pipe to every set, then take it out and again, until told to
 * stop: each set's first epoll_ctl is the tracer's first sight of it. */
static void *epoll_sets(void *arg)
{
	struct epoll_event ev = { .events = EPOLLIN };

	(void)arg;
	for (unsigned i = 0; !atomic_load_explicit(&done, memory_order_relaxed); i++) {
		int op = (i / SETS) % 2 ? EPOLL_CTL_DEL : EPOLL_CTL_ADD;
		if (epoll_ctl(sets[i % SETS], op, pipe_rd, &ev) != 0)
			break;
	}
	return NULL;
}

/* A short thread: 0.2 ms of its own CPU. */
static void *spin_briefly(void *arg)
{
	struct timespec t0, t;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t0);
	do
		clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
	while ((t.tv_sec - t0.tv_sec) * 1000000000L + (t.tv_nsec - t0.tv_nsec) < 200000);
	return arg;
}

static long threads_made;

/* Make and join threads until told to stop. */
static void *make_threads(void *arg)
{
	(void)arg;
	while (!atomic_load_explicit(&done, memory_order_relaxed)) {
		pthread_t s;
		if (pthread_create(&s, NULL, spin_briefly, NULL) != 0 || pthread_join(s, NULL) != 0)
			break;
		threads_made++;
	}
	return NULL;
}

/* Try to exec a file that is not executable until told to stop. */
static void *exec_fail(void *arg)
{
	(void)arg;
	while (!atomic_load_explicit(&done, memory_order_relaxed))
		if (execl(NOEXEC, NOEXEC, (char *)NULL) == 0)
			break;
	return NULL;
}

int main(int argc, char **argv)
{
	long rounds = argc > 1 ? atol(argv[1]) : 200000, elsewhere = 0;
	pthread_t t;

	bool execs = argc > 2 && !strcmp(argv[2], "exec"), epolls = argc > 2 && !strcmp(argv[2], "epoll");
	bool threads = argc > 2 && !strcmp(argv[2], "threads");

	mallopt(M_ARENA_MAX, 1);
	if (execs) {
		int fd = open(NOEXEC, O_WRONLY | O_CREAT | O_TRUNC, 0644);
		if (fd < 0 || write(fd, "\177ELF", 4) != 4 || close(fd) != 0)
			return perror(NOEXEC), 1;
	}
	if (epolls) {
		int p[2];
		if (pipe(p) != 0)
			return perror("pipe"), 1;
		pipe_rd = p[0];
		for (int i = 0; i < SETS; i++)
			if ((sets[i] = (int)syscall(SYS_epoll_create1, EPOLL_CLOEXEC)) < 0)
				return perror("epoll_create1"), 1;
	}
	out = open("/dev/null", O_WRONLY | O_CLOEXEC);
	int first = open("/dev/null", O_RDONLY);
	if (first < 0)
		return perror("open"), 1;
	close(first);
	if (pthread_create(&t, NULL, execs ? exec_fail : epolls ? epoll_sets : threads ? make_threads : churn, NULL) != 0)
		return perror("pthread_create"), 1;
	for (long r = 0; r < rounds; r++) {
		int fd = open("/dev/null", O_RDONLY);
		if (fd < 0)
			return perror("open"), 1;
		elsewhere += fd != first;
		close(fd);
	}
	atomic_store(&done, 1);
	pthread_join(t, NULL);
	printf("%ld of %ld opens elsewhere\n", elsewhere, rounds);
	if (threads)
		fprintf(stderr, "%ld threads made\n", threads_made);
	return elsewhere != 0;
}
