/* lifereuse.c — two thread lives on one thread id, for the critical path
 * keyed by a thread's life, not its id (issue 25; exp_thread_lives.c).
 * main makes a first worker that spins FIRST_MS ms of its CPU in
 * first_life() and naps NAP_MS ms, and joins it; then starts SPINNERS
 * threads spinning beside what follows (they steal the CPU); then makes a
 * second worker with the first's thread id (ns_last_pid, writable in a pid
 * namespace of one's own: unshare -Urpf --mount-proc), which spins
 * SECOND_MS ms of its CPU in second_life(), joins it and exits (the
 * spinners are not joined: they would end the path).  A second worker
 * that did not get the id (another task of the namespace took it) does no
 * work, and main tries again, up to 8 times, then with a new first worker
 * (up to 4 first workers; the first that got its id twice is measured).  The two lives differ in how
 * their wall time stands to their CPU: the first is short and alone, the
 * second waits for a CPU beside the spinners.
 * It prints
 *   tids FIRST SECOND
 *   tried TID...            (each second worker's id, the last one kept)
 *   second_wall NS second_delay NS second_out_delay NS
 * (second_life()'s wall time, its wait for a CPU inside it (the kernel's
 * run delay), and the second worker's wait for a CPU outside it, from its
 * birth); exit 3 if ns_last_pid cannot be set.
 * usage: lifereuse SPINNERS FIRST_MS NAP_MS SECOND_MS */
#define _GNU_SOURCE
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "mono_clock.h"
#include "run_delay.h"
#include "spin_ms.h"

#define NOIPA __attribute__((noinline, noipa))

static double first_ms, second_ms;
static int nap_ms;
static pid_t want_tid;                 /* the second worker works only with this id */
static long long second_wall, second_delay, second_out_delay;
NOIPA void first_life(void) { spin(first_ms); sink++; }
NOIPA void second_life(void) { spin(second_ms); sink++; }

static void *first(void *arg)
{
	*(pid_t *)arg = (pid_t)syscall(SYS_gettid);
	first_life();
	sleep_ms(nap_ms);
	return NULL;
}

static void *second(void *arg)
{
	*(pid_t *)arg = (pid_t)syscall(SYS_gettid);
	if (*(pid_t *)arg != want_tid)
		return NULL;
	long long born = run_delay_ns(), t0 = now();
	second_life();
	long long d1 = run_delay_ns();
	second_wall = now() - t0;
	second_delay = d1 - born;      /* the first read is the wait from birth to here */
	second_out_delay = born;       /* ... which is outside second_life() */
	return NULL;
}

static void *spinner(void *arg)
{
	for (;;)
		sink++;
	return arg;
}

/* Set the pid namespace's last pid: the next thread made gets `last`+1. */
static int set_last_pid(long last)
{
	char buf[32];
	int fd = open("/proc/sys/kernel/ns_last_pid", O_WRONLY);
	int n = snprintf(buf, sizeof(buf), "%ld", last);
	int ok = fd >= 0 && write(fd, buf, (size_t)n) == n;

	if (fd >= 0)
		close(fd);
	return ok ? 0 : -1;
}

int main(int argc, char **argv)
{
	if (argc != 5 || atoi(argv[1]) < 0 || atoi(argv[1]) > 8)
		return fprintf(stderr, "usage: lifereuse SPINNERS FIRST_MS NAP_MS SECOND_MS\n"), 2;
	int spinners = atoi(argv[1]);
	first_ms = atof(argv[2]);
	nap_ms = atoi(argv[3]);
	second_ms = atof(argv[4]);
	pthread_t t, s;
	pid_t tid1 = 0, tid2 = 0;

	char got[64 * 12] = "";
	int at = 0;
	/* An id may stay taken (the kernel gave the second worker the next
	 * one 20 times running, in 1 of 8 runs): then a new first life. */
	for (int lives = 0; lives < 4 && (!tid1 || tid2 != tid1); lives++) {
		/* ids from 100 up, below which the start's tasks are */
		if (!lives && set_last_pid(99) != 0) {
			perror("lifereuse: ns_last_pid");
			return 3;
		}
		if (pthread_create(&t, NULL, first, &tid1) || pthread_join(t, NULL))
			return 2;
		/* The kernel wakes a join before it releases the id
		 * (release_task, after exit_notify): free once no signal
		 * reaches the thread by it. */
		while (syscall(SYS_tgkill, getpid(), tid1, 0) == 0)
			sched_yield();
		for (int i = 0; !lives && i < spinners; i++)
			if (pthread_create(&s, NULL, spinner, NULL))
				return 2;
		want_tid = tid1;
		for (int tries = 0; tries < 8 && tid2 != tid1; tries++) {
			if (set_last_pid(tid1 - 1) != 0) {
				perror("lifereuse: ns_last_pid");
				return 3;
			}
			if (pthread_create(&t, NULL, second, &tid2) || pthread_join(t, NULL))
				return 2;
			at += snprintf(got + at, sizeof(got) - (size_t)at, " %d", (int)tid2);
			while (tid2 != tid1 && syscall(SYS_tgkill, getpid(), tid2, 0) == 0)
				sched_yield();
			if (tid2 != tid1)      /* the first's id not free yet: a moment */
				sleep_ms(2);
		}
	}
	/* The spinners are not joined: the path ends in the second worker. */
	printf("tids %d %d\ntried%s\nsecond_wall %lld second_delay %lld second_out_delay %lld\n", (int)tid1, (int)tid2, got,
	       second_wall, second_delay, second_out_delay);
	return 0;
}
