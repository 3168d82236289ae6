/* SPDX-License-Identifier: MIT
 *
 * col_signal.h — the target's dispositions of the signals the collector
 * owns (SIGTRAP of perf's sigtrap events, SIGPROF of the fallbacks).
 */
#ifndef TALLY_COL_SIGNAL_H
#define TALLY_COL_SIGNAL_H

#include <signal.h>
#include <stdbool.h>

/* Our handler is installed for `sig`; `prev` was the target's disposition. */
void col_signal_take(int sig, const struct sigaction *prev);

/* Is our handler installed for `sig`? */
bool col_signal_owned(int sig);

/* The target's disposition of an owned signal: what its sigaction() and
 * signal() calls read and change (col_interpose_signal.c). */
struct sigaction *col_signal_disposition(int sig);

/* Pass a signal that is not from our clock to the target's disposition
 * (its handler, or the default action, which ends the process).  Called
 * from our handler, and before an exec. */
void col_signal_forward(int sig, siginfo_t *si, void *uc);

/* The real sigaction, bypassing our interposer. */
int col_sigaction_real(int sig, const struct sigaction *act, struct sigaction *old);

#endif
