/* late_attach.c — two threads that each nap 1 ms and work a little, ROUNDS
 * times (each nap a switch-out, each resume a signal's delivery under the
 * states' signal way), for a tracer to attach to while they run (strace -p,
 * gdb -p) and detach.  Prints "ready" on stderr once both run, then at the
 * end on stdout
 *   main naps ROUNDS
 *   worker naps ROUNDS
 * and exits 5.  usage: late_attach [ROUNDS] */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static int rounds = 1500;
static volatile unsigned long sink;

static int naps(void)
{
	struct timespec ts = { 0, 1000000 };
	int done = 0;

	for (int i = 0; i < rounds; i++) {
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
	if (pthread_create(&th, NULL, worker, &theirs) != 0)
		return perror("pthread_create"), 1;
	fprintf(stderr, "ready\n");
	int mine = naps();
	pthread_join(th, NULL);
	printf("main naps %d\nworker naps %d\n", mine, theirs);
	return 5;
}
