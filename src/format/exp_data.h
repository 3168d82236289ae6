/* SPDX-License-Identifier: MIT
 *
 * exp_data.h — a whole experiment loaded into memory: the founder process and
 * its descendants, each with its log, counters, samples, stacks, load-object
 * map, threads, traced events and arcs.
 *
 * This is the "events" stage of the analyzer (format -> symbols -> model ->
 * report, docs/architecture.md): no
 * symbols, no aggregation, just validated records in arrays.  The loader reads
 * a live experiment as well as a finished or SIGKILLed one; every problem with
 * the files is one line in struct exp_error naming the file and the offset.
 */
#ifndef TALLY_EXP_DATA_H
#define TALLY_EXP_DATA_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "format/exp_read.h"

struct exp_kv {
	char *key, *value;
};

/* A stored stack: its own frames (n of them at pcs, leaf first: a STACK
 * record's, or a STACK_NODE's one), then the frames of stack `parent` (0:
 * none).  Use exp_stack_frames to get the whole stack. */
struct exp_stack_ref {
	const uint64_t *pcs;
	uint32_t parent;
	uint16_t n;                /* 0 with pcs NULL: no such stack */
	uint16_t flags;            /* EXP_STACK_* */
	uint16_t depth;            /* frames of the whole stack */
	bool cut;                  /* its parent was lost (damage): the stack
	                              ends here, truncated */
};

/* A kernel sample of kernel.dat (the founder's; exp_read_kernel.h). */
struct exp_ksample_ev {
	uint32_t pid, tid;
	uint64_t time_ns;
	size_t pcs;                /* offset of its pcs in the process's kpcs */
	uint16_t n;
};

/* A kernel function of kernel.dat. */
struct exp_ksym_ev {
	uint64_t addr, size;
	char *name;
};

/* A DATA_FRAMES record: (pc, cfa) pairs dframe_pairs[2*at .. 2*(at+nframes)). */
struct exp_data_frames_ev {
	uint32_t tid, nframes;
	uint64_t time_ns;
	size_t at;                       /* first pair's index (pairs of 2 words) */
};

/* A DATA_FILE record: a file mapped (path not NULL) or a range unmapped. */
struct exp_data_file_ev {
	uint64_t time_ns, addr, len;
	char *path;                      /* NULL: an unmap */
};

struct exp_map_ev {
	bool unmap;
	uint32_t flags;            /* EXP_MAP_* */
	uint32_t order;            /* place in the file: ties of time_ns */
	uint64_t time_ns, start, end, bias;
	uint8_t build_id[EXP_BUILD_ID_MAX];
	uint8_t build_id_len;
	char *path;
};

struct exp_thread_ev {
	uint32_t tid, creator_tid;
	uint64_t start_ns, end_ns;       /* end 0: no THREAD_END (still running, killed) */
	uint64_t start_routine;
	uint64_t cpu_ns, samples;        /* from THREAD_END */
	uint64_t sched_cpu_ns;           /* from THREAD_SCHED: on a CPU, and */
	uint64_t run_delay_ns;           /* waiting for one (the kernel's schedstat) */
	bool has_sched;                  /* a THREAD_SCHED record was read */
	uint64_t sched_ns;               /* ... its time: past end_ns, tally's end of the
	                                    thread read the file until then (a helper's) */
	uint64_t voluntary_switches;     /* from THREAD_SWITCHES: times it slept or blocked, */
	uint64_t involuntary_switches;   /* and was preempted (the kernel's, at its end) */
	uint64_t start_wait_ns;          /* from its creation to its start (THREAD_SWITCHES) */
	bool has_switches;               /* a THREAD_SWITCHES record was read */
	uint64_t collector_ns;           /* from THREAD_COST: the collector's CPU time, */
	uint64_t collector_after_end_ns; /* of which after THREAD_END (not in cpu_ns) */
	uint64_t handlers, handler_max_ns;   /* handler runs timed, the longest */
	uint64_t *handler_hist;          /* EXP_COST_BUCKETS counts (exp_cost.h), or NULL */
	char name[EXP_THREAD_NAME_MAX];  /* at its start, or its latest THREAD_NAME (a
	                                    Java thread's Java name preferred) */
	uint64_t name_ns;                /* when that name was given (0: at its start) */
	bool java_name;                  /* name is a java.lang.Thread's */
	bool start_lost;                 /* its THREAD_START was lost: start_ns is the
	                                    earliest time seen of its own, samples and
	                                    waits included (exp_thread_lives.h) */
};

/* A Java method, named by the JVMTI agent (EXP_REC_JAVA_METHOD). */
struct exp_java_method_ev {
	uint64_t method;                 /* jmethodID */
	uint32_t flags;                  /* EXP_JAVA_METHOD_* */
	uint32_t nlines;
	uint32_t *lines;                 /* nlines pairs: start bci, line */
	char *klass, *name, *sig, *src;  /* as the JVM spells them ("Lp/C;", "m", "(I)V", "C.java") */
};

/* A place in compiled code where the JIT inlined something (one entry of a
 * JIT_INLINE record): its frames are the code's inline_frames[first ..
 * first + nframes), innermost first. */
struct exp_jit_inline_place {
	uint32_t offset;                 /* from the code's start */
	uint32_t nframes;                /* 2..EXP_JIT_INLINE_DEPTH_MAX */
	size_t first;
};

/* Dynamic code appearing (EXP_REC_JIT_CODE) or going (EXP_REC_JIT_UNLOAD). */
struct exp_jit_ev {
	bool unload;
	uint16_t kind;                   /* EXP_JIT_* (load) */
	uint32_t order;                  /* place in the file: ties of time_ns */
	uint64_t time_ns, start, size;   /* size 0 for an unload */
	uint64_t method;                 /* EXP_JIT_JAVA: its jmethodID */
	char *name;                      /* NULL for an unload */
	uint32_t nlines;
	uint32_t *lines;                 /* nlines pairs: offset, line */
	uint32_t ninline;                /* places of `inlines` (EXP_REC_JIT_INLINE entries) */
	struct exp_jit_inline_place *inlines;  /* by offset, then file order */
	size_t ninline_frames;
	struct exp_jit_inline_frame *inline_frames;  /* the places' frames, as written */
};

struct exp_fd_ev {
	int32_t fd;
	uint64_t time_ns;
	char *name;
};

/* A wait in poll, select or epoll (FD_WAIT): its descriptors are
 * wait_fds[first .. first + nfds) of its process. */
struct exp_fd_wait_ev {
	uint32_t tid, stack_id;
	uint64_t time_ns, dur_ns;       /* the call's start, and its time */
	uint16_t flags;                 /* EXP_WAIT_* */
	uint32_t nfds;
	size_t first;
};

/* A function of dynamically generated code (DYN_FUNC), and when it went
 * (its DYN_UNLOAD, if any). */
struct exp_dyn_ev {
	uint64_t time_ns;                /* there no later than this (0: from the start) */
	uint64_t unload_ns;              /* UINT64_MAX: never unloaded */
	uint64_t addr, size;
	uint32_t flags;                  /* EXP_DYN_* */
	char *name;
	uint32_t nlines;
	uint32_t (*lines)[2];            /* { offset, line }, offsets ascending */
	uint32_t code_len;
	uint8_t *code;                   /* the copied instructions */
};

/* An arc, summed over the threads' tables. */
struct exp_arc_ev {
	uint64_t frompc, selfpc, count, incl_ns;
	uint32_t call_ns, own_ns;        /* EXP_ARCS_CYG_NET: the runtime's, out of incl_ns */
	uint32_t flags;                  /* EXP_ARCS_* of the table */
};

/* A HEAP_SUMS slot with its thread (exp_records.h). */
struct exp_heap_sum_ev {
	uint32_t tid, stack_id;
	uint64_t count, bytes, first_ns;
};

/* A HEAP_LIVE slot with its table's stripe, generation and completeness. */
struct exp_heap_live_ev {
	uint64_t addr, size;
	uint32_t stack_id, tid;
	uint32_t gen;
	uint16_t stripe;
	uint16_t complete;
};

struct exp_proc {
	char *dir;                       /* directory of this (sub-)experiment */
	char *lineage;                   /* "" for the founder, "_f1", "_f1_x1" ... */
	char *proc_path;                 /* a descendant's process file (log, counters,
	                                    threads; format 8), or NULL: in dir */
	char *slots_path;                /* format 9: ROOT/processes.dat holding its
	                                    process file's start (proc_path then
	                                    holds the rest, if any), or NULL */
	uint64_t slot_off;               /* its slot there */
	char *exe;                       /* from the log or the main mapping */
	char *name;                      /* basename of exe */
	uint32_t pid, ppid;
	uint32_t fork_tid;               /* a fork child's: the parent's thread that forked; 0 not known */
	uint64_t start_ns, end_ns;       /* CLOCK_MONOTONIC; end 0 if unknown */
	struct exp_kv *log;
	size_t nlog;
	uint64_t counters[EXP_CTR_COUNT_];
	bool has_counters;

	struct exp_sample *samples;      /* copies, in file order */
	size_t nsamples;
	struct exp_stack_ref *stacks;    /* indexed by stack id; n == 0: absent */
	uint32_t nstacks;                /* highest id + 1 */
	uint64_t *pc_pool;               /* storage of every stack's pcs */
	struct exp_map_ev *maps;         /* in file order */
	size_t nmaps;
	struct exp_thread_ev *threads;
	size_t nthreads;
	uint32_t *thread_order;          /* threads' indices by (tid, start_ns): exp_thread_life's
	                                    binary search; NULL: none built (it scans) */
	struct exp_heap *heap;           /* before format 5 (and Java objects): per event */
	size_t nheap;
	struct exp_heap_sum_ev *heap_sums;   /* since 5: allocations by thread and stack */
	size_t nheap_sums;
	struct exp_heap_live_ev *heap_live;  /* the live-block tables' slots in use, each
	                                        table first as one of address UINT64_MAX */
	size_t nheap_live;
	struct exp_heap_state heap_state;    /* live bytes, peak, unpaired */
	bool has_heap_state;
	struct exp_sync *sync;
	size_t nsync;
	struct exp_sync_held *held;      /* who held the objects waited on, in file order */
	size_t nheld;
	struct exp_sync_wake *wakes;     /* who woke condition and semaphore waits */
	size_t nwakes;
	struct exp_sync_key *keys;       /* process-shared objects' keys (waits, releases) */
	size_t nkeys;
	struct exp_io *io;
	size_t nio;
	struct exp_fd_ev *fds;
	size_t nfds;
	struct exp_fd_flow *flows;       /* what descriptors read from and write into, in file order */
	size_t nflows;
	struct exp_fd_wait_ev *fdwaits;  /* waits in poll, select, epoll, in file order */
	size_t nfdwaits;
	int32_t *wait_fds;               /* their descriptors */
	size_t nwait_fds;
	struct exp_fd_watch *watches;    /* epoll interest lists' changes, in file order */
	size_t nwatches;
	struct exp_dyn_ev *dyn;          /* dynamic code, in file order */
	size_t ndyn;
	struct exp_arc_ev *arcs;
	size_t narcs;
	struct exp_mpi *mpi;             /* MPI calls (-m), in file order */
	size_t nmpi;
	struct exp_mpi_comm *comms;      /* communicators as first seen */
	size_t ncomms;
	struct exp_java_method_ev *jmethods;  /* Java methods, by id (exp_read_code.h) */
	size_t njmethods;
	struct exp_jit_ev *jit;          /* dynamic code over time, by time */
	size_t njit;
	size_t missing_stacks;           /* events naming a stack id never written */
	struct exp_damage damage;        /* what could not be read (exp_read.h) */
	size_t cut_stacks;               /* stacks whose outer frames were lost with
	                                    damaged records: flagged truncated */
	size_t unknown_records;          /* records of types this reader does not
	                                    know (a newer writer?), skipped */
	uint64_t records[EXP_FILE_COUNT_]; /* records read, by file kind */
	const char *missing;             /* a file its data needs that is absent
	                                    (EXP_LOG_NAME, maps.dat, stacks.dat), or NULL */
	char *newer_part;                /* its continuation LINEAGE.proc written by a
	                                    newer tally: the line that says so (its
	                                    items left out: a refusal, not damage), or NULL */
	/* --states (states.dat) and -c (hwc.dat), as written */
	struct exp_state *states;        /* off-CPU intervals */
	size_t nstates;
	struct exp_cpu_split *splits;    /* user/system CPU so far, at clock samples */
	size_t nsplits;
	struct exp_proc_sample *psamples;   /* the process over time (--process-samples),
	                                       in file order; kept by
	                                       exp_experiment_drop_events */
	size_t npsamples;
	struct exp_counter_def counter_defs[EXP_MAX_COUNTERS];
	uint32_t counter_mask;           /* bit i: counter_defs[i] was read */
	struct exp_counter_sample *csamples;
	size_t ncsamples;
	struct exp_counter_end *cends;   /* counters' totals at thread ends */
	size_t ncends;
	struct exp_data_sample_src *dsamples;   /* precise samples with a data address; data_src
	                                          0 from a DATA_SAMPLE (no level) */
	size_t ndsamples;
	/* kernel.dat (the founder's only; exp_read_kernel.h) */
	struct exp_ksample_ev *ksamples; /* ticks in kernel mode, every process's */
	size_t nksamples;
	uint64_t *kpcs;                  /* their pcs */
	size_t nkpcs;
	struct exp_ksym_ev *ksyms;       /* kernel functions, by address after loading */
	size_t nksyms;
	struct exp_kernel_info kinfo;    /* period_ns 0: no KERNEL_INFO record */
	struct exp_ksample_ev *kswitches; /* switches out of a CPU (--states), every
	                                    process's; pcs in kpcs */
	size_t nkswitches;
	/* this process's part: its clock samples that got kernel frames, and
	 * kernel samples of its threads no clock sample came after */
	uint64_t kernel_matched, kernel_unmatched;
	uint64_t kernel_ticks;           /* the founder's: kernel samples read (kept after
	                                    exp_experiment_drop_events) */
	/* its STATE intervals that got the kernel's chain at their switch, and
	 * those (with a user stack) that found none */
	uint64_t kswitch_matched, kswitch_unmatched;
	uint64_t kernel_switches;        /* the founder's: KERNEL_SWITCH records read */
	struct exp_data_regs *dregs;     /* --data: clock samples' registers */
	size_t ndregs;
	struct exp_data_block *dblocks;  /* --data: heap blocks' lifetimes */
	size_t ndblocks;
	struct exp_data_frames_ev *dframes;   /* --data: clock samples' frames with CFAs */
	size_t ndframes;
	uint64_t *dframe_pairs;          /* their (pc, cfa) pairs, dframes[i].at on */
	size_t ndframe_pairs;
	struct exp_data_file_ev *dfiles; /* --data: files mapped and ranges unmapped */
	size_t ndfiles;
};

struct exp_experiment {
	char *path;                      /* as given */
	struct exp_proc *procs;          /* [0] the founder, then descendants by lineage */
	size_t nprocs;
	size_t empty_descendants;        /* sub-experiment directories without data */
	int32_t rank;                    /* MPI_COMM_WORLD rank of its processes: the
	                                    founder's mpi.rank, or the job's rankN.exp
	                                    (exp_job.h); -1: not a rank */
	bool launcher;                   /* a job's launcher (`tally record -- mpirun`) */
	size_t lost_procs;               /* processes that could not be read at all:
	                                    left out, the others loaded */
	char **lost_lineages;            /* the descendants' among them (the founder's
	                                    place is kept), so that a lost fork child
	                                    is not taken for an unrecorded one */
	size_t nlost_lineages;
	char *lost_why;                  /* the first one's error (file: cause) */
};

/* Load the experiment in directory `path`: a directory is one when one of
 * its files has a tally header (counters.dat or a record file).  Corrupt
 * records, blocks and files cost only themselves: they are counted in each
 * process's `damage` (and passed to `on_damage` with `arg`, if not NULL),
 * and the rest is loaded; a process that cannot be read at all (a file that
 * is not a regular file, a read error) costs only itself (lost_procs); a
 * file its data needs that is absent is named in its `missing`.  Returns 0, or -errno (an unreadable directory or file, out of
 * memory) / -EXP_ECORRUPT (no experiment there) with `err` filled (one line:
 * file, offset, cause). */
int exp_experiment_load(struct exp_experiment *e, const char *path, struct exp_error *err);
int exp_experiment_load_with(struct exp_experiment *e, const char *path, struct exp_error *err,
			     exp_damage_fn *on_damage, void *arg);

/* What the loader knows of record type `type`: its name ("thread-start"),
 * the file kind it belongs in, its length (the fixed part when *at_least).
 * 0, or -1 for a type it does not read (MIRROR is the reader's). */
int exp_rec_info(uint32_t type, const char **name, uint32_t *kind, uint32_t *len, bool *at_least);

/* Everything that could not be read in e's processes, summed. */
void exp_experiment_damage(const struct exp_experiment *e, struct exp_damage *total);
void exp_experiment_free(struct exp_experiment *e);
/* Free the events (samples, stacks, maps, traced events, arcs) once they are
 * in a model, keeping what the views read later: the log, the counters, the
 * threads, the names.  Many experiments (a job's ranks) then cost memory one
 * at a time.  Java methods and generated code stay (annotate names by them). */
void exp_experiment_drop_events(struct exp_experiment *e);

/* Grow the array *arr (of *cap elements of `size` bytes) to hold n + 1,
 * doubling.  Returns 0, or -1 when out of memory (*arr is unchanged).  The
 * analyzer's one growable-array helper. */
int exp_grow(void *arr, size_t *cap, size_t n, size_t size);
/* malloc (calloc if `zero`) and realloc for the analyzer's big arrays:
 * from 4 MiB up, 2 MiB-aligned and advised to be transparent huge pages,
 * so that first touching them faults once per 2 MiB, not per 4 KiB (a
 * million-sample report took ~47,000 faults of ~8 us each in a VM).  A
 * big realloc is a new block, copied; free() frees either.  NULL when
 * out of memory (p unchanged). */
void *exp_big_alloc(size_t bytes, bool zero);
void *exp_big_realloc(void *p, size_t old_bytes, size_t bytes);

/* A hint to bring the cache line of p in: for loops over samples whose
 * look-ups land anywhere in big tables (the run trie's hash, the model's
 * per-stack memo), issued some samples ahead.  gcc 12 drops
 * __builtin_prefetch of an address loaded through a struct (t->keys[i]),
 * so x86-64 gets the instruction itself. */
static inline void exp_prefetch(const void *p)
{
#if defined(__x86_64__)
	__asm__ volatile("prefetcht0 %0" : : "m"(*(const char *)p));
#else
	__builtin_prefetch(p);
#endif
}

/* The whole stack `id` of a process, leaf first, into pcs (at most max);
 * returns the number of frames, or -1 if there is no such stack.  *flags
 * gets its EXP_STACK_* flags (TRUNCATED too when a node on the way was cut
 * from its lost parent). */
int exp_stack_frames(const struct exp_proc *p, uint32_t id, uint64_t *pcs, int max, uint16_t *flags);

/* The Java method of jmethodID `method` in process p (named by a
 * JAVA_METHOD record), or NULL. */
const struct exp_java_method_ev *exp_java_method_find(const struct exp_proc *p, uint64_t method);
/* The inlined frames at `off` in compiled code `e` (the entry whose offset
 * is the least at or after it: HotSpot describes an instruction at its
 * end, a call at its return address): their count, *frames innermost
 * first, the compiled method itself last; 0 where nothing was inlined. */
uint32_t exp_jit_inline_at(const struct exp_jit_ev *e, uint64_t off, const struct exp_jit_inline_frame **frames);

/* Value of `key` in a process's log, or NULL (the last one wins). */
const char *exp_proc_log(const struct exp_proc *p, const char *key);

#endif
