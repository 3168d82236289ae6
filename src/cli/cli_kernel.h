/* SPDX-License-Identifier: MIT
 *
 * cli_kernel.h — `tally record`'s kernel call chains (cli_kernel.c): perf
 * events tally opens on the program it starts, drained into kernel.dat.
 */
#ifndef TALLY_CLI_KERNEL_H
#define TALLY_CLI_KERNEL_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

struct cli_kernel;

/* Open the events on `child` (stopped before its exec: they start at the
 * exec), sampling every `period_ns` of its threads' CPU time in kernel
 * mode, and with `states` every switch of a thread out of its CPU, and
 * kernel.dat in `dir`.  NULL when the kernel refuses or anything fails:
 * `why` then holds the reason, and the way to allow it when there is one,
 * for the log's "kernel" line (a refused switch event alone is the log's
 * "kernel.switches" line at the close). */
struct cli_kernel *cli_kernel_open(pid_t child, uint64_t period_ns, bool states, const char *dir,
				   char *why, size_t why_len);

/* Wait up to `timeout_ms` for samples, then move what the rings hold to
 * kernel.dat.  Call while the program runs. */
void cli_kernel_poll(struct cli_kernel *k, int timeout_ms);

/* After the program ended: the rest of the rings, the kernel functions
 * the samples hit (from /proc/kallsyms), the totals; the log's lines go
 * to `log_path`.  Frees k. */
void cli_kernel_close(struct cli_kernel *k, const char *log_path);

#endif
