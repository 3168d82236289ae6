/* SPDX-License-Identifier: MIT
 *
 * cli_kernel_blocked.h — the kernel's stacks of threads blocked when
 * `tally record -p --kernel --states` attaches, from /proc (root only).
 */
#ifndef TALLY_CLI_KERNEL_BLOCKED_H
#define TALLY_CLI_KERNEL_BLOCKED_H

#include <sys/types.h>

struct cli_kernel;

#include <stddef.h>
#include <stdint.h>

/* One blocked thread's /proc stack, read at time_ns (CLOCK_MONOTONIC). */
struct cli_kblocked_stack {
	pid_t tid;
	uint64_t time_ns;
	char *text;
};

struct cli_kblocked {
	pid_t pid;
	unsigned blocked;          /* threads in state S or D */
	unsigned moved;            /* ran while their stack was read: left out */
	unsigned read;             /* stacks written as KERNEL_SWITCH records */
	unsigned unplaced;         /* no frame placed by /proc/kallsyms */
	int err;                   /* why the stacks could not be read (EACCES: not root), or 0 */
	struct cli_kblocked_stack *stacks;
	size_t n;
};

/* Read now, for each thread of `pid` blocked (S or D) that does not run
 * meanwhile, its kernel stack (/proc/PID/task/TID/stack: CAP_SYS_ADMIN
 * only), into *out: the chain of the block it is in.  Cheap: a few /proc
 * reads a thread; the naming waits for cli_kernel_blocked_write. */
void cli_kernel_blocked_read(pid_t pid, struct cli_kblocked *out);

/* Place the stacks read by their names in /proc/kallsyms (one read) and
 * write each as a KERNEL_SWITCH record of `k`, timed when it was read;
 * frees them.  At the end of collection (kallsyms costs ~0.5 s here). */
void cli_kernel_blocked_write(struct cli_kernel *k, struct cli_kblocked *kb);

#endif
