/* SPDX-License-Identifier: MIT
 *
 * col_runtime.h — what the program's runtime does behind libc's back.
 */
#ifndef TALLY_COL_RUNTIME_H
#define TALLY_COL_RUNTIME_H

#include <stdbool.h>

/* Does the program make its own system calls, exec included (a Go
 * program, or one whose main executable execs by inline assembly)?  Then
 * an exec can come with no interposer of ours before it, and no event of
 * ours may signal from kernel mode (docs/decisions.md).  Found once
 * (dl_iterate_phdr); not from a signal handler the first time. */
bool col_runtime_raw_syscalls(void);

/* Search the whole of the main program's code for an inline exec, if that
 * was not done at start (it is only for small programs): before a fork, so
 * that the child knows.  Once; normal context. */
void col_runtime_scan_before_fork(void);

/* Is the program Go's (its goroutine stacks want SA_ONSTACK)?  As above. */
bool col_runtime_go(void);

#endif
