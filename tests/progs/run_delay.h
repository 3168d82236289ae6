/* run_delay.h — the calling thread's time spent runnable but waiting for a
 * CPU (the kernel's run_delay, /proc/thread-self/schedstat), in ns; 0 if it
 * cannot be read.  For the test programs that measure their own waits and
 * must tell a lock wait from a loaded machine's preemption.
 *
 * run_delay_ns() alone is read apart from the program's clocks: a wait
 * that ends between the two reads (a preemption at the exit of the read's
 * own open, 4 ms at load 13) counts in the run delay and not in the wall
 * time, or the reverse.  run_delay_stamp() reads the clocks between two
 * run-delay reads that agree, so each wait falls on one side of them. */
#ifndef TALLY_TESTS_RUN_DELAY_H
#define TALLY_TESTS_RUN_DELAY_H
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

__attribute__((unused)) static long long run_delay_ns(void)
{
	long long cpu = 0, delay = 0;
	FILE *f = fopen("/proc/thread-self/schedstat", "r");

	if (f) {
		if (fscanf(f, "%lld %lld", &cpu, &delay) != 2)
			delay = 0;
		fclose(f);
	}
	return delay;
}

/* The run delay by a descriptor the thread keeps open (its own schedstat:
 * /proc/thread-self names the thread that opened it); -1 if unreadable. */
static long long run_delay_kept_ns(void)
{
	static __thread int fd = -1;
	char buf[128];

	if (fd < 0)
		fd = open("/proc/thread-self/schedstat", O_RDONLY | O_CLOEXEC);
	ssize_t n = fd < 0 ? -1 : pread(fd, buf, sizeof(buf) - 1, 0);
	if (n <= 0)
		return -1;
	buf[n] = 0;
	char *p = strchr(buf, ' ');
	return p ? strtoll(p + 1, NULL, 10) : -1;
}

/* The run delay as of the moment *wall_ns (CLOCK_MONOTONIC) and *cpu_ns
 * (the thread's CPU clock) are read: they are read between two run-delay
 * reads that agree, so no wait for a CPU ended in between.  A phase from
 * one stamp to the next has in its run delay exactly the waits inside its
 * wall time.  Tries 1,000 times, then keeps the last (under any load a
 * few tries do). */
__attribute__((unused)) static long long run_delay_stamp(long long *wall_ns, long long *cpu_ns)
{
	long long before = run_delay_kept_ns(), after = before;
	struct timespec w, c;

	for (int i = 0; i < 1000; i++) {
		clock_gettime(CLOCK_MONOTONIC, &w);
		clock_gettime(CLOCK_THREAD_CPUTIME_ID, &c);
		after = run_delay_kept_ns();
		if (after == before)
			break;
		before = after;
	}
	*wall_ns = w.tv_sec * 1000000000LL + w.tv_nsec;
	*cpu_ns = c.tv_sec * 1000000000LL + c.tv_nsec;
	return after < 0 ? 0 : after;
}
#endif
