/* blamefork.c — lock-holder blame for a holder that never waits, across a
 * fork.  round(): a new thread takes the mutex in hold() and keeps it 50 ms;
 * the caller asks for it once the thread holds it (`held`), and waits.  Two
 * rounds, then a fork and two rounds in the child: in each process the first
 * round is the mutex's first contention (its holder not yet known; the
 * child starts over), the second names hold() and its lock line.
 * usage: blamefork */
#include <pthread.h>
#include <stdio.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static _Atomic int held;

static void *hold(void *arg)
{
	struct timespec t = { 0, 50000000 };

	(void)arg;
	pthread_mutex_lock(&m);                 /* BLAME-HOLD */
	held = 1;
	while (nanosleep(&t, &t))
		;
	pthread_mutex_unlock(&m);
	return NULL;
}

static void round_once(void)
{
	pthread_t t;

	held = 0;
	pthread_create(&t, NULL, hold, NULL);
	while (!held)
		sched_yield();
	pthread_mutex_lock(&m);
	pthread_mutex_unlock(&m);
	pthread_join(t, NULL);
}

int main(void)
{
	round_once();
	round_once();
	pid_t p = fork();
	if (p == 0) {
		round_once();
		round_once();
		_exit(0);
	}
	waitpid(p, NULL, 0);
	puts("done");
	return 0;
}
