/* SPDX-License-Identifier: MIT
 *
 * col_interpose_seccomp.c — a seccomp filter the program adds, seen as it
 * is added: prctl(PR_SET_SECCOMP) here, and the seccomp or prctl system
 * call through syscall() (col_interpose_exec.c), tell col_real.c before
 * the call is made (col_real_seccomp_call), so that no perf event or
 * helper clone of the collector's is made under a filter tally record did
 * not probe (it may kill its caller).  Told before: a collector call in another thread made
 * after the filter lands must not trust the old count.  One added by the
 * program's own inline system call is not seen (docs/collector.md).  Any
 * thread, normal context.  Top layer.
 */
#include <stdarg.h>
#include <sys/prctl.h>
#include <sys/syscall.h>

#include "collector/col_real.h"
#include "format/exp_write_sys.h"

/* glibc's prototype; the four arguments after `option` passed on whatever
 * the option uses, as glibc's prctl does. */
COL_API int prctl(int option, ...)
{
	va_list ap;
	unsigned long a[4];

	va_start(ap, option);
	for (int i = 0; i < 4; i++)
		a[i] = va_arg(ap, unsigned long);
	va_end(ap);
	bool filter = col_real_seccomp_call(SYS_prctl, option);
	long rc = exp_sys_call6(SYS_prctl, option, (long)a[0], (long)a[1], (long)a[2], (long)a[3], 0);
	if (filter)
		col_real_seccomp_done(rc);
	return (int)rc;
}
