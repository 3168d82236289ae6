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

/* The same clock events on a running process (`tally record -p`): on
 * each of its threads and every CPU, inherited by the threads they create
 * from then on, and with `states` the context-switch events beside them
 * (a refusal of those is the log's "kernel.switches" line at the close),
 * disabled until cli_kernel_enable; kernel.dat made in
 * directory `dirfd` (`dir` names it in messages), never over a file there.
 * NULL with `why` as cli_kernel_open's. */
struct cli_kernel *cli_kernel_attach(pid_t pid, uint64_t period_ns, bool states, int dirfd,
				     const char *dir, char *why, size_t why_len);

/* Start (on) or stop cli_kernel_attach's events. */
void cli_kernel_enable(struct cli_kernel *k, bool on);

/* kernel.dat in `dir` alone, for the outside mode, whose own events carry
 * the kernel's chains (cli_kernel_chain).  NULL with `why`. */
struct cli_kernel *cli_kernel_file(const char *dir, uint64_t period_ns, char *why, size_t why_len);

/* One tick's kernel call chain (`n` pcs from perf's PERF_SAMPLE_CALLCHAIN,
 * context markers and all) as a KERNEL_SAMPLE of cli_kernel_file's
 * kernel.dat; nothing when it holds no kernel pc.  `arg`: the cli_kernel
 * (the outside mode's callback, out.h). */
void cli_kernel_chain(void *arg, uint32_t pid, uint32_t tid, uint64_t time_ns, const uint64_t *pcs,
		      size_t n);

/* The same for a switch of a thread off its CPU (--states): a
 * KERNEL_SWITCH record, and the file says it has them. */
void cli_kernel_switch_chain(void *arg, uint32_t pid, uint32_t tid, uint64_t time_ns,
			     const uint64_t *pcs, size_t n);

/* The outside mode's events were refused the kernel's ticks (the user may
 * not count in the kernel): kernel.dat is removed and the log says why and
 * how to allow it.  Frees k. */
void cli_kernel_refused(struct cli_kernel *k, const char *log_path);

/* Wait up to `timeout_ms` for samples, then move what the rings hold to
 * kernel.dat.  Call while the program runs. */
void cli_kernel_poll(struct cli_kernel *k, int timeout_ms);

/* After the program ended: the rest of the rings, the kernel functions
 * the samples hit (from /proc/kallsyms), the totals; the log's lines go
 * to `log_path`.  Frees k. */
void cli_kernel_close(struct cli_kernel *k, const char *log_path);

#endif
