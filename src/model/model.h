/* SPDX-License-Identifier: MIT
 *
 * model.h — what the reports are computed from: the events of one or more
 * experiments, filtered, symbolized and aggregated into weighted call stacks
 * of functions.
 *
 * model_build() turns every event (clock sample, heap/sync/io event) into a
 * contribution to an *entry*: one distinct recorded stack of one process at
 * one state of its address space, rewritten into functions by the Sun analyzer's
 * rules (tally's own frames dropped, a thread's stack starting at its start
 * routine, a PLT stub leaf given to its caller, <Unknown>, <Truncated-stack>).
 * Views (function table, callers-callees, call tree, threads, objects, gprof
 * graph) are derived from the entries; inclusive metrics count a function
 * once per stack, however often it recurs there.
 */
#ifndef TALLY_MODEL_H
#define TALLY_MODEL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "format/exp_data.h"
#include "format/exp_mpi_ops.h"
#include "format/exp_perf_mem.h"

struct sym_object;

enum model_metric {
	MODEL_CPU,                 /* ns of CPU time (clock samples) */
	MODEL_HEAP_BYTES,          /* bytes requested */
	MODEL_HEAP_COUNT,          /* allocation calls */
	MODEL_HEAP_LEAK,           /* bytes allocated and never freed */
	MODEL_SYNC_WAIT,           /* ns waited on shared thread-library objects: mutexes, rwlocks,
	                              semaphores, condition variables, barriers (model_sync.c) */
	MODEL_SYNC_COUNT,          /* such waits above the threshold */
	MODEL_SYNC_OTHER,          /* the part of sync.wait that is no lock acquisition:
	                              condition variables, barriers */
	MODEL_SYNC_JOIN,           /* ns waited for threads to end (joins), not in sync.wait */
	MODEL_IO_BYTES,            /* bytes moved by read/write calls */
	MODEL_IO_TIME,             /* ns inside I/O calls */
	MODEL_IO_COUNT,            /* read/write calls */
	MODEL_MPI_TIME,            /* ns inside MPI calls (-m) */
	MODEL_MPI_COUNT,           /* MPI calls */
	MODEL_MPI_BYTES_SENT,      /* bytes sent, by the Sun model (docs/tracing.md) */
	MODEL_MPI_BYTES_RECV,      /* bytes received: receive buffers' lengths */
	MODEL_SAMPLES,             /* clock samples (the count behind cpu) */
	MODEL_WALL,                /* --states: ns of wall-clock time, every state (the sum below) */
	MODEL_CPU_USER,            /* ns of CPU in user mode (clock samples, by the kernel's split) */
	MODEL_CPU_SYSTEM,          /* ns of CPU in the kernel */
	MODEL_WAIT_CPU,            /* ns runnable, waiting for a CPU (preempted, or woken) */
	MODEL_WAIT_LOCK,           /* ns blocked on a lock (futex: mutexes, condvars, joins) */
	MODEL_WAIT_IO,             /* ns blocked on I/O (files, pipes, sockets, page faults) */
	MODEL_WAIT_SLEEP,          /* ns sleeping or waiting otherwise */
	MODEL_WAIT_STOPPED,        /* ns stopped (SIGSTOP, a debugger) */
	MODEL_COUNTER_0,           /* -c: counter events, named after the event */
	MODEL_COUNTER_LAST = MODEL_COUNTER_0 + 7,   /* (model_metric_counter) */
	MODEL_METRIC_COUNT
};

enum model_unit {
	MODEL_UNIT_NS,             /* nanoseconds, shown as seconds */
	MODEL_UNIT_BYTES,
	MODEL_UNIT_COUNT,          /* calls, events, samples */
};

enum model_metric_kind {
	MODEL_KIND_SAMPLED,        /* clock samples (-F) */
	MODEL_KIND_TRACED,         /* a tracer's events (-H, -s, -i, -m) */
	MODEL_KIND_STATE,          /* thread states (--states) */
	MODEL_KIND_COUNTER,        /* counter events (-c EVENT) */
};

/* One row of the metric table (model_metrics.c): everything that names or
 * shows a metric (--metric, columns, the exporters, completion, the
 * message for a metric not recorded) reads it here. */
struct model_metric_info {
	const char *name;          /* "cpu", "heap.bytes" ... (the CLI's --metric, and its
	                              name in collapsed, pprof, speedscope and json) */
	const char *title;         /* column title */
	bool is_time;              /* unit == MODEL_UNIT_NS */
	enum model_unit unit;
	enum model_metric_kind kind;
	const char *record;        /* the `tally record` option that records it */
	const char *log_key;       /* its key in the log's options: line, NULL: none */
	long long log_off;         /* that key's value when it was not recorded */
	const char *events;        /* what records it ("heap events"), for messages */
	const char *callgrind;     /* its event name in the callgrind export */
};

/* The unit's name in pprof's and speedscope's profiles ("nanoseconds",
 * "bytes", "count" / "none"). */
const char *model_unit_pprof(enum model_unit u);
const char *model_unit_speedscope(enum model_unit u);

const struct model_metric_info *model_metric_info(enum model_metric m);
/* Metric by name, or -1.  A counter event's name (cycles, page-faults,
 * rNNNN: format/exp_events.h) is a counter metric (model_metric_counter). */
int model_metric_parse(const char *name);

/* The metric of counter event (type, config), named `name` by whoever met
 * it first (a --metric, or an experiment's COUNTER_DEF): counter metrics are
 * given out in that order, one per event, MODEL_COUNTER_0 on, for the
 * whole run of tally.  -1 when all are taken. */
int model_metric_counter(const char *name, uint32_t type, uint64_t config);

/* Is m a counter metric that has been given to an event? */
bool model_metric_is_counter(int m);

#define MODEL_FUNC_ARTIFICIAL 0x100    /* <Total>, <Unknown>, <Truncated-stack>, @plt, <OMP-*>, <signal handler> */
#define MODEL_FUNC_MPI 0x200           /* an MPI function (MPI_Send ...): the tracer's
                                          wrapper, or the leaf of a traced call */
#define MODEL_FUNC_OUTLINED 0x400      /* a part split off its parent (.cold, .part.N) */
#define MODEL_FUNC_OMP_BODY 0x800      /* an OpenMP body (f._omp_fn.N, .omp_outlined.) */
#define MODEL_FUNC_OMP_RUNTIME 0x1000  /* in the OpenMP runtime (libgomp, libomp) */
#define MODEL_FUNC_DYNAMIC 0x2000      /* dynamically generated code (tally.h, perf map, jitdump) */
#define MODEL_FUNC_JAVA 0x4000         /* a Java method (model_java.c) */
#define MODEL_FUNC_INLINED 0x10000     /* a function inlined into its caller (DWARF): a frame of
                                          its own, named "f(int) (inlined)" (model_frames.c) */

struct model_func {
	char *name;                /* display name (demangled, with arguments) */
	char *object;              /* load object basename ("" for artificial) */
	char *path;                /* load object path */
	char *aliases;             /* other names at the same address, or NULL */
	char *link;                /* the symbol as in the object (mangled), or NULL */
	char *src;                 /* source file basename, set only to tell apart
	                              same-named functions of one object; or NULL */
	uint64_t addr, size;       /* link-time range in the object */
	uint32_t flags;            /* SYM_FUNC_* | MODEL_FUNC_* */
	uint8_t qualify;           /* how views tell it from same-named ones:
	                              MODEL_QUALIFY_* (model_func_label) */
	uint32_t parent;           /* outlined part or OpenMP body: the function it
	                              came from, whose call is imputed (0: none) */
	struct sym_object *obj;    /* the object (the build) it was read from, or NULL */
};
#define MODEL_QUALIFY_NONE 0      /* the name is unique */
#define MODEL_QUALIFY_OBJECT 1    /* "name (object)": the objects' basenames differ */
#define MODEL_QUALIFY_PATH 2      /* "name (/path/of/object)": even they are alike */

/* An entry's metrics are few (a clock sample's cpu and samples, a heap
 * event's bytes and count...) of MODEL_METRIC_COUNT: the first
 * MODEL_ENTRY_SLOTS metrics given a value are kept in slots, and the entry
 * gets every metric's value (in the model's pool) only when one more comes.
 * Read them with model_entry_value, add with model_entry_add_value. */
#define MODEL_ENTRY_SLOTS 3

struct model_entry {
	uint32_t proc;             /* index in model.procs (MODEL_PROC_MERGED: several) */
	uint32_t flags;            /* MODEL_ENTRY_* */
	uint32_t n;                /* frames, root first */
	uint32_t omp;              /* MODEL_OMP_* (how the OpenMP user view placed it) */
	uint32_t java;             /* MODEL_JAVA_* (a JVM's sample: what its stack is) */
	uint8_t nslots;            /* slots in use (0 once `all` is set) */
	uint8_t slot_metric[MODEL_ENTRY_SLOTS];   /* enum model_metric of each slot */
	uint32_t *funcs;           /* function of each frame */
	uint64_t *addrs;           /* its link-time address (for annotation), 0 if none */
	uint64_t slot[MODEL_ENTRY_SLOTS];         /* their values, never 0 */
	uint64_t *all;             /* NULL, or every metric's value (MODEL_METRIC_COUNT) */
};

/* The value of metric mm in entry e (0: none). */
static inline uint64_t model_entry_value(const struct model_entry *e, int mm)
{
	if (e->all)
		return e->all[mm];
	for (unsigned i = 0; i < e->nslots; i++)
		if (e->slot_metric[i] == mm)
			return e->slot[i];
	return 0;
}

/* model_entry.java: a sample of a JVM's thread (0: not a JVM, or not known). */
enum model_java_kind {
	MODEL_JAVA_NONE = 0,
	MODEL_JAVA_STACK,          /* a Java thread with its Java stack */
	MODEL_JAVA_SYSTEM,         /* the JVM's own work: its threads (GC, compiler),
	                              a Java thread running no Java code (<JVM-System>) */
	MODEL_JAVA_NO_STACK,       /* a Java thread whose Java stack the JVM could not
	                              give (<no Java callstack recorded>); + reason
	                              (exp_java_none, 1..11) */
};

/* model_entry.omp, in the user view of an OpenMP program. */
enum model_omp_kind {
	MODEL_OMP_NONE = 0,        /* serial code of a thread that is no OpenMP worker */
	MODEL_OMP_IN_REGION,       /* a thread inside a parallel region it started */
	MODEL_OMP_WORKER,          /* a runtime worker's raw stack: placed by time */
	MODEL_OMP_PLACED,          /* a worker's stack placed under its region's caller */
};

enum model_view {
	MODEL_VIEW_USER = 0,       /* the Sun analyzer's user view: imputed calls to outlined
	                              parts and OpenMP bodies, <OMP-*> functions */
	MODEL_VIEW_MACHINE,        /* the frames as recorded (after PLT and tally rules) */
	MODEL_VIEW_EXPERT,         /* Java (the Sun analyzer's Expert-Java): as user, with the
	                              JVM's frames under Java code and its threads'
	                              stacks, and interpreted / compiled methods apart */
};

#define MODEL_PROC_MERGED UINT32_MAX   /* model.merged: entries of every process */
#define MODEL_ENTRY_IN_MPI 0x1         /* inside an MPI call (an MPI function or library frame) */
#define MODEL_ENTRY_FILTERED 0x2       /* left out by --object / --symbol: counts nowhere */

/* A rank's clock onto rank 0's (docs/mpi.md "Time across hosts"): the
 * offset its tracer measured after MPI_Init, the drift to the one measured
 * before MPI_Finalize, and what message order added (model_mpi_match.c).
 * Zero for a process that is no rank, or a rank that measured nothing. */
struct model_clock {
	bool measured;             /* the rank logged mpi.clock.* */
	uint64_t at_ns;            /* its time at the first measurement */
	uint64_t end_ns;           /* ... at the second (drift applies between) */
	int64_t offset_ns;         /* rank 0's time minus its own, at at_ns */
	double drift;              /* offset change per ns after at_ns (0: none measurable) */
	uint64_t err_ns;           /* the offset's error bound: half its round trip */
	int64_t order_ns;          /* added so that no receive ends before its send starts */
};

/* Time t of a process on its rank 0's clock. */
uint64_t model_clock_align(const struct model_clock *k, uint64_t t);

struct model_proc {
	const struct exp_proc *src;
	const struct exp_experiment *exp;
	char label[300];           /* "[name pid]", "[name pid rank N]" */
	int32_t rank;              /* MPI_COMM_WORLD rank (exp->rank); -1: not a rank */
	uint64_t v[MODEL_METRIC_COUNT];
	uint64_t cpu_in_mpi;       /* ns of CPU sampled inside MPI calls */
	uint64_t mpi_op_ns[EXP_MPI_OP_COUNT_];   /* mpi.time by MPI function */
	struct model_clock clock;  /* times in the model are on rank 0's clock */
};

/* A point-to-point message matched: its send's start and its receive's end,
 * on rank 0's clock (model_mpi_match.c). */
struct model_pair {
	int32_t from, to;          /* MPI_COMM_WORLD ranks */
	uint32_t send_thread, recv_thread;   /* model.threads */
	uint64_t send_ns, recv_ns;
};

/* The job's messages matched send to receive, and what they say of the
 * ranks' clocks (docs/mpi.md "Time across hosts"). */
struct model_match {
	uint64_t matched;          /* messages with both ends */
	uint64_t unmatched;        /* sends or receives without their other end */
	uint64_t reversed;         /* received before sent, even so (clock error beyond the measured) */
	int64_t worst_ns;          /* ... the most so */
	int64_t order_max_ns;      /* the largest correction message order made to a rank's clock */
	int32_t order_rank;        /* ... to this rank's */
	bool failed;               /* out of memory: not matched */
	bool raw_clocks;           /* the ranks' times as recorded (model_options.raw_clocks) */
	struct model_pair *pairs;  /* with keep_events: each message, by (from, to, tag, time) */
	size_t npairs;
};

/* Point-to-point MPI traffic from one rank to another (the senders' records). */
struct model_msg {
	int32_t from, to;          /* MPI_COMM_WORLD ranks */
	uint64_t bytes, count;
};

struct model_thread {
	uint32_t proc, tid;
	const struct exp_thread_ev *src;  /* NULL if the thread left no record */
	uint32_t next_life;        /* the next thread on the same id (a reused id's
	                              later life): its index + 1, 0 if none */
	uint32_t life;             /* which of its id's lives: 0 the first */
	uint32_t routine;          /* function of its start routine (0: main thread / unknown) */
	uint64_t samples;
	uint64_t first_ns, last_ns;
	uint64_t v[MODEL_METRIC_COUNT];
};

struct model_options {
	const uint32_t *tids;      /* only these threads (ntids > 0) */
	size_t ntids;
	bool has_time;             /* only events in [from_ns, to_ns) after the founder's start */
	uint64_t from_ns, to_ns;
	bool keep_tally_frames;    /* show the collector's own frames */
	const char *process;       /* only processes whose pid, lineage or name this is */
	bool merge_procs;          /* one entry per distinct stack, whatever its process
	                              (a job's ranks: memory grows with stacks, not ranks) */
	enum model_view view;
	bool ranks_only;           /* leave out processes that are no rank (a job's
	                              launcher), unless `process` names them */
	bool keep_events;          /* fill model.events (timelines, per-thread exports) */
	bool match_messages;       /* match an MPI job's sends to receives (model.match) */
	bool raw_clocks;           /* leave each rank's times on its own clock (model_proc.clock) */
	const char *object;        /* only stacks with a frame in this object (basename or path) */
	const char *hide_object;   /* this object's frames become one frame "<object>" */
	const char *symbol;        /* only stacks through this function */
	const char *data_object;   /* only clock samples whose data object (record --data)
	                              is this: its name, or a member row's {struct s}.m */
	bool no_inline;            /* no inlined frames: their time is their host's, as
	                              the code's lines are (--no-inline) */
	bool no_kernel;            /* no kernel frames: their time is the user stack's
	                              leaf's, the system call's (--no-kernel) */
};

/* The object name of the kernel's frames (kernel.dat). */
#define MODEL_KERNEL_OBJECT "[kernel]"

/* One event as the model counted it, kept with model_options.keep_events
 * for the views over time.  time_ns is the record's: the end of a sample's
 * or a lock wait's interval (value ns long), the start of an I/O call's;
 * a rank's on rank 0's clock (model_proc.clock), so that a job's ranks
 * share one time axis whatever hosts they ran on. */
struct model_event {
	uint64_t time_ns;          /* CLOCK_MONOTONIC (rank 0's, in a job) */
	uint64_t value;            /* in the metric's unit */
	uint32_t thread;           /* index in model.threads */
	uint32_t entry;            /* index in model.entries */
	uint32_t metric;           /* enum model_metric */
};

/* A call-graph arc from the -pg / -finstrument-functions runtime, symbolized
 * and summed over threads and processes. */
struct model_arc {
	uint32_t caller, callee;   /* functions */
	uint64_t count;            /* exact traversals */
	uint64_t incl_ns;          /* -finstrument-functions: time from entry to exit */
	uint32_t flags;            /* EXP_ARCS_* */
};

/* I/O by file: what each descriptor named when the call was made. */
struct model_file {
	char *name;                /* path, or "fd N" when its name is unknown */
	uint64_t v[MODEL_METRIC_COUNT];
	uint64_t ops[8];           /* calls by enum exp_io_op */
};

/* --states: a thread's time in one state at one stack (model_states.c). */
struct model_state_stack {
	uint32_t thread;           /* model.threads index */
	uint32_t entry;            /* model.entries index */
	uint32_t metric;           /* MODEL_WALL .. MODEL_WAIT_STOPPED */
	uint64_t ns;
};

/* Dataspace profiling (model_dataspace.c): a data object's events. */
struct model_data_object {
	char *name;                /* "grid", "<Heap: alloc_grid>", "<Stack>", "<Unknown: ...>" */
	char *object;              /* basename of its load object, or "" */
	uint64_t size;             /* bytes of the symbol or heap block; 0 */
	uint32_t metric;           /* the counter's metric */
	uint64_t value;            /* events */
	uint64_t samples;
	uint64_t level_samples[EXP_MEM_LEVELS];   /* by the level that served them
	                                             (precise samples with a data
	                                             source; else all unknown) */
};
/* --data: a structure type whose members clock samples touched
 * (model_dataclock.c), its members by time (the data layout view). */
struct model_data_field {
	char *name;
	uint64_t offset, size;     /* bytes */
	uint64_t value, samples;   /* ns of CPU at accesses to it */
};
struct model_data_type {
	char *name;                /* "struct cell" */
	uint64_t size;
	uint64_t value, samples;   /* all its members', and its padding's */
	uint32_t nfields;
	struct model_data_field *fields;   /* by offset, as declared */
};
/* A member of a data object (a variable) by time. */
struct model_data_member {
	uint32_t object;           /* model.data_objects index */
	uint32_t type;             /* model.data_types index */
	int32_t field;             /* in the type; -1: its padding */
	uint64_t value, samples;
};
/* The events of data object `object` at instructions of function `func`. */
struct model_data_access {
	uint32_t object, func;
	uint64_t value;
};

/* A synchronization object waited on (model_sync.c): one per process,
 * address and kind. */
struct model_sync_object {
	uint32_t proc;             /* index in model.procs */
	uint32_t kind;             /* enum exp_sync_op (model_sync_kind_name) */
	uint64_t addr;             /* its address in the process (a join's: the thread's id) */
	uint64_t wait_ns, count;   /* waits on it, and their total */
	uint32_t waiters;          /* threads that waited on it */
	uint32_t first_entry;      /* the stack of its first wait (model.entries) ... */
	uint64_t first_ns;         /* ... which began then; UINT64_MAX: none kept */
};

/* Lock-holder blame (model_blame.c): the part of the waits of one waiting
 * stack on one object that one holder (a thread, from the stack with which
 * it took the object) held it; or, holder_entry MODEL_BLAME_UNKNOWN, the
 * part whose holder is not known and why (enum exp_held_why). */
struct model_blame {
	uint32_t proc;             /* index in model.procs */
	uint32_t kind;             /* enum exp_sync_op of the waits */
	uint64_t addr;             /* the object */
	uint32_t waiter_entry;     /* the waiting stack (model.entries) */
	uint32_t holder_entry;     /* the holder's stack at acquisition, or MODEL_BLAME_UNKNOWN
	                              (an entry with no value of its own is emptied at the
	                              end of the build: hence holder_func and holder_addr) */
	uint32_t holder_func;      /* its leaf: the function that took the object (0: none) */
	const uint32_t *holder_funcs;  /* the holder's stack, root first (the entry's frames,
	                                  kept when the entry is emptied), and ... */
	uint32_t holder_n;         /* ... its frames (0: not known) */
	uint64_t holder_addr;      /* the lock call's link-time address there (0: none) */
	uint32_t holder_tid;       /* 0: not known */
	uint32_t why;              /* enum exp_held_why */
	uint64_t held_ns;          /* the part of the waits it held the object */
	uint64_t waits;            /* waits it held the object during */
};
#define MODEL_BLAME_UNKNOWN UINT32_MAX

/* The kinds of wait the critical path crosses (model_critical_waits.c): the
 * SYNC records' ops (enum exp_sync_op), then the descriptors'. */
enum model_crit_kind {
	MODEL_CRIT_READ = EXP_SYNC_CHILD + 1,   /* a read another thread's write ended */
	MODEL_CRIT_FD_WAIT,                     /* a wait in poll, select or epoll */
	MODEL_CRIT_WRITE,                       /* a write into a full channel that
	                                           another thread's read drained */
	MODEL_CRIT_SHARED,                      /* a wait of no known waker on a
	                                           process-shared object */
	MODEL_CRIT_CHILD_DONE,                  /* a wait for a child process that had
	                                           ended before the wait began */
	MODEL_CRIT_KINDS
};

/* A function's time on the critical path across threads (model_critical.c). */
struct model_crit {
	uint32_t func;
	uint64_t ns;               /* its time on the path, callees' included ... */
	uint64_t excl_ns;          /* ... its own (the leaf) ... */
	uint64_t wait_ns;          /* ... of which waiting (a wait whose cause is not known) */
};

/* A stretch of the critical path (model_critical.c), for the timeline:
 * thread tid of process proc ran (or, `wait`, waited) from start_ns to
 * end_ns on it. */
struct model_crit_seg {
	uint32_t proc, tid;
	uint64_t start_ns, end_ns;
	bool wait;
	uint64_t off_ns;           /* of a running stretch without --states: the part
	                              that went to <off CPU> (the kernel's schedstat
	                              says how much, not when: not placed in it) */
};

/* "mutex", "condition variable", ... for an enum exp_sync_op. */
const char *model_sync_kind_name(unsigned op);
/* The metric a wait of kind op (enum exp_sync_op) counts in: sync.join for
 * a join, sync.wait for every other kind. */
enum model_metric model_sync_metric(unsigned op);

struct model_heap_peak {
	uint64_t bytes;            /* live bytes at the peak */
	uint64_t time_ns;
	uint32_t entry;            /* the allocation that reached it (entry index + 1; 0 none) */
};

/* Heap events the replay could not pair (model_heap.c): not lost from
 * heap.bytes or heap.count, but they make heap.leak and the peak less sure. */
struct model_heap_unpaired {
	uint64_t frees;            /* releases of blocks whose allocation was not
	                              recorded (before tracing began, outside --time) */
	uint64_t reuses;           /* blocks allocated again while live: their
	                              release was not recorded */
	uint64_t untracked;        /* blocks not kept as live (the collector's
	                              table at its largest): their leak is unknown */
};

/* model_entry.java of a Java thread's sample whose Java stack the JVM did
 * not give (MODEL_JAVA_NO_STACK's reasons) but whose machine frames did, in
 * part: the compiled methods from the leaf up to the first interpreted
 * frame (model_java.c): MODEL_JAVA_RECOVERED + reason. */
#define MODEL_JAVA_RECOVERED (MODEL_JAVA_NO_STACK + 1 + EXP_JAVA_NO_ROOM)
#define MODEL_JAVA_KINDS (MODEL_JAVA_RECOVERED + 1 + EXP_JAVA_NO_ROOM)

/* A JVM's samples by what their stacks are (model_entry.java), and the
 * CPU time they stand for. */
struct model_java {
	uint64_t samples[MODEL_JAVA_KINDS];   /* by kind + reason */
	uint64_t cpu_ns[MODEL_JAVA_KINDS];
	uint64_t unnamed;          /* Java methods without a name (counted once per function) */
};

/* Storage of the entries' frames and metrics (model_pool.c). */
struct model_pool {
	char **blocks;             /* exp_big_alloc'd, 8 MiB each (or one entry's, if larger) */
	size_t nblocks, cap_blocks;
	char *at;                  /* free space of the last block ... */
	size_t left;               /* ... bytes of it */
	char *last;                /* the last entry's arrays, and their bytes: */
	size_t last_bytes;         /*   model_entry_drop_frames gives them back */
};

struct model {
	struct model_func *funcs;  /* [0] is <Total> */
	uint32_t nfuncs;
	struct model_entry *entries;
	size_t nentries;
	struct model_proc *procs;
	size_t nprocs;
	struct model_thread *threads;
	size_t nthreads;
	struct model_arc *arcs;    /* sorted by (caller, callee) */
	size_t narcs;
	uint32_t cyg_call_ns;      /* -finstrument-functions: the runtime's time taken out */
	uint32_t cyg_own_ns;       /*   of incl_ns (exp_arc_table; the most of any process) */
	struct model_file *files;  /* I/O by file */
	size_t nfiles;
	uint64_t total[MODEL_METRIC_COUNT];
	uint32_t present;          /* bit m: metric m has events (MODEL_METRIC_COUNT <= 32) */
	uint64_t samples;          /* clock samples used */
	uint64_t unknown_stacks;   /* events whose stack record was missing */
	uint64_t unknown_counters; /* counter samples whose counter was not defined */
	struct model_heap_peak heap_peak;
	bool merged;               /* entries are not per process (merge_procs) */
	struct model_msg *msgs;    /* MPI point-to-point traffic, by (from, to) */
	struct model_match match;  /* with match_messages: sends matched to receives */
	size_t nmsgs;
	size_t left_out;           /* processes left out by ranks_only */
	struct model_heap_unpaired heap_unpaired;
	struct model_java java;    /* JVM samples (any process of the model) */
	struct model_state_stack *state_stacks;   /* --states, by thread, state and stack */
	size_t nstate_stacks;
	struct model_data_object *data_objects;   /* precise samples by data object */
	size_t ndata_objects;
	struct model_data_access *data_access;    /* ... and by accessing function */
	size_t ndata_access;
	struct model_data_type *data_types;       /* --data: structures touched */
	size_t ndata_types;
	struct model_data_member *data_members;   /* --data: objects' members */
	size_t ndata_members;
	uint64_t data_backtracked;  /* --data samples whose address is a preceding instruction's */
	uint64_t data_samples;      /* --data samples counted */
	struct model_sync_object *sync_objects;   /* synchronization waits by object */
	size_t nsync_objects;
	struct model_blame *blames;               /* who held the objects waited on */
	size_t nblames;
	uint64_t blame_unmatched;  /* holder records without their wait (a lost block) */
	struct model_crit *crit;   /* the critical path by function (record -s) */
	size_t ncrit;
	uint64_t crit_path_ns;     /* the path's total ... */
	uint64_t crit_wall_ns;     /* ... and the main threads' wall time it tiles */
	uint32_t crit_procs;       /* paths walked: one per experiment, from its first
	                              process (the founder, or the one --process names) */
	uint32_t crit_crossed;     /* other processes the paths went through */
	uint32_t crit_outlived;    /* processes that ended after their path's root's
	                              main thread (their time after it is on no path) ... */
	uint64_t crit_outlived_ns; /* ... the longest of them, by how much */
	bool crit_cut;             /* a walk stopped at its step limit */
	double crit_stretch;       /* without --states: the processes' (largest) ratio of
	                              running wall time to sampled CPU that bounds what a
	                              running stretch's samples stand for on the path
	                              (0: shared in full, with --states or without weights) */
	uint32_t crit_sched_threads;   /* ... threads whose bound was their schedstat (THREAD_SCHED:
	                              CPU and run delay over sampled CPU, their rest <off CPU>),
	                              or their running wall time (THREAD_SWITCHES: never slept) */
	uint32_t crit_guess_threads;   /* ... threads whose bound was the stretch above */
	uint64_t crit_unknown_ns[MODEL_CRIT_KINDS];   /* waits on the path whose waker
	                              is not known, by kind (report_critical.c says why) */
	struct model_crit_seg *crit_segs;   /* the path's stretches, latest first */
	size_t ncrit_segs;
	uint64_t switch_overhead_ns;   /* --states: sampled CPU left out of the states, counted
	                                  off the CPU by the switch records (model_states.c) */
	uint64_t states_collector_ns;  /* --states: time threads spent off the CPU inside the
	                                  collector's own handlers, left out of the states */
	void *priv;                /* model_build's indexes while building */
	struct model_event *events; /* with keep_events: in the order counted */
	size_t nevents;
	struct model_pool pool;    /* the entries' funcs, addrs and `all` */
};

#define MODEL_TOTAL 0u

/* Build from `nexps` loaded experiments.  Returns 0, or -1 with `err`. */
int model_build(struct model *m, const struct exp_experiment *exps, size_t nexps,
		const struct model_options *o, char *err, size_t errlen);
/* The same, one experiment at a time (a job's ranks, each loaded, added and
 * its events dropped before the next): begin, add each, end.  The
 * experiments must stay at their addresses (the model points at their
 * processes and threads); `o` must be the same for every call.  0, or -1
 * with `err` (after which only model_free may be called). */
int model_build_begin(struct model *m, const struct model_options *o, char *err, size_t errlen);
int model_build_add(struct model *m, const struct exp_experiment *x, const struct model_options *o,
		    char *err, size_t errlen);
void model_build_end(struct model *m);
void model_free(struct model *m);

/* Give entry `e` a copy of funcs[0..n) and addrs[0..n) as its frames, in
 * the model's pool (model_pool.c), freed by model_free.  0, or -1 if out of
 * memory (e unchanged). */
int model_entry_set_frames(struct model *m, struct model_entry *e, const uint32_t *funcs,
			   const uint64_t *addrs, uint32_t n);
/* Add `value` to metric mm of entry e: a slot, or every metric's room in
 * the model's pool when the slots are taken (model_pool.c).  0, or -1 if
 * out of memory (e unchanged). */
int model_entry_add_value(struct model *m, struct model_entry *e, int mm, uint64_t value);
/* The last entry made is dropped: its frames' room is given back. */
void model_entry_drop_frames(struct model *m, struct model_entry *e);
void model_pool_free(struct model *m);

/* ---- function-level views (model_funcs.c) ------------------------------ */

struct model_func_metrics {
	uint64_t excl[MODEL_METRIC_COUNT];
	uint64_t incl[MODEL_METRIC_COUNT];
};

/* The metrics with a value in entry e, into nz[0..n) (MODEL_METRIC_COUNT
 * slots); returns n.  Loops over an entry's frames add only these. */
int model_entry_nonzero(const struct model_entry *e, int *nz);
/* Exclusive and inclusive metrics of every function; out has nfuncs slots.
 * out[MODEL_TOTAL] holds the totals.  0, or -1 if out of memory. */
int model_func_metrics(const struct model *m, struct model_func_metrics *out);

/* The name views print for function `f`: its display name, qualified by its
 * object's basename (or path) when another function of another object has
 * the same name.  A `<static>@0x... (object)` name gets its object replaced
 * by the path rather than a second one.  Returns the name or `buf`. */
const char *model_func_label(const struct model *m, uint32_t f, char *buf, size_t len);

/* When process p ended: its end, else (it ended by _exit or a signal, and
 * wrote none) the latest of its threads' ends, samples and I/O calls; 0:
 * nothing known. */
uint64_t model_proc_end(const struct exp_proc *p);

/* Set every function's `qualify` (model_build calls it once at the end). */
void model_func_qualify(struct model *m);

/* Functions answering to `name` as a user types it: a label as views print
 * it; a display name; a name without its argument list or clone suffixes
 * (f.part.0, f.constprop.1); any of these followed by " (QUALIFIER)", the
 * object's basename, its path or the end of its path; a gprof index " [N]"
 * after it is ignored.  Returns how many (ids in `ids`, at most `max`). */
size_t model_func_find(const struct model *m, const char *name, uint32_t *ids, size_t max);

/* The functions whose names are nearest to `name` (a mistyped name):
 * smallest edit distance first, then names that contain it; at most `max`
 * (ids in `ids`), none farther than a third of the name's length. */
size_t model_func_suggest(const struct model *m, const char *name, uint32_t *ids, size_t max);

/* Rename every function to its short form: no argument list, template
 * arguments elided ("ns::f<...>::g"), for --no-args.  0, or -1 when out
 * of memory. */
int model_funcs_shorten(struct model *m);

struct model_edge {
	uint32_t func;
	uint64_t v[MODEL_METRIC_COUNT];
};

/* Callers and callees of `focus`, with attributed metrics as the Sun analyzer
 * defines them: a caller's is the focus's inclusive metric when called from
 * it; a callee's is its inclusive metric when called from the focus; each
 * counted once per stack.  A stack whose root is the focus has caller
 * <Total>; the callees of <Total> are the stacks' roots.  Arrays are
 * malloc'd, sorted by the first present metric.  0, or -1 if out of memory
 * (nothing to free then). */
int model_callers_callees(const struct model *m, uint32_t focus, enum model_metric sort_by,
			  struct model_edge **callers, size_t *ncallers,
			  struct model_edge **callees, size_t *ncallees);

/* ---- the call tree (model_tree.c) -------------------------------------- */

struct model_node {
	uint32_t func;
	uint32_t parent;           /* node index; the root (<Total>) is 0 */
	uint32_t first_child, next_sibling;   /* 0: none */
	uint64_t incl[MODEL_METRIC_COUNT];
	uint64_t excl[MODEL_METRIC_COUNT];
};

#define MODEL_TREE_BY_PROCESS 1u      /* a node per process (model_proc.label) under the root */
#define MODEL_TREE_FOLD_RECURSION 2u  /* a function already on the path takes it back there */
#define MODEL_TREE_INVERTED 4u        /* bottom-up: leaf functions under the root, callers below;
				       * a top-level node's excl is the function's own value */

/* The call tree of all entries, shaped by `flags` (MODEL_TREE_*).
 * Children are sorted by inclusive `sort_by`, largest first. */
int model_tree_build(const struct model *m, enum model_metric sort_by, unsigned flags,
		     struct model_node **nodes, size_t *nnodes);

/* Display name of node `i` (a function's label, or a process label); the
 * name or `buf`. */
const char *model_node_name(const struct model *m, const struct model_node *nodes, size_t i,
			    char *buf, size_t len);

#endif
