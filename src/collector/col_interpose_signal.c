/* SPDX-License-Identifier: MIT
 *
 * col_interpose_signal.c — sigaction(), signal(), bsd_signal() and
 * sysv_signal(), interposed: for a signal the collector owns
 * (col_signal.h), the target's calls read and change its remembered
 * disposition while our handler stays installed; other signals go to the
 * real functions.  Called from any thread of the target.
 */
#include <errno.h>
#include <signal.h>
#include <string.h>

#include "collector/col_control.h"
#include "collector/col_glibc.h"
#include "collector/col_init.h"
#include "collector/col_real.h"
#include "collector/col_signal.h"

COL_API int sigaction(int sig, const struct sigaction *act, struct sigaction *old)
{
	col_ensure_init();
	if (!col_signal_owned(sig)) {
		int rc = col_sigaction_real(sig, act, old);
		if (rc == 0 && act)
			col_signal_note_handler(sig, (act->sa_flags & SA_SIGINFO)
						     ? (uint64_t)(uintptr_t)act->sa_sigaction
						     : (uint64_t)(uintptr_t)act->sa_handler);
		return rc;
	}
	struct sigaction *u = col_signal_disposition(sig);
	if (old)
		*old = *u;
	if (act) {
		*u = *act;
		col_control_signal_set(sig);
	}
	return 0;
}

static sighandler_t set_handler(int sig, sighandler_t h, int flags,
				sighandler_t (*real)(int, sighandler_t))
{
	col_ensure_init();
	if (!col_signal_owned(sig)) {
		if (!real) {
			errno = ENOSYS;
			return SIG_ERR;
		}
		sighandler_t prev = real(sig, h);
		if (prev != SIG_ERR)
			col_signal_note_handler(sig, (uint64_t)(uintptr_t)h);
		return prev;
	}
	struct sigaction *u = col_signal_disposition(sig);
	sighandler_t old = (u->sa_flags & SA_SIGINFO) ? (sighandler_t)(void (*)(void))u->sa_sigaction
						       : u->sa_handler;
	memset(u, 0, sizeof(*u));
	u->sa_handler = h;
	u->sa_flags = flags;
	col_control_signal_set(sig);
	return old;
}

COL_API sighandler_t signal(int sig, sighandler_t h)
{
	return set_handler(sig, h, SA_RESTART, col_real_table()->signal);
}

COL_API sighandler_t bsd_signal(int sig, sighandler_t h)
{
	return set_handler(sig, h, SA_RESTART, col_real_table()->bsd_signal);
}

COL_API sighandler_t sysv_signal(int sig, sighandler_t h)
{
	return set_handler(sig, h, SA_RESETHAND | SA_NODEFER, col_real_table()->sysv_signal);
}
