/* SPDX-License-Identifier: MIT
 *
 * col_internal.h — state shared by the collector's files.
 *
 * The collector (libtally-collector.so) is preloaded into the target by
 * `tally record`.  One `struct col_process` describes the experiment this
 * process writes; one `struct col_thread` per thread holds its sampling clock,
 * its cursors into the record files and its unwinder scratch space.  Thread
 * state is reached through initial-exec TLS, so the signal handler can use it.
 *
 * Reentry rule: collector code that writes records from normal context calls
 * col_enter() first; if it returns NULL the thread is already inside the
 * collector (a malloc from our own code, a signal during an interposer) and the
 * event is skipped and counted.  The signal handler uses the same flag.
 */
#ifndef TALLY_COL_INTERNAL_H
#define TALLY_COL_INTERNAL_H

#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>
#include <time.h>

#include "collector/col_unwind.h"
#include "format/exp_write.h"

#define COL_API __attribute__((visibility("default")))

/* Options, from TALLY_OPTIONS (see col_options_parse). */
struct col_options {
	uint32_t hz;               /* clock samples per second of CPU time; 0: no clock */
	bool heap;                 /* -H */
	int64_t sync_ns;           /* -s: threshold in ns; -1: off; -2: calibrate */
	bool io;                   /* -i */
	bool follow;               /* --follow=all */
	uint32_t max_frames;       /* <= EXP_MAX_FRAMES */
};

struct col_thread {
	_Atomic int busy;              /* inside collector code */
	pid_t tid;
	int perf_fd;                   /* task-clock event, -1 if none */
	timer_t timer;                 /* fallback POSIX CPU-time timer */
	bool has_timer;
	uint64_t last_cpu_ns;          /* clock value at the previous sample */
	uint64_t samples;
	bool exiting;
	struct exp_cursor cursor[EXP_FILE_COUNT_];
	struct col_regs regs;          /* scratch for the unwinder */
	uint64_t frames[EXP_MAX_FRAMES];
	uint64_t suffix_hash[EXP_MAX_FRAMES + 1];   /* scratch for col_stacks.c */
	struct col_unwind_ctx unwind;
	struct col_unwind_prev traced;  /* the previous traced stack (reused in part) */
	uint32_t memo_id, memo_n;       /* the last traced stack interned ... */
	uint16_t memo_flags;
	uint64_t memo_pcs[EXP_MAX_FRAMES];   /* ... and its frames */
};

struct col_process {
	bool active;                   /* an experiment is open */
	pid_t pid;
	int dirfd;
	char dir[4096];                /* this process's experiment directory */
	char root[4096];               /* the founder's experiment directory */
	char lineage[256];             /* "" founder, "_f1", "_f1_x1", ... */
	struct col_options opt;
	struct exp_file_writer file[EXP_FILE_COUNT_];
	_Atomic uint64_t *counters;    /* counters.dat, mapped */
	int log_fd;
	uint64_t start_ns;             /* CLOCK_MONOTONIC at collector start */
	_Atomic int paused;            /* tally_pause(): record nothing */
	char preload[4096];            /* LD_PRELOAD we started with */
	char options[256];             /* TALLY_OPTIONS we started with */
};

extern struct col_process col_proc;

/* ---- col_init.c -------------------------------------------------------- */
/* Start collecting if TALLY_EXP is set and we have not yet (idempotent; any
 * interposer may call it first, even before our constructor). */
void col_ensure_init(void);
/* The collector finished starting (or found nothing to do). */
bool col_ready(void);
/* Start collecting now into the existing directory `dir` (a program linked
 * with the runtime, started without `tally record`).  0 or -1. */
int col_start_here(const char *dir);
void col_count_sigsafe(enum exp_counter c, uint64_t n);

/* ---- col_time.c -------------------------------------------------------- */
/* CLOCK_MONOTONIC in ns, from the TSC where it is invariant. */
uint64_t col_now_ns_sigsafe(void);
void col_time_init(void);

/* ---- col_thread.c ------------------------------------------------------- */
struct col_thread *col_thread_self_sigsafe(void);
/* Set up the calling thread (state, clock, THREAD_START); idempotent. */
struct col_thread *col_thread_attach(uint64_t start_routine, pid_t creator);
/* Tear down the calling thread (THREAD_END); its blocks stay in the files. */
void col_thread_detach(void);
/* Enter collector code from normal context; NULL if already inside. */
struct col_thread *col_enter(void);
void col_leave(struct col_thread *t);
/* After fork, in the child: the thread's state belongs to the parent's files. */
void col_thread_reset_after_fork(void);

/* Append a record through the calling thread's cursor for `file`.  The
 * caller is inside collector code (col_enter or the signal handler). */
int col_write_sigsafe(struct col_thread *t, enum exp_file_kind file, uint32_t type,
		      const void *rec, uint32_t len);

/* ---- col_clock.c ------------------------------------------------------- */
/* Start / stop the calling thread's sampling clock. */
void col_clock_start(struct col_thread *t);
void col_clock_stop(struct col_thread *t);
/* Install the profiling signal handler (once per process). */
void col_clock_install_handler(void);
/* The thread's CPU time so far (task clock), in ns. */
uint64_t col_clock_read_sigsafe(struct col_thread *t);

/* ---- col_signal.c ------------------------------------------------------ */
/* Is this signal from our clock?  (col_clock.c) */
bool col_clock_signal_sigsafe(int sig, const siginfo_t *si);
/* Pass a profiling signal that is not ours to the target's own disposition. */
void col_signal_forward(int sig, siginfo_t *si, void *uc);
/* Our handler is installed for `sig`; `prev` was the target's disposition. */
void col_signal_take(int sig, const struct sigaction *prev);
/* The real sigaction, bypassing our interposer. */
int col_sigaction_real(int sig, const struct sigaction *act, struct sigaction *old);

/* ---- col_stacks.c ------------------------------------------------------ */
/* Id of the stack `pcs[0..n)` with `flags`, writing its STACK record the
 * first time it is seen.  0 if it could not be written. */
uint32_t col_stack_intern_sigsafe(struct col_thread *t, const uint64_t *pcs,
				  uint32_t n, uint16_t flags);
/* EXP_STACK_* flags of an unwind's outcome, counting the losses. */
uint16_t col_stack_flags_sigsafe(int truncated, int broken);
/* Unwind the caller of an interposer and intern its stack (skipping the
 * collector's own frames).  0 on failure. */
uint32_t col_stack_here(struct col_thread *t);
/* The same from the traced function's caller: its return address, stack
 * pointer (the traced function's CFA) and frame pointer. */
uint32_t col_stack_from(struct col_thread *t, uint64_t ra, uint64_t sp, uint64_t fp);
void col_stacks_init(void);

/* ---- col_log.c --------------------------------------------------------- */
/* Append "key: value" lines to log.txt; sigsafe formatting (col_fmt_*). */
void col_log_sigsafe(const char *key, const char *value);
void col_log_u64_sigsafe(const char *key, uint64_t value);
/* Decimal digits of v into buf (>= 21 bytes); returns length. */
int col_fmt_u64_sigsafe(char *buf, uint64_t v);

/* ---- col_mem.c --------------------------------------------------------- */
/* Zeroed memory for the collector's own tables: mmap-backed, never freed,
 * never from the target's malloc.  Not sigsafe (takes a spinlock).  NULL on
 * failure. */
void *col_alloc(size_t bytes);

/* Real libc functions, resolved once with dlsym(RTLD_NEXT); NULL if absent. */
void *col_real(const char *name);

#endif
