/* SPDX-License-Identifier: MIT
 *
 * model_build_int.h — what the files of model_build share while they turn
 * loaded experiments into a model (private to src/model/).
 *
 * The files, bottom up (each calls only those above it in this list;
 * tests/e2e/test_layers.sh checks it):
 *   model_clock.c    a rank's times on rank 0's clock (offset, drift)
 *   model_pool.c     the entries' frames and metrics, stored in blocks
 *   model_func_make.c functions made: added, or found by name
 *   model_filter.c   --object, --hide-object, --symbol on each new entry
 *   model_structure.c  outlined parts, OpenMP bodies and runtime: names to
 *                    kinds, one stack rewritten for the user view
 *   model_omp_tail.c OpenMP bodies that tail-call their work: the body a
 *                    function under the runtime was jumped to from
 *   model_frames.c   functions, frames resolved and rewritten by the Sun analyzer's
 *                    rules, a stack made into a new entry
 *   model_java.c     a JVM's stacks (Java and machine frames) in the user,
 *                    expert and machine views (model_java_names.c: names)
 *   model_omp.c      OpenMP workers' stacks placed by time under the caller
 *                    of their parallel region, <OMP-idle>
 *   model_entries.c  aggregation: the entry and thread of an event, filters,
 *                    adding a metric's value everywhere it counts
 *   model_sync.c     synchronization waits, by call stack and by object
 *   model_blame.c    who held the objects waited on (lock-holder blame)
 *   model_io.c       I/O events, by call stack and by file
 *   model_proc_index.c an experiment's processes by pid, parent, lineage,
 *                    for the critical path's steps across processes
 *   model_critical_waits.c the waits the critical path crosses, each with
 *                    the thread that ended it: joins, mutex holders,
 *                    condition, semaphore and barrier wakers, the
 *                    writers into pipes, FIFOs, sockets, eventfds
 *   model_critical.c the critical path across threads and processes,
 *                    through those waits
 *   model_heap.c     heap events replayed in time order: bytes, leaks, peak
 *   model_arcs.c     the -pg / -finstrument-functions arcs
 *   model_mpi_match.c  MPI messages matched send to receive; the ranks'
 *                    clocks tightened by their order
 *   model_mpi.c      MPI calls (-m): metrics by calling stack, messages
 *   model_names.c    same-named functions of one object told apart
 *   model_states.c   thread states (--states): wall time by state and stack
 *   model_counters.c counter samples (-c): a metric per event
 *   model_heap_blocks.c heap blocks' lifetimes, shared by the two below
 *   model_dataspace.c precise samples by data object (docs/dataspace.md)
 *   model_dataclock.c clock samples by data object (--data)
 *   model_build.c    the driver: one pass per process, then the whole model
 */
#ifndef TALLY_MODEL_BUILD_INT_H
#define TALLY_MODEL_BUILD_INT_H

#include "model/model.h"
#include "model/model_map.h"
#include "model/model_proc_index.h"
#include "symbols/sym.h"

/* The OpenMP pseudo-functions (docs/structure.md). */
enum { MODEL_OMP_FN_IDLE, MODEL_OMP_FN_BARRIER, MODEL_OMP_FN_LOCK, MODEL_OMP_FN_OVERHEAD,
       MODEL_OMP_FN_COUNT };

/* One end of a point-to-point message, noted while building (model_mpi.c)
 * to be matched at the end (model_mpi_match.c). */
struct model_msg_end {
	int32_t from, to, tag;     /* MPI_COMM_WORLD ranks; the tag */
	bool recv;                 /* the receive's end (else the send's start) */
	uint32_t thread;           /* model.threads */
	uint64_t time_ns;          /* on rank 0's clock */
};

/* Indexes kept while building. */
struct build {
	struct model_msg_end *ends;       /* with match_messages: messages' ends */
	size_t nends, cap_ends;
	bool match, keep_pairs;           /* note ends; keep model.match.pairs */
	struct model *m;
	struct model_map func_by_sym;     /* sym_func pointer -> func id */
	struct model_map func_by_name;    /* hash(name, object) -> func id */
	struct model_map arc_of;          /* (caller, callee) -> arc index + 1 */
	size_t cap_arcs, cap_files;
	struct model_map file_of;         /* hash(name) -> file index + 1 */
	size_t cap_funcs, cap_entries, cap_threads, cap_procs, cap_msgs, cap_events;
	uint32_t unknown, truncated;      /* artificial function ids */
	struct model_map entry_by_content; /* merge_procs: hash of frames -> entry index + 1 */
	struct model_map msg_of;          /* (from, to) ranks -> model.msgs index + 1 */
	uint32_t omp_fn[MODEL_OMP_FN_COUNT];   /* <OMP-*> ids (0 until first needed) */
	bool inline_frames;               /* inlined calls become frames (not --no-inline) */
	bool oom;                         /* a function could not be added: the
	                                     build fails at the end */
	struct model_map state_stack_of;  /* (thread, metric, entry) -> state_stacks index + 1 */
	size_t cap_state_stacks;
	struct model_map data_object_of;  /* hash(metric, name, object) -> data_objects index + 1 */
	struct model_map data_access_of;  /* (object, func) -> data_access index + 1 */
	size_t cap_data_objects, cap_data_access;
	size_t cap_data_types, cap_data_members;
	struct model_map data_type_of;    /* sym_dtype die ^ path hash -> data_types index + 1 */
	struct model_map data_member_of;  /* (object, type, field) -> data_members index + 1 */
	struct model_map sync_object_of;  /* hash(proc, kind, address) -> sync_objects index + 1 */
	struct model_map sync_waiter_of;  /* hash(sync object, tid): the object's waiters */
	size_t cap_sync_objects;
	struct model_map blame_of;        /* hash(proc, waiter, object, holder, tid, why) -> blames index + 1 */
	size_t cap_blames;
	size_t cap_crit, cap_crit_segs;
	struct crit_plan *crit_plan;      /* model_critical.c: the path of the experiment
	                                     being added, walked over its processes'
	                                     records, charged to each as it is built */
	struct omp_tail *tails;           /* model_omp_tail.c: bodies' tail calls */
	size_t ntails, cap_tails;
	struct model_map tail_by_sym;     /* jumped-to sym_func -> tails index + 1 */
	struct model_map tail_by_name;    /* hash(PLT callee) -> tails index + 1 */
	struct model_map tail_scanned;    /* sym_object -> 1: its bodies are read */
	/* Inlined calls by object address (model_frames.c), so that a pc of an
	 * object many processes share (a job's ranks) reads DWARF once. */
	struct model_map inl_of;          /* hash(sym_object, addr) -> inl_at index + 1 */
	struct inl_at {
		const struct sym_object *obj;
		uint64_t addr;
		uint32_t start, n;        /* inl_funcs[start .. start + n) */
	} *inl_at;
	size_t ninl_at, cap_inl_at;
	uint32_t *inl_funcs;              /* func ids, outermost first */
	size_t ninl_funcs, cap_inl_funcs;
	struct sample_acc *acc;           /* model_entries.c: clock samples by entry, ... */
	size_t cap_acc;
	uint32_t *touched;                /* ... the entries with some, in this process */
	size_t ntouched, cap_touched;
};

/* Clock samples of one process summed by entry before they are added to it
 * (model_add_sample, model_samples_flush). */
struct sample_acc {
	uint64_t cpu_ns, samples;
};

/* What a stack id's samples count in, for the epoch they were last seen in
 * (model_entries.c): so that a sample costs one look-up of 12 bytes. */
struct stack_memo {
	uint32_t entry;                   /* index + 1; 0: none yet */
	uint32_t epoch;
	uint32_t flags;                   /* MODEL_ENTRY_FILTERED, STACK_MEMO_WORKER */
};
#define STACK_MEMO_WORKER 0x100u      /* an OpenMP worker's entry: placed by time */
#define STACK_MEMO_SEEN 0x200u        /* model_samples_reserve counted it */

/* Do the Sun analyzer's structure rules apply (imputed calls, <OMP-*>, @plt for the
 * resolver, <signal handler>)?  In the user view and the expert view, which
 * differs from it only for Java. */
#define MODEL_STRUCTURE_RULES(o) ((o)->view != MODEL_VIEW_MACHINE)

/* One resolved frame. */
struct frame {
	uint32_t func;
	uint64_t addr;
	bool tally, thread_start, plt;
	bool instrumentation;             /* an entry of the -pg / -finstrument-functions
					   * runtime (mcount, __cyg_profile_func_*) */
	bool mpi;                         /* an MPI function, or in an MPI library */
	bool lazy;                        /* ld.so's lazy resolver */
	bool sigreturn;                   /* the signal trampoline (__restore_rt) */
	uint32_t tail;                    /* an OpenMP body jumps to it: model_omp_tail_of */
	uint32_t ninl;                    /* inlined calls at this pc: functions ... */
	uint32_t inl;                     /* ... proc_ctx.inl[inl .. inl + ninl), outermost first */
	const char *path;
};

/* Per process while building. */
struct proc_ctx {
	const struct exp_proc *p;
	uint32_t index;                   /* in model.procs */
	struct sym_space *space;
	uint64_t *epochs;                 /* sorted times of map changes */
	size_t nepochs;
	struct model_map entry_of;        /* (stack id, epoch) -> entry index + 1 */
	struct model_map thread_of;       /* tid -> its first life's thread index + 1 */
	uint64_t base_ns;                 /* founder's start, for --time */
	bool omp;                         /* an OpenMP runtime is mapped */
	struct model_map derived;         /* (entry, placement) -> entry index + 1 */
	struct model_map entry_by_funcs;  /* hash of a placed stack -> entry index + 1 */
	struct omp_sample *timeline;      /* OpenMP: samples of threads that open regions */
	size_t ntimeline, cap_timeline;
	bool jvm;                         /* a JVM ran in it (model_java.c) */
	const char *jdk_home;             /* its JDK's directory: jdk_home_len bytes */
	size_t jdk_home_len;
	struct sym_space *code;           /* generated code over time (JIT_CODE) */
	uint32_t *jit_version;            /* p->jit[i] is the Nth compiled version of its method */
	struct model_map jfunc;           /* (jmethodID << 3 | variant) -> func id */
	struct model_map frame_of;        /* (pc, retaddr, epoch) -> frames index + 1 */
	bool data_filter;                 /* --data-object: only the samples in data_keep */
	struct model_map data_keep;       /* model_data_sample_key of each -> 1 */
	struct frame *frames;             /* pcs resolved so far (model_frames.c) */
	size_t nframes, cap_frames;
	uint32_t *inl;                    /* the inlined functions of frames (frame.inl) */
	size_t ninl, cap_inl;
	uint64_t last_key;                /* the last event's entry_of key ... */
	long last_entry;                  /* ... and its entry (a sample adds two metrics) */
	uint32_t last_tid, last_thread;   /* the last thread looked up: tid + 1, index */
	struct stack_memo *memo;          /* by stack id (p->nstacks), made on first use */
};

/* ---- model_structure.c ---- */

/* Is `object` (a basename) an OpenMP runtime? */
bool model_omp_runtime_object(const char *object);
/* MODEL_FUNC_OUTLINED or MODEL_FUNC_OMP_BODY if the link name says so, with
 * *parent_len the length of the parent's link name (0: not named); else 0. */
uint32_t model_struct_kind(const char *link, size_t *parent_len);
/* The user view of one stack funcs[first..*n): OpenMP runtime frames between
 * a caller and a body dropped, runtime frames at the leaf made one <OMP-*>
 * function, a worker's runtime prefix dropped.  Needs b->omp_fn.  Returns
 * the MODEL_OMP_* kind. */
uint32_t model_struct_omp(const struct build *b, uint32_t *funcs, uint64_t *addrs, uint32_t *n,
			  uint32_t first);
/* Insert the imputed calls of outlined parts and bodies from their parents
 * (from index `from` on, at most `cap` frames); returns the new count. */
uint32_t model_struct_impute(const struct build *b, uint32_t *funcs, uint64_t *addrs, uint32_t n,
			     uint32_t from, uint32_t cap);

/* ---- model_omp_tail.c ---- */

/* Read the OpenMP bodies of every object process c maps (each object once
 * per build) for the functions they jump to.  -1 if out of memory. */
int model_omp_tail_scan(struct build *b, struct proc_ctx *c);
/* The first body noted as jumping to `sf` (index + 1), or 0; the next one
 * jumping to the same function, or 0; a noted body and its object. */
uint32_t model_omp_tail_of(const struct build *b, const struct sym_func *sf);
uint32_t model_omp_tail_next(const struct build *b, uint32_t tail);
const struct sym_func *model_omp_tail_body(const struct build *b, uint32_t tail,
					   struct sym_object **obj);
void model_omp_tail_free(struct build *b);

/* ---- model_frames.c ---- */

/* Append a function; returns its id (0, <Total>'s, with b->oom set, if out
 * of memory). */
uint32_t model_func_add(struct build *b, const char *name, const char *path, uint64_t addr,
			uint64_t size, uint32_t flags, const char *aliases);
/* The function called `name` in `path`, created on first use. */
uint32_t model_func_by_name(struct build *b, const char *name, const char *path, uint32_t flags);

/* The filters of model_options (model_filter.c).  Is the object at `path`
 * the one named `want` (basename, path, or end of path)?  The function
 * "<object>" standing for a hidden object's frames.  Mark entry e filtered
 * out unless it passes --object and --symbol. */
bool model_filter_object_is(const char *path, const char *want);
uint32_t model_filter_hidden(struct build *b, const char *path);
void model_filter_entry(const struct build *b, struct model_entry *e, const struct model_options *o);
/* How many load-object map changes the process made at or before time t. */
size_t model_epoch_of(const struct proc_ctx *c, uint64_t t);
/* Resolve pc in the process's address space at time_ns; `retaddr`: it is a
 * return address, so the call is the instruction before it.  Each (pc,
 * retaddr, epoch) is resolved once (c->frame_of). */
void model_frame_resolve(struct build *b, struct proc_ctx *c, uint64_t pc, bool retaddr,
			 uint64_t time_ns, struct frame *fr);
/* Symbolize and rewrite stack `stack_id` into a new entry, with the MPI
 * function `op` as its leaf if op > 0 (a traced MPI call's stack ends in
 * its caller); returns its index, or -1 if out of memory. */
long model_entry_new(struct build *b, struct proc_ctx *c, uint32_t stack_id, unsigned op,
		     uint64_t time_ns, const struct model_options *o);
/* The function of MPI function `op` (MPI_Send ...). */
uint32_t model_mpi_func(struct build *b, unsigned op);
/* merge_procs: the last entry made, `e`, is dropped for an older one with
 * the same frames (another rank's), whose index is returned; -1 if out of
 * memory. */
long model_entry_merge(struct build *b, long e);
/* The entry of process c with exactly these frames, created on first use
 * (the arrays are copied; merged with other processes' under merge_procs);
 * its omp kind is `omp` when created.  Its index, or -1 if out of memory. */
long model_entry_of_frames(struct build *b, struct proc_ctx *c, const uint32_t *funcs,
			   const uint64_t *addrs, uint32_t n, uint32_t omp);

/* The entry of process c with exactly these frames and model_entry.java
 * `java`, created on first use (arrays copied).  Its index, or -1. */
long model_entry_of_java(struct build *b, struct proc_ctx *c, const uint32_t *funcs,
			 const uint64_t *addrs, uint32_t n, uint32_t java);
/* The entry of the native stack pcs[0..n) (leaf first), as model_entry_new
 * makes it. */
long model_entry_native(struct build *b, struct proc_ctx *c, const uint64_t *pcs, uint32_t n,
			uint16_t sflags, bool missing, unsigned op, uint64_t time_ns,
			const struct model_options *o);

/* ---- model_java.c ---- */

/* Is process c a JVM: its generated code over time, its code unloads
 * added to the epochs.  0, or -1 if out of memory. */
int model_java_proc(struct build *b, struct proc_ctx *c);
/* The entry of a JVM's stack pcs[0..n), whose first nj frames are Java
 * frames; -1 if out of memory; -2 if it is plain native code (no Java, no
 * JVM frame): model_entry_native's. */
long model_java_entry(struct build *b, struct proc_ctx *c, const uint64_t *pcs, uint32_t n,
		      uint32_t nj, uint16_t sflags, uint64_t time_ns, const struct model_options *o);
void model_java_free(struct proc_ctx *c);

/* ---- model_omp.c ---- */

/* Note a sample of thread `tid` at `t` whose entry is `e`, before worker
 * stacks are placed; 0, or -1 if out of memory. */
int model_omp_note(struct build *b, struct proc_ctx *c, uint32_t tid, uint64_t t, long e);
/* Sort what was noted: from now on worker entries are placed. */
void model_omp_ready(struct build *b, struct proc_ctx *c);
/* The entry an event of entry `e` at `t` counts in: `e` itself, or for a
 * worker's stack the stack placed under the region open at `t` (or
 * <OMP-idle>).  -1 if out of memory. */
long model_omp_place(struct build *b, struct proc_ctx *c, long e, uint64_t t);
void model_omp_free(struct proc_ctx *c);

/* ---- model_entries.c ---- */

/* The entry of an event with this stack at this time (before OpenMP
 * placement); -1 if out of memory. */
long model_entry_for(struct build *b, struct proc_ctx *c, uint32_t stack_id, uint64_t time_ns,
		     const struct model_options *o);

/* Make room in the model's entries, and in c->entry_of, for one per
 * distinct stack of process c's samples, at once: the array grown by
 * doubling was copied at each step, its pages touched twice, and the map
 * rehashed at each doubling (model_map_put 4-6% of a call-heavy report).
 * With o->keep_events, room in the events for every sample too (the copies
 * of their doubling were a tenth of `tally html`'s CPU on 2 M samples).
 * 0, or -1 if out of memory. */
int model_samples_reserve(struct build *b, struct proc_ctx *c, const struct model_options *o);
/* Count clock sample `s` (if it passes the filters): its entry's sums in
 * b->acc, its thread's at once.  0, or -1 if out of memory. */
int model_add_sample(struct build *b, struct proc_ctx *c, const struct model_options *o,
		     const struct exp_sample *s);
/* model_add_sample of each of the process's samples, in order, their
 * memos and sums prefetched some samples ahead.  0, or -1 if out of
 * memory. */
int model_add_samples(struct build *b, struct proc_ctx *c, const struct model_options *o);
/* Add the sums of model_add_sample to the entries, the process and the
 * total (after the process's last sample, before any other event).  0, or
 * -1 if out of memory. */
int model_samples_flush(struct build *b, struct proc_ctx *c);

/* The model_thread of `tid` at time `at` (a reused id: the life that had
 * started by then), created on first use; NULL if out of memory. */
struct model_thread *model_thread_for(struct build *b, struct proc_ctx *c, uint32_t tid, uint64_t at);
/* The thread of the model for life `life` of c's process (its index in
 * c->p->threads), made now; a reused id's lives are chained (next_life) in
 * the order made.  NULL without memory. */
struct model_thread *model_thread_of_life(struct build *b, struct proc_ctx *c, size_t life);
/* Does an event of `tid` at time `t` pass the --thread and --time filters? */
bool model_keep(const struct proc_ctx *c, const struct model_options *o, uint32_t tid, uint64_t t);
/* Add `value` of metric `mm` for an event to its entry, process, thread and
 * the total; *entry_out (if not NULL) gets the entry.  0, or -1 if out of
 * memory. */
int model_add(struct build *b, struct proc_ctx *c, const struct model_options *o, uint32_t tid,
	      uint64_t t, uint32_t stack_id, enum model_metric mm, uint64_t value, long *entry_out);
/* The same for an event whose entry `e` is already known (a pseudo-function's). */
int model_add_entry(struct build *b, struct proc_ctx *c, const struct model_options *o, uint32_t tid,
		    uint64_t t, long e, enum model_metric mm, uint64_t value);
/* The same for a traced MPI call: its stack (the caller's) with the MPI
 * function `op` as the leaf. */
int model_add_mpi(struct build *b, struct proc_ctx *c, const struct model_options *o, uint32_t tid,
		  uint64_t t, uint32_t stack_id, unsigned op, enum model_metric mm, uint64_t value);

/* ---- model_io.c, model_heap.c, model_arcs.c: one kind of event each;
 * 0, or -1 if out of memory ---- */
int model_build_io(struct build *b, struct proc_ctx *c, const struct model_options *o);
int model_build_sync(struct build *b, struct proc_ctx *c, const struct model_options *o);
int model_build_blame(struct build *b, struct proc_ctx *c, const struct model_options *o);
int model_build_critical(struct build *b, struct proc_ctx *c, const struct model_options *o);
/* model_critical.c: walk the critical path over the records of one
 * experiment's processes procs[0..n) (procs[0] its root) before they are
 * built (model_build_critical then charges each its part); 0, or -1 out of
 * memory.  Freed by model_critical_plan_free. */
int model_critical_plan(struct build *b, const struct exp_proc *const *procs, size_t n);
void model_critical_plan_free(struct build *b);
/* What a thread's samples stand for on the path without --states
 * (THREAD_SCHED): its CPU and its wait for a CPU, less its first wait,
 * before its life began (THREAD_SWITCHES), and less the collector's CPU
 * before its end, which no sample weighs, with its share of the wait (the
 * kernel gives the sum of the waits, not where each fell: taken as spread
 * with the CPU).  The collector's end of the thread, after THREAD_END, is
 * left out (THREAD_COST's after_end_ns). */
uint64_t model_critical_sched_busy(const struct exp_thread_ev *th);

/* model_io.c: exp_fd_ev by (fd, time); what `fd` named at `time` (the last
 * FD_NAME for it at or before then, in `fds` so sorted; else "fd N" in buf). */
int model_io_cmp_fd_ev(const void *a, const void *b);
const char *model_io_fd_name_at(const struct exp_fd_ev *fds, size_t n, int32_t fd, uint64_t time, char *buf,
				size_t len);

/* A wait the critical path crosses (model_critical_waits.c): thread tid
 * of process `proc` (an index in the processes the waits were found
 * over) asked at req_ns, was granted at time_ns (tid and time_ns where a
 * record's are: offsets 4 and 8), and was woken by thread waker_tid of
 * process waker_proc at wake_ns (waker_tid 0: not known; the wait stays
 * on the waiter). */
struct crit_wait {
	uint32_t proc;
	uint32_t tid;
	uint64_t time_ns;
	uint64_t req_ns;
	uint64_t wake_ns;
	uint32_t waker_tid;
	uint32_t waker_proc;
	uint32_t stack_id;
	uint16_t kind;             /* enum model_crit_kind */
};

/* The waits of processes procs[0..nprocs) (one experiment's: SYNC
 * records, reads of pipes, FIFOs, sockets and eventfds that another
 * thread's write ended, in this process or another of them, waits in
 * poll, select and epoll, waits for a child process), sorted by (proc,
 * tid, time_ns), into *out (malloc'd), their count in *n; 0, or -1 when
 * out of memory.  ix: procs indexed (model_proc_index.h); NULL: made here. */
int model_critical_waits(const struct exp_proc *const *procs, size_t nprocs, struct model_proc_index *ix,
			 struct crit_wait **out, size_t *n);
int model_heap_replay(struct build *b, struct proc_ctx *c, const struct model_options *o);
int model_build_arcs(struct build *b, struct proc_ctx *c, const struct model_options *o);
int model_build_mpi(struct build *b, struct proc_ctx *c, const struct model_options *o);

/* model_mpi_match.c: note one end of a message (0, or -1 when out of
 * memory); match them all, once every rank is built. */
int model_mpi_note_end(struct build *b, int32_t from, int32_t to, int32_t tag, bool recv,
		       uint64_t time_ns, uint32_t thread);
void model_mpi_match(struct build *b);

/* model_clock.c: the clock of a rank whose first process is `founder`,
 * from its log (all zero when it measured none). */
void model_clock_read(struct model_clock *k, const struct exp_proc *founder);
int model_build_states(struct build *b, struct proc_ctx *c, const struct model_options *o);
int model_build_counters(struct build *b, struct proc_ctx *c, const struct model_options *o);
int model_build_dataspace(struct build *b, struct proc_ctx *c, const struct model_options *o);
/* Data object `name` of `object` in metric mm, made on first use: its
 * index, or -1 out of memory (model_dataspace.c). */
long model_data_object_of(struct build *b, const char *name, const char *object, uint64_t size, int mm);
/* Add `value` to data object obj's accesses by function func. */
int model_data_access_add(struct build *b, long obj, uint32_t func, uint64_t value);
/* Count `value` at member (dm's type and field) of data object obj. */
int model_data_member_add(struct build *b, long obj, const struct sym_dmember *dm, uint64_t value);
/* Address ea in a loaded object's data segments (process p's maps): its
 * variable's name (or <Unknown: no symbol>, or <Scalars> for a variable of
 * no aggregate type), object, size and *dm its member from DWARF (type NULL
 * if none); false when ea is in no object's data. */
bool model_data_global(const struct exp_proc *p, uint64_t ea, char *name, size_t len, const char **object,
		       uint64_t *size, struct sym_dmember *dm);
/* --data: clock samples' registers by data object (model_dataclock.c). */
int model_build_dataclock(struct build *b, struct proc_ctx *c, const struct model_options *o);
/* --data-object: put in c->data_keep the clock samples whose data object is
 * o->data_object (before the samples are added; model_add_sample keeps
 * only those).  0, or -1 out of memory. */
int model_dataclock_select(struct build *b, struct proc_ctx *c, const struct model_options *o);
/* The key of a clock sample (its thread and time) in c->data_keep. */
static inline uint64_t model_data_sample_key(uint32_t tid, uint64_t time_ns)
{
	return model_hash64(time_ns * 65599 + tid) | 1;
}
/* ---- model_heap_blocks.c: heap blocks' lifetimes, for data addresses ---- */
struct model_heap_block {
	uint64_t addr, size, from_ns, to_ns;   /* to_ns UINT64_MAX: never released */
	uint32_t stack_id;                     /* the allocation's */
};
struct model_heap_blocks {
	struct model_heap_block *v;            /* by address */
	size_t n;
};
/* An allocation (addr and size not 0) and/or a release (gone not 0). */
struct model_block_event {
	uint64_t time_ns, gone, addr, size;
	uint32_t stack_id;
};
/* Replay ev (sorted here by time) into *out; 0, or -1 out of memory. */
int model_heap_blocks_replay(struct model_block_event *ev, size_t n, struct model_heap_blocks *out);
/* The process's heap blocks replayed into *out: with_heap, from the heap
 * tracer's events (a free, delete or realloc ends the block it releases;
 * an allocation, realloc's new block too, begins one); and from --data's
 * DATA_BLOCK records (one ends the block at its address, released or
 * allocated again, and with a size begins one).  0, or -1 out of memory. */
int model_heap_blocks_of(const struct exp_proc *p, bool with_heap, struct model_heap_blocks *out);
/* The block holding addr at time t, among the 64 starting nearest below it. */
const struct model_heap_block *model_heap_block_at(const struct model_heap_blocks *bl, uint64_t addr, uint64_t t);
/* That block named `<Heap: FUNC>` (FUNC: the allocating stack's leaf
 * function), or by its size class when it has no stack (--data without
 * -H), into name, its size into *size; false if there is none. */
bool model_heap_block_name(struct build *b, struct proc_ctx *c, const struct model_heap_blocks *bl,
			   uint64_t addr, uint64_t t, char *name, size_t len, uint64_t *size);
void model_heap_blocks_free(struct model_heap_blocks *bl);
/* A block of `size` requested bytes by its size class: the power of two
 * above, `<Heap: 128K-256K bytes>` for sizes in (128 KiB, 256 KiB]. */
void model_heap_size_class(uint64_t size, char *name, size_t len);
/* Sort the model's messages by (from, to). */
void model_mpi_sort(struct model *m);
/* ---- model_names.c: `f (a.c)` and `f (b.c)`; 0, or -1 if out of memory ---- */
int model_names_distinguish(struct model *m);

/* Sort the model's arcs by (caller, callee). */
void model_arcs_sort(struct model *m);

#endif
