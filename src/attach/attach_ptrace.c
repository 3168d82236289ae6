/* SPDX-License-Identifier: MIT
 *
 * attach_ptrace.c — stopping, borrowing and restoring one thread of another
 * process with ptrace (x86-64).  See attach_ptrace.h and docs/attach.md.
 *
 * Why each step is the way it is:
 *  - PTRACE_SEIZE + PTRACE_INTERRUPT, not PTRACE_ATTACH: no SIGSTOP is sent,
 *    so the process never sees a signal, and a job-control stop is not
 *    confused with ours.
 *  - A thread interrupted inside a blocking system call stops with rax =
 *    -ERESTART*; the kernel would restart the call when resuming it.  Our
 *    calls run with orig_rax = -1 (no restart logic), and the final restore
 *    does the restart by hand, exactly as the kernel does (rax = the call's
 *    number, or restart_syscall for -ERESTART_RESTARTBLOCK; rip back over the
 *    2-byte `syscall`): the read still reads, the sleep still sleeps.
 *  - The calls return to a `syscall` instruction, and the thread runs under
 *    PTRACE_SYSCALL: the system-call entry stop at that address ends the
 *    call before the instruction runs.  No breakpoint or fault is used, so no
 *    signal is generated (a fault on a blocked SIGSEGV/SIGTRAP would make the
 *    kernel reset that signal's disposition).
 *  - All signals are blocked (PTRACE_SETSIGMASK) during the calls: a signal
 *    for that thread waits, pending, and is delivered with its own siginfo
 *    once the mask is restored.
 */
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/time.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "attach/attach_ptrace.h"

#define ERESTARTSYS 512
#define ERESTARTNOINTR 513
#define ERESTARTNOHAND 514
#define ERESTART_RESTARTBLOCK 516
#define NR_RESTART_SYSCALL 219
#define CALL_TIMEOUT_MS 10000
#define STOP_TIMEOUT_MS 2000

uint64_t attach_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static void on_alarm(int sig)
{
	(void)sig;
}

/* waitpid with a time limit: 0 (status set), -1 with errno (ETIMEDOUT). */
static int wait_for(pid_t tid, int *status, int timeout_ms)
{
	struct sigaction sa, old;
	struct itimerval it = { { 0, 0 }, { timeout_ms / 1000, (timeout_ms % 1000) * 1000 } };
	struct itimerval off = { { 0, 0 }, { 0, 0 } };

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_alarm;       /* no SA_RESTART: waitpid returns EINTR */
	sigaction(SIGALRM, &sa, &old);
	setitimer(ITIMER_REAL, &it, NULL);
	pid_t r = waitpid(tid, status, __WALL);
	int e = errno;
	setitimer(ITIMER_REAL, &off, NULL);
	sigaction(SIGALRM, &old, NULL);
	if (r == tid)
		return 0;
	errno = r < 0 && e == EINTR ? ETIMEDOUT : e;
	return -1;
}

int attach_mem_read(pid_t pid, uint64_t addr, void *buf, size_t len)
{
	struct iovec l = { buf, len }, r = { (void *)(uintptr_t)addr, len };

	if (process_vm_readv(pid, &l, 1, &r, 1, 0) == (ssize_t)len)
		return 0;
	char path[64];
	snprintf(path, sizeof(path), "/proc/%d/mem", (int)pid);
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n = fd >= 0 ? pread(fd, buf, len, (off_t)addr) : -1;
	if (fd >= 0)
		close(fd);
	return n == (ssize_t)len ? 0 : -1;
}

int attach_mem_write(pid_t pid, uint64_t addr, const void *buf, size_t len)
{
	struct iovec l = { (void *)buf, len }, r = { (void *)(uintptr_t)addr, len };

	if (process_vm_writev(pid, &l, 1, &r, 1, 0) == (ssize_t)len)
		return 0;
	char path[64];
	snprintf(path, sizeof(path), "/proc/%d/mem", (int)pid);
	int fd = open(path, O_WRONLY | O_CLOEXEC);
	ssize_t n = fd >= 0 ? pwrite(fd, buf, len, (off_t)addr) : -1;
	if (fd >= 0)
		close(fd);
	return n == (ssize_t)len ? 0 : -1;
}

static int save_state(struct attach_thread *t, char *why, size_t len)
{
	struct iovec iov = { t->xstate, sizeof(t->xstate) };

	if (ptrace(PTRACE_GETREGS, t->tid, 0, &t->regs) != 0) {
		snprintf(why, len, "thread %d: PTRACE_GETREGS: %s", (int)t->tid, strerror(errno));
		return -1;
	}
	if (ptrace(PTRACE_GETREGSET, t->tid, (void *)NT_X86_XSTATE, &iov) == 0) {
		t->xstate_len = iov.iov_len;
	} else {
		iov.iov_len = sizeof(struct user_fpregs_struct);
		if (ptrace(PTRACE_GETREGSET, t->tid, (void *)NT_PRFPREG, &iov) != 0) {
			snprintf(why, len, "thread %d: cannot save its floating-point state: %s",
				 (int)t->tid, strerror(errno));
			return -1;
		}
		t->xstate_len = 0;
	}
	if (ptrace(PTRACE_GETSIGMASK, t->tid, (void *)sizeof(t->sigmask), &t->sigmask) != 0) {
		snprintf(why, len, "thread %d: PTRACE_GETSIGMASK: %s", (int)t->tid, strerror(errno));
		return -1;
	}
	return 0;
}

static void detach_quietly(struct attach_thread *t)
{
	if (t->seized)
		ptrace(PTRACE_DETACH, t->tid, 0, 0);
	t->seized = false;
}

void attach_thread_release(struct attach_thread *t)
{
	detach_quietly(t);
}

int attach_thread_stop(struct attach_thread *t, pid_t pid, pid_t tid, char *why, size_t len)
{
	int status;

	memset(t, 0, sizeof(*t));
	t->pid = pid;
	t->tid = tid;
	if (ptrace(PTRACE_SEIZE, tid, 0, (void *)(long)PTRACE_O_TRACESYSGOOD) != 0) {
		int e = errno;
		snprintf(why, len, "thread %d: PTRACE_SEIZE: %s", (int)tid, strerror(e));
		errno = e;
		return -1;
	}
	t->seized = true;
	if (ptrace(PTRACE_INTERRUPT, tid, 0, 0) != 0) {
		snprintf(why, len, "thread %d: PTRACE_INTERRUPT: %s", (int)tid, strerror(errno));
		detach_quietly(t);
		return -1;
	}
	for (;;) {
		if (wait_for(tid, &status, STOP_TIMEOUT_MS) != 0) {
			snprintf(why, len, "thread %d did not stop within %d ms (%s)", (int)tid,
				 STOP_TIMEOUT_MS, strerror(errno));
			/* It stops eventually; detaching needs the stop. */
			if (wait_for(tid, &status, 30000) == 0)
				detach_quietly(t);
			return -1;
		}
		if (WIFEXITED(status) || WIFSIGNALED(status)) {
			snprintf(why, len, "thread %d ended", (int)tid);
			t->seized = false;
			return -1;
		}
		if (WIFSTOPPED(status) && (status >> 16) == PTRACE_EVENT_STOP &&
		    WSTOPSIG(status) == SIGTRAP)
			break;               /* our interrupt */
		if (WIFSTOPPED(status) && (status >> 16) == PTRACE_EVENT_STOP) {
			/* A group stop (SIGSTOP, SIGTSTP): the process is being stopped. */
			snprintf(why, len, "it is stopped (%s): continue it first (kill -CONT %d)",
				 strsignal(WSTOPSIG(status)), (int)pid);
			detach_quietly(t);
			t->group_stopped = true;
			return -1;
		}
		/* A signal arriving for it: let it through untouched, and wait for
		 * the interrupt's own stop, which is still due. */
		if (ptrace(PTRACE_CONT, tid, 0, (void *)(long)WSTOPSIG(status)) != 0) {
			snprintf(why, len, "thread %d: PTRACE_CONT: %s", (int)tid, strerror(errno));
			detach_quietly(t);
			return -1;
		}
	}
	t->stopped_at_ns = attach_now_ns();
	if (save_state(t, why, len) != 0) {
		detach_quietly(t);
		return -1;
	}
	return 0;
}

static bool is_restart(int64_t rax)
{
	return rax == -ERESTARTSYS || rax == -ERESTARTNOINTR || rax == -ERESTARTNOHAND ||
	       rax == -ERESTART_RESTARTBLOCK;
}

bool attach_thread_in_syscall(const struct attach_thread *t)
{
	return (int64_t)t->regs.orig_rax >= 0 && is_restart((int64_t)t->regs.rax);
}

int attach_thread_call(struct attach_thread *t, uint64_t fn, uint64_t a0, uint64_t a1, uint64_t sp,
		       uint64_t gadget, uint64_t *ret, char *why, size_t len)
{
	struct user_regs_struct r = t->regs;
	uint64_t all = ~0ull, frame = (sp & ~15ull) - 8;
	int status;

	/* At the function's entry, rsp + 8 is 16-aligned, as after a call. */
	if (attach_mem_write(t->pid, frame, &gadget, sizeof(gadget)) != 0) {
		snprintf(why, len, "cannot write the thread's stack at 0x%llx", (unsigned long long)frame);
		return -1;
	}
	if (ptrace(PTRACE_SETSIGMASK, t->tid, (void *)sizeof(all), &all) != 0) {
		snprintf(why, len, "PTRACE_SETSIGMASK: %s", strerror(errno));
		return -1;
	}
	r.rip = fn;
	r.rdi = a0;
	r.rsi = a1;
	r.rax = 0;
	r.orig_rax = (unsigned long long)-1;     /* no system call to restart */
	r.rsp = frame;
	r.eflags &= ~0x500ull;                   /* DF and TF clear, as the ABI wants */
	if (ptrace(PTRACE_SETREGS, t->tid, 0, &r) != 0) {
		snprintf(why, len, "PTRACE_SETREGS: %s", strerror(errno));
		return -1;
	}
	uint64_t deadline = attach_now_ns() + CALL_TIMEOUT_MS * 1000000ull;
	for (;;) {
		if (ptrace(PTRACE_SYSCALL, t->tid, 0, 0) != 0) {
			snprintf(why, len, "PTRACE_SYSCALL: %s", strerror(errno));
			return -1;
		}
		uint64_t now = attach_now_ns();
		int left = now < deadline ? (int)((deadline - now) / 1000000u) + 1 : 1;
		if (wait_for(t->tid, &status, left) != 0) {
			snprintf(why, len, "the call did not return within %d s", CALL_TIMEOUT_MS / 1000);
			ptrace(PTRACE_INTERRUPT, t->tid, 0, 0);
			wait_for(t->tid, &status, 1000);
			return -1;
		}
		if (WIFEXITED(status) || WIFSIGNALED(status)) {
			snprintf(why, len, "the process ended during the call");
			t->seized = false;
			return -1;
		}
		if (!WIFSTOPPED(status))
			continue;
		if (WSTOPSIG(status) == (SIGTRAP | 0x80)) {
			struct user_regs_struct now_regs;
			if (ptrace(PTRACE_GETREGS, t->tid, 0, &now_regs) != 0) {
				snprintf(why, len, "PTRACE_GETREGS: %s", strerror(errno));
				return -1;
			}
			if (now_regs.rip == gadget + 2 && now_regs.rsp == frame + 8) {
				*ret = now_regs.orig_rax;   /* the call's rax, taken as a syscall number */
				return 0;
			}
			t->syscall_stops++;
			continue;
		}
		if ((status >> 16) == PTRACE_EVENT_STOP)
			continue;            /* a group stop or an old interrupt: go on */
		/* A signal with everything blocked: a fault of the call itself. */
		siginfo_t si;
		memset(&si, 0, sizeof(si));
		ptrace(PTRACE_GETSIGINFO, t->tid, 0, &si);
		snprintf(why, len, "the call faulted: %s at address %p", strsignal(WSTOPSIG(status)),
			 si.si_addr);
		return -1;
	}
}

int attach_thread_restore(struct attach_thread *t, char *why, size_t len)
{
	struct user_regs_struct r = t->regs;
	struct iovec iov = { t->xstate, t->xstate_len ? t->xstate_len : sizeof(struct user_fpregs_struct) };
	int rc = 0;

	if (!t->seized)
		return 0;
	if (attach_thread_in_syscall(t)) {
		r.rax = (int64_t)r.rax == -ERESTART_RESTARTBLOCK ? NR_RESTART_SYSCALL : r.orig_rax;
		r.rip -= 2;
	}
	r.orig_rax = (unsigned long long)-1;
	if (ptrace(PTRACE_SETREGS, t->tid, 0, &r) != 0 ||
	    ptrace(PTRACE_SETREGSET, t->tid, (void *)(long)(t->xstate_len ? NT_X86_XSTATE : NT_PRFPREG),
		   &iov) != 0 ||
	    ptrace(PTRACE_SETSIGMASK, t->tid, (void *)sizeof(t->sigmask), &t->sigmask) != 0) {
		snprintf(why, len, "thread %d: restoring its registers: %s", (int)t->tid, strerror(errno));
		rc = -1;
	}
	if (ptrace(PTRACE_DETACH, t->tid, 0, 0) != 0 && rc == 0) {
		snprintf(why, len, "thread %d: PTRACE_DETACH: %s", (int)t->tid, strerror(errno));
		rc = -1;
	}
	t->seized = false;
	return rc;
}
