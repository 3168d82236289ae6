/* SPDX-License-Identifier: MIT
 *
 * col_sample.c — the profiling signal handler: one SAMPLE record per signal
 * of a thread's clock (col_clock.c), with the interrupted call stack.
 *
 * Each sample weighs the CPU time that really elapsed since the thread's
 * previous sample, read from the clock in the handler: coalesced or late
 * signals then cost no time, and dropped samples pass their time on.
 *
 * The handler is the sequence of style.md §6: save errno; tell our signal
 * from the target's; test-and-set the thread's busy flag; read the clock;
 * unwind from the ucontext; intern the stack; append one SAMPLE; re-arm.
 * Sigsafe file.
 */
#include <errno.h>
#include <sched.h>
#include <signal.h>
#include <string.h>

#include "collector/col_clock.h"
#include "collector/col_files.h"
#include "collector/col_sample.h"
#include "collector/col_signal.h"
#include "collector/col_stacks.h"
#include "collector/col_state.h"
#include "collector/col_time.h"
#include "collector/col_unwind.h"

static void take_sample(struct col_thread *t, void *uc)
{
	uint64_t now_cpu = col_clock_read_sigsafe(t);
	uint64_t weight = now_cpu - t->last_cpu_ns;
	int truncated, broken;

	t->last_cpu_ns = now_cpu;
	col_regs_from_ucontext(uc, &t->regs);
	int n = col_unwind_sigsafe(&t->unwind, &t->regs, t->frames, (int)col_proc.opt.max_frames,
				   &truncated, &broken);
	uint32_t id = col_stack_intern_sigsafe(t, t->frames, (uint32_t)n,
					       col_stack_flags_sigsafe(truncated, broken));
	if (!id)
		return;
	struct exp_sample s;
	s.word = 0;
	s.tid = (uint32_t)t->tid;
	s.time_ns = col_now_ns_sigsafe();
	s.stack_id = id;
	int cpu = sched_getcpu();
	s.cpu = cpu < 0 ? 0xffff : (uint16_t)cpu;
	s.flags = 0;
	s.weight_ns = weight;
	if (col_write_sigsafe(t, EXP_FILE_SAMPLES, EXP_REC_SAMPLE, &s, sizeof(s)) == 0) {
		t->samples++;
		col_count_sigsafe(EXP_CTR_SAMPLES, 1);
	}
}

static void on_signal(int sig, siginfo_t *si, void *uc)
{
	int saved_errno = errno;

	if (!col_clock_signal_sigsafe(sig, si)) {
		col_count_sigsafe(EXP_CTR_FOREIGN_SIGNALS, 1);
		col_signal_forward(sig, si, uc);
		errno = saved_errno;
		return;
	}
	struct col_thread *t = col_thread_self_sigsafe();
	if (!t || t->exiting) {
		if (!t)
			col_count_sigsafe(EXP_CTR_NO_THREAD_STATE, 1);
		errno = saved_errno;
		return;
	}
	if (atomic_exchange_explicit(&t->busy, 1, memory_order_acquire)) {
		col_count_sigsafe(EXP_CTR_LOST_REENTRY, 1);
		col_clock_rearm_sigsafe(t);
		errno = saved_errno;
		return;
	}
	if (atomic_load_explicit(&col_proc.paused, memory_order_relaxed))
		t->last_cpu_ns = col_clock_read_sigsafe(t);   /* time paused counts nowhere */
	else
		take_sample(t, uc);
	col_clock_rearm_sigsafe(t);
	atomic_store_explicit(&t->busy, 0, memory_order_release);
	errno = saved_errno;
}

void col_sample_install(void)
{
	static const int sigs[] = { SIGTRAP, SIGPROF };
	struct sigaction sa, prev;

	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = on_signal;
	sa.sa_flags = SA_SIGINFO | SA_RESTART;
	sigemptyset(&sa.sa_mask);
	for (size_t i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++)
		if (col_sigaction_real(sigs[i], &sa, &prev) == 0)
			col_signal_take(sigs[i], &prev);
}
