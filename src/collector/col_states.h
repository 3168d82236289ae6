/* SPDX-License-Identifier: MIT
 *
 * col_states.h — thread states off the CPU (`tally record --states`): each
 * interval a thread spent switched out, with the user stack at which it left
 * the CPU, and the split of its CPU time into user and system
 * (docs/states.md).
 */
#ifndef TALLY_COL_STATES_H
#define TALLY_COL_STATES_H

#include <signal.h>
#include <stdbool.h>
#include <stdint.h>

#include "collector/col_state.h"

/* Start recording the calling thread's switches (its state `t`, set up and
 * published); with --states only.  Failures are logged: the thread then has
 * no states. */
void col_states_thread_start(struct col_thread *t);

/* Attaching (col_attach.c): thread `tid`'s event, opened disabled by
 * another thread of the process (the attach's helper), enabled by
 * col_states_enable once it is where the thread's first signal looks for
 * it; NULL (logged) when it cannot be.  Its SIGTRAPs reach `tid` before it
 * has a state: the
 * handler sets one up (col_states_is_switch_signal_sigsafe) and gives it
 * the event (col_states_adopt_sigsafe, in that thread), so the intervals
 * since the attach are its.  One never adopted is closed by
 * col_states_close_unadopted. */
struct col_states_thread *col_states_open_for(pid_t tid);
void col_states_enable(struct col_states_thread *s);
void col_states_adopt_sigsafe(struct col_thread *t, struct col_states_thread *s);
void col_states_close_unadopted(struct col_states_thread *s);

/* Attaching: thread `tid` of event `s` (just opened) was found blocked, in
 * /proc, at `off_ns` (before the event was opened): its interval runs from
 * there to its next switch-in (EXP_STATE_FROM_ATTACH), with `stack_id` (0:
 * none) and `flags` read by the helper (col_attach_blocked.c).  Nothing if
 * a switch-out is pending already. */
void col_states_blocked_at_attach(struct col_states_thread *s, uint64_t off_ns, uint32_t stack_id,
				  uint16_t flags);

/* The attach's stop: disable the event (with the clocks, so that no
 * interval runs past the window). */
void col_states_disable(struct col_states_thread *s);

/* The attach's stop, the event disabled, by the helper (`writer`, whose
 * cursors are used) for thread `tid` (its state busy, or never adopted):
 * write the intervals its ring holds (without a stack).  True when the
 * thread is blocked now, in a block begun in the window: the caller reads
 * where (col_attach_blocked.c) for col_states_close_at_end. */
bool col_states_drain_at_end(struct col_thread *writer, pid_t tid, struct col_states_thread *s);

/* Then: an interval still open (the thread off the CPU at the stop) is
 * closed at `end_ns`, the window's end (EXP_STATE_TO_END), with `stack_id`
 * and `flags` for a block begun in the window (one under way since the
 * attach keeps its own; a preemption has none). */
void col_states_close_at_end(struct col_thread *writer, pid_t tid, struct col_states_thread *s, uint64_t end_ns,
			     uint32_t stack_id, uint16_t flags);
bool col_states_is_switch_signal_sigsafe(int sig, const siginfo_t *si);

/* Thread t's schedstat ("cpu_ns run_delay_ns slices") from the descriptor
 * its states keep, into buf (size bytes, NUL-ended); false if it keeps none
 * or the read fails.  Any thread may ask, t's states in place.  Sigsafe. */
bool col_states_schedstat_sigsafe(const struct col_thread *t, char *buf, size_t size);

/* The thread's last intervals, then stop (thread end, with t busy). */
void col_states_thread_end(struct col_thread *t);

/* The calling thread is about to be traced (PTRACE_TRACEME): a tracer's
 * stop at a signal is a switch-out, so a SIGTRAP per switch would make
 * SIGTRAPs without end.  From now on this process takes the ring way, and
 * thread t (the caller's, or NULL) moves to it, its intervals so far
 * written.  Other threads keep the event they have. */
void col_states_before_traced(struct col_thread *t);

/* A fork child: the inherited event and ring belong to the parent. */
void col_states_drop_after_fork(struct col_thread *t);

/* Is this the signal of a thread's switch event (SIGTRAP at the first return
 * to user mode after a switch-out)?  If so it is handled here: the thread's
 * intervals since, with the stack it resumes at.  entry_ns: the handler's
 * start (TSC).  Signal handler. */
bool col_states_signal_sigsafe(int sig, const siginfo_t *si, void *uc, uint64_t entry_ns);

/* Our SIGTRAPs are standard signals: two raised before the thread returns
 * to user mode are delivered once.  So every handler of ours (the clock's,
 * a counter's), with t busy, reads the switches its thread may have had
 * since, with the stack it interrupted: the thread's resume point when the
 * switch signal was merged into its own.  The clock's does it first, on
 * every signal, a sample or not (a thread's first period has none: a thread
 * that slept 0.5 s in its first period had the interval left to its end,
 * without a stack), and again after its sample (the switches of the
 * handler preempted meanwhile).  uc: its ucontext; entry_ns: when the
 * handler began (col_states_own_work_sigsafe: the stretch is its own). */
void col_states_catch_up_sigsafe(struct col_thread *t, void *uc, uint64_t entry_ns);

/* The collector's handler on thread `t` ran from `from_ns` to now (the
 * clock's, the switch signal's): an interval the thread left the CPU in
 * within it (a record write that waited for the disk, a read of its
 * schedstat) is the collector's own, written EXP_STATE_COLLECTOR when its
 * switch-in is read, not the program's at the stack the handler returns to. */
void col_states_own_work_sigsafe(struct col_thread *t, uint64_t from_ns);

/* From the clock's handler, after a sample at `time_ns`, with t busy: the
 * catch-up above; the thread's user/system split (CPU_SPLIT); its intervals
 * where no signal brings them (the ring way: without a stack). */
void col_states_on_sample_sigsafe(struct col_thread *t, uint64_t time_ns, void *uc);

#endif
