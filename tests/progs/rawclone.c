/* rawclone.c — a thread made with the clone system call itself (no
 * pthread_create: the collector's interposer never sees it) burns SECONDS of
 * CPU while main burns half as much; main waits for it.  usage: rawclone S */
#define _GNU_SOURCE
#include <sched.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <linux/futex.h>
#include <unistd.h>

#include "burn_cpu.h"

static double seconds;
static volatile int done;

static __attribute__((noinline)) void raw_work(double s)
{
	struct timespec t0, t;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t0);
	do {
		for (int i = 0; i < 100000; i++)
			burn_sink = burn_sink * 6364136223846793005ul + 1;
		clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
	} while ((double)(t.tv_sec - t0.tv_sec) + (double)(t.tv_nsec - t0.tv_nsec) / 1e9 < s);
}

static int child(void *arg)
{
	(void)arg;
	raw_work(seconds);
	done = 1;
	syscall(SYS_exit, 0);
	return 0;
}

static __attribute__((noinline)) void main_work(double s)
{
	raw_work(s);
}

int main(int argc, char **argv)
{
	seconds = argc > 1 ? atof(argv[1]) : 0.6;
	size_t size = 1 << 20;
	char *stack = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_STACK, -1, 0);
	if (stack == MAP_FAILED)
		return 2;
	if (clone(child, stack + size, CLONE_VM | CLONE_FS | CLONE_FILES | CLONE_SIGHAND | CLONE_THREAD |
		  CLONE_SYSVSEM, NULL) < 0)
		return 2;
	main_work(seconds / 2);
	while (!done)
		sched_yield();
	return 0;
}
