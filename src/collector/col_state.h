/* SPDX-License-Identifier: MIT
 *
 * col_state.h — the collector's state: one `struct col_process` for the
 * experiment this process writes, one `struct col_thread` per thread (its
 * sampling clock, its cursors into the record files, its unwinder scratch
 * space), reached through initial-exec TLS so that the signal handler can
 * use it; the reentry flag; the loss counters.
 *
 * Reentry rule: collector code that writes records from normal context calls
 * col_enter() first; if it returns NULL the thread is already inside the
 * collector (a malloc from our own code, a signal during an interposer) and the
 * event is skipped and counted.  The signal handler uses the same flag.
 *
 * The collector is a house of layers.  Each file includes and calls only
 * files on lower lines (or its own header); modules on one line are
 * independent of each other.  Below the top line, a function tally
 * interposes is called through the table of real ones, COL_REAL(name)
 * (col_real.h): a bare name( is the interposer, on the top line.  tests/e2e/test_layers.sh checks both, reading
 * this list ("a:b" is module a with the files b.*, too):
 *
 * layers:
 *   col_tracer_watch        when a --states switch signal asks whether a tracer attached
 *   col_elfsym              a name's definition in one loaded object, from its own symbol table
 *   col_real:col_sys:col_glibc   the real functions: one table, resolved once; our I/O
 *   col_time col_mem col_objset col_runtime   timestamps; memory for our tables; the object snapshot; a Go runtime?
 *   col_unwind:col_regs     the CFI unwinder
 *   col_state               process and thread state, reentry flag, counters
 *   col_fds                 our descriptors: high, registered, protected
 *   col_procslot            a descendant's process file in its slot of processes.dat
 *   col_log                 lines in log.txt
 *   col_maps                a thread's stack bounds from /proc/PID/maps
 *   col_threadstack         a thread's own stack bounds, no malloc: stack layout, thread descriptor
 *   col_files               the experiment's files; appending records
 *   col_dyn                 dynamic code: tally_func_load, perf maps, jitdumps
 *   col_signal              the target's dispositions of our signals
 *   col_control             recording off and on: tally_pause, --delay, --duration,
 *                           the toggle signal, the control page
 *   col_objects:col_debugframe   the load-object map (MAP records, new snapshots); .debug_frame made readable
 *   col_stacks              call stacks stored once
 *   col_datablocks          --data's heap blocks, written only where a sample may see them
 *   col_heap:col_export_heap the heap tracer's tables (sums by stack, live blocks, peak)
 *                           and its entry points, tally__heap_alloc and tally__heap_free
 *   col_psample col_sched   process samples over time (--process-samples); threads' schedstat at their end
 *   col_clock col_java      a thread's CPU-time clock (perf event or timer); Java stacks
 *   col_states col_counters its off-CPU states (--states); its counters (-c)
 *   col_thread              a thread's state from start to end
 *   col_rawthread           threads made by a raw clone: their states by thread id
 *   col_sample              the profiling signal handler
 *   col_descend             sub-experiments of descendants; the fork child
 *   col_init                starting and ending collection in a process
 *   col_api:col_export:col_api_java col_interpose_thread col_interpose_signal col_interpose_sigmask col_interpose_dlopen col_interpose_exec:col_vfork col_interpose_spawn col_attach col_interpose_fd col_interpose_mmap col_interpose_jvm:col_dlsym col_interpose_rlimit col_interpose_seccomp col_interpose_ptrace
 * end of layers.
 *
 * The top line holds the entry points: the tally__/tally_ functions
 * (col_export.h, include/tally.h) and the interposers of pthread_create,
 * sigaction and signal, the signal-mask functions, dlopen and dlclose, the exec family and vfork,
 * of what closes or replaces descriptors, and of mmap and munmap (--data: mapped files).
 */
#ifndef TALLY_COL_STATE_H
#define TALLY_COL_STATE_H

#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>
#include <time.h>

#include "collector/col_unwind.h"
#include "format/exp_cost.h"
#include "format/exp_events.h"
#include "format/exp_launch.h"
#include "format/exp_write.h"
#include "format/exp_write_run.h"

struct col_states_thread;
struct col_counters_thread;

/* A traced stack a thread met before (col_stacks.c), found again without
 * unwinding: the traced call's return address and stack pointer match (and
 * its frame pointer, when the caller's CFA is reckoned from it), and the
 * stack words that held each outer frame's return address still hold them.
 * A few loads instead of a walk and an intern.  The keys of a set (its
 * COL_TRACED_MEMO_WAYS entries) share one cache line, apart from the
 * entries: a lookup reads that line and the matching entry's, whose words
 * and values are in pairs (the 424-byte entries, each key at its head and
 * the values 232 bytes after the words, cost a line per way tried and two
 * more for the words: the entry's first load was a seventh of
 * col_stack_from's samples, perf, heapmix). */
/* 512 entries (295 KiB, faulted in as used): cc1 under -H -s -i walked
 * 173,023 of its ~740,000 traced stacks with 128, 137,016 with 512, and
 * its instructions fell 66 M (callgrind; docs/benchmarks.md). */
#define COL_TRACED_MEMO 512             /* per thread, a power of two */
#define COL_TRACED_MEMO_WAYS 4          /* entries a key may be in: a power of two */
#define COL_TRACED_MEMO_WORDS 32        /* stacks of at most 32 frames */
#define COL_TRACED_BY_FP 1ull           /* key sp's low bit: fp must match too */
struct col_traced_key {
	uint64_t ra;                    /* return address; 0: empty */
	uint64_t sp;                    /* stack pointer after the return | COL_TRACED_BY_FP */
};
struct col_traced_memo {
	_Alignas(64) uint64_t fp;                   /* the frame pointer (COL_TRACED_BY_FP) */
	uint64_t generation;            /* object set it was made in */
	uint32_t id;                    /* the stack interned */
	uint32_t nwords;
	uint32_t used;                  /* the thread's traced_memo_clock when made */
	uint32_t pad;
	/* What the layer above keeps with this stack (col_heap.c: its sums
	 * slot), NULL when made; col_stacks_forget_aux empties them all. */
	void *aux;
	uint64_t aux_pad;
	struct col_unwind_word word[COL_TRACED_MEMO_WORDS];   /* where each return address
							 is, and its value (0: the end) */
};

struct col_heap_owner;

struct col_thread {
	_Atomic int busy;              /* inside collector code */
	_Atomic int entered;           /* ... entered from normal context (col_enter) */
	_Atomic int deferred;          /* a clock signal came meanwhile: sample at col_leave */
	/* Set by this thread before vfork and cleared when it returns in the
	 * parent: meanwhile the only one running on this state is the vfork
	 * child (same memory, its own descriptors), which must change nothing
	 * of it.  Here, on the line of `busy`: col_enter reads both. */
	_Atomic int vfork_child;
	pid_t tid;
	/* -H (col_heap.c), read on every traced allocation and release: on
	 * this first line, which col_enter has just read, not at the end of
	 * this 130 KB struct nor in the owner's (a line more per event each,
	 * from L2 at best: the program's own working set has pushed them out
	 * of L1 by then). */
	uint32_t heap_filled;                /* heap_tab's slots not empty (its owner's count) */
	uint32_t heap_sums_used;
	uint32_t heap_mask;                  /* heap_tab's slots - 1 */
	struct exp_heap_sums *heap_sums;     /* its table of sums by stack */
	int64_t heap_live_delta;             /* its live bytes not yet in the process's */
	struct col_heap_owner *heap_owner;   /* its own live-block table ... */
	struct exp_heap_live_table *heap_tab;   /* ... and that table (the owner's tab) */
	int perf_fd;                   /* task-clock event, -1 if none */
	timer_t timer;                 /* fallback POSIX CPU-time timer */
	bool has_timer;
	bool inherited_clock;          /* its copy of the process's sigtrap event (col_clock.c) */
	bool in_wrapper;               /* tally's thread start, before the thread's routine:
	                                  no sample (the time goes to the next one) */
	bool first_period;             /* inherited clock: no sample before a period of CPU
	                                  since the clock's start (col_clock.c) */
	int live_slot;                 /* its place in col_thread.c's list of live threads, -1 */
	uint64_t born_ns;              /* CLOCK_MONOTONIC at its THREAD_START */
	uint64_t created_ns;           /* ... at its pthread_create call (0: not known) */
	uint64_t routine_switches;     /* its voluntary context switches less tally's
	                                  as its routine began (col_sched.c: those of
	                                  tally's set-up are not the program's sleeps) */
	uint64_t collector_switches;   /* its voluntary context switches in tally's
	                                  helpers (col_fds_aside waits for each) */
	uint64_t last_cpu_ns;          /* clock value when the previous handler finished */
	/* For the clock's value without reading it (col_sample.c, ran_through):
	 * when the previous taken sample's handler finished and its signal
	 * came (col_now_ns; 0: not to be used), the clock value then, the
	 * thread's context switches as it began (+1; 0: not known), and how
	 * many samples in a row were estimated. */
	uint64_t last_end_ns, last_arrival_ns, last_end_cpu, last_switches;
	uint32_t estimates;
	uint64_t deferred_at_ns;       /* when a deferred clock signal came (0: none) */
	uint64_t samples;
	uint64_t busy_seen_ns;         /* its clock when our signal last found it busy in
	                                  collector code: observed up to there */
	int clock_depth;               /* runs of the clock's handler in progress */
	uint64_t taken_pc;             /* a pending signal frame of ours whose sample was
					* taken early (col_sample.c): its interrupted pc */
	uint64_t collector_ns;         /* CPU time the collector used on this thread */
	uint64_t pending_ns;           /* ... outside the handler since its last run */
	uint64_t handlers;             /* handler runs timed in cost_hist */
	uint64_t cost_max_ns;          /* the longest */
	uint32_t cost_hist[EXP_COST_BUCKETS];   /* handler runs by duration (exp_cost.h) */
	bool exiting;
	struct exp_cursor cursor[EXP_FILE_COUNT_];
	struct exp_run_writer run;     /* clock samples (through cursor[SAMPLES]) */
	struct col_regs regs;          /* scratch for the unwinder */
	uint64_t frames[EXP_MAX_FRAMES];
	union {                        /* scratch, used only while busy: */
		uint64_t suffix_hash[EXP_MAX_FRAMES + 1];   /* col_stacks.c interning */
		uint64_t java_scratch[EXP_MAX_FRAMES];      /* col_java.c, in the handler */
	};
	void *_Atomic java_env;        /* the thread's JNIEnv while it is a Java thread
	                                  (col_java.h); NULL otherwise */
	struct col_unwind_ctx unwind;
	/* --data: the CFAs of the sample's innermost frames (unwind.cfa_out)
	 * and the DATA_FRAMES record made of them (col_sample.c). */
	uint64_t data_cfa[EXP_DATA_FRAMES_MAX];
	struct {
		struct exp_data_frames h;
		uint64_t pairs[2 * EXP_DATA_FRAMES_MAX];
	} data_frames;
	struct col_states_thread *states;     /* --states: col_states.c; NULL: none */
	struct col_counters_thread *counters; /* -c: col_counters.c; NULL: none */
	struct col_data_blocks *data_blocks;  /* --data: heap blocks held back
	                                         (col_datablocks.c); NULL: none yet */
	struct col_unwind_prev traced;  /* the previous traced stack (reused in part) */
	uint32_t memo_id, memo_n;       /* the last traced stack interned ... */
	uint16_t memo_flags;
	uint64_t memo_pcs[EXP_MAX_FRAMES];   /* ... and its frames */
	_Alignas(64) struct col_traced_key traced_keys[COL_TRACED_MEMO];   /* traced_memo's keys */
	uint32_t traced_memo_clock;
	size_t heap_sums_mapped;             /* -H: heap_sums' mapping (col_heap.c) */
	struct col_heap_owner *heap_hint;    /* where its last release of another's block was */
	int heap_owner_none;                 /* no table could be had: the stripes' */
	/* Last, and not faulted in at the thread's start (col_thread.c
	 * populate): an entry's pages come with its first use, in normal
	 * context, so a thread that traces little pays for little of it. */
	struct col_traced_memo traced_memo[COL_TRACED_MEMO];
};

struct col_process {
	bool active;                   /* an experiment is open */
	/* Read on every traced event (col_api.c, col_enter, col_control.h):
	 * together on the struct's first cache line. */
	bool attached;                 /* loaded by `tally record -p` (col_attach.c) */
	_Atomic bool control_watch;    /* a --delay or --duration edge, or a control
	                                  page: col_control_paused_sigsafe looks */
	_Atomic int paused;            /* bit 1 << enum exp_pause_reason: recording off
	                                  for that reason (col_control.c); 0: on */
	_Atomic int stopped;           /* the size limit was reached: record nothing more */
	pid_t pid;
	int dirfd;
	char dir[4096];                /* this process's experiment directory (a
	                                  descendant's: made at its first record
	                                  file beyond the process file) */
	char log_path[4200];           /* the log: DIR/log.txt, or the process file */
	bool proc_file;                /* a descendant: log, counters and threads
	                                  in ROOT/LINEAGE.proc (exp_records.h) */
	_Atomic int dir_state;         /* proc_file: 0 dir not made, 2 made, -TID being
	                                  made by thread TID (one store: no signal
	                                  can find it being made by nobody) */
	char root[4096];               /* the founder's experiment directory */
	char lineage[256];             /* "" founder, "_f1", "_f1_x1", ... */
	int32_t rank;                  /* MPI rank whose experiment this is part of; -1 none */
	const char *rank_from;         /* the variable that said so (a new rank), or NULL */
	struct exp_launch_options opt; /* from TALLY_OPTIONS (exp_launch_decode) */
	struct exp_file_writer file[EXP_FILE_COUNT_];
	_Atomic uint64_t *counters;    /* counters.dat, mapped */
	int log_fd;
	uint64_t log_dev, log_ino;     /* log.txt's identity (col_log checks it) */
	/* Format 9: a descendant's process file in a slot of ROOT/processes.dat
	 * (log_path names that file, log_fd holds it, opened without
	 * O_APPEND: each item is written with pwrite at a place claimed in
	 * slot_used); 0: its own file, or the founder's log. */
	uint64_t slot_off;
	_Atomic uint64_t slot_used;    /* bytes of the slot claimed, its head included */
	_Atomic int spill_state;       /* ROOT/LINEAGE.proc, the items past the slot:
	                                  0 not made, 2 made, 3 failed, -TID being made */
	uint64_t slot_given;           /* the slot the exec'ing process took for this
	                                  image (TALLY_SLOT), plus one; 0 none */
	uint64_t start_ns;             /* CLOCK_MONOTONIC at collector start */
	uint64_t entry_cpu_ns;         /* the process's CPU time as the collector's start began */
	uint64_t exec_cost_ns;         /* of it, the collector's in the vfork child that
	                                  exec'd this image (TALLY_SLOT): collector time */
	/* A fork child's process file waits for its first write (col_files.c,
	 * col_files_defer): one that execs first writes nothing, its new
	 * image being named as a spawned child's (_fN_x1).  Called before a
	 * write while set (any thread, the signal handler too); NULL once made. */
	void (*_Atomic open_deferred)(void);
	uint64_t fork_cost_ns;         /* a deferred fork child: the collector's CPU in
	                                  its fork handler (passed on at its exec) */
	uint64_t exec_from_ns;         /* its thread's CPU as its exec began */
	char preload[4096];            /* LD_PRELOAD we started with */
	char exe[1024];                /* /proc/self/exe, read once at start ("" attached) */
	/* The arguments the new image was given, as glibc passed them to our
	 * constructor (NULL when an interposer started the collector first, or
	 * attached): the log's argv without reading /proc/self/cmdline. */
	int argc;
	char **argv;
	char options[EXP_OPTIONS_MAX]; /* TALLY_OPTIONS we started with */
	void (*_Atomic thread_end[4])(void);   /* tracers' tally__on_thread_end */
	/* the sync tracer's futex calls through syscall() (tally__on_futex) */
	long (*_Atomic futex_call)(long nr, const long a[6], uint64_t ra, uint64_t sp, uint64_t fp);
	/* The process is ending (our destructor runs): what the collector
	 * mapped stays mapped, for exit to unmap at once. */
	_Atomic bool ending;
	/* A thread other than the initial one has been met (col_thread.c):
	 * another thread may then open files while one is in the collector
	 * (col_fds_aside).  Cleared in a fork child. */
	_Atomic bool threaded;
	_Atomic uint64_t *root_counters;  /* the founder's counters.dat (the size limit's) */
	_Atomic uint32_t failures_logged;  /* bit per file kind: its first failure is in the log */
	struct exp_event events[EXP_MAX_COUNTERS];     /* -c: the counters, from TALLY_COUNTERS */
	int nevents;
	char events_spec[EXP_MAX_COUNTERS * (EXP_EVENT_NAME_MAX + 80)];  /* TALLY_COUNTERS */
};

extern struct col_process col_proc;

/* Add to a loss counter of counters.dat (nothing before it is open). */
void col_count_sigsafe(enum exp_counter c, uint64_t n);

/* Collector work of `ns` on thread t outside the signal handler (thread
 * set-up, object scans): counted as the collector's, and taken out of the
 * weight of the thread's next sample.  t may be NULL (not counted then). */
void col_cost_outside(struct col_thread *t, uint64_t ns);

/* The calling thread's state, or NULL (not set up, or set up is running). */
struct col_thread *col_thread_self_sigsafe(void);

/* Publish `t` as the calling thread's state (NULL: none).  While
 * `attaching`, col_enter refuses: the thread's state is being made. */
void col_thread_set_self(struct col_thread *t);
void col_thread_set_attaching(bool attaching);

/* The calling thread's state has ended (col_thread_detach): a clock signal
 * from here on is in the thread's last slice, which its THREAD_END record's
 * CPU time holds, and no loss. */
void col_thread_set_ended(void);
bool col_thread_ended_sigsafe(void);

/* Fresh state for thread `tid`: mmap'd, zeroed, no clock.  NULL on failure. */
struct col_thread *col_thread_new_sigsafe(pid_t tid);

/* Is the caller a vfork child, running on its parent's thread state? */
bool col_in_vfork_child(void);

/* The calling thread's state, and whether it is being set up (col_state.c;
 * read by the inline col_enter below: it runs twice per traced event). */
extern __thread struct col_thread *col_self_tls __attribute__((tls_model("initial-exec")));
extern __thread bool col_attaching_tls __attribute__((tls_model("initial-exec")));

/* col_enter's way while attached, and col_leave's deferred sample: out of
 * line, in col_state.c. */
struct col_thread *col_enter_attached(struct col_thread *t);
void col_leave_deferred(struct col_thread *t);

/* Enter collector code from normal context; NULL if already inside (or in
 * a vfork child: nothing is recorded there, the parent's state is not its).
 * A clock signal that arrives meanwhile is not dropped: the handler sets
 * t->deferred and col_leave takes the sample through the function given to
 * col_on_deferred (col_sample.c), with the CPU time since the last one.
 * Inline: the call and return were a tenth of a traced free's instructions
 * outside glibc (callgrind, heapmix). */
static inline struct col_thread *col_enter(void)
{
	struct col_thread *t = col_self_tls;

	if (!t || col_attaching_tls || atomic_load_explicit(&t->vfork_child, memory_order_relaxed))
		return NULL;
	/* Marked before the flag is taken, so that no signal finds the thread
	 * busy and not entered.  Only this thread and its signal handlers take
	 * its flag (but while attached: col_attach.c's thread does too), and a
	 * handler gives it back before it returns: a load and a store, ordered
	 * against our own handler by signal fences, take it without a locked
	 * instruction, which was the largest single cost of a traced malloc. */
	if (__builtin_expect(col_proc.attached, 0))
		return col_enter_attached(t);
	if (atomic_load_explicit(&t->busy, memory_order_relaxed))
		return NULL;
	atomic_store_explicit(&t->entered, 1, memory_order_relaxed);
	atomic_signal_fence(memory_order_seq_cst);
	atomic_store_explicit(&t->busy, 1, memory_order_relaxed);
	atomic_signal_fence(memory_order_seq_cst);
	return t;
}

static inline void col_leave(struct col_thread *t)
{
	atomic_store_explicit(&t->busy, 0, memory_order_release);
	atomic_store_explicit(&t->entered, 0, memory_order_relaxed);
	atomic_signal_fence(memory_order_seq_cst);   /* a signal after this sets deferred, or finds it free */
	if (__builtin_expect(atomic_load_explicit(&t->deferred, memory_order_relaxed), 0))
		col_leave_deferred(t);
}

/* col_leave after the collector's own work, which no sample of the
 * program's stands for: a clock signal deferred meanwhile is dropped (its
 * CPU goes to the next sample; the caller accounts for its own, as
 * col_cost_outside does).  Cleared before the flag is let go: a signal in
 * between defers again, and the next col_leave takes it. */
void col_leave_untaken(struct col_thread *t);
void col_on_deferred(void (*fn)(struct col_thread *t));

/* A deferred fork child's process file made now, if it still waits
 * (col_proc.open_deferred): before a write, a fork or a vfork.  Any thread,
 * the signal handler too. */
static inline void col_open_deferred_sigsafe(void)
{
	void (*fn)(void) = atomic_load_explicit(&col_proc.open_deferred, memory_order_acquire);

	if (fn)
		fn();
}

#endif
