/* late_attach.c — two threads that each nap 1 ms and work a little, ROUNDS
 * times (each nap a switch-out, each resume a signal's delivery under the
 * states' signal way), for a tracer to attach to while they run (strace -p,
 * gdb -p) and detach.  With STOP_FILE each goes on past ROUNDS until that
 * file exists, so that it is still running when a slow tracer (gdb at a
 * high load) has attached and detached: the caller makes the file after.
 * Prints "ready" on stderr once both run, then at the end on stdout
 *   main naps N
 *   worker naps N
 * (N: the naps each took, at least ROUNDS) and exits 5.
 * usage: late_attach [ROUNDS [STOP_FILE]] */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

static int rounds = 1500;
static const char *stop_file;
static volatile unsigned long sink;

static int naps(void)
{
	struct timespec ts = { 0, 1000000 };
	int done = 0;

	for (int i = 0; i < rounds || (stop_file && access(stop_file, F_OK) != 0); i++) {
		nanosleep(&ts, NULL);
		for (int k = 0; k < 20000; k++)
			sink += (unsigned long)k;
		done++;
	}
	return done;
}

static void *worker(void *arg)
{
	*(int *)arg = naps();
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_t th;
	int theirs = 0;

	if (argc > 1)
		rounds = atoi(argv[1]);
	if (argc > 2)
		stop_file = argv[2];
	if (pthread_create(&th, NULL, worker, &theirs) != 0)
		return perror("pthread_create"), 1;
	fprintf(stderr, "ready\n");
	int mine = naps();
	pthread_join(th, NULL);
	printf("main naps %d\nworker naps %d\n", mine, theirs);
	return 5;
}
