/* SPDX-License-Identifier: MIT
 *
 * col_interpose_ptrace.c — a program that is about to be traced: it asks
 * (ptrace(PTRACE_TRACEME), as gdb's child does before its exec) or stops
 * itself for a tracer to seize it (kill or raise of SIGSTOP to itself, as
 * strace's child does).  The states' switch event signals each switch-out,
 * and a tracer's stop at each signal is itself one, so the calling thread
 * moves to the ring way first (col_states_before_traced).  Every call is
 * then passed on.  A tracer that attaches from outside to a process that
 * did neither (strace -p, gdb -p) is found at its first stop instead
 * (col_states_signal_sigsafe, docs/states.md).  Any
 * thread, normal context.  Top layer.
 */
#include <signal.h>
#include <stdarg.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <sys/types.h>

#include "collector/col_real.h"
#include "collector/col_state.h"
#include "collector/col_states.h"
#include "collector/col_sys.h"

static void before_traced(void)
{
	if (col_proc.active)
		col_states_before_traced(col_thread_self_sigsafe());
}

/* glibc's prototype: the three arguments after `request` are read as glibc
 * reads them, whatever the request. */
COL_API long ptrace(enum __ptrace_request request, ...)
{
	va_list ap;

	va_start(ap, request);
	pid_t pid = va_arg(ap, pid_t);
	void *addr = va_arg(ap, void *);
	void *data = va_arg(ap, void *);
	va_end(ap);
	if (request == PTRACE_TRACEME)
		before_traced();
	const struct col_real *r = col_real.ptrace ? &col_real : col_real_table();
	return r->ptrace(request, pid, addr, data);
}

/* A stop of this process (its own pid, or its process group's, 0): a
 * tracer may seize it while it is stopped. */
COL_API int kill(pid_t pid, int sig)
{
	if (sig == SIGSTOP && (pid == 0 || pid == (pid_t)col_syscall(SYS_getpid)))
		before_traced();
	const struct col_real *r = col_real.kill ? &col_real : col_real_table();
	return r->kill(pid, sig);
}

COL_API int raise(int sig)
{
	if (sig == SIGSTOP)
		before_traced();
	const struct col_real *r = col_real.raise ? &col_real : col_real_table();
	return r->raise(sig);
}
