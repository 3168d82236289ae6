/* SPDX-License-Identifier: MIT
 *
 * col_signal.h — the target's dispositions of the signals the collector
 * owns (SIGTRAP of perf's sigtrap events, SIGPROF of the fallbacks).
 */
#ifndef TALLY_COL_SIGNAL_H
#define TALLY_COL_SIGNAL_H

#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#ifndef TRAP_PERF
#define TRAP_PERF 6
#endif

/* The sig_data of the perf event whose sigtrap raised this SIGTRAP, or 0
 * (another SIGTRAP).  Each of our events carries the address of a tag of
 * its owner (the clock, the switch events, each counter). */
static inline uint64_t col_signal_perf_data_sigsafe(int sig, const siginfo_t *si)
{
	uint64_t data;

	if (sig != SIGTRAP || si->si_code != TRAP_PERF)
		return 0;
	memcpy(&data, (const char *)si + 24, sizeof(data));   /* si_perf_data (x86-64) */
	return data;
}

/* Was this perf SIGTRAP sent while the thread had SIGTRAP blocked
 * (si_perf_flags' TRAP_PERF_FLAG_ASYNC, Linux 6.0+; false before)?  Our
 * handler blocks it under --states (col_sample.c), so: sent inside one of
 * our handlers, or at a tracer's stop on its delivery (col_states.c). */
static inline bool col_signal_perf_async_sigsafe(const siginfo_t *si)
{
	uint32_t flags;

	memcpy(&flags, (const char *)si + 36, sizeof(flags));   /* si_perf_flags (x86-64) */
	return (flags & 1u) != 0;            /* TRAP_PERF_FLAG_ASYNC */
}

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

/* The program set a handler at `entry` for a signal the collector does not
 * own (0: none); col_signal_handler_entry_sigsafe says if `pc` is the first
 * instruction of one (col_sample.c: a sample that interrupted a handler
 * before it ran belongs to the code the handler's signal interrupted). */
void col_signal_note_handler(int sig, uint64_t entry);
bool col_signal_handler_entry_sigsafe(uint64_t pc);

/* The real sigaction, bypassing our interposer. */
int col_sigaction_real(int sig, const struct sigaction *act, struct sigaction *old);

#endif
