/* SPDX-License-Identifier: MIT
 *
 * col_thread.c — a thread's collector state from its start to its end.
 *
 * A thread is attached when the collector starts (the main thread) or when
 * it enters the collector's thread wrapper (col_interpose_thread.c), and
 * detached when its start routine returns, it calls pthread_exit, or the
 * process ends.  The state lives in its own mmap'd pages, published through
 * an initial-exec TLS pointer that the signal handler reads (col_state.h).
 */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stddef.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/syscall.h>

#include "collector/col_control.h"
#include "collector/col_clock.h"
#include "collector/col_fds.h"
#include "collector/col_counters.h"
#include "collector/col_datablocks.h"
#include "collector/col_files.h"
#include "collector/col_heap.h"
#include "collector/col_log.h"
#include "collector/col_maps.h"
#include "collector/col_sched.h"
#include "collector/col_state.h"
#include "collector/col_states.h"
#include "collector/col_sys.h"
#include "collector/col_thread.h"
#include "collector/col_threadstack.h"
#include "collector/col_time.h"

/* The threads attached and not yet detached, so that the end of the process
 * can write the records of those still running (col_thread_end_others).  A
 * slot is taken by whoever empties it first: the thread detaching (then it
 * writes its records and frees its state) or the end of the process (then
 * the state stays: the thread may still run until the process is gone). */
#define LIVE_MAX 4096
#define COL_UNSAMPLED_MIN_NS 50000000ull   /* 50 ms, as docs/collector.md says */
static struct col_thread *_Atomic live[LIVE_MAX];
/* Slots ever taken are below this: the end of the process looks at those
 * only (the whole table is 8 pages, each a page fault at its first touch). */
static _Atomic int live_top;

static void live_add(struct col_thread *t)
{
	t->live_slot = -1;
	if (t->tid != col_proc.pid)
		atomic_store(&col_proc.threaded, true);
	for (int i = 0; i < LIVE_MAX; i++) {
		struct col_thread *none = NULL;
		if (atomic_compare_exchange_strong(&live[i], &none, t)) {
			t->live_slot = i;
			int top = atomic_load(&live_top);
			while (top < i + 1 && !atomic_compare_exchange_weak(&live_top, &top, i + 1))
				;
			return;
		}
	}
}

/* Take t out of the list: true if it was there (its records are ours). */
static bool live_take(struct col_thread *t)
{
	return t->live_slot < 0 || atomic_exchange(&live[t->live_slot], NULL) == t;
}

void col_thread_write_cost(struct col_thread *t, struct col_thread *via, uint64_t after_end_ns)
{
	struct {
		struct exp_thread_cost c;
		uint32_t counts[EXP_COST_BUCKETS + 1];
	} rec;
	unsigned lo = 0, hi = EXP_COST_BUCKETS;

	while (lo < hi && !t->cost_hist[lo])
		lo++;
	while (hi > lo && !t->cost_hist[hi - 1])
		hi--;
	memset(&rec, 0, sizeof(rec));
	rec.c.tid = (uint32_t)t->tid;
	rec.c.collector_ns = t->collector_ns;
	rec.c.handlers = t->handlers;
	rec.c.max_ns = t->cost_max_ns;
	rec.c.first_bucket = (uint16_t)lo;
	rec.c.nbuckets = (uint16_t)(hi - lo);
	rec.c.after_end_ns = after_end_ns > UINT32_MAX ? UINT32_MAX : (uint32_t)after_end_ns;
	memcpy(rec.counts, t->cost_hist + lo, (hi - lo) * sizeof(uint32_t));
	uint32_t len = (uint32_t)(sizeof(rec.c) + (hi - lo) * sizeof(uint32_t) + 7) & ~7u;
	col_write_sigsafe(via, EXP_FILE_THREADS, EXP_REC_THREAD_COST, &rec, len);
}

/* The thread's stack, for the unwinder's reads.  No malloc here: glibc's
 * pthread_getattr_np copies the thread's CPU affinity into a malloc'd
 * block, and a thread's first malloc makes it an arena, 64 MiB of address
 * space reserved (an 8-thread program took 597 MB of VmSize where it takes
 * 68 MB bare: `ulimit -v` budgets are the program's).  The initial
 * thread's stack, when the kernel's layout does not tell it (an unlimited
 * stack limit), is glibc's answer (the initial thread's malloc is the main
 * arena's, which reserves nothing); another thread's, when its descriptor
 * does not tell it, is the mapping that holds it (col_maps.c, as for a
 * raw clone's). */
static void stack_bounds(struct col_thread *t)
{
	uint64_t *lo = &t->unwind.stack_lo, *hi = &t->unwind.stack_hi;
	pthread_attr_t attr;
	void *addr;
	size_t size;

	if (t->tid == col_proc.pid && col_thread_main_stack(lo, hi))
		return;
	if (col_thread_pthread_stack(lo, hi))
		return;
	if (t->tid != col_proc.pid) {
		col_stack_bounds_sigsafe((uint64_t)(uintptr_t)&attr, lo, hi);
		return;
	}
	if (pthread_getattr_np(pthread_self(), &attr) != 0)
		return;
	if (pthread_attr_getstack(&attr, &addr, &size) == 0) {
		*lo = (uint64_t)(uintptr_t)addr;
		*hi = (uint64_t)(uintptr_t)addr + size;
	}
	pthread_attr_destroy(&attr);
}

/* Fault in the thread's state now: the signal handler must not take page
 * faults.  What only the tracers' stacks use (from `traced` on, touched in
 * normal context) only when a tracer is on; without one it was a third of a
 * short process's thread set-up (about 4 us a page here).  The memo's
 * entries (last, 72 pages) never: each comes with its first use. */
static void populate(struct col_thread *t)
{
	bool tracing = col_proc.opt.heap || col_proc.opt.sync_ns != -1 || col_proc.opt.io || col_proc.opt.mpi;
	size_t len = tracing ? offsetof(struct col_thread, traced_memo) : offsetof(struct col_thread, traced);

	len = (len + 4095) & ~(size_t)4095;
	if (col_syscall(SYS_madvise, t, len, MADV_POPULATE_WRITE) != 0)     /* before Linux 5.14 */
		for (size_t at = 0; at < len; at += 4096)
			((volatile char *)t)[at] = 0;
}

/* Set up the calling thread, which is left inside collector code (*held);
 * an existing thread's state is returned as it is (*held false). */
static struct col_thread *attach(uint64_t start_routine, pid_t creator, bool *held)
{
	struct col_thread *self = col_thread_self_sigsafe();

	*held = false;
	/* In a process we attached to, col_attach.c sets threads up. */
	if (self || !col_proc.active || col_proc.attached)
		return self;
	/* Its life from here, with the CPU its set-up takes: its end record's
	 * CPU (from its clone on) then stays within its life. */
	uint64_t born_ns = col_now_ns_sigsafe();
	uint64_t t0 = col_thread_cputime_ns_sigsafe();
	col_thread_set_attaching(true);
	struct col_thread *t = col_sys_mmap(NULL, sizeof(*t), PROT_READ | PROT_WRITE,
					    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (t == MAP_FAILED) {
		col_thread_set_attaching(false);
		col_log_error_sigsafe("thread state", errno, "this thread is not profiled");
		return NULL;
	}
	populate(t);
	t->tid = col_sys_gettid();
	t->perf_fd = -1;
	t->in_wrapper = start_routine != 0;     /* until col_thread_routine_starts */
	stack_bounds(t);

	struct exp_thread_start rec;
	memset(&rec, 0, sizeof(rec));
	rec.tid = (uint32_t)t->tid;
	rec.time_ns = born_ns;
	t->born_ns = rec.time_ns;
	rec.start_routine = start_routine;
	rec.creator_tid = (uint32_t)creator;
	col_syscall(SYS_prctl, PR_GET_NAME, rec.name, 0, 0, 0);
	atomic_store(&t->entered, 1);     /* a clock signal in set-up: taken at the end */
	atomic_store(&t->busy, 1);
	col_thread_set_self(t);
	col_thread_set_attaching(false);
	live_add(t);
	col_write_sigsafe(t, EXP_FILE_THREADS, EXP_REC_THREAD_START, &rec, sizeof(rec));
	/* Set-up is the collector's time (the thread's CPU time: a wall clock
	 * would count preemption); what follows the clock's start is in the
	 * clock and must leave the first sample's weight. */
	uint64_t t1 = col_thread_cputime_ns_sigsafe();
	t->collector_ns = t1 - t0;
	col_count_sigsafe(EXP_CTR_COLLECTOR_NS, t1 - t0);
	struct col_fds_batch batch;
	col_fds_batch_begin(&batch);        /* one helper for the descriptors below */
	col_clock_start(t);
	col_states_thread_start(t);
	col_counters_thread_start(t);
	col_fds_batch_end(&batch);
	col_cost_outside(t, col_thread_cputime_ns_sigsafe() - t1);
	*held = true;
	return t;
}

struct col_thread *col_thread_attach(uint64_t start_routine, pid_t creator)
{
	bool held;
	struct col_thread *t = attach(start_routine, creator, &held);

	if (held)
		col_leave(t);
	return t;
}

struct col_thread *col_thread_attach_held(void)
{
	bool held;
	struct col_thread *t = attach(0, 0, &held);

	return held ? t : NULL;
}

/* Thread tid's file NAME under /proc/PID/task (its comm, its status) into
 * buf, NUL-terminated; the length read, 0 when there is none.  Read aside
 * (col_fds_read): the end of the process asks this for threads still
 * running, which may be opening files meanwhile, each counting on the
 * lowest free number; the helper is another process, so the path names
 * ours by its pid, not /proc/self. */
static size_t task_file(pid_t tid, const char *name, char *buf, size_t len)
{
	char path[96] = "/proc/";
	int n = (int)strlen(path);

	n += col_fmt_u64_sigsafe(path + n, (uint64_t)col_proc.pid);
	strcpy(path + n, "/task/");
	n += (int)strlen(path + n);
	n += col_fmt_u64_sigsafe(path + n, (uint64_t)tid);
	path[n++] = '/';
	strcpy(path + n, name);
	ssize_t got = col_fds_read(path, buf, len);
	buf[got > 0 ? got : 0] = 0;
	return got > 0 ? (size_t)got : 0;
}

/* Whether thread tid blocks signal sig, from the SigBlk line of its status
 * (the thread may be another one: the end of the process asks for those
 * still running). */
static bool task_blocks(pid_t tid, int sig)
{
	char st[4096];

	if (sig <= 0 || sig > 64 || !task_file(tid, "status", st, sizeof(st)))
		return false;
	const char *p = strstr(st, "SigBlk:\t");
	if (!p)
		return false;
	uint64_t mask = 0;
	for (p += 8; (*p >= '0' && *p <= '9') || (*p >= 'a' && *p <= 'f'); p++)
		mask = mask << 4 | (uint64_t)(*p <= '9' ? *p - '0' : *p - 'a' + 10);
	return mask >> (sig - 1) & 1;
}

/* A thread whose clock ran for more than three periods after its last
 * sample (its clock reads `now`), and either blocks the signal as it ends
 * or ran COL_UNSAMPLED_MIN_NS so, could not be sampled: it blocked the
 * signal in a way the interposers do not see (a raw rt_sigprocmask system
 * call).  The gap counts from the last time our signal reached it, taken
 * or found busy in the collector (t->busy_seen_ns: the process's end, at
 * 20 kHz, takes over three periods of 50 us; that time is lost.reentry's).
 * Counted, and named in the log ("thread.unsampled: TID NAME: N us of CPU
 * ..."), which the report and `tally record` show; not while recording is
 * off (col_control.h) or stopped by the size limit.  Asked by the thread as it ends, or by the end of
 * the process for those still running. */
static void check_sampled(struct col_thread *t, uint64_t now)
{
	uint64_t period = col_clock_period_ns(), since = t->last_cpu_ns + t->pending_ns;
	if (t->busy_seen_ns > since)
		since = t->busy_seen_ns;
	uint64_t missed = now > since ? now - since : 0;

	if (!period || missed <= 3 * period)
		return;
	/* Recording is off (--duration ended, the toggle signal...): the
	 * time since the last sample is the pause's, which the log has. */
	if (col_control_paused_sigsafe(0))
		return;
	/* The size limit stopped every clock of the process: the time since
	 * is the limit's, which the overview names ("Size limit"); the signal
	 * the thread blocks as it ends is no cause. */
	if (atomic_load_explicit(&col_proc.stopped, memory_order_relaxed))
		return;
	/* Without the signal seen blocked, a short gap is no evidence: a
	 * thread's last slice (its exit path, the kernel's part of a system
	 * call) is often a few periods at high rates, and wc, git or bash at
	 * 4 to 26 ms were named for nothing.  The bar is UNSAMPLED_MIN_NS. */
	bool blocks = task_blocks(t->tid, col_clock_signal());
	if (!blocks && missed < COL_UNSAMPLED_MIN_NS)
		return;
	char line[128], name[17];
	task_file(t->tid, "comm", name, sizeof(name));
	name[strcspn(name, "\n")] = 0;
	int n = col_fmt_u64_sigsafe(line, (uint64_t)t->tid);
	line[n++] = ' ';
	n += (int)strlen(strcpy(line + n, name));
	n += (int)strlen(strcpy(line + n, ": "));
	n += col_fmt_u64_sigsafe(line + n, missed / 1000);
	strcpy(line + n, blocks ? " us of CPU after its last sample (it blocks the sampling signal)"
				: " us of CPU after its last sample");
	col_log_sigsafe("thread.unsampled", line);
	col_count_sigsafe(EXP_CTR_UNSAMPLED_THREADS, 1);
	col_count_sigsafe(EXP_CTR_UNSAMPLED_NS, missed);
}

void col_thread_tracers_end(void)
{
	for (size_t i = 0; i < sizeof(col_proc.thread_end) / sizeof(col_proc.thread_end[0]); i++) {
		void (*fn)(void) = atomic_load(&col_proc.thread_end[i]);
		if (fn)
			fn();
	}
}

void col_thread_detach(void)
{
	struct col_thread *t = col_thread_self_sigsafe();

	if (!t || col_proc.attached)
		return;      /* attached: col_attach.c ends the thread's state */
	if (!live_take(t)) {
		/* The process is ending and has written this thread's records
		 * (col_thread_end_others); its state stays. */
		col_thread_set_ended();
		col_thread_set_self(NULL);
		return;
	}
	/* Its context switches before tally's end of it, which may block;
	 * its CPU then: what follows is tally's (counted as the collector's,
	 * not left after the thread's last record as if the exit's). */
	struct exp_thread_switches switches;
	bool have_switches = col_sched_switches_now(t, &switches);
	/* Its end time and CPU at one point, so its CPU never exceeds its
	 * life: tally's end work after it is THREAD_COST's only. */
	uint64_t end_ns = col_now_ns_sigsafe();
	uint64_t program_cpu = col_thread_cputime_ns_sigsafe();
	/* The tracers' last records while the thread can still write. */
	col_thread_tracers_end();
	/* A profiling signal arriving from here on finds the thread busy and
	 * entered: deferred, and never taken (the thread's last slice, in its
	 * THREAD_END record's CPU time; check_sampled says if it is long). */
	col_thread_hold_for_end();
	t->exiting = true;
	if (t->perf_fd >= 0 || t->has_timer || t->inherited_clock)
		check_sampled(t, col_clock_read_sigsafe(t));
	col_clock_stop(t);
	char sched[80];      /* --states holds the thread's schedstat open: read it before it closes */
	bool have_sched = col_states_schedstat_sigsafe(t, sched, sizeof(sched));
	col_states_thread_end(t);
	col_counters_thread_end(t);
	/* Its end record first, once its samples are counted: when the size
	 * limit or a block runs out, the optional records below are lost,
	 * not the one that closes the thread's life. */
	struct exp_thread_end rec = { 0, (uint32_t)t->tid, end_ns, program_cpu, t->samples };
	col_write_closing_sigsafe(t, EXP_FILE_THREADS, EXP_REC_THREAD_END, &rec, sizeof(rec), t->born_ns);
	col_data_blocks_thread_end(t);
	/* Its switches; its schedstat if it lived long, or slept: a short
	 * thread that never slept waited for a CPU all its time off one. */
	bool slept = have_sched || !have_switches || switches.voluntary > 0;
	if (have_switches)
		col_sched_write_switches(t, &switches);
	if (have_sched)
		col_sched_write_text(t, t->tid, sched);
	else if (rec.time_ns - t->born_ns >= COL_SCHED_MIN_NS || slept)
		col_sched_write(t, &t->tid, 1);
	col_heap_thread_end(t);
	exp_run_end_sigsafe(&t->run);
	/* tally's end of the thread is its collector time (THREAD_COST). */
	uint64_t cpu_now = col_thread_cputime_ns_sigsafe();
	uint64_t after_end = cpu_now > program_cpu ? cpu_now - program_cpu : 0;
	t->collector_ns += after_end;
	col_count_sigsafe(EXP_CTR_COLLECTOR_NS, after_end);
	col_thread_write_cost(t, t, after_end);
	/* At the process's end its exit unmaps all at once: an munmap each
	 * here would cost a TLB flush each (most of a short process's end). */
	bool ending = atomic_load(&col_proc.ending);
	for (int i = 0; i < EXP_FILE_COUNT_; i++)
		if (ending)
			exp_cursor_forget_sigsafe(&t->cursor[i]);
		else
			exp_cursor_release_sigsafe(&t->cursor[i]);
	col_thread_set_ended();
	col_thread_set_self(NULL);
	if (!ending) {
		col_unwind_release_sigsafe(&t->unwind);
		col_sys_munmap(t, sizeof(*t));
	}
}

void col_thread_routine_starts(void)
{
	struct col_thread *t = col_thread_self_sigsafe();

	if (t) {
		t->in_wrapper = false;
		t->routine_switches = col_sched_program_switches(t);
	}
}

void col_thread_hold_for_end(void)
{
	struct col_thread *t = col_thread_self_sigsafe();

	/* Attached, col_attach.c's thread takes the flag too and ends the
	 * threads itself: not held here.  Else, in normal context, the flag is
	 * free or held by our own caller (a handler that took it has let go
	 * before returning here): a store takes it, with no wait. */
	if (!t || col_proc.attached)
		return;
	atomic_store(&t->entered, 1);
	atomic_signal_fence(memory_order_seq_cst);
	atomic_store(&t->busy, 1);
	atomic_signal_fence(memory_order_seq_cst);
}

/* The raw threads' ends come after this call, from its caller:
 * col_rawthread_end_all, whose order col_rawthread.h states. */
void col_thread_end_others(void)
{
	struct col_thread *self = col_thread_self_sigsafe();

	if (!self)
		return;
	/* The process ends: a clock signal now is deferred, never taken (the
	 * last slice, as at a thread's end); the thread stays held.  Attached,
	 * held only meanwhile, and not at all if col_attach.c's thread has it. */
	bool attached = col_proc.attached;
	pid_t tids[COL_SCHED_BATCH];          /* still running: their schedstat */
	size_t ntids = 0;
	struct col_thread *running[COL_SCHED_BATCH];   /* and their switches */
	size_t nrunning = 0;
	if (!attached)
		col_thread_hold_for_end();
	else if (atomic_exchange(&self->busy, 1))
		return;
	else
		atomic_store(&self->entered, 1);
	for (int i = 0, top = atomic_load(&live_top); i < top; i++) {
		struct col_thread *t = atomic_load(&live[i]);
		if (!t || t == self || atomic_exchange(&live[i], NULL) != t)
			continue;
		bool known;
		uint64_t cpu = col_clock_read_other_sigsafe(t, &known);
		if (known)
			check_sampled(t, cpu);
		struct exp_thread_end rec = { 0, (uint32_t)t->tid, col_now_ns_sigsafe(), cpu, t->samples };
		col_write_closing_sigsafe(self, EXP_FILE_THREADS, EXP_REC_THREAD_END, &rec, sizeof(rec), t->born_ns);
		col_thread_write_cost(t, self, 0);
		col_data_blocks_others_at_end(self, t);
		/* Its switches, as its own end would write them (attached, its
		 * whole life's would be counted: none, as at its own end). */
		if (!attached) {
			running[nrunning++] = t;
			if (nrunning == COL_SCHED_BATCH) {
				col_sched_write_others_switches(self, running, nrunning);
				nrunning = 0;
			}
		}
		char sched[80];
		if (col_states_schedstat_sigsafe(t, sched, sizeof(sched))) {
			col_sched_write_text(self, t->tid, sched);
			continue;
		}
		if (rec.time_ns - t->born_ns < COL_SCHED_MIN_NS)
			continue;
		tids[ntids++] = t->tid;
		if (ntids == COL_SCHED_BATCH) {
			col_sched_write(self, tids, ntids);
			ntids = 0;
		}
	}
	col_sched_write(self, tids, ntids);
	col_sched_write_others_switches(self, running, nrunning);
	if (attached) {
		atomic_store(&self->busy, 0);
		atomic_store(&self->entered, 0);
	}
}

/* In a fork child, the state of one of the parent's other threads, which
 * did not come along: its descriptors closed, its mappings given back,
 * nothing written (its files are the parent's).  Async-signal safe: only
 * close and munmap, on the child's own copies.  A thread that was inside
 * collector code at the fork may have been changing a cursor's window or
 * its heap table: each such change forgets the old mapping before it
 * unmaps it and names a new one only whole (exp_cursor_release_sigsafe,
 * col_heap.c's set_sums), so what the child finds named is mapped in it;
 * a mapping between the two steps at the fork leaks in the child (at most
 * one per file and the table), never an unmap of what the pointer no
 * longer names.  The rest is set up once and only read. */
static void drop_other_after_fork(struct col_thread *other)
{
	if (other->perf_fd >= 0) {
		col_fd_forget(other->perf_fd);
		col_sys_close(other->perf_fd);
	}
	col_states_drop_after_fork(other);
	col_counters_drop_after_fork(other);
	col_data_blocks_drop_after_fork(other);
	for (int i = 0; i < EXP_FILE_COUNT_; i++)
		exp_cursor_release_sigsafe(&other->cursor[i]);
	exp_large_release_sigsafe(other->heap_sums, other->heap_sums_mapped);
	col_unwind_release_sigsafe(&other->unwind);   /* its big cache */
	col_sys_munmap(other, sizeof(*other));
}

void col_thread_reset_after_fork(void)
{
	struct col_thread *t = col_thread_self_sigsafe();

	for (int i = 0, top = atomic_load(&live_top); i < top; i++) {   /* the parent's other threads are not here */
		struct col_thread *other = atomic_exchange(&live[i], NULL);
		if (other && other != t)
			drop_other_after_fork(other);
	}
	atomic_store(&live_top, 0);
	atomic_store(&col_proc.threaded, false);
	col_files_drop_shared_sigsafe();
	col_clock_after_fork();
	if (!t)
		return;
	/* The inherited clock and blocks belong to the parent's thread and
	 * files: drop them without writing; the child attaches afresh. */
	if (t->perf_fd >= 0) {
		col_fd_forget(t->perf_fd);
		col_sys_close(t->perf_fd);
	}
	col_states_drop_after_fork(t);
	col_counters_drop_after_fork(t);
	col_data_blocks_drop_after_fork(t);
	col_heap_thread_end(t);
	for (int i = 0; i < EXP_FILE_COUNT_; i++)
		exp_cursor_release_sigsafe(&t->cursor[i]);
	col_thread_set_ended();
	col_thread_set_self(NULL);
	col_unwind_release_sigsafe(&t->unwind);
	col_sys_munmap(t, sizeof(*t));
}

void col_thread_name(const char *name, uint32_t flags)
{
	struct {
		struct exp_thread_name r;
		char name[EXP_THREAD_NAME_MAX];
	} rec;
	struct col_thread *t;
	size_t n = strnlen(name, EXP_THREAD_NAME_MAX - 1);

	if (!col_proc.active || !(t = col_enter()))
		return;
	memset(&rec, 0, sizeof(rec));
	rec.r.tid = (uint32_t)t->tid;
	rec.r.time_ns = col_now_ns_sigsafe();
	rec.r.flags = flags;
	memcpy(rec.name, name, n);
	col_write_sigsafe(t, EXP_FILE_THREADS, EXP_REC_THREAD_NAME, &rec,
			  (uint32_t)((sizeof(rec.r) + n + 1 + 7) & ~(size_t)7));
	col_leave(t);
}
