/* SPDX-License-Identifier: MIT
 *
 * col_runtime.h — what the program's runtime does behind libc's back.
 */
#ifndef TALLY_COL_RUNTIME_H
#define TALLY_COL_RUNTIME_H

#include <stdbool.h>

/* Does the program make its own system calls, exec included (a Go
 * program)?  Then an exec can come with no interposer of ours before it,
 * and no event of ours may signal from kernel mode (docs/decisions.md).
 * Found once (dl_iterate_phdr); not from a signal handler the first time. */
bool col_runtime_raw_syscalls(void);

#endif
