/* SPDX-License-Identifier: MIT
 *
 * col_signal.c — the collector owns its profiling signals (SIGTRAP from
 * perf's sigtrap events, SIGPROF from the fallbacks).
 *
 * As the Sun collector does, we interpose sigaction() and the signal()
 * family (col_interpose_signal.c): while collecting, the kernel-level
 * handlers of our signals stay ours, and what the target installs is
 * remembered here as its disposition.  A signal that is not from our clock
 * (the target's own setitimer or timer_create, a breakpoint's SIGTRAP) is
 * passed on to that disposition, so the target keeps working and is still
 * profiled.  Called from the target's threads and from our signal handler.
 * Sigsafe file.
 */
#include <errno.h>
#include <signal.h>
#include <stdatomic.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "collector/col_real.h"
#include "collector/col_signal.h"
#include "collector/col_sys.h"

static struct sigaction user_act[NSIG];   /* the target's dispositions */
static _Atomic int owned[NSIG];            /* our handler is installed */

bool col_signal_owned(int sig)
{
	return sig > 0 && sig < NSIG && atomic_load(&owned[sig]);
}

struct sigaction *col_signal_disposition(int sig)
{
	return &user_act[sig];
}

static _Atomic uint64_t handler_entry[NSIG];

void col_signal_note_handler(int sig, uint64_t entry)
{
	if (sig > 0 && sig < NSIG)
		atomic_store_explicit(&handler_entry[sig], entry > 1 ? entry : 0, memory_order_relaxed);
}

bool col_signal_handler_entry_sigsafe(uint64_t pc)
{
	for (int i = 1; i < NSIG; i++)
		if (atomic_load_explicit(&handler_entry[i], memory_order_relaxed) == pc)
			return true;
	return false;
}

int col_sigaction_real(int sig, const struct sigaction *act, struct sigaction *old)
{
	/* The table resolved first; parenthesized as COL_REAL spells it. */
	return (col_real_table()->sigaction)(sig, act, old);
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
		COL_REAL(sigprocmask)(SIG_UNBLOCK, &set, NULL);
		col_syscall(SYS_tgkill, getpid(), col_syscall(SYS_gettid), sig);
		return;
	}
	a.sa_handler(sig);
}
