/* SPDX-License-Identifier: MIT
 *
 * col_interpose_sigmask.c — the functions that block or wait for signals,
 * interposed so that the program cannot take the sampling signal away: as
 * the Sun collector does for SIGPROF, the clock's signal (col_clock_signal)
 * is taken out of every mask the program blocks, waits for, reads through a
 * signalfd or gives to a spawned child.  Without it a thread that blocks all
 * signals (xz's workers, many servers' worker pools) is never sampled and
 * its CPU time vanishes from the profile.  A mask the program reads back
 * does not have the signal blocked.  Called from any thread of the target.
 *
 * What a program does with a raw rt_sigprocmask system call cannot be
 * interposed: the thread is then found unsampled when it ends
 * (col_thread.c), counted and named.
 */
#include <signal.h>
#include <spawn.h>
#include <sys/signalfd.h>

#include "collector/col_clock.h"
#include "collector/col_init.h"
#include "collector/col_real.h"

/* `set` without the sampling signal: `set` itself, or `copy`. */
static const sigset_t *without_ours(const sigset_t *set, sigset_t *copy)
{
	col_ensure_init();
	int sig = col_clock_signal();

	if (!set || !sig || sigismember(set, sig) != 1)
		return set;
	*copy = *set;
	sigdelset(copy, sig);
	return copy;
}

COL_API int sigprocmask(int how, const sigset_t *set, sigset_t *old)
{
	sigset_t copy;

	if (how != SIG_UNBLOCK)
		set = without_ours(set, &copy);
	return col_real_table()->sigprocmask(how, set, old);
}

COL_API int pthread_sigmask(int how, const sigset_t *set, sigset_t *old)
{
	sigset_t copy;

	if (how != SIG_UNBLOCK)
		set = without_ours(set, &copy);
	return col_real_table()->pthread_sigmask(how, set, old);
}

COL_API int sigsuspend(const sigset_t *mask)
{
	sigset_t copy;

	return col_real_table()->sigsuspend(without_ours(mask, &copy));
}

COL_API int sigwait(const sigset_t *set, int *sig)
{
	sigset_t copy;

	return col_real_table()->sigwait(without_ours(set, &copy), sig);
}

COL_API int sigwaitinfo(const sigset_t *set, siginfo_t *info)
{
	sigset_t copy;

	return col_real_table()->sigwaitinfo(without_ours(set, &copy), info);
}

COL_API int sigtimedwait(const sigset_t *set, siginfo_t *info, const struct timespec *timeout)
{
	sigset_t copy;

	return col_real_table()->sigtimedwait(without_ours(set, &copy), info, timeout);
}

COL_API int signalfd(int fd, const sigset_t *mask, int flags)
{
	sigset_t copy;

	return col_real_table()->signalfd(fd, without_ours(mask, &copy), flags);
}

COL_API int posix_spawnattr_setsigmask(posix_spawnattr_t *attr, const sigset_t *mask)
{
	sigset_t copy;

	return col_real_table()->posix_spawnattr_setsigmask(attr, without_ours(mask, &copy));
}
