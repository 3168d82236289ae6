/* SPDX-License-Identifier: MIT
 *
 * model_build_int.h — what the files of model_build share while they turn
 * loaded experiments into a model (private to src/model/).
 *
 * The files, bottom up (each calls only those above it in this list):
 *   model_frames.c   functions, frames resolved and rewritten by the seed's
 *                    rules, a stack made into a new entry
 *   model_entries.c  aggregation: the entry and thread of an event, filters,
 *                    adding a metric's value everywhere it counts
 *   model_io.c       I/O events, by call stack and by file
 *   model_heap.c     heap events replayed in time order: bytes, leaks, peak
 *   model_arcs.c     the -pg / -finstrument-functions arcs
 *   model_mpi.c      MPI calls (-m): metrics by calling stack, messages
 *   model_build.c    the driver: one pass per process, then the whole model
 */
#ifndef TALLY_MODEL_BUILD_INT_H
#define TALLY_MODEL_BUILD_INT_H

#include "model/model.h"
#include "model/model_map.h"
#include "symbols/sym.h"

/* Indexes kept while building. */
struct build {
	struct model *m;
	struct model_map func_by_sym;     /* sym_func pointer -> func id */
	struct model_map func_by_name;    /* hash(name, object) -> func id */
	struct model_map arc_of;          /* (caller, callee) -> arc index + 1 */
	size_t cap_arcs, cap_files;
	struct model_map file_of;         /* hash(name) -> file index + 1 */
	size_t cap_funcs, cap_entries, cap_threads, cap_procs, cap_msgs;
	uint32_t unknown, truncated;      /* artificial function ids */
	struct model_map entry_by_content; /* merge_procs: hash of frames -> entry index + 1 */
	struct model_map msg_of;          /* (from, to) ranks -> model.msgs index + 1 */
};

/* Per process while building. */
struct proc_ctx {
	const struct exp_proc *p;
	uint32_t index;                   /* in model.procs */
	struct sym_space *space;
	uint64_t *epochs;                 /* sorted times of map changes */
	size_t nepochs;
	struct model_map entry_of;        /* (stack id, epoch) -> entry index + 1 */
	struct model_map thread_of;       /* tid -> thread index + 1 */
	uint64_t base_ns;                 /* founder's start, for --time */
};

/* One resolved frame. */
struct frame {
	uint32_t func;
	uint64_t addr;
	bool tally, thread_start, plt;
	bool mpi;                         /* an MPI function, or in an MPI library */
	const char *path;
};

/* ---- model_frames.c ---- */

/* Append a function; returns its id (0, <Total>'s, if out of memory). */
uint32_t model_func_add(struct build *b, const char *name, const char *path, uint64_t addr,
			uint64_t size, uint32_t flags, const char *aliases);
/* The function called `name` in `path`, created on first use. */
uint32_t model_func_by_name(struct build *b, const char *name, const char *path, uint32_t flags);
/* Resolve pc in the process's address space at time_ns; `retaddr`: it is a
 * return address, so the call is the instruction before it. */
void model_frame_resolve(struct build *b, struct proc_ctx *c, uint64_t pc, bool retaddr,
			 uint64_t time_ns, struct frame *fr);
/* Symbolize and rewrite stack `stack_id` into a new entry, with the MPI
 * function `op` as its leaf if op > 0 (a traced MPI call's stack ends in
 * its caller); returns its index, or -1 if out of memory. */
long model_entry_new(struct build *b, struct proc_ctx *c, uint32_t stack_id, unsigned op,
		     uint64_t time_ns, const struct model_options *o);
/* The function of MPI function `op` (MPI_Send ...). */
uint32_t model_mpi_func(struct build *b, unsigned op);

/* ---- model_entries.c ---- */

/* The model_thread of `tid`, created on first use; NULL if out of memory. */
struct model_thread *model_thread_for(struct build *b, struct proc_ctx *c, uint32_t tid);
/* Does an event of `tid` at time `t` pass the --thread and --time filters? */
bool model_keep(const struct proc_ctx *c, const struct model_options *o, uint32_t tid, uint64_t t);
/* Add `value` of metric `mm` for an event to its entry, process, thread and
 * the total; *entry_out (if not NULL) gets the entry.  0, or -1 if out of
 * memory. */
int model_add(struct build *b, struct proc_ctx *c, const struct model_options *o, uint32_t tid,
	      uint64_t t, uint32_t stack_id, enum model_metric mm, uint64_t value, long *entry_out);
/* The same for a traced MPI call: its stack (the caller's) with the MPI
 * function `op` as the leaf. */
int model_add_mpi(struct build *b, struct proc_ctx *c, const struct model_options *o, uint32_t tid,
		  uint64_t t, uint32_t stack_id, unsigned op, enum model_metric mm, uint64_t value);

/* ---- model_io.c, model_heap.c, model_arcs.c: one kind of event each;
 * 0, or -1 if out of memory ---- */
int model_build_io(struct build *b, struct proc_ctx *c, const struct model_options *o);
int model_heap_replay(struct build *b, struct proc_ctx *c, const struct model_options *o);
int model_build_arcs(struct build *b, struct proc_ctx *c, const struct model_options *o);
int model_build_mpi(struct build *b, struct proc_ctx *c, const struct model_options *o);
/* Sort the model's messages by (from, to). */
void model_mpi_sort(struct model *m);
/* Sort the model's arcs by (caller, callee). */
void model_arcs_sort(struct model *m);

#endif
