/* starved_at_attach.c — a thread whose wait for a CPU is under way when
 * tally attaches (tests/e2e/test_critical_sched.sh, attach_clips_run_delay).
 *
 * Two threads on CPU 0: `hog` spins at the normal policy, `starved` spins
 * at SCHED_IDLE, so it waits for a CPU nearly all the time (a SCHED_IDLE
 * thread runs only a sliver beside a normal one).  "ready" on stderr after
 * 0.3 s; when the attach's helper thread appears in /proc/self/task, 0.3 s
 * later the starved thread is made normal and the hog stops: its wait ends
 * inside the window, and the kernel counts it whole, the part before the
 * attach too.  The run ends SECS (argument, default 2) after that.  Prints
 * "premise ok" when the helper was seen, else "premise: no helper seen".
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define NOIPA __attribute__((noinline, noipa))

static atomic_int hog_stop, all_stop;
static volatile unsigned long sink;

static void nap(double s)
{
	struct timespec ts = { (time_t)s, (long)((s - (double)(time_t)s) * 1e9) };
	nanosleep(&ts, NULL);
}

static void on_cpu0(void)
{
	cpu_set_t set;
	CPU_ZERO(&set);
	CPU_SET(0, &set);
	sched_setaffinity(0, sizeof(set), &set);
}

NOIPA static void hog_spin(void)
{
	while (!atomic_load_explicit(&hog_stop, memory_order_relaxed))
		sink = sink * 6364136223846793005ul + 1;
}

NOIPA static void starved_spin(void)
{
	while (!atomic_load_explicit(&all_stop, memory_order_relaxed))
		sink = sink * 6364136223846793005ul + 3;
}

static void *hog(void *arg)
{
	(void)arg;
	pthread_setname_np(pthread_self(), "hog");
	on_cpu0();
	hog_spin();
	return NULL;
}

static void *starved(void *arg)
{
	struct sched_param p = { 0 };
	(void)arg;
	pthread_setname_np(pthread_self(), "starved");
	on_cpu0();
	pthread_setschedparam(pthread_self(), SCHED_IDLE, &p);
	starved_spin();
	return NULL;
}

static int threads_now(void)
{
	DIR *d = opendir("/proc/self/task");
	int n = 0;
	if (!d)
		return 0;
	for (struct dirent *e; (e = readdir(d));)
		n += e->d_name[0] != '.';
	closedir(d);
	return n;
}

int main(int argc, char **argv)
{
	double secs = argc > 1 ? atof(argv[1]) : 2;
	pthread_t h, s;
	struct sched_param normal = { 0 };
	int seen = 0;

	pthread_create(&h, NULL, hog, NULL);
	pthread_create(&s, NULL, starved, NULL);
	nap(0.3);
	fprintf(stderr, "ready\n");
	for (int i = 0; i < 3000 && !seen; i++) {      /* 30 s at most */
		seen = threads_now() > 3;
		if (!seen)
			nap(0.01);
	}
	nap(0.3);
	pthread_setschedparam(s, SCHED_OTHER, &normal);
	atomic_store(&hog_stop, 1);
	nap(secs);
	atomic_store(&all_stop, 1);
	pthread_join(h, NULL);
	pthread_join(s, NULL);
	printf(seen ? "premise ok\n" : "premise: no helper seen\n");
	return 0;
}
