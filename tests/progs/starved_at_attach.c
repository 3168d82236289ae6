/* starved_at_attach.c — a thread whose wait for a CPU is under way when
 * tally attaches (tests/e2e/test_critical_sched.sh, attach_clips_run_delay).
 *
 * Two threads on one CPU (the first the process may run on: not CPU 0 in
 * a container or under `taskset -c 1`): `hog` spins at the normal policy,
 * `starved` spins
 * at SCHED_IDLE, so it waits for a CPU nearly all the time (a SCHED_IDLE
 * thread runs only a sliver beside a normal one).  "ready" on stderr after
 * 0.3 s; when the attach's helper thread appears in /proc/self/task, 0.3 s
 * later the starved thread is made normal and the hog stops: its wait ends
 * inside the window, and the kernel counts it whole, the part before the
 * attach too.  The run ends SECS (argument, default 2) after that.  Prints
 * "premise ok" when the helper was seen and the starved thread, by its own
 * CPU clock, waited at least 0.2 s of those 0.3 s (it spins, so whatever
 * it did not run it waited); else "premise: " and what was missing.
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

static atomic_int hog_stop, all_stop, pinned;
static int the_cpu = -1;   /* the CPU both threads are kept on */
static volatile unsigned long sink;

static void nap(double s)
{
	struct timespec ts = { (time_t)s, (long)((s - (double)(time_t)s) * 1e9) };
	nanosleep(&ts, NULL);
}

/* The lowest CPU of the process's affinity mask, -1 if none is read. */
static int first_allowed_cpu(void)
{
	cpu_set_t set;
	if (sched_getaffinity(0, sizeof(set), &set) != 0)
		return -1;
	for (int c = 0; c < CPU_SETSIZE; c++)
		if (CPU_ISSET(c, &set))
			return c;
	return -1;
}

static void on_the_cpu(void)
{
	cpu_set_t set;
	if (the_cpu < 0)
		return;
	CPU_ZERO(&set);
	CPU_SET(the_cpu, &set);
	if (sched_setaffinity(0, sizeof(set), &set) == 0)
		atomic_fetch_add(&pinned, 1);
}

static double clock_s(clockid_t c)
{
	struct timespec ts;
	clock_gettime(c, &ts);
	return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
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
	on_the_cpu();
	hog_spin();
	return NULL;
}

static void *starved(void *arg)
{
	struct sched_param p = { 0 };
	(void)arg;
	pthread_setname_np(pthread_self(), "starved");
	on_the_cpu();
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
	clockid_t starved_cpu;
	int seen = 0;

	the_cpu = first_allowed_cpu();
	pthread_create(&h, NULL, hog, NULL);
	pthread_create(&s, NULL, starved, NULL);
	nap(0.3);
	fprintf(stderr, "ready\n");
	for (int i = 0; i < 3000 && !seen; i++) {      /* 30 s at most */
		seen = threads_now() > 3;
		if (!seen)
			nap(0.01);
	}
	int has_clock = pthread_getcpuclockid(s, &starved_cpu) == 0;
	double w0 = clock_s(CLOCK_MONOTONIC), c0 = has_clock ? clock_s(starved_cpu) : 0;
	nap(0.3);
	double w1 = clock_s(CLOCK_MONOTONIC), c1 = has_clock ? clock_s(starved_cpu) : 0;
	double waited = (w1 - w0) - (c1 - c0);
	pthread_setschedparam(s, SCHED_OTHER, &normal);
	atomic_store(&hog_stop, 1);
	nap(secs);
	atomic_store(&all_stop, 1);
	pthread_join(h, NULL);
	pthread_join(s, NULL);
	if (!seen)
		printf("premise: no helper seen\n");
	else if (atomic_load(&pinned) != 2)
		printf("premise: the threads cannot be kept on one CPU (CPU %d: sched_getaffinity or "
		       "sched_setaffinity refused)\n", the_cpu);
	else if (!has_clock)
		printf("premise: no CPU clock of the starved thread\n");
	else if (waited < 0.2)
		printf("premise: the starved thread waited %.3f s of %.3f s (SCHED_IDLE not starved here)\n",
		       waited, w1 - w0);
	else
		printf("premise ok: the starved thread waited %.3f s of %.3f s on CPU %d\n", waited, w1 - w0,
		       the_cpu);
	return 0;
}
