/* SPDX-License-Identifier: MIT
 *
 * test_col_stack.c — the initial thread's stack bounds that the collector
 * finds without /proc/self/maps (col_thread_main_stack, col_threadstack.c) are glibc's
 * (pthread_getattr_np, which reads it): in this process, and in a copy of
 * it exec'd under other stack limits (the kernel lays the stack out by the
 * limit); another thread is refused, as is an unlimited stack.  Another
 * thread's stack, read from its thread descriptor without malloc
 * (col_thread_pthread_stack), is glibc's too: under default and chosen
 * stack and guard sizes, on stacks glibc reuses, in a fork child of a
 * thread, and on a caller's own stack (or declined there); the initial
 * thread, whose descriptor has no stack block, is declined.
 */
#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "collector/col_threadstack.h"
#include "testhelp.h"

/* 0 when ours and glibc's agree (or ours declines an unlimited stack),
 * 1 when they differ, 2 when ours declined a finite one. */
static int compare(bool verbose)
{
	uint64_t lo = 0, hi = 0;
	pthread_attr_t attr;
	void *addr;
	size_t size;
	struct rlimit rl;

	getrlimit(RLIMIT_STACK, &rl);
	bool ours = col_thread_main_stack(&lo, &hi);
	if (!ours)
		return rl.rlim_cur == RLIM_INFINITY ? 0 : 2;
	if (pthread_getattr_np(pthread_self(), &attr) != 0 || pthread_attr_getstack(&attr, &addr, &size) != 0)
		return 1;
	pthread_attr_destroy(&attr);
	uint64_t glo = (uint64_t)(uintptr_t)addr, ghi = glo + size;
	if (verbose && (lo != glo || hi != ghi))
		printf("  ours [%#llx, %#llx), glibc's [%#llx, %#llx)\n", (unsigned long long)lo,
		       (unsigned long long)hi, (unsigned long long)glo, (unsigned long long)ghi);
	return lo == glo && hi == ghi ? 0 : 1;
}

static void main_stack_is_glibcs(void)
{
	struct rlimit rl;

	getrlimit(RLIMIT_STACK, &rl);
	if (rl.rlim_cur == RLIM_INFINITY || rl.rlim_cur > (1ull << 30))
		SKIP("the stack limit is unlimited or over 1 GiB: glibc is asked instead");
	CHECK(compare(true) == 0);
}

/* This test program exec'd again under `limit` bytes of stack (0:
 * unlimited): its exit status is compare()'s. */
static int under_limit(rlim_t limit)
{
	pid_t pid = fork();

	if (pid == 0) {
		struct rlimit rl;
		getrlimit(RLIMIT_STACK, &rl);
		rl.rlim_cur = limit ? limit : RLIM_INFINITY;
		if (rl.rlim_max != RLIM_INFINITY && (rl.rlim_cur == RLIM_INFINITY || rl.rlim_cur > rl.rlim_max))
			_exit(3);
		setrlimit(RLIMIT_STACK, &rl);
		execl("/proc/self/exe", "test_col_stack", "--compare", (char *)NULL);
		_exit(4);
	}
	int st = 0;
	if (pid < 0 || waitpid(pid, &st, 0) != pid || !WIFEXITED(st))
		return -1;
	return WEXITSTATUS(st);
}

static void other_limits_are_glibcs(void)
{
	static const rlim_t limits[] = { 256 << 10, 2 << 20, 16 << 20, 100 << 20, 0 };
	int skipped = 0;

	for (size_t i = 0; i < sizeof(limits) / sizeof(limits[0]); i++) {
		int rc = under_limit(limits[i]);
		skipped += rc == 3;
		CHECKF(rc == 0 || rc == 3, "stack limit %llu: status %d (1: differs, 2: declined)",
		       (unsigned long long)limits[i], rc);
	}
	if (skipped == (int)(sizeof(limits) / sizeof(limits[0])))
		SKIP("the hard stack limit allows none of the limits tried");
}

static void *on_thread(void *arg)
{
	uint64_t lo, hi;

	*(bool *)arg = col_thread_main_stack(&lo, &hi);
	return NULL;
}

static void another_thread_is_refused(void)
{
	pthread_t th;
	bool got = true;

	CHECK(pthread_create(&th, NULL, on_thread, &got) == 0);
	pthread_join(th, NULL);
	CHECK(!got);
}

/* What the calling thread's pthread_getattr_np and ours say: 0 when they
 * agree, 1 when they differ, 2 when ours declined. */
static int compare_thread(bool verbose)
{
	uint64_t lo = 0, hi = 0;
	pthread_attr_t attr;
	void *addr;
	size_t size;

	bool ours = col_thread_pthread_stack(&lo, &hi);
	if (pthread_getattr_np(pthread_self(), &attr) != 0 || pthread_attr_getstack(&attr, &addr, &size) != 0)
		return 1;
	pthread_attr_destroy(&attr);
	if (!ours)
		return 2;
	uint64_t glo = (uint64_t)(uintptr_t)addr, ghi = glo + size;
	if (verbose && (lo != glo || hi != ghi))
		printf("  ours [%#llx, %#llx), glibc's [%#llx, %#llx)\n", (unsigned long long)lo,
		       (unsigned long long)hi, (unsigned long long)glo, (unsigned long long)ghi);
	return lo == glo && hi == ghi ? 0 : 1;
}

static void *compare_on_thread(void *arg)
{
	*(int *)arg = compare_thread(true);
	return NULL;
}

/* compare_thread() on a new thread made with attr (NULL: the default). */
static int thread_compares(const pthread_attr_t *attr)
{
	pthread_t th;
	int rc = -1;

	if (pthread_create(&th, attr, compare_on_thread, &rc) != 0)
		return -1;
	pthread_join(th, NULL);
	return rc;
}

static void thread_stack_is_glibcs(void)
{
	static const size_t sizes[] = { 64 << 10, 1 << 20, 3 << 20 };
	static const size_t guards[] = { 0, 4096, 3 * 4096, 100000 };
	pthread_attr_t attr;

	CHECKF(thread_compares(NULL) == 0, "default attributes: %d (1: differs, 2: declined)", thread_compares(NULL));
	for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++)
		for (size_t j = 0; j < sizeof(guards) / sizeof(guards[0]); j++) {
			pthread_attr_init(&attr);
			pthread_attr_setstacksize(&attr, sizes[i]);
			pthread_attr_setguardsize(&attr, guards[j]);
			int rc = thread_compares(&attr);
			CHECKF(rc == 0, "stack %zu, guard %zu: %d (1: differs, 2: declined)", sizes[i], guards[j], rc);
			pthread_attr_destroy(&attr);
		}
}

/* Threads one after another take the stack the one before left (glibc's
 * stack cache), and several at once take several. */
static void *compare_twice(void *arg)
{
	*(int *)arg = compare_thread(true) | compare_thread(true);
	return NULL;
}

static void reused_stacks_are_glibcs(void)
{
	pthread_t th[8];
	int rc[8];

	for (int round = 0; round < 20; round++) {
		for (int i = 0; i < 8; i++) {
			rc[i] = -1;
			CHECK(pthread_create(&th[i], NULL, compare_twice, &rc[i]) == 0);
		}
		for (int i = 0; i < 8; i++) {
			pthread_join(th[i], NULL);
			CHECKF(rc[i] == 0, "round %d thread %d: %d", round, i, rc[i]);
		}
	}
}

/* A thread's fork child runs on the thread's stack, its descriptor copied. */
static void *fork_and_compare(void *arg)
{
	pid_t pid = fork();

	if (pid == 0)
		_exit(compare_thread(true));
	int st = 0;
	*(int *)arg = pid > 0 && waitpid(pid, &st, 0) == pid && WIFEXITED(st) ? WEXITSTATUS(st) : -1;
	return NULL;
}

static void thread_fork_child_is_glibcs(void)
{
	pthread_t th;
	int rc = -1;

	CHECK(pthread_create(&th, NULL, fork_and_compare, &rc) == 0);
	pthread_join(th, NULL);
	CHECKF(rc == 0, "%d (1: differs, 2: declined)", rc);
}

/* A caller's own stack (pthread_attr_setstack): glibc's block is exactly
 * it, page aligned or not; ours is that or declines (then the collector
 * reads the maps), never another. */
static void own_stacks_are_glibcs_or_declined(void)
{
	const size_t len = 1 << 20;
	char *mem = mmap(NULL, len + 8192, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	static const size_t skews[] = { 0, 64, 1000, 2048, 3000, 4032 };
	pthread_attr_t attr;
	int agreed = 0;

	CHECK(mem != MAP_FAILED);
	for (size_t i = 0; i < sizeof(skews) / sizeof(skews[0]); i++) {
		pthread_attr_init(&attr);
		pthread_attr_setstack(&attr, mem + skews[i], len);
		int rc = thread_compares(&attr);
		CHECKF(rc == 0 || rc == 2, "stack at +%zu: %d (1: differs)", skews[i], rc);
		agreed += rc == 0;
		pthread_attr_destroy(&attr);
	}
	CHECKF(agreed > 0, "declined every caller's stack");
	munmap(mem, len + 8192);
}

static void initial_thread_is_declined(void)
{
	uint64_t lo = 0, hi = 0;

	CHECK(!col_thread_pthread_stack(&lo, &hi));
	CHECK(lo == 0 && hi == 0);
}

int main(int argc, char **argv)
{
	if (argc > 1 && !strcmp(argv[1], "--compare"))
		return compare(true);
	RUN(main_stack_is_glibcs);
	RUN(other_limits_are_glibcs);
	RUN(another_thread_is_refused);
	RUN(thread_stack_is_glibcs);
	RUN(reused_stacks_are_glibcs);
	RUN(thread_fork_child_is_glibcs);
	RUN(own_stacks_are_glibcs_or_declined);
	RUN(initial_thread_is_declined);
	TEST_EXIT();
}
