/* SPDX-License-Identifier: MIT
 *
 * test_col_stack.c — the initial thread's stack bounds that the collector
 * finds without /proc/self/maps (col_thread_main_stack) are glibc's
 * (pthread_getattr_np, which reads it): in this process, and in a copy of
 * it exec'd under other stack limits (the kernel lays the stack out by the
 * limit); another thread is refused, as is an unlimited stack.
 */
#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "collector/col_thread.h"
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

int main(int argc, char **argv)
{
	if (argc > 1 && !strcmp(argv[1], "--compare"))
		return compare(true);
	RUN(main_stack_is_glibcs);
	RUN(other_limits_are_glibcs);
	RUN(another_thread_is_refused);
	TEST_EXIT();
}
