/* SPDX-License-Identifier: MIT
 *
 * col_export.h — the collector's interface to libtally-mcount.so: internal
 * between our two libraries (tally__ prefix), exported by collector.map.
 */
#ifndef TALLY_COL_EXPORT_H
#define TALLY_COL_EXPORT_H

#include <stddef.h>
#include <stdint.h>

#include "collector/col_export_heap.h"

/* Is this process collecting (starting the collector if the environment
 * says so)? */
int tally__collecting(void);

/* Would a record written now be kept: collecting, not paused (tally_pause,
 * --delay, the toggle signal...), not stopped by the size limit?  A tracer
 * that keeps state from its records (io_wait.c's epoll sets) asks before
 * it counts on a record being written.  Sigsafe. */
int tally__recording(void);

/* A new arc table of `nslots` slots (a power of two) in arcs.dat, published
 * empty, mapped; its size in *mapped.  NULL if there is no space. */
void *tally__arc_table(uint32_t nslots, uint32_t flags, uint64_t *mapped);
void tally__arc_table_release(void *table, uint64_t mapped);

/* Count arcs that could not be recorded (lost.arcs). */
void tally__lost_arcs(uint64_t n);

/* Not started by `tally record`: start an experiment tally.N.exp in the
 * current directory (once per process).  Returns 1 if collecting. */
int tally__standalone_start(const char *why);

/* ---- for the tracers (libtally-heap, -sync, -io) ------------------------- */

/* Start the collector if it has not started (an interposer may run before our
 * constructor) and say what the caller should trace: INT64_MIN while the
 * collector is starting (do not trace, ask again later); -1 off; for "heap"
 * and "io" 1 on; for "sync" the threshold in ns, or -2 "calibrate"; for
 * "sync.holders" 1 when the holders of contended mutexes are recorded
 * (-s without --sync-holders=off), else -1. */
int64_t tally__trace_option(const char *which);

/* Record a traced event: HEAP, HEAP_FREE, SYNC, IO or FD_NAME, all of which
 * have the thread id at offset 4 and the time at offset 8, and (HEAP, SYNC,
 * IO) the stack id at offset 16.  Fills the thread id; the time if the record
 * has none; and, when `ra` is nonzero, the call stack from the traced call's
 * caller: its return address, stack pointer after the return (the traced
 * function's CFA) and frame pointer.  No frame of tally's is unwound, and
 * outer frames unchanged since the thread's previous traced call are reused
 * (col_unwind.h).  The thread id, time and stack id are filled in `rec`
 * itself: a caller may keep the stack id for later records (ra 0).  Returns 0, or -1 if this thread cannot record now (inside
 * the collector already: its own allocations; or not set up). */
int tally__trace_event(int kind, uint32_t type, void *rec, uint32_t len, uint64_t ra,
		       uint64_t sp, uint64_t fp);

/* The calling thread about to wait in a traced call (the sync tracer, when
 * its try found the object busy): whatever its next record of `kind` would
 * cost (making the file, claiming its block) is paid now, and the stack of
 * the traced call's caller (ra, sp, fp as for tally__trace_event), the same
 * before the wait as after, is interned: inside the wait, where it
 * lengthens nothing, rather than after the grant, where it lengthened the
 * program's own measure of a first wait.  The stack id for the record (0:
 * none, then walked at the record). */
uint32_t tally__trace_wait_begins(int kind, uint64_t ra, uint64_t sp, uint64_t fp);

/* The call stack from the traced call's caller (ra, sp, fp as for
 * tally__trace_event) interned in stacks.dat, without a record: its stack
 * id, and the calling thread's id in *tid.  0 (stack id 0: none) if this
 * thread cannot record now.  For the sync tracer's holders: a stack taken
 * when a lock is acquired, written later by a thread that waited on it. */
uint32_t tally__trace_stack(uint64_t ra, uint64_t sp, uint64_t fp, uint32_t *tid);

/* The heap tracer's entry points, tally__heap_alloc and tally__heap_free:
 * col_export_heap.h (defined in col_heap.c, with the tables they fill). */

/* Call `fn` in each thread that ends, before its collector state goes (so
 * it may still record), and at the end of the process's main thread. */
void tally__on_thread_end(void (*fn)(void));

/* From now on, a futex call a program makes through libc's syscall()
 * (syscall(SYS_futex, ...)) is `fn`'s to make: it is given the number, the
 * six arguments and the caller (ra, sp, fp as for tally__trace_event) and
 * returns what syscall() would.  For the sync tracer: futex waits and who
 * woke them (hand-offs through a futex word, in memory shared or not). */
void tally__on_futex(long (*fn)(long nr, const long a[6], uint64_t ra, uint64_t sp, uint64_t fp));

/* CLOCK_MONOTONIC in ns; add to a counter of counters.dat. */
uint64_t tally__now(void);
void tally__count(int counter, uint64_t n);

/* A line in the experiment's log. */
void tally__log(const char *key, const char *value);

/* The first `len` - 1 bytes of the file at `path` in `buf`, NUL-terminated,
 * read aside (col_fds_read): no descriptor of the program's number is taken
 * meanwhile.  The count, or -errno. */
long tally__read_file(const char *path, char *buf, unsigned long len);

/* The file at `path` read aside the same way, chunk(arg, buf, n) called
 * with each read's bytes (col_fds_read_each) until the end or until it
 * returns non-zero: 0, or -errno (the open's or a read's).  chunk runs on
 * the helper's small stack: no system call, few locals. */
long tally__read_file_each(const char *path, char *buf, unsigned long len,
			   int (*chunk)(void *arg, const char *buf, unsigned long n), void *arg);

/* ---- for the JVMTI agent (libtally-jvmti.so, src/jvmti/) ----------------- */

/* Take Java stacks with `asgct`, the JVM's AsyncGetCallTrace: 1 if this
 * process is collecting with Java stacks on (tally record -j on), else 0
 * (the agent then does nothing). */
int tally__java_start(void *asgct);

/* Where a JavaThread keeps its last Java frame (col_java.h): its JNIEnv's
 * offset in it, its anchor's last Java sp and pc. */
void tally__java_anchor(int64_t env_offset, uint64_t sp_offset, uint64_t pc_offset);

/* The calling thread is a Java thread with JNIEnv `env`; NULL: no more. */
void tally__java_thread(void *env);

/* Append a record of code.dat (JAVA_METHOD, JIT_CODE, JIT_UNLOAD), complete
 * with its time.  0, or -1 if it was lost (counted). */
int tally__java_write(uint32_t type, const void *rec, uint32_t len);

/* Methods of Java frames (exp_records.h) to be named. */
void tally__java_seen(const uint64_t *frames, int n);

/* The interpreter's code [lo, hi), and a method's Method* with its
 * jmethodID: interpreted frames named when the JVM will not walk a stack
 * (col_java.h). */
void tally__java_interpreter(uint64_t lo, uint64_t hi);
void tally__java_method_ptr(uint64_t method_ptr, uint64_t method_id);
/* Where an interpreted frame's bytecode index is (col_java.h). */
void tally__java_interp_layout(uint64_t const_method_offset, uint64_t const_method_size,
			       uint64_t code_size_offset);

/* The methods seen in Java frames that are not named yet: the next one from
 * *pos (0 to start), 0 at the end; then tally__java_named once its
 * JAVA_METHOD record is written. */
uint64_t tally__java_unnamed(size_t *pos);
void tally__java_named(uint64_t method);

/* The calling thread's name (java: a java.lang.Thread's). */
void tally__thread_name(const char *name, int java);

/* A traced Java event (HEAP in heap.dat, SYNC in sync.dat) with its Java
 * stack `frames[0..n)` (Java frames, leaf first): the thread id, time (if
 * 0) and stack id filled as tally__trace_event does.  0, or -1. */
int tally__java_event(int kind, uint32_t type, void *rec, uint32_t len, const uint64_t *frames, int n);

#endif
