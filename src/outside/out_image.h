/* SPDX-License-Identifier: MIT
 *
 * out_image.h — one process image's experiment, written by `tally record`
 * in the outside mode: the same files the collector writes (samples.dat,
 * stacks.dat, maps.dat, threads.dat, counters.dat, log.txt), so the
 * analyzer reads it as any other.  The founder's is the experiment
 * directory; a descendant's is `_fN.exp` (fork) or `_..._xN.exp` (exec)
 * inside it, named as the collector names them (col_descend.c).
 *
 * Each sample's stack is unwound here, from the registers and the stack
 * copy the kernel recorded, by the collector's own CFI unwinder
 * (collector/col_unwind.c) over the objects out_objects.c loaded.
 */
#ifndef TALLY_OUT_IMAGE_H
#define TALLY_OUT_IMAGE_H

#include <limits.h>
#include <stdint.h>
#include <sys/types.h>

#include "collector/col_unwind.h"
#include "format/exp_write.h"
#include "format/exp_write_run.h"
#include "outside/out_objects.h"

/* A thread's switches onto a CPU not yet paired with the switch off it.
 * A run's two records are in the same CPU's ring, so in order; records of
 * two CPUs are sorted only within a drain, so the next run's switch onto
 * another CPU may come before this run's switch off: at most a few. */
#define OUT_PENDING_ONS 4

/* out_image_open's `states`: none, the switch records alone (intervals
 * without a stack), or with a sample of the user's stack at each switch
 * off a CPU. */
#define OUT_STATES_RECORDS 1
#define OUT_STATES_STACKS 2

/* A switch of a thread off (out) or onto a CPU (--states). */
struct out_switch {
	uint64_t time_ns;
	uint32_t stack_id;             /* off a CPU: the stack at which it left (0: none) */
	uint8_t out, preempt;
	uint8_t syscall;               /* with a stack: it left in a system call (its pc
	                                  follows a syscall instruction), else in a fault */
};

/* --states: a thread's schedstat run_delay (its total time runnable on a
 * run queue) as tally record read it, at `time_ns`. */
struct out_run_delay {
	uint64_t time_ns, run_delay_ns;
};

struct out_thread {
	uint32_t tid;
	uint32_t ended;
	uint64_t start_ns, last_ns;
	uint64_t samples;
	struct {
		uint64_t since_ns;     /* switched onto CPU `cpu`, not yet off it */
		uint32_t cpu;
	} on[OUT_PENDING_ONS];
	uint32_t non;
	uint64_t switched_cpu_ns;      /* its time on a CPU, from the switch records */
	struct out_switch *sw;         /* --states: its switches, in arrival order */
	uint32_t nsw, cap_sw;
	struct out_run_delay *rd;      /* --states: its run delay at each poll, in time order */
	uint32_t nrd, cap_rd;
	uint64_t user_ns, system_ns;   /* --states: its samples' CPU by mode so far */
	uint32_t pending_stack;        /* a switch sample's stack, for the switch off a
	                                  CPU it came before (0: none) */
	uint8_t pending_syscall;       /* ... and whether it was in a system call */
	uint8_t switched;              /* a switch record was seen (else its CPU is
	                                  its samples') */
	char name[16];
	struct exp_cursor cur;         /* its samples */
	struct exp_run_writer *rw;
};

struct out_image {
	pid_t pid, ppid;
	char dir[PATH_MAX];
	char lineage[256];             /* "" for the founder, else "_f1_x1"... */
	int dirfd;
	int open;                      /* files open (else nothing is written) */
	struct exp_file_writer samples, stacks, maps, threads;
	struct exp_file_writer states_w;   /* --states only */
	struct exp_cursor states_cur;
	int states;
	struct exp_cursor maps_cur, threads_cur, stacks_cur;
	struct out_stack_ids {         /* switch samples' stacks: hash -> STACK id */
		uint64_t *keys;
		uint32_t *ids;
		size_t cap, used;
		uint32_t last;         /* the highest id written */
	} stack_ids;
	uint64_t switch_stacks;        /* switch samples unwound */
	struct out_objects objs;
	struct col_unwind_ctx *uctx;
	struct out_thread *thr;
	uint32_t nthr, cap_thr;
	uint32_t nforks, nexecs;       /* children named so far */
	uint64_t counters[EXP_CTR_COUNT_];
	uint64_t no_regs;              /* samples without user registers */
	uint64_t switch_unpaired;      /* switches onto a CPU beyond OUT_PENDING_ONS */
	uint64_t copy_short;           /* stacks deeper than the copy (counted truncated) */
	uint64_t start_ns;
	uint32_t max_frames;
	int replaced;                  /* it exec'd: a new image took over the pid */
	char comm[16];                 /* the process's name (COMM), new threads' first name */
	char exe[PATH_MAX];
};

/* Create the image's directory (unless it is the founder's, which exists)
 * and files, and the head of its log.  0, or -errno (nothing written). */
int out_image_open(struct out_image *im, const char *founder_dir, const char *lineage,
		   pid_t pid, pid_t ppid, const char *created_by, uint64_t time_ns,
		   uint32_t hz, uint32_t max_frames, int states);

/* A new mapping (MAP record). */
void out_image_map(struct out_image *im, const struct out_map *m, uint64_t time_ns);

/* A thread met (THREAD_START), by its first record; returns it or NULL. */
struct out_thread *out_image_thread(struct out_image *im, uint32_t tid, uint64_t time_ns,
				    uint32_t creator);

/* One sample: registers in OUT_REGS_MASK order (perf_regs), the stack copy
 * of `stack_len` bytes from regs' sp.  Unwound and appended to the thread's
 * run. */
void out_image_sample(struct out_image *im, uint32_t tid, uint64_t time_ns, uint32_t cpu,
		      uint64_t weight_ns, const uint64_t *perf_regs, const uint8_t *stack,
		      uint64_t stack_len, int kernel_mode);

/* --states: the user's stack where thread `tid` goes off its CPU (a
 * sample of the context-switch event: registers and stack copy as a
 * clock sample's), written once as a STACK record of stacks.dat and given
 * to the interval that the thread's switch off the CPU begins. */
void out_image_switch_stack(struct out_image *im, uint32_t tid, uint64_t time_ns,
			    const uint64_t *perf_regs, const uint8_t *stack, uint64_t stack_len);

/* A thread switched off a CPU (`out`) or onto one (a SWITCH record): its
 * CPU time is the time between (out_image_thread_end). */
void out_image_switch(struct out_image *im, uint32_t tid, uint64_t time_ns, uint32_t cpu, int out,
		      int preempt);

/* --states: read each live thread's run delay from
 * /proc/PID/task/TID/schedstat (tally record, at each poll), so that a
 * block's wait for a CPU after its wake-up is told from the block: the
 * growth between two reads, less the preemptions that ended between
 * them, is shared by the blocks that ended between them. */
void out_image_read_run_delays(struct out_image *im);

/* A thread's new name (a COMM record; THREAD_NAME). */
void out_image_thread_name(struct out_image *im, uint32_t tid, uint64_t time_ns, const char *name);

/* A thread ended (THREAD_END with its CPU: its time on a CPU by its switch
 * records, or what its samples stand for when it had none). */
void out_image_thread_end(struct out_image *im, uint32_t tid, uint64_t time_ns,
			  uint64_t period_ns);

/* The end of the image: remaining threads end, counters.dat and the log's
 * tail are written, files closed.  An image with no sample that was
 * replaced by an exec leaves no directory (as the collector's fork child
 * that execs at once). */
void out_image_close(struct out_image *im, uint64_t time_ns, uint64_t period_ns);

#endif
