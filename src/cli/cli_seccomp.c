/* SPDX-License-Identifier: MIT
 *
 * cli_seccomp.c — the launcher's probe of an inherited seccomp filter (see
 * cli_seccomp.h).
 *
 * A filter may kill its caller for a call (SECCOMP_RET_KILL_*, or TRAP:
 * a SIGSYS the program may handle), and nothing but the call tells: its
 * program is readable only by a privileged tracer.  The collector cannot
 * probe inside the program (a child it clones may be the call that kills),
 * but `tally record` can: the program inherits exactly its filters, so a
 * child of the launcher that makes the call and lives shows the call safe
 * for the program too, as long as the program has added no filter (the
 * collector compares Seccomp_filters with the count probed here).  A child
 * that hangs (a filter that notifies a supervisor) is ended by alarm and
 * counts as killed: the collector then does without.
 */
#include <errno.h>
#include <linux/futex.h>
#include <linux/perf_event.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cli/cli_seccomp.h"

/* /proc/self/status's value of `key` ("Seccomp_filters:"), or -1. */
static long status_value(const char *key)
{
	char line[256];
	long v = -1;
	FILE *f = fopen("/proc/self/status", "re");

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, key, strlen(key))) {
			v = strtol(line + strlen(key), NULL, 10);
			break;
		}
	fclose(f);
	return v;
}

static int exit_at_once(void *arg)
{
	(void)arg;
	_exit(0);
}

/* The child's call: the collector's own (a task-clock event on itself, as
 * col_clock.c opens it; the helper clone of col_fds_aside; a raw thread's
 * robust list read and set, as col_rawthread.c keys its slot). */
static void probe_call(unsigned call)
{
	if (call == EXP_SECCOMP_PERF) {
		struct perf_event_attr a = { .type = PERF_TYPE_SOFTWARE, .size = sizeof(a),
					     .config = PERF_COUNT_SW_TASK_CLOCK, .disabled = 1,
					     .exclude_kernel = 1, .exclude_hv = 1 };
		syscall(SYS_perf_event_open, &a, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
	} else if (call == EXP_SECCOMP_ROBUST) {
		struct robust_list_head *head = NULL;
		size_t len = 0;
		if (syscall(SYS_get_robust_list, 0, &head, &len) == 0 && head)
			syscall(SYS_set_robust_list, head, len);
	} else {
		static char stack[16384] __attribute__((aligned(16)));
		int pid = clone(exit_at_once, stack + sizeof(stack), CLONE_VM | CLONE_VFORK, NULL);
		if (pid > 0)
			waitpid(pid, NULL, __WCLONE);
	}
}

/* Did a child making `call` live?  1 lived, 0 killed (its signal in *sig). */
static int probe(unsigned call, int *sig)
{
	int status = 0;

	fflush(NULL);
	pid_t pid = fork();         /* SIGCHLD is not ignored here: cmd_record.c */
	if (pid < 0)
		return *sig = 0, 0;
	if (pid == 0) {
		sigset_t none;
		sigemptyset(&none);
		sigprocmask(SIG_SETMASK, &none, NULL);
		signal(SIGSYS, SIG_DFL);
		signal(SIGALRM, SIG_DFL);
		alarm(5);
		probe_call(call);
		_exit(0);
	}
	pid_t got;
	while ((got = waitpid(pid, &status, 0)) < 0 && errno == EINTR)
		;
	if (got != pid)            /* its status unknown: taken as not safe */
		return *sig = 0, 0;
	*sig = WIFSIGNALED(status) ? WTERMSIG(status) : 0;
	return WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

int cli_seccomp_probe(struct exp_launch_options *o, char *why, size_t len)
{
	int perf_sig, clone_sig, robust_sig;

	why[0] = 0;
	if (status_value("Seccomp:") != 2)
		return 0;
	long filters = status_value("Seccomp_filters:");
	if (filters <= 0)          /* a kernel without the count: nothing to compare */
		return snprintf(why, len, "under a filter, Seccomp_filters unknown: not probed"), 1;
	unsigned safe = (probe(EXP_SECCOMP_PERF, &perf_sig) ? EXP_SECCOMP_PERF : 0) |
			(probe(EXP_SECCOMP_CLONE, &clone_sig) ? EXP_SECCOMP_CLONE : 0) |
			(probe(EXP_SECCOMP_ROBUST, &robust_sig) ? EXP_SECCOMP_ROBUST : 0);
	o->seccomp_filters = filters;
	o->seccomp_safe = safe;
	char p[32] = "lived", c[32] = "lived", r[32] = "lived";
	if (!(safe & EXP_SECCOMP_PERF))
		snprintf(p, sizeof(p), "killed (signal %d)", perf_sig);
	if (!(safe & EXP_SECCOMP_CLONE))
		snprintf(c, sizeof(c), "killed (signal %d)", clone_sig);
	if (!(safe & EXP_SECCOMP_ROBUST))
		snprintf(r, sizeof(r), "killed (signal %d)", robust_sig);
	snprintf(why, len, "under %ld inherited filter%s; a probe child making perf_event_open %s, clone %s, "
		 "get/set_robust_list %s", filters, filters == 1 ? "" : "s", p, c, r);
	return 1;
}
