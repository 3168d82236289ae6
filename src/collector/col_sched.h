/* SPDX-License-Identifier: MIT
 *
 * col_sched.h — the kernel's scheduler accounting of threads as they end
 * (/proc/TID/schedstat: time on a CPU, time waiting for one), as
 * THREAD_SCHED records in threads.dat (format/exp_records.h), with or
 * without --states: the analyzer splits each thread's life into CPU,
 * waiting for a CPU and off the CPU from them.  Layer 3 (col_state.h).
 */
#ifndef TALLY_COL_SCHED_H
#define TALLY_COL_SCHED_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct col_thread;
struct exp_thread_sched;
struct exp_thread_switches;

#define COL_SCHED_BATCH 64         /* threads read in one helper (col_fds_use) */
/* Threads that lived this long are read: opening a thread's /proc entry
 * costs it 0.4-0.9 ms of wall time as it exits (the kernel releases the
 * entry; 35 us of CPU; measured with a bare program at load 9), at most 2%
 * of such a thread's life.  A shorter one is read too if it slept even
 * once (col_sched_write_switches), and then pays far more than 2%: a 1 ms
 * thread's end went from 88 to 179 us (docs/decisions.md); one that never
 * slept needs no read.  The analyzer names the threads without. */
#define COL_SCHED_MIN_NS 50000000ull

/* The calling thread `t`, ending: its context switches now (getrusage
 * RUSAGE_THREAD, one system call, no file) into *rec, read before tally's
 * end of the thread (which may block: a helper's clone), and written as a
 * THREAD_SWITCHES record.  False if they could not be read.  A thread that
 * never slept waited for a CPU all its life off one, which the analyzer
 * knows without schedstat; only one that slept (rec->voluntary) needs it
 * read to split its time off the CPU.  Sigsafe. */
bool col_sched_switches_now(struct col_thread *t, struct exp_thread_switches *rec);
void col_sched_write_switches(struct col_thread *t, const struct exp_thread_switches *rec);

/* The process ending: a THREAD_SWITCHES record, written through thread
 * `via`'s cursor, for each of threads[0..n) (n at most COL_SCHED_BATCH),
 * others still running, from their /proc/TID/status (voluntary and
 * nonvoluntary_ctxt_switches: the counters getrusage gives a thread of
 * itself), read aside in one use (col_fds_use); counted as the thread's
 * own end counts them.  A thread whose file cannot be read has none.
 * Sigsafe. */
void col_sched_write_others_switches(struct col_thread *via, struct col_thread *const *threads, size_t n);

/* The calling thread t's voluntary context switches so far, less those
 * in tally's helpers (0 if not read).  Sigsafe. */
uint64_t col_sched_program_switches(const struct col_thread *t);

/* Read the schedstat of threads tids[0..n) (n at most COL_SCHED_BATCH) and
 * write a THREAD_SCHED record for each through thread `via`'s cursor; a
 * thread whose file cannot be read has none.  One descriptor use for all
 * (col_fds_use: aside while other threads may open).  Sigsafe. */
void col_sched_write(struct col_thread *via, const pid_t *tids, size_t n);

/* The same for thread `tid` whose schedstat's text is `text` (read from a
 * descriptor already held: --states keeps one per thread, so no open and
 * no bar of life).  Nothing if the text does not parse.  Sigsafe. */
void col_sched_write_text(struct col_thread *via, pid_t tid, const char *text);

/* Attaching (col_attach.c): the schedstat now of threads tids[0..n) (n at
 * most COL_SCHED_BATCH), read aside in one use (col_fds_use), into out[i]
 * (tid and its fields; time_ns now, or 0 for one that could not be read).
 * And a record of such values (differences of two reads: the window's
 * share) written through thread `via`'s cursor.  Sigsafe. */
void col_sched_read_many(const pid_t *tids, size_t n, struct exp_thread_sched *out);
void col_sched_write_rec(struct col_thread *via, const struct exp_thread_sched *rec);

#endif
