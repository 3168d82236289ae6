/* SPDX-License-Identifier: MIT
 *
 * col_interpose_rlimit.c — the program's resource limits, as it sets them:
 * a change of its file size limit is told to the experiment's writer
 * (exp_sys_fsize_changed), which leaves out the SIGXFSZ mask around each
 * write while the program has no such limit (exp_write_sys.c).  Each call
 * is made here with the raw system call (prlimit64, which glibc's own use
 * on x86-64), told before (a write under way then masks) and after.  A
 * limit set with a raw system call through syscall() is seen there
 * (col_interpose_exec.c); one set by another process (prlimit --pid) is
 * not.  Any thread, normal context.  Top layer.
 */
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/types.h>

#include "collector/col_real.h"
#include "format/exp_write_sys.h"

static int set_limit(pid_t pid, int resource, const void *now, void *old)
{
	if (resource == RLIMIT_FSIZE && now)
		exp_sys_fsize_changed();
	int rc = (int)exp_syscall(SYS_prlimit64, pid, resource, now, old);
	if (resource == RLIMIT_FSIZE && now)
		exp_sys_fsize_changed();
	return rc;
}

/* glibc's prototypes: struct rlimit and rlimit64 are one layout on x86-64. */
COL_API int setrlimit(__rlimit_resource_t resource, const struct rlimit *rl)
{
	return set_limit(0, (int)resource, rl, NULL);
}

COL_API int setrlimit64(__rlimit_resource_t resource, const struct rlimit64 *rl)
{
	return set_limit(0, (int)resource, rl, NULL);
}

COL_API int prlimit(pid_t pid, enum __rlimit_resource resource, const struct rlimit *now, struct rlimit *old)
{
	return set_limit(pid, (int)resource, now, old);
}

COL_API int prlimit64(pid_t pid, enum __rlimit_resource resource, const struct rlimit64 *now,
		      struct rlimit64 *old)
{
	return set_limit(pid, (int)resource, now, old);
}
