/* attach_work.c — targets for `tally record -p` (tests/e2e/test_attach.sh).
 * Each mode prints "ready" on stderr when the test may attach, and ends by
 * printing a checksum of everything it computed, so an attach that changed a
 * register, the vector state, errno or a system call's result changes the
 * output.  Built -O2 without frame pointers.
 *
 *   shares UNITS   leaf_one 1/3, leaf_two 2/3 of the CPU, in slices of
 *                  0.03-0.1 ms (any window has the shares); floating point
 *                  in the loop state
 *   threads SECS   main and two workers spin (work_a, work_b); when the
 *                  file named by $LATE_FLAG appears, a third starts (work_late);
 *                  with $BLOCK_WORKERS set the workers block every signal;
 *                  with $UNBLOCK_FLAG too, they unblock them when that file
 *                  appears (a signal held since is delivered then), and the
 *                  run ends by printing how many perf events are mapped
 *   pipe           blocks in read(0); prints what it read, and whether the
 *                  read failed or errno changed
 *   fork SECS      forks children that compute and exit 7, waits for each,
 *                  computes itself in between
 *   sleep SECS     sleeps (the refusal tests' target)
 * With PRE_CPU=SECONDS in the environment, every mode first spins that much
 * CPU time, before "ready" (CPU an attach must not count as its own).
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <stdint.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define NOIPA __attribute__((noinline, noipa))

static volatile double dsink;
static volatile unsigned long sink;

/* Integer and floating-point state carried through the loop. */
#define WORK(n, seed)                                                            \
	do {                                                                     \
		unsigned long x = sink + (seed);                                 \
		double d = dsink;                                                \
		for (unsigned long i = 0; i < (n); i++) {                        \
			x = x * 6364136223846793005ul + 1442695040888963407ul; \
			d = d * 0.999999 + (double)(x >> 40) * 1e-9;             \
			__asm__ volatile("" : "+r"(x), "+x"(d));                 \
		}                                                                \
		sink = x;                                                        \
		dsink = d;                                                       \
	} while (0)

NOIPA void leaf_one(unsigned long n) { WORK(n, 1); }
NOIPA void leaf_two(unsigned long n) { WORK(2 * n, 2); }
NOIPA void work_a(unsigned long n) { WORK(n, 3); }
NOIPA void work_b(unsigned long n) { WORK(n, 4); }
NOIPA void work_late(unsigned long n) { WORK(n, 5); }
NOIPA void work_parent(unsigned long n) { WORK(n, 6); }
NOIPA void work_child(unsigned long n) { WORK(n, 7); }

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static void ready(void)
{
	fprintf(stderr, "ready\n");
}

/* The checksum on stdout; the process's CPU time on stderr. */
static void finish(void)
{
	struct rusage ru;

	printf("checksum %lu %.9f\n", sink, dsink);
	getrusage(RUSAGE_SELF, &ru);
	fprintf(stderr, "cpu %.3f\n", ru.ru_utime.tv_sec + ru.ru_stime.tv_sec +
		(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e6);
}

/* Slices of varying length, so that the sampling period (CPU time) never
 * falls in step with them. */
NOIPA void parent(unsigned long units)
{
	for (unsigned long u = 0; u < units * 100; u++) {
		unsigned long n = 15000 + (u * 7919) % 20011;
		leaf_one(n);
		leaf_two(n);
	}
}

static volatile int stop_threads;
static unsigned long counts[3];

/* The perf events mapped in this process (/proc/self/maps). */
static int perf_mappings(void)
{
	char line[512];
	int n = 0;
	FILE *f = fopen("/proc/self/maps", "r");

	while (f && fgets(line, sizeof(line), f))
		n += strstr(line, "perf_event") != NULL;
	if (f)
		fclose(f);
	return n;
}

static void *worker(void *arg)
{
	long k = (long)arg;
	uint64_t all = ~0ull;
	const char *unblock = getenv("UNBLOCK_FLAG");
	int blocked = 0;
	struct stat st;

	/* BLOCK_WORKERS: every signal blocked by a raw system call (no
	 * interposer sees it): the worker cannot be sampled. */
	if (getenv("BLOCK_WORKERS"))
		blocked = syscall(SYS_rt_sigprocmask, SIG_BLOCK, &all, NULL, sizeof(all)) == 0;
	while (!stop_threads) {
		if (blocked && unblock && stat(unblock, &st) == 0)
			blocked = syscall(SYS_rt_sigprocmask, SIG_UNBLOCK, &all, NULL, sizeof(all)) != 0;
		if (k == 0)
			work_a(100000);
		else if (k == 1)
			work_b(100000);
		else
			work_late(100000);
		counts[k]++;
	}
	return NULL;
}

static int threads(double secs)
{
	pthread_t th[3];
	const char *flag = getenv("LATE_FLAG");
	double end = now() + secs;
	int late = 0;
	struct stat st;

	pthread_create(&th[0], NULL, worker, (void *)0);
	pthread_create(&th[1], NULL, worker, (void *)1);
	ready();
	while (now() < end) {
		work_parent(100000);
		if (!late && flag && stat(flag, &st) == 0) {
			pthread_create(&th[2], NULL, worker, (void *)2);
			late = 1;
		}
	}
	stop_threads = 1;
	for (int i = 0; i < 2 + late; i++)
		pthread_join(th[i], NULL);
	printf("late thread %s\n", late ? "ran" : "never started");
	if (getenv("UNBLOCK_FLAG"))
		printf("perf mappings %d\n", perf_mappings());
	return 0;
}

static int piped(void)
{
	char buf[256];

	ready();
	errno = 77;
	ssize_t n = read(0, buf, sizeof(buf) - 1);
	if (n < 0) {
		printf("read failed: %s\n", strerror(errno));
		return 1;
	}
	buf[n] = 0;
	printf("read %zd bytes: %s", n, buf);
	printf("errno after the read: %d\n", errno);
	return 0;
}

static int forking(double secs)
{
	double end = now() + secs;
	int children = 0, bad = 0;

	ready();
	while (now() < end) {
		pid_t c = fork();
		if (c == 0) {
			work_child(200000);
			_exit(7);
		}
		/* 25 times the child's: fork and waitpid cost the parent CPU too,
		 * more on a loaded machine, and must not decide the shares */
		work_parent(5000000);
		int st;
		if (c < 0 || waitpid(c, &st, 0) != c || !WIFEXITED(st) || WEXITSTATUS(st) != 7)
			bad++;
		children++;
	}
	printf("children %s\n", bad ? "went wrong" : "all exited 7");
	fprintf(stderr, "%d children\n", children);
	return bad != 0;
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "shares";
	double arg = argc > 2 ? atof(argv[2]) : 1;
	int rc = 0;
	struct timespec t0, t;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t0);
	for (double pre = getenv("PRE_CPU") ? atof(getenv("PRE_CPU")) : 0; pre > 0;) {
		clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
		if ((double)(t.tv_sec - t0.tv_sec) + (double)(t.tv_nsec - t0.tv_nsec) / 1e9 >= pre)
			break;
	}

	if (!strcmp(mode, "shares")) {
		ready();
		parent((unsigned long)arg);
	} else if (!strcmp(mode, "threads")) {
		rc = threads(arg);
	} else if (!strcmp(mode, "pipe")) {
		rc = piped();
	} else if (!strcmp(mode, "fork")) {
		rc = forking(arg);
	} else if (!strcmp(mode, "sleep")) {
		ready();
		sleep((unsigned)arg);
	}
	finish();
	return rc;
}
