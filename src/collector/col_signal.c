/* SPDX-License-Identifier: MIT
 *
 * col_signal.c — the collector owns its profiling signals (SIGTRAP from
 * perf's sigtrap events, SIGPROF from the fallbacks).
 *
 * As the Sun collector does, we interpose sigaction() and the signal()
 * family: while collecting, the kernel-level handlers of our signals stay
 * ours, and what the target installs is remembered as its disposition.  A
 * signal that is not from our clock (the target's own setitimer or
 * timer_create, a breakpoint's SIGTRAP) is passed on to that disposition, so
 * the target keeps working and is still profiled.  Called from the target's
 * threads and from our signal handler.
 */
#include <errno.h>
#include <signal.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "collector/col_internal.h"

static struct sigaction user_act[NSIG];   /* the target's dispositions */
static _Atomic int owned[NSIG];            /* our handler is installed */

static bool ours(int sig)
{
	return sig > 0 && sig < NSIG && atomic_load(&owned[sig]);
}

int col_sigaction_real(int sig, const struct sigaction *act, struct sigaction *old)
{
	static int (*real)(int, const struct sigaction *, struct sigaction *);
	if (!real)
		real = col_real("sigaction");
	return real(sig, act, old);
}

void col_signal_take(int sig, const struct sigaction *prev)
{
	user_act[sig] = *prev;
	atomic_store(&owned[sig], 1);
}

void col_signal_forward(int sig, siginfo_t *si, void *uc)
{
	struct sigaction a = user_act[sig];

	if (a.sa_flags & SA_RESETHAND) {
		memset(&user_act[sig], 0, sizeof(user_act[sig]));
		user_act[sig].sa_handler = SIG_DFL;
	}
	if (a.sa_flags & SA_SIGINFO) {
		if (a.sa_sigaction)
			a.sa_sigaction(sig, si, uc);
		return;
	}
	if (a.sa_handler == SIG_IGN)
		return;
	if (a.sa_handler == SIG_DFL) {
		/* The default action of SIGPROF and SIGTRAP ends the
		 * process: do what the kernel would have done without us. */
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
	if (!ours(sig))
		return col_sigaction_real(sig, act, old);
	if (old)
		*old = user_act[sig];
	if (act)
		user_act[sig] = *act;
	return 0;
}

static sighandler_t set_handler(int sig, sighandler_t h, int flags, const char *real_name)
{
	col_ensure_init();
	if (!ours(sig)) {
		sighandler_t (*real)(int, sighandler_t) = col_real(real_name);
		if (!real) {
			errno = ENOSYS;
			return SIG_ERR;
		}
		return real(sig, h);
	}
	struct sigaction *u = &user_act[sig];
	sighandler_t old = (u->sa_flags & SA_SIGINFO) ? (sighandler_t)(void (*)(void))u->sa_sigaction
						       : u->sa_handler;
	memset(u, 0, sizeof(*u));
	u->sa_handler = h;
	u->sa_flags = flags;
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
