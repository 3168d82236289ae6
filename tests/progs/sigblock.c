/* sigblock.c — worker threads that block every signal, each in its own way,
 * and each doing the same work (UNITS, default 1): w_pthread blocks with
 * pthread_sigmask, w_procmask with sigprocmask (SIG_SETMASK), w_inherit is
 * created while main blocks everything (it starts blocked, as xz's workers
 * do), w_wait blocks everything and polls sigtimedwait on a full set between
 * its slices of work.  With `raw`, a fifth thread w_raw blocks everything
 * with the rt_sigprocmask system call itself, which no interposer sees.
 * With `exit`, main does not wait for w_inherit nor w_raw (given 3 units of
 * work each): the process ends while they still run, as xz ends with its
 * workers blocked.
 * usage: sigblock [raw] [exit] [UNITS] */
#define _GNU_SOURCE
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define NOIPA __attribute__((noinline, noipa))

static double units = 1.0;

NOIPA static void work(unsigned long n)
{
	volatile unsigned long x = 1;
	for (unsigned long i = 0; i < n; i++)
		x = x * 6364136223846793005ul + 1442695040888963407ul;
}

#define UNIT ((unsigned long)(units * 60e6))

static void block_all(void)
{
	sigset_t all;
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, NULL);
}

NOIPA void *w_pthread(void *a) { prctl(PR_SET_NAME, "w_pthread"); block_all(); work(UNIT); return a; }
static int leave_running;
NOIPA void *w_inherit(void *a) { prctl(PR_SET_NAME, "w_inherit"); work(UNIT * (leave_running ? 3 : 1)); return a; }

NOIPA void *w_procmask(void *a)
{
	sigset_t all;
	prctl(PR_SET_NAME, "w_procmask");
	sigfillset(&all);
	sigprocmask(SIG_SETMASK, &all, NULL);
	work(UNIT);
	return a;
}

NOIPA void *w_wait(void *a)
{
	sigset_t all;
	siginfo_t info;
	struct timespec zero = { 0, 0 };
	prctl(PR_SET_NAME, "w_wait");
	block_all();
	sigfillset(&all);
	for (int i = 0; i < 100; i++) {
		work(UNIT / 100);
		sigtimedwait(&all, &info, &zero);
	}
	return a;
}

NOIPA void *w_raw(void *a)
{
	unsigned long all = ~0ul;
	prctl(PR_SET_NAME, "w_raw");
	syscall(SYS_rt_sigprocmask, SIG_BLOCK, &all, NULL, sizeof(all));
	work(UNIT * (leave_running ? 3 : 1));
	return a;
}

int main(int argc, char **argv)
{
	pthread_t t[5];
	int n = 0, raw = 0, arg = 1;
	sigset_t all, old;

	for (; arg < argc && (!strcmp(argv[arg], "raw") || !strcmp(argv[arg], "exit")); arg++)
		*(argv[arg][0] == 'r' ? &raw : &leave_running) = 1;
	if (arg < argc)
		units = atof(argv[arg]);
	pthread_create(&t[n++], NULL, w_pthread, NULL);
	pthread_create(&t[n++], NULL, w_procmask, NULL);
	pthread_create(&t[n++], NULL, w_wait, NULL);
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);      /* around pthread_create, as xz */
	pthread_create(&t[n++], NULL, w_inherit, NULL);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (raw)
		pthread_create(&t[n++], NULL, w_raw, NULL);
	for (int i = 0; i < n; i++)
		if (!leave_running || i < 3)
			pthread_join(t[i], NULL);
	return 0;
}
