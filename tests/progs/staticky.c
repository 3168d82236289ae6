/* staticky.c — a program for the outside mode (test_static.sh), linked
 * statically (glibc's libc.a, or musl-gcc -static).
 *
 * usage: staticky UNITS          two threads: heavy() does 3 units of work,
 *                                light() 1, so their CPU shares are 0.75 and
 *                                0.25 of the sampled CPU (main only waits)
 *        staticky family UNITS   fork; the child execs this program as
 *                                `staticky child UNITS` (heavy(), 3 units);
 *                                the parent runs light() for 1 unit, waits
 * Each of the two threads ends by noting its id, its CPU time
 * (CLOCK_THREAD_CPUTIME_ID, ns) and how many times it left a CPU
 * (getrusage RUSAGE_THREAD: voluntary + involuntary switches), which main
 * prints to stderr once both are joined (no stdio in the threads: their
 * samples stay in heavy() and light()):
 *   thread TID CPU_NS SWITCHES
 */
#define _GNU_SOURCE     /* RUSAGE_THREAD */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static volatile unsigned long sink;

__attribute__((noinline)) static void heavy(long units)
{
	for (long i = 0; i < units * 3000000; i++)
		sink += (unsigned long)i * 7;
}

__attribute__((noinline)) static void light(long units)
{
	for (long i = 0; i < units * 1000000; i++)
		sink += (unsigned long)i * 3;
}

struct seen {
	long tid, switches;
	long long cpu_ns;
};

static struct seen seen[2];

/* The calling thread's id, CPU time and switches, into *s (above). */
static void note_cpu(struct seen *s)
{
	struct timespec c;
	struct rusage ru;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &c);
	getrusage(RUSAGE_THREAD, &ru);
	s->tid = (long)syscall(SYS_gettid);
	s->cpu_ns = (long long)c.tv_sec * 1000000000LL + c.tv_nsec;
	s->switches = ru.ru_nvcsw + ru.ru_nivcsw;
}

static void *heavy_thread(void *arg)
{
	heavy(*(long *)arg);
	note_cpu(&seen[0]);
	return NULL;
}

static void *light_thread(void *arg)
{
	light(*(long *)arg);
	note_cpu(&seen[1]);
	return NULL;
}

int main(int argc, char **argv)
{
	if (argc > 2 && !strcmp(argv[1], "child")) {
		heavy(atol(argv[2]));
		return 0;
	}
	if (argc > 2 && !strcmp(argv[1], "family")) {
		long units = atol(argv[2]);
		pid_t pid = fork();
		if (pid == 0) {
			execl("/proc/self/exe", argv[0], "child", argv[2], (char *)NULL);
			_exit(127);
		}
		light(units);
		int st = 0;
		waitpid(pid, &st, 0);
		printf("%lu\n", sink);
		return WIFEXITED(st) ? WEXITSTATUS(st) : 1;
	}
	long units = argc > 1 ? atol(argv[1]) : 100;
	pthread_t a, b;
	pthread_create(&a, NULL, heavy_thread, &units);
	pthread_create(&b, NULL, light_thread, &units);
	pthread_join(a, NULL);
	pthread_join(b, NULL);
	for (int i = 0; i < 2; i++)
		fprintf(stderr, "thread %ld %lld %ld\n", seen[i].tid, seen[i].cpu_ns, seen[i].switches);
	printf("%lu\n", sink);
	return 0;
}
