/* SPDX-License-Identifier: MIT
 *
 * model_proc_index.h — one experiment's processes found by pid, by parent
 * or by lineage, for the critical path's steps (model_critical.c,
 * model_critical_waits.c): sorted once, each lookup a binary search, so a
 * walk over N processes costs N log N, not N².  See model_proc_index.c.
 */
#ifndef TALLY_MODEL_PROC_INDEX_H
#define TALLY_MODEL_PROC_INDEX_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct exp_proc;

struct model_proc_index {
	const struct exp_proc *const *procs;   /* not owned */
	size_t n;
	uint32_t *by_pid;          /* indexes in procs by (pid, ppid, start, index) */
	uint32_t *by_parent;       /* ... by (ppid, start, index) */
	uint32_t *by_lineage;      /* ... by (lineage, index) */
	uint64_t probes;           /* processes the lookups looked at: the work, for tests */
};

/* Is `lineage` (an experiment's "_f1_x2" suffixes) `parent`'s, then (if
 * `forked`) one fork's part "_fN", then exec parts "_xN" only, each with
 * its digits?  NULL is "".  The one parser of lineages' rest: the child of
 * a fork (model_proc_first_child) and the root's exec chain
 * (model_critical.c) both ask it. */
bool model_lineage_after(const char *lineage, const char *parent, bool forked);

/* Index procs[0..n) (kept, not copied): 0, or -1 out of memory. */
int model_proc_index_build(struct model_proc_index *x, const struct exp_proc *const *procs, size_t n);
void model_proc_index_free(struct model_proc_index *x);

/* The image of process `pid`, child of `ppid`, that started last at or
 * before t (an exec makes a new image of a pid; of equal starts, the last
 * index); n if none. */
size_t model_proc_image_at(struct model_proc_index *x, uint32_t pid, uint32_t ppid, uint64_t t);

/* The child of process `parent` (its pid not the parent's) that started
 * first within [from, to] (of equal starts, the first index), forked by
 * this image (its lineage the parent's and "_f") and, where the child's
 * log names the thread that forked (fork_tid), by thread `tid` (0: any):
 * a child another thread of the parent forked meanwhile, or another
 * image's of the same pid, is passed over; n if none. */
size_t model_proc_first_child(struct model_proc_index *x, const struct exp_proc *parent, uint32_t tid,
			      uint64_t from, uint64_t to);

/* The first process (by index) whose lineage is the len bytes at
 * `lineage`; n if none. */
size_t model_proc_by_lineage(struct model_proc_index *x, const char *lineage, size_t len);

#endif
