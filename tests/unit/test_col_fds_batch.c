/* SPDX-License-Identifier: MIT
 *
 * test_col_fds_batch.c — a thread start's batch of descriptors
 * (col_fds_batch_begin/end) that holds one number twice: set-up code kept a
 * descriptor, gave it up (closed, forgotten: drop_counter after a failed
 * enable or ring map) and opened another, which took the same lowest free
 * number.  Before, the end moved the number for its first entry, forgot it,
 * and then stored through the second entry's owner, NULL by then, with
 * every signal blocked: SIGSEGV killed the program.  Now the end moves each
 * number once, and its owner (the one that kept it last) sees the copy
 * above the program's soft limit.
 */
#include <fcntl.h>
#include <sched.h>
#include <stdatomic.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "collector/col_fds.h"
#include "collector/col_real.h"
#include "collector/col_state.h"
#include "testhelp.h"

extern int __clone(int (*fn)(void *), void *stack, int flags, void *arg, ...);

static int open_null(void *arg)
{
	(void)arg;
	return open("/dev/null", O_RDONLY | O_CLOEXEC);
}

/* A number above the soft limit is out of the program's way. */
static void batch_with_a_number_twice(void)
{
	struct rlimit rl;

	if (getrlimit(RLIMIT_NOFILE, &rl) != 0 || rl.rlim_max == RLIM_INFINITY || rl.rlim_max < 512) {
		SKIP("no hard descriptor limit of 512 or more to copy above the soft one");
		return;
	}
	rl.rlim_cur = 256;                      /* room above it for the copies */
	CHECK(setrlimit(RLIMIT_NOFILE, &rl) == 0);
	/* libc's clone under its other name: this binary links the collector's
	 * own `clone` interposer, which calls col_real.clone (itself, were it
	 * given here: the sanitized build recursed until its stack ran out). */
	col_real.clone = __clone;
	atomic_store(&col_proc.threaded, true);

	struct col_fds_batch b;
	int first = -1, second = -1;

	col_fds_batch_begin(&b);
	first = col_fd_open_above(open_null, NULL);
	CHECK(first >= 0);
	col_fd_keep(first, &first, NULL);
	int given_up = first;
	col_fd_forget(first);                   /* drop_counter's way */
	close(first);
	first = -1;
	second = col_fd_open_above(open_null, NULL);
	CHECKF(second == given_up, "the second open took %d, not the freed %d", second, given_up);
	col_fd_keep(second, &second, NULL);
	CHECK(atomic_load(&b.n) == 2);
	col_fds_batch_end(&b);                  /* before: SIGSEGV here */

	CHECKF(second >= (int)rl.rlim_cur, "the kept one is at %d, not above the limit %d", second,
	       (int)rl.rlim_cur);
	CHECK(col_fd_ours(second));
	CHECK(!col_fd_ours(given_up));
	CHECK(syscall(SYS_fcntl, given_up, F_GETFD) < 0);  /* the low number is the program's again */
	CHECK(syscall(SYS_fcntl, second, F_GETFD) >= 0); /* past our fcntl, which hides ours */
	CHECKF(col_fd_count() == 1, "%d descriptors ours, not 1 (a copy leaked or lost)", col_fd_count());
}

int main(void)
{
	RUN(batch_with_a_number_twice);
	return th_failed_cases != 0;
}
