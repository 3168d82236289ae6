/* SPDX-License-Identifier: MIT
 *
 * out_ring.h — the perf events of the outside mode and their ring buffers.
 *
 * `tally record` opens them on a statically linked program (src/outside/,
 * docs/static.md): one task-clock event per CPU on a task, inherited by every
 * thread and process it creates, sampling the user registers and a copy of
 * the user stack (PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER), with the
 * program's mmap2, comm, fork and exit records.  The rings are drained by
 * the caller's thread (out_ring_drain); records are copied out whole (a
 * record that wraps around the ring's end is made contiguous).
 */
#ifndef TALLY_OUT_RING_H
#define TALLY_OUT_RING_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#define OUT_STACK_BYTES 16384u     /* user stack copied with each sample */

/* x86-64 perf_regs order (arch/x86/include/uapi/asm/perf_regs.h) of the
 * registers sampled: ax bx cx dx si di bp sp ip, then r8..r15. */
#define OUT_REGS_MASK (0x1ffull | (0xffull << 16))
#define OUT_NREGS 17

struct out_rings;

/* The type out_ring_drain gives a sample of the context-switch event
 * (--states), laid out as the clock's: none of perf's record types. */
#define OUT_RECORD_SWITCH_SAMPLE 0x10000u

/* Records delivered by out_ring_drain, in time order within one drain. */
typedef void (*out_record_fn)(void *arg, uint32_t type, uint16_t misc, const uint8_t *rec,
			      size_t len);

/* Open the events on `pid` (with `enable_on_exec`: counting starts at its
 * next exec; else at once), one per CPU, for each of the `ntids` tasks in
 * `tids` (a launched program: its one pid; attaching: every thread).
 * `period_ns` of task-clock between samples.  Kernel-mode ticks are
 * sampled (at the user stack that entered the kernel) when the kernel
 * allows it, else excluded; *kernel_ticks says which; with `callchain`
 * they carry the kernel's call chain too (PERF_SAMPLE_CALLCHAIN, after the
 * sample's CPU).  With *switch_stacks (--states), a sample at each switch
 * of a thread off its CPU too, with the same registers and stack (and
 * with `callchain` the kernel's chain), where the kernel allows counting
 * in it; *switch_stacks
 * says whether.  Returns NULL with the reason in `why`. */
struct out_rings *out_ring_open(const pid_t *tids, size_t ntids, int enable_on_exec,
				uint64_t period_ns, int callchain, int *kernel_ticks, int *switch_stacks,
				char *why, size_t why_len);

/* Wait up to `timeout_ms` for a ring to fill a quarter, then pass every
 * record of every ring to `fn`, sorted by time.  Returns the records
 * passed. */
size_t out_ring_drain(struct out_rings *r, int timeout_ms, out_record_fn fn, void *arg);

/* Records the kernel lost (a full ring), so far. */
uint64_t out_ring_lost(const struct out_rings *r);

/* Ring bytes per CPU (for the log). */
size_t out_ring_bytes(const struct out_rings *r);

void out_ring_close(struct out_rings *r);

#endif
