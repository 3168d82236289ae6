/* SPDX-License-Identifier: MIT
 *
 * attach_ptrace.h — borrowing one stopped thread of another process (x86-64).
 *
 * attach_thread_stop seizes a thread (PTRACE_SEIZE, which by itself stops
 * nothing) and interrupts it (PTRACE_INTERRUPT), saving everything the thread
 * owns that a call could change: the general registers, the whole XSAVE area
 * (x87, SSE, AVX, AVX-512 state) and the blocked-signal mask.
 * attach_thread_call makes it call a function; attach_thread_restore puts
 * every saved byte back, restarting a system call the interrupt cut short as
 * the kernel would have, and detaches.  Used by attach_inject.c only.
 */
#ifndef TALLY_ATTACH_PTRACE_H
#define TALLY_ATTACH_PTRACE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <sys/user.h>

#define ATTACH_XSTATE_MAX 16384

struct attach_thread {
	pid_t pid, tid;
	bool seized;
	struct user_regs_struct regs;   /* as it stopped */
	uint8_t xstate[ATTACH_XSTATE_MAX];
	size_t xstate_len;              /* 0: saved as FXSAVE (NT_PRFPREG) instead */
	uint64_t sigmask;               /* blocked signals as it stopped */
	uint64_t stopped_at_ns;         /* CLOCK_MONOTONIC when the stop was seen */
	unsigned syscall_stops;         /* passed during calls */
	bool group_stopped;             /* it was found stopped by a signal (SIGSTOP, ...) */
};

/* Seize `tid` of `pid`, interrupt it and save its state.  0, or -1 with why
 * (nothing was changed; the thread is not left seized). */
int attach_thread_stop(struct attach_thread *t, pid_t pid, pid_t tid, char *why, size_t len);

/* Did it stop inside a system call that the interrupt cut short (and that
 * will be restarted)?  Its number then is t->regs.orig_rax. */
bool attach_thread_in_syscall(const struct attach_thread *t);

/* Call fn(a0, a1) in the stopped thread with its stack pointer at `sp`
 * (16-aligned, below anything of the thread's) and all signals blocked; the
 * call returns to `gadget`, a `syscall` instruction, where the system-call
 * stop ends it before the instruction runs.  *ret is the call's rax.  0, or
 * -1 with why (a fault in the call, the process ended, 10 s passed). */
int attach_thread_call(struct attach_thread *t, uint64_t fn, uint64_t a0, uint64_t a1, uint64_t sp,
		       uint64_t gadget, uint64_t *ret, char *why, size_t len);

/* Put back every saved register, the vector state and the signal mask,
 * restart the interrupted system call if there was one, and detach.
 * 0 or -1 with why. */
int attach_thread_restore(struct attach_thread *t, char *why, size_t len);

/* Let a thread that was only looked at go on, untouched (the kernel
 * restarts its system call itself). */
void attach_thread_release(struct attach_thread *t);

/* Memory of the stopped process (process_vm_readv/writev, else /proc/PID/mem).
 * 0 or -1. */
int attach_mem_read(pid_t pid, uint64_t addr, void *buf, size_t len);
int attach_mem_write(pid_t pid, uint64_t addr, const void *buf, size_t len);

uint64_t attach_now_ns(void);

#endif
