/* forkburst.c — fork children that start threads at once: each of CHILDREN
 * fork children starts THREADS threads as fast as it can (each thread
 * names itself and ends), joins them, and ends by _exit.  A deferred fork
 * child's file is then made by the first thread's start while the others
 * start and write theirs.
 * usage: forkburst CHILDREN THREADS
 * exit: 0 when every child ended with status 0. */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

static void *named(void *arg)
{
	char name[16];

	snprintf(name, sizeof(name), "burst%ld", (long)arg);
	pthread_setname_np(pthread_self(), name);
	return NULL;
}

int main(int argc, char **argv)
{
	int children = argc > 1 ? atoi(argv[1]) : 20, threads = argc > 2 ? atoi(argv[2]) : 8, bad = 0;

	if (threads > 256)
		threads = 256;
	for (int c = 0; c < children; c++) {
		pid_t p = fork();
		if (p < 0)
			return 2;
		if (p == 0) {
			pthread_t t[256];
			int made = 0;
			for (long i = 0; i < threads; i++)
				made += pthread_create(&t[made], NULL, named, (void *)i) == 0;
			for (int i = 0; i < made; i++)
				pthread_join(t[i], NULL);
			_exit(made == threads ? 0 : 1);
		}
	}
	for (int c = 0; c < children; c++) {
		int st;
		if (wait(&st) < 0 || !WIFEXITED(st) || WEXITSTATUS(st))
			bad++;
	}
	return bad ? 1 : 0;
}
