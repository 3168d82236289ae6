/* SPDX-License-Identifier: MIT
 *
 * col_signal.c — the collector owns its profiling signal (SIGPROF).
 *
 * As the Sun collector does, we interpose sigaction() and the signal()
 * family: while collecting, the kernel-level handler for SIGPROF stays ours,
 * and what the target installs is remembered as its disposition.  A SIGPROF
 * that is not from our clock (the target's own setitimer or timer_create) is
 * passed on to that disposition, so the target keeps working and is still
 * profiled.  Called from the target's threads and from our signal handler.
 */
#include <errno.h>
#include <signal.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "collector/col_internal.h"

static struct sigaction user_act;       /* the target's SIGPROF disposition */
static _Atomic int owned;               /* our handler is installed */

int col_sigaction_real(int sig, const struct sigaction *act, struct sigaction *old)
{
	static int (*real)(int, const struct sigaction *, struct sigaction *);
	if (!real)
		real = col_real("sigaction");
	return real(sig, act, old);
}

void col_signal_take(const struct sigaction *prev)
{
	user_act = *prev;
	atomic_store(&owned, 1);
}

void col_signal_forward(int sig, siginfo_t *si, void *uc)
{
	struct sigaction a = user_act;

	if (a.sa_flags & SA_RESETHAND) {
		memset(&user_act, 0, sizeof(user_act));
		user_act.sa_handler = SIG_DFL;
	}
	if (a.sa_flags & SA_SIGINFO) {
		if (a.sa_sigaction)
			a.sa_sigaction(sig, si, uc);
		return;
	}
	if (a.sa_handler == SIG_IGN)
		return;
	if (a.sa_handler == SIG_DFL) {
		/* SIGPROF's default action ends the process: do what the
		 * kernel would have done without us. */
		struct sigaction dfl;
		sigset_t set;
		memset(&dfl, 0, sizeof(dfl));
		dfl.sa_handler = SIG_DFL;
		col_sigaction_real(sig, &dfl, NULL);
		sigemptyset(&set);
		sigaddset(&set, sig);
		sigprocmask(SIG_UNBLOCK, &set, NULL);
		syscall(SYS_tgkill, getpid(), syscall(SYS_gettid), sig);
		return;
	}
	a.sa_handler(sig);
}

COL_API int sigaction(int sig, const struct sigaction *act, struct sigaction *old)
{
	col_ensure_init();
	if (sig != COL_SIGNAL || !atomic_load(&owned))
		return col_sigaction_real(sig, act, old);
	if (old)
		*old = user_act;
	if (act)
		user_act = *act;
	return 0;
}

static sighandler_t set_handler(int sig, sighandler_t h, int flags, const char *real_name)
{
	col_ensure_init();
	if (sig != COL_SIGNAL || !atomic_load(&owned)) {
		sighandler_t (*real)(int, sighandler_t) = col_real(real_name);
		if (!real) {
			errno = ENOSYS;
			return SIG_ERR;
		}
		return real(sig, h);
	}
	sighandler_t old = (user_act.sa_flags & SA_SIGINFO)
				   ? (sighandler_t)(void (*)(void))user_act.sa_sigaction
				   : user_act.sa_handler;
	memset(&user_act, 0, sizeof(user_act));
	user_act.sa_handler = h;
	user_act.sa_flags = flags;
	return old;
}

COL_API sighandler_t signal(int sig, sighandler_t h)
{
	return set_handler(sig, h, SA_RESTART, "signal");
}

sighandler_t bsd_signal(int sig, sighandler_t h);   /* not declared by <signal.h> */
COL_API sighandler_t bsd_signal(int sig, sighandler_t h)
{
	return set_handler(sig, h, SA_RESTART, "bsd_signal");
}

COL_API sighandler_t sysv_signal(int sig, sighandler_t h)
{
	return set_handler(sig, h, SA_RESETHAND | SA_NODEFER, "sysv_signal");
}
