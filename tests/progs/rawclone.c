/* rawclone.c — a thread made with the clone system call itself (no
 * pthread_create: the collector's interposer never sees it) burns SECONDS of
 * CPU while main burns half as much; main waits for it.
 * With `loop N`: main makes N such threads one after another, each burning
 * a few microseconds, and waits for each (CLONE_CHILD_CLEARTID and a futex,
 * as pthread_join does), burning some CPU itself between them; it prints
 * "main cpu S" (its own CPU clock) at the end.
 * With `asm S`: the thread is made by the clone system call in inline
 * assembly (no glibc clone(), which the collector interposes: as a runtime
 * of its own, Go's without cgo, makes threads), no TLS of its own.
 * With `asmloop N MS`: main makes N such threads one after another, each
 * burning MS ms of its CPU, and waits for each (CLONE_CHILD_CLEARTID), as
 * much CPU of its own between them; it prints "threads cpu S" (the
 * threads' CPU, each measured by its own clock) and "main cpu S".
 * With `asmreuse N MS`: as asmloop, but each thread after the first is
 * given its predecessor's thread id (ns_last_pid, writable in a pid
 * namespace of one's own: unshare -Urpf --mount-proc), and main works
 * none between them; it prints "tids T1 T2 ...", "same tid K of N (tid T1)"
 * (how many threads had the first's id: another task of the namespace may
 * take it between the write and the clone) and "threads cpu S"; exit 3 if
 * ns_last_pid cannot be set.
 * usage: rawclone S | rawclone loop N | rawclone asm S | rawclone asmloop N MS |
 *        rawclone asmreuse N MS */
#define _GNU_SOURCE
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <linux/futex.h>
#include <unistd.h>

#include "burn_cpu.h"

/* The threads' stack: STACK_BYTES with a guard page above it, each thread
 * started TOP_SLACK below its top.  A thread's first function has no
 * caller's frame above it, yet glibc's syscall() reads a seventh argument
 * from its caller's frame (8(%rsp)): called as a tail call from the first
 * function (asm_child, asm_short_child), at the very top that read fell
 * one word past the mapping, harmless only while something happened to be
 * mapped there (a bare run with this guard page and no slack: SIGSEGV in
 * every run; under tally, whose mappings come and go, 2 runs in 50). */
#define STACK_BYTES (1 << 20)
#define TOP_SLACK 64

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

static volatile int child_tid;

static int short_child(void *arg)
{
	(void)arg;
	for (int i = 0; i < 20000; i++)
		burn_sink = burn_sink * 6364136223846793005ul + 1;
	syscall(SYS_exit, 0);
	return 0;
}

/* Make and join n short raw threads, working between them. */
static int loop(long n, char *stack, size_t size)
{
	struct timespec t;

	for (long i = 0; i < n; i++) {
		for (int k = 0; k < 20000; k++)
			burn_sink = burn_sink * 6364136223846793005ul + 1;
		child_tid = 1;
		if (clone(short_child, stack + size, CLONE_VM | CLONE_FS | CLONE_FILES | CLONE_SIGHAND |
			  CLONE_THREAD | CLONE_SYSVSEM | CLONE_CHILD_CLEARTID | CLONE_CHILD_SETTID,
			  NULL, NULL, NULL, &child_tid) < 0)
			return 2;
		for (int v; (v = child_tid) != 0;)
			syscall(SYS_futex, &child_tid, FUTEX_WAIT, v, NULL, NULL, 0);
	}
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
	printf("main cpu %.3f\n", (double)t.tv_sec + (double)t.tv_nsec / 1e9);
	return 0;
}

/* The child of asm_clone: child() on the new stack, then exit. */
static void asm_child(void)
{
	child(NULL);
}

static volatile long threads_cpu_ns;    /* asmloop: the threads' CPU, each by its own clock */

/* asmloop's child: `seconds` of its CPU, counted, then exit. */
static void asm_short_child(void)
{
	struct timespec t;

	raw_work(seconds);
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
	__atomic_add_fetch(&threads_cpu_ns, t.tv_sec * 1000000000l + t.tv_nsec, __ATOMIC_RELAXED);
	syscall(SYS_exit, 0);
}

/* A CLONE_THREAD task made by the system call itself, running fn on the
 * stack that ends at `top` (x86-64); with ctid, the kernel clears *ctid
 * when it exits (CLONE_CHILD_CLEARTID). */
static long asm_clone(char *top, void (*fn)(void), volatile int *ctid)
{
	long flags = CLONE_VM | CLONE_FS | CLONE_FILES | CLONE_SIGHAND | CLONE_THREAD | CLONE_SYSVSEM |
		     (ctid ? CLONE_CHILD_CLEARTID | CLONE_CHILD_SETTID : 0);
	void **sp = (void **)top;
	*--sp = (void *)fn;
	*--sp = 0;
	long ret;
	register long r10 asm("r10") = (long)ctid;
	register long r8 asm("r8") = 0;
	asm volatile("syscall\n\t"
		     "test %%rax, %%rax\n\t"
		     "jnz 1f\n\t"
		     "pop %%rax\n\t"
		     "pop %%rax\n\t"
		     "call *%%rax\n\t"
		     "1:"
		     : "=a"(ret)
		     : "0"((long)SYS_clone), "D"(flags), "S"(sp), "d"(0L), "r"(r10), "r"(r8)
		     : "rcx", "r11", "memory");
	return ret;
}

static __attribute__((noinline)) void main_work(double s)
{
	raw_work(s);
}

/* Make and join n raw threads of `ms` ms of CPU each, by inline assembly,
 * as much work of main's between them. */
static int asm_loop(long n, double ms, char *stack, size_t size)
{
	struct timespec t;

	seconds = ms / 1000;
	for (long i = 0; i < n; i++) {
		main_work(seconds);
		child_tid = 1;
		if (asm_clone(stack + size, asm_short_child, &child_tid) < 0)
			return 2;
		for (int v; (v = child_tid) != 0;)
			syscall(SYS_futex, &child_tid, FUTEX_WAIT, v, NULL, NULL, 0);
	}
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
	printf("threads cpu %.3f\nmain cpu %.3f\n", threads_cpu_ns / 1e9,
	       (double)t.tv_sec + (double)t.tv_nsec / 1e9);
	return 0;
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

/* Make and join n raw threads of `ms` ms of CPU each, one after another,
 * each with the first's thread id. */
static int asm_reuse(long n, double ms, char *stack, size_t size)
{
	long first = 0, same = 0;

	seconds = ms / 1000;
	for (long i = 0; i < n; i++) {
		if (first && set_last_pid(first - 1) != 0) {
			perror("rawclone: ns_last_pid");
			return 3;
		}
		child_tid = 1;
		long tid = asm_clone(stack + size, asm_short_child, &child_tid);
		if (tid < 0)
			return 2;
		if (!first)
			first = tid;
		same += tid == first;
		for (int v; (v = child_tid) != 0;)
			syscall(SYS_futex, &child_tid, FUTEX_WAIT, v, NULL, NULL, 0);
		/* The kernel clears child_tid as the thread exits, before it
		 * releases the id (release_task, after exit_notify): the id
		 * is free once no signal can reach the thread by it. */
		while (syscall(SYS_tgkill, getpid(), tid, 0) == 0)
			sched_yield();
		printf("%s%ld", i ? " " : "tids ", tid);
	}
	printf("\nsame tid %ld of %ld (tid %ld)\nthreads cpu %.3f\n", same, n, first, threads_cpu_ns / 1e9);
	return 0;
}

int main(int argc, char **argv)
{
	seconds = argc > 1 ? atof(argv[1]) : 0.6;
	long page = sysconf(_SC_PAGESIZE);
	char *stack = mmap(NULL, STACK_BYTES + (size_t)page, PROT_READ | PROT_WRITE,
			   MAP_PRIVATE | MAP_ANONYMOUS | MAP_STACK, -1, 0);
	if (stack == MAP_FAILED || mprotect(stack + STACK_BYTES, (size_t)page, PROT_NONE) != 0)
		return 2;
	size_t size = STACK_BYTES - TOP_SLACK;     /* each thread starts at stack + size */
	if (argc > 2 && !strcmp(argv[1], "loop"))
		return loop(atol(argv[2]), stack, size);
	if (argc > 3 && !strcmp(argv[1], "asmloop"))
		return asm_loop(atol(argv[2]), atof(argv[3]), stack, size);
	if (argc > 3 && !strcmp(argv[1], "asmreuse"))
		return asm_reuse(atol(argv[2]), atof(argv[3]), stack, size);
	if (argc > 2 && !strcmp(argv[1], "asm")) {
		seconds = atof(argv[2]);
		if (asm_clone(stack + size, asm_child, NULL) < 0)
			return 2;
	} else if (clone(child, stack + size, CLONE_VM | CLONE_FS | CLONE_FILES | CLONE_SIGHAND | CLONE_THREAD |
		  CLONE_SYSVSEM, NULL) < 0)
		return 2;
	main_work(seconds / 2);
	while (!done)
		sched_yield();
	return 0;
}
