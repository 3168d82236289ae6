/* SPDX-License-Identifier: MIT
 *
 * out.h — the outside mode: profiling a program the collector cannot be
 * loaded into (a statically linked executable: Go, musl, static glibc)
 * from `tally record` itself, with perf events (docs/static.md).
 *
 * Layer: src/cli/ calls it; it calls the format's writers, the collector's
 * CFI unwinder (collector/col_unwind.c, the same code the signal handler
 * runs) and nothing of the analyzer.  Everything runs in `tally record`'s
 * one thread while it waits for the program.
 */
#ifndef TALLY_OUT_H
#define TALLY_OUT_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct out_session;

struct out_options {
	const char *dir;           /* the experiment directory (exists, log head written) */
	const char *mode_why;      /* why from outside, for the log: "statically linked", ... */
	uint32_t hz;               /* samples per second of CPU time */
	uint32_t max_frames;
	uint64_t limit_bytes;      /* 0: no size limit */
	/* With --kernel: each recorded sample's kernel call chain goes here
	 * (pcs as perf wrote them, context markers included); NULL: none
	 * asked for. */
	void (*kernel_chain)(void *arg, uint32_t pid, uint32_t tid, uint64_t time_ns,
			     const uint64_t *pcs, size_t n);
	/* ...and, with --states, each switch off a CPU's */
	void (*kernel_switch)(void *arg, uint32_t pid, uint32_t tid, uint64_t time_ns,
			      const uint64_t *pcs, size_t n);
	void *kernel_arg;
	int states;                /* --states: intervals off the CPU and CPU splits */
};

/* Sample `child` (stopped before its exec, which enables the events) and
 * every thread and process it creates.  NULL with the reason in `why`. */
struct out_session *out_session_launch(pid_t child, const struct out_options *o, char *why,
				       size_t why_len);

/* Sample the running process `pid` (every thread it has now and creates
 * later).  Its mappings come from /proc/PID/maps.  NULL with `why`. */
struct out_session *out_session_attach(pid_t pid, const struct out_options *o, char *why,
				       size_t why_len);

/* Do the samples carry the kernel's call chains (kernel_chain was given
 * and the kernel allows its ticks)? */
int out_session_kernel_chains(const struct out_session *s);

/* Drain the rings, waiting up to `timeout_ms` for data. */
void out_session_poll(struct out_session *s, int timeout_ms);

/* Drain what is left, end every image, write the founder's log tail;
 * frees the session.  `why_end` (NULL: the program ended) is logged. */
void out_session_close(struct out_session *s);

#endif
