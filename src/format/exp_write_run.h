/* SPDX-License-Identifier: MIT
 *
 * exp_write_run.h — writing clock samples as runs (EXP_REC_SAMPLE_RUN).
 *
 * Used by the collector's signal handler, one writer per thread.  A sample
 * costs the same whatever its stack: the stack is compared with the
 * previous sample's (both in the writer's own memory) and the frames that
 * differ are encoded against a per-run dictionary of pcs, so nothing is
 * looked up in a shared table and no memory is touched in proportion to how
 * new the stack is.  Everything here is async-signal-safe; a writer must not
 * be used by two contexts at once.
 */
#ifndef TALLY_EXP_WRITE_RUN_H
#define TALLY_EXP_WRITE_RUN_H

#include <stdint.h>

#include "format/exp_write.h"

#define EXP_RUN_DICT_SLOTS 1024        /* pcs a run's dictionary can index */

struct exp_run_dict_slot {
	uint64_t pc;
	uint32_t gen;                  /* run it belongs to (older: empty) */
	uint32_t index;                /* its dictionary entry */
};

/* The writer's state: the run being filled and what its next sample is
 * encoded against.  About 24 KiB; zero it before first use. */
struct exp_run_writer {
	struct exp_sample_run *rec;    /* the run being filled; NULL: none */
	uint32_t cap;                  /* bytes for samples in it */
	uint32_t gen;                  /* runs started so far */
	uint32_t ndict;                /* dictionary entries of this run */
	uint32_t depth;                /* frames of the previous sample's stack */
	uint16_t prev_cpu;
	uint64_t prev_time, prev_weight;
	uint64_t prev[EXP_MAX_FRAMES]; /* its frames, root first */
	struct exp_run_dict_slot dict[EXP_RUN_DICT_SLOTS];
};

struct exp_run_sample {
	uint32_t tid;
	uint16_t cpu;                  /* 0xffff: unknown */
	uint16_t flags;                /* EXP_STACK_TRUNCATED | EXP_STACK_BROKEN */
	uint64_t time_ns;
	uint64_t weight_ns;
};

/* Append a sample whose stack is pcs[0..n), leaf first (1 <= n <=
 * EXP_MAX_FRAMES), through cursor c of file w.  Starts a new run when the
 * current one is full (or of another thread).  Returns 0, or -1 if no space
 * could be had (w->full). */
int exp_run_append_sigsafe(struct exp_run_writer *rw, struct exp_file_writer *w,
			   struct exp_cursor *c, const struct exp_run_sample *s,
			   const uint64_t *pcs, uint32_t n);

/* Forget the current run (its cursor is about to be released). */
void exp_run_end_sigsafe(struct exp_run_writer *rw);

#endif
