/* SPDX-License-Identifier: MIT
 *
 * col_sample.c — the profiling signal handler: one sample per signal of a
 * thread's clock (col_clock.c), with the interrupted call stack, appended
 * to the thread's run (format/exp_write_run.h).
 *
 * Each sample weighs the CPU time the program used since the thread's
 * previous handler finished: the clock is read on the way in (or, when the
 * thread ran throughout since its last sample, is that sample's value plus
 * the time since: ran_through), and its value on the way out is the value
 * on the way in plus the TSC time since (read again when that is long: a
 * preempted handler).  The handler's own time is counted as
 * the collector's (t->collector_ns, the collector.cpu_ns counter), never in
 * a sample, so a handler that costs more on some stacks does not inflate
 * the samples after it.  Coalesced or late signals cost no time, and dropped
 * samples pass their time on.  Each handler run is timed into the thread's
 * cost histogram (written at thread end as a THREAD_COST record).
 *
 * The handler is the sequence of style.md §6: save errno; tell our signal
 * from the target's; test-and-set the thread's busy flag; read the clock;
 * unwind from the ucontext (a JVM's Java threads: their Java frames first,
 * col_java.c); append the sample to the run; re-arm; time it.
 * Sigsafe file.
 */
#include <errno.h>
#include <sched.h>
#include <signal.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <ucontext.h>

#include "collector/col_clock.h"
#include "collector/col_psample.h"
#include "collector/col_rawthread.h"
#include "collector/col_control.h"
#include "collector/col_java.h"
#include "collector/col_objset.h"
#include "collector/col_counters.h"
#include "collector/col_datablocks.h"
#include "collector/col_files.h"
#include "collector/col_runtime.h"
#include "collector/col_sample.h"
#include "collector/col_signal.h"
#include "collector/col_stacks.h"
#include "collector/col_state.h"
#include "collector/col_states.h"
#include "collector/col_sys.h"
#include "collector/col_time.h"
#include "collector/col_unwind.h"

/* A handler whose tail (after the clock read) took longer than this was
 * probably preempted: the clock is read again rather than extrapolated. */
#define TAIL_REREAD_NS 20000

/* A handler run of `d` ns of CPU: its histogram. */
static void time_handler(struct col_thread *t, uint64_t d)
{
	t->cost_hist[exp_cost_bucket(d)]++;
	t->handlers++;
	if (d > t->cost_max_ns)
		t->cost_max_ns = d;
}

/* The clock's value on the way in may be had without reading it: the
 * read (CLOCK_THREAD_CPUTIME_ID, a system call) makes the kernel bring
 * the thread's runtime up to date, and a thread whose slice is over while
 * others wait is preempted there and then, where without it the next tick
 * (4 ms at HZ=250) would: under load, a read per sample made heapmix's
 * threads switch 70% more often than with the signal alone (bench/sigfloor.c
 * SIGFLOOR_CLOCK, docs/benchmarks.md "fifteenth pass").  The kernel's own
 * count of the thread's context switches (getrusage RUSAGE_THREAD: ru_nvcsw
 * + ru_nivcsw, which reads the counts without updating the runtime) says
 * whether it left its CPU: when the count is the one taken on the way into
 * the previous taken sample, the thread ran throughout since, and its clock
 * is that sample's end value plus the wall time since.  That holds whatever
 * the signal's delay (a sample that waited for a long system call's end) or
 * the clock's way (the POSIX timer's tick): an earlier test on the wall time
 * between two signals let a sleep of up to a period pass as CPU.  What is
 * left is the wall clock's drift from the scheduler's (and interrupt time,
 * where the kernel accounts it apart): a read at least every EST_MAX samples
 * (and at every one not so: the first after the thread was switched out, a
 * deferred one) brings it back, an excess taken from the next weight
 * (pending_ns).  Not attached (the clocks there count from the attach,
 * col_attach.c).  The wall-time window between the two signals (a period
 * and EST_SLACK_DIV of it) stays as a second bound: without it, heapmix -H
 * bounds what the count cannot see (interrupt time the kernel accounts
 * apart, a hypervisor's).  The count is taken after the wall time read:
 * taken before it, a preemption at the getrusage's own return went
 * uncounted, and heapmix -H at 4 kHz had a clock read up to 4.7 ms behind
 * an estimate (the handler's cost went below 0).  Not under --states
 * either: there the clock is read at every sample, and the handler makes
 * no getrusage of its own (a getrusage held off the CPU inside the clock's
 * handler, where the switch signal is blocked, went to the program's
 * state at its resume: test_states_collector). */
#define EST_MAX 16
#define EST_SLACK_DIV 32            /* the window: a period and a 32nd of it */

/* The thread's context switches so far (0: not known). */
static uint64_t switches_now(void)
{
	struct rusage ru;

	if (col_syscall(SYS_getrusage, RUSAGE_THREAD, &ru) != 0)
		return 0;
	return (uint64_t)ru.ru_nvcsw + (uint64_t)ru.ru_nivcsw + 1;   /* +1: never 0 */
}

/* `switches`: the thread's count now (switches_now). */
static bool ran_through(const struct col_thread *t, uint64_t entry_ns, uint64_t switches)
{
	uint64_t period = col_clock_period_ns();

	return switches && t->last_switches == switches && period && t->last_arrival_ns &&
	       entry_ns > t->last_arrival_ns && entry_ns > t->last_end_ns && !col_proc.attached &&
	       t->pending_ns == 0 && t->last_cpu_ns == t->last_end_cpu && t->estimates < EST_MAX &&
	       entry_ns - t->last_arrival_ns <= period + period / EST_SLACK_DIV;
}

/* The CPU since the previous sample's end, read: never below 0 (an
 * estimate a little ahead of the clock). */
static uint64_t cpu_since_sample(struct col_thread *t)
{
	uint64_t cpu = col_clock_read_sigsafe(t);

	return cpu > t->last_cpu_ns ? cpu - t->last_cpu_ns : 0;
}

/* Read the clock on the way in (or have it: ran_through) and account the
 * CPU time since the previous handler finished: the program's (returned, the
 * sample's weight) apart from collector work done outside the handler
 * meanwhile (t->pending_ns).  The clock is read a little after entry (a
 * system call): that part, timed with the TSC, is the collector's.  *in_cpu
 * and *in_ns: the clock and the TSC at the read, for leave().
 * `arrival_ns`: when the sample's signal came (0: no signal of our clock,
 * pthread_create's catch-up): a deferred sample's too, whose signal came
 * after the previous sample's, a period of CPU at least after it. */
static uint64_t enter(struct col_thread *t, uint64_t entry_ns, uint64_t arrival_ns, uint64_t *in_cpu,
		      uint64_t *in_ns)
{
	/* The wall time first, then the switches: a preemption at the
	 * getrusage's return comes after `now`, and counts for the next. */
	uint64_t now = col_now_ns_sigsafe(), cpu, switches = col_proc.opt.states ? 0 : switches_now();

	if (arrival_ns && ran_through(t, entry_ns, switches)) {
		cpu = t->last_cpu_ns + (now - t->last_end_ns);
		t->estimates++;
	} else {
		cpu = col_clock_read_sigsafe(t);
		now = col_now_ns_sigsafe();
		t->estimates = 0;
		if (cpu < t->last_cpu_ns && t->last_cpu_ns == t->last_end_cpu)
			t->pending_ns += t->last_cpu_ns - cpu;   /* estimated ahead: the excess */
	}
	t->last_switches = switches;    /* before the clock's value: kept if the sample is taken */
	uint64_t head = now - entry_ns;             /* handler work before the read */
	uint64_t since = cpu > t->last_cpu_ns ? cpu - t->last_cpu_ns : 0;

	*in_cpu = cpu;
	*in_ns = now;
	if (head > TAIL_REREAD_NS)                  /* preempted: no estimate */
		head = 0;
	uint64_t collector = head + t->pending_ns;
	return since > collector ? since - collector : 0;
}

/* On the way out: the clock now, from the TSC since the read on the way in
 * (or read again if the handler ran long: preempted, its wall time is not
 * its cost), and the handler's CPU time.  Without a sample `taken`, the
 * program's CPU since the last one stays for the next, and the collector's
 * time in it (what was pending, and this handler's cost) is taken out of it
 * there: forgetting the pending part charged the collector's whole start
 * (0.5 to 1 ms) to the first sample taken after two untaken ones.
 * `arrival_ns`: when the sample's signal came (0: not known), for
 * ran_through. */
static void leave(struct col_thread *t, uint64_t entry_ns, uint64_t in_cpu, uint64_t in_ns, bool taken,
		  uint64_t arrival_ns)
{
	uint64_t now = col_now_ns_sigsafe();
	uint64_t tail = now - in_ns, head = in_ns - entry_ns;
	uint64_t out_cpu = tail > TAIL_REREAD_NS ? col_clock_read_sigsafe(t) : in_cpu + tail;

	if (head > TAIL_REREAD_NS)
		head = 0;
	uint64_t cost = (out_cpu > in_cpu ? out_cpu - in_cpu : 0) + head;   /* in_cpu: maybe an estimate */
	if (taken) {
		t->last_cpu_ns = out_cpu;
		t->pending_ns = 0;
		t->last_end_ns = now;           /* for ran_through */
		t->last_end_cpu = out_cpu;
		t->last_arrival_ns = arrival_ns;
	} else {
		t->pending_ns += cost;
		t->last_arrival_ns = 0;
	}
	t->collector_ns += cost;
	col_count_sigsafe(EXP_CTR_COLLECTOR_NS, cost);
	time_handler(t, cost);
}

/* --data: the interrupted registers (copied before the unwinder walks
 * them), the thread pointer and the stack bounds, into *d: a DATA_REGS
 * record for hwc.dat, from which the analyzer computes the data address
 * (docs/dataspace.md).  Nothing is done without --data. */
static void save_regs(struct col_thread *t, const struct col_regs *r, uint64_t time_ns, uint64_t weight,
		      bool deferred, struct exp_data_regs *d)
{
	*d = (struct exp_data_regs){
		.tid = (uint32_t)t->tid,
		.time_ns = time_ns,
		.weight_ns = weight,
		.flags = deferred ? EXP_DREGS_DEFERRED : 0,
		.stack_lo = t->unwind.stack_lo,
		.stack_hi = t->unwind.stack_hi,
	};
	uint64_t tp;

	/* glibc's (and musl's) thread control block starts with a pointer to
	 * itself: %fs:0 is the thread pointer, with no system call. */
	__asm__ volatile("mov %%fs:0, %0" : "=r"(tp));
	d->fs_base = tp;
	_Static_assert(UW_NREGS == EXP_DREGS_NREGS && UW_RIP == EXP_DREGS_RIP, "register order");
	memcpy(d->regs, r->r, sizeof(d->regs));
}

/* --data: the unwind's innermost machine frames with their CFAs (filled
 * by the walk into t->data_cfa), as a DATA_FRAMES record in
 * t->data_frames, written after DATA_REGS: the analyzer names a stack
 * address by the frame it lies in. */
static void save_frames(struct col_thread *t, const uint64_t *pcs, int n, uint64_t time_ns)
{
	uint32_t k = n < EXP_DATA_FRAMES_MAX ? (uint32_t)n : EXP_DATA_FRAMES_MAX;

	t->data_frames.h = (struct exp_data_frames){ .tid = (uint32_t)t->tid, .time_ns = time_ns, .nframes = k };
	for (uint32_t i = 0; i < k; i++) {
		t->data_frames.pairs[2 * i] = pcs[i];
		t->data_frames.pairs[2 * i + 1] = t->data_cfa[i];
	}
}

static void on_signal(int sig, siginfo_t *si, void *uc);

static bool write_sample(struct col_thread *t, const uint64_t *frames, int n, int flags,
			 uint64_t time_ns, uint64_t weight)
{
	int cpu = sched_getcpu();
	struct exp_run_sample s = {
		.tid = (uint32_t)t->tid,
		.cpu = cpu < 0 ? 0xffff : (uint16_t)cpu,
		.flags = (uint16_t)flags,
		.time_ns = time_ns,
		.weight_ns = weight,
	};
	col_file_ready_sigsafe(EXP_FILE_SAMPLES);
	if (exp_run_append_sigsafe(&t->run, &col_proc.file[EXP_FILE_SAMPLES],
				   &t->cursor[EXP_FILE_SAMPLES], &s, frames, (uint32_t)n) != 0) {
		col_file_lost_sigsafe(EXP_FILE_SAMPLES, EXP_CTR_LOST_BUFFER);
		return false;
	}
	t->samples++;
	col_count_sigsafe(EXP_CTR_SAMPLES, 1);
	return true;
}

/* When our signal and one of the program's come on the same return to user
 * mode, the kernel sets up our frame first (SIGTRAP is synchronous) and the
 * program's on top: its handler runs first, and our frame waits beneath,
 * interrupted at on_signal's first instruction.  A sample taken meanwhile
 * (in the program's handler: our signal is not blocked there, SA_NODEFER)
 * unwinds through it: `program's frames, __restore_rt, on_signal,
 * __restore_rt, interrupted code`.  The waiting frame's sample belongs to
 * the interrupted code, at the moment the program's handler began: it is
 * taken now (weight: at most a period of the CPU since the last sample, the
 * rest is this one's), on_signal's two frames are cut from this one, and
 * the waiting frame, when it runs, takes nothing (taken_pc; the program's
 * later samples in the same handler see it too, and only cut it).  Returns
 * the machine frames left in this sample. */
/* How many leading machine frames (from frames[nj]) are one of our signal
 * handlers, what it called (libc's __errno_location, the vDSO's clock) and
 * its signal trampoline: the first trampoline the walk crossed
 * (col_unwind_ctx.first_sigframe: no second look at every frame) returns
 * into code of ours; or
 * 1 when the leaf is a trampoline (a handler returning: ours, or the
 * program's, whose few instructions are not told apart) or our own code
 * with the unwind cut short.  (A sample in an interposer, outside
 * col_enter, unwinds to the program and is kept: the traced call's.)
 * 0 if the sample is not in a handler of ours. */
static int own_handler_frames(const struct col_thread *t, const uint64_t *frames, int nj, int n, int broken)
{
	const struct col_object_set *set = col_objects_current_sigsafe();
	int j = t->unwind.first_sigframe < 0 ? -1 : nj + t->unwind.first_sigframe;   /* the walk's */

	if (nj < n && col_unwind_in_sigreturn_sigsafe(frames[nj]))
		return 1;               /* a handler's return, in its trampoline */
	if (nj < n && broken && set && col_objects_is_self_sigsafe(set, frames[nj]))
		return 1;               /* in our code, the unwind cut short */
	if (j > nj && j + 1 < n && set && col_objects_is_self_sigsafe(set, frames[j - 1] - (j - 1 > nj)))
		return j + 1 - nj;
	return 0;
}

static int take_waiting_frame(struct col_thread *t, uint64_t *frames, int nj, int n, int flags,
			      uint64_t time_ns, uint64_t *weight)
{
	for (int i = nj + 1; i + 2 < n; i++) {
		if (frames[i] != (uint64_t)(uintptr_t)on_signal)
			continue;
		if (t->taken_pc != frames[i + 2]) {   /* not taken by an earlier sample */
			uint64_t period = col_clock_period_ns();
			uint64_t early = period && *weight > period ? period : *weight;
			write_sample(t, frames + i + 2, n - (i + 2), flags, time_ns, early);
			*weight -= early;
			t->taken_pc = frames[i + 2];
		}
		memmove(frames + i, frames + i + 2, (size_t)(n - (i + 2)) * sizeof(*frames));
		return n - 2;
	}
	return n;
}

/* The other order: the program's frame set up first and ours on top, so
 * that our signal interrupted the program's handler at its first
 * instruction, its return address (at the stack pointer) the signal
 * trampoline: the handler has not begun, and the sample is the interrupted
 * code's (frames nj+2..: the trampoline's frame is frame nj+1). */
static bool handler_not_begun(struct col_thread *t, const void *uc, int nj, int n)
{
	const greg_t *g = ((const ucontext_t *)uc)->uc_mcontext.gregs;

	if (n < nj + 3 || t->frames[nj] != (uint64_t)g[REG_RIP] ||
	    !col_signal_handler_entry_sigsafe((uint64_t)g[REG_RIP]))
		return false;
	uint64_t ra = *(const uint64_t *)(uintptr_t)g[REG_RSP];
	return ra == t->frames[nj + 1] && col_unwind_is_sigreturn_sigsafe(ra);
}

/* The sample; false if none was taken: it interrupted one of our own
 * handlers outside its sample (our signal is not deferred: before the
 * handler took the thread's busy flag, or after it let go, or in the
 * trampoline it returns through), and its CPU goes to the next sample. */
static bool take_sample(struct col_thread *t, void *uc, uint64_t entry_ns, uint64_t weight, bool deferred)
{
	int truncated, broken;

	/* A Java thread's Java frames first (col_java.h), then its machine ones. */
	int java_cut, nj = col_java_frames_sigsafe(t, uc, t->frames, COL_JAVA_MAX_FRAMES, &java_cut);
	int room = EXP_MAX_FRAMES - nj < (int)col_proc.opt.max_frames ? EXP_MAX_FRAMES - nj
								      : (int)col_proc.opt.max_frames;
	col_regs_from_ucontext(uc, &t->regs);
	struct exp_data_regs d;
	if (col_proc.opt.data) {
		save_regs(t, &t->regs, entry_ns, weight, deferred, &d);
		col_data_blocks_flush_sigsafe(t);   /* its blocks this sample may see */
	}
	/* The JVM would not walk it (a marker with its reason): the CFAs
	 * name the interpreted frames' methods (col_java.h). */
	bool interp = nj == 1 && !EXP_JAVA_METHOD_OF(t->frames[0]) && EXP_JAVA_FIELD_OF(t->frames[0]) &&
		      col_java_has_interpreter_sigsafe();
	t->unwind.cfa_out = col_proc.opt.data || interp ? t->data_cfa : NULL;
	t->unwind.cfa_max = EXP_DATA_FRAMES_MAX;
	int n = col_unwind_sigsafe(&t->unwind, &t->regs, t->frames + nj, room, &truncated, &broken);
	t->unwind.cfa_out = NULL;
	if (n < 1) {
		t->frames[nj] = t->regs.r[UW_RIP];
		t->data_cfa[0] = 0;
		n = 1;
	}
	if (col_proc.opt.data)
		save_frames(t, t->frames + nj, n, entry_ns);
	if (interp) {
		uint64_t found[32];
		int k = col_java_interp_frames_sigsafe(t, t->frames + nj, t->data_cfa,
						       n < EXP_DATA_FRAMES_MAX ? n : EXP_DATA_FRAMES_MAX, found, 32);
		if (k > 0 && nj + k + n <= EXP_MAX_FRAMES) {
			memmove(t->frames + nj + k, t->frames + nj, (size_t)n * sizeof(*t->frames));
			memcpy(t->frames + nj, found, (size_t)k * sizeof(*found));
			nj += k;
		}
	}
	truncated |= java_cut;
	n += nj;
	if (own_handler_frames(t, t->frames, nj, n, broken))
		return false;
	int flags = col_stack_flags_sigsafe(truncated, broken);
	n = take_waiting_frame(t, t->frames, nj, n, flags, entry_ns, &weight);
	int from = handler_not_begun(t, uc, nj, n) ? nj + 2 : 0;
	if (from)     /* the Java frames, if any, then the interrupted code's */
		memmove(t->frames + nj, t->frames + from, (size_t)(n - from) * sizeof(*t->frames));
	if (!write_sample(t, t->frames, n - from + (from ? nj : 0), flags, entry_ns, weight))
		return true;
	/* After the sample: a data record never stands for a sample not written
	 * (a lost one is counted, lost.events); none when the registers are
	 * a handler's that had not begun. */
	if (col_proc.opt.data && !from) {
		d.weight_ns = weight;
		col_write_sigsafe(t, EXP_FILE_HWC, EXP_REC_DATA_REGS, &d, sizeof(d));
		col_write_sigsafe(t, EXP_FILE_HWC, EXP_REC_DATA_FRAMES, &t->data_frames,
				  (uint32_t)(sizeof(t->data_frames.h) + 16 * t->data_frames.h.nframes));
	}
	return true;
}

static struct col_thread *(*_Atomic adopt)(const void *uc);

/* A sample weighing more periods than this: its thread lost its clock's
 * progress (col_clock_keep_apart_sigsafe). */
#define KEEP_APART_PERIODS 8

void col_sample_set_adopt(struct col_thread *(*fn)(const void *uc))
{
	atomic_store(&adopt, fn);
}

/* A sample with the thread's busy flag held (released here); `rearm`: from
 * the clock's signal, which must be re-armed. */
static void sample_held(struct col_thread *t, void *uc, uint64_t entry_ns, bool rearm)
{
	uint64_t arrival_ns = rearm ? entry_ns : t->deferred_at_ns;

	t->deferred_at_ns = 0;
	atomic_store_explicit(&t->deferred, 0, memory_order_relaxed);
	/* First, whether a sample follows or not: a switch signal merged into
	 * ours (col_states.h) left its records for us, and the thread's
	 * faults since are the program's, not yet this handler's. */
	col_states_catch_up_sigsafe(t, uc, entry_ns);
	if (t->first_period && cpu_since_sample(t) >= col_clock_period_ns())
		t->first_period = false;
	if (t->in_wrapper || t->first_period) {
		/* tally's thread start, not the program yet, or a copy of the
		 * process's clock whose period began at the thread's clone,
		 * before its clock started (a thread attached late): no
		 * sample before a full period, as a clock of its own would
		 * give; the CPU time since the last one goes to the next */
		if (rearm)
			col_clock_rearm_sigsafe(t);
		atomic_store_explicit(&t->busy, 0, memory_order_release);
		return;
	}
	if (rearm && t->taken_pc &&
	    (uint64_t)((const ucontext_t *)uc)->uc_mcontext.gregs[REG_RIP] == t->taken_pc) {
		/* A waiting frame whose sample was taken early
		 * (take_waiting_frame): its CPU goes to the next sample. */
		t->taken_pc = 0;
		col_clock_rearm_sigsafe(t);
		atomic_store_explicit(&t->busy, 0, memory_order_release);
		return;
	}
	if (col_control_over_sigsafe()) {
		/* --duration has ended: this thread's clock stops for good. */
		col_clock_pause_sigsafe(t);
		atomic_store_explicit(&t->busy, 0, memory_order_release);
		return;
	}
	if (atomic_load_explicit(&col_proc.stopped, memory_order_relaxed)) {
		/* The size limit: this thread's clock stops for good. */
		col_clock_pause_sigsafe(t);
		col_count_sigsafe(EXP_CTR_LOST_LIMIT, 1);
		atomic_store_explicit(&t->busy, 0, memory_order_release);
		return;
	}
	uint64_t in_cpu, in_ns;
	bool taken = true;
	uint64_t weight = enter(t, entry_ns, arrival_ns, &in_cpu, &in_ns);
	/* Our clock's signal, after many periods of CPU since the last: the
	 * threads it made took its clock's progress (col_clock.c).  Not a
	 * deferred sample (a signal the thread held, pthread_create's catch-up). */
	uint64_t period = col_clock_period_ns();
	if (rearm && t->inherited_clock && !col_proc.attached && period && weight > KEEP_APART_PERIODS * period)
		col_clock_keep_apart_sigsafe(t->tid);
	/* While paused, the time counts nowhere (col_control.c). */
	if (!col_control_paused_sigsafe(entry_ns)) {
		taken = take_sample(t, uc, entry_ns, weight, !rearm);
		col_states_on_sample_sigsafe(t, entry_ns, uc);
		col_psample_tick_sigsafe(t, entry_ns);
	}
	if (rearm)
		col_clock_rearm_sigsafe(t);
	leave(t, entry_ns, in_cpu, in_ns, taken, arrival_ns);
	col_states_own_work_sigsafe(t, entry_ns);
	atomic_store_explicit(&t->busy, 0, memory_order_release);
}

/* Is the thread state found through TLS the interrupted thread's own?  A
 * thread made by the clone system call without a TLS of its own (no
 * pthread_create) shares its creator's, and the clock it inherits
 * (col_clock.c) signals it too: its samples must not be taken as the
 * creator's.  0 when it is: free when the interrupted stack pointer is on
 * the state's stack; else (a coroutine's stack, a raw thread's) one
 * gettid, and the interrupted thread's id when it is not. */
static pid_t other_thread(const struct col_thread *t, uint64_t sp)
{
	if (t->unwind.stack_lo < t->unwind.stack_hi && sp >= t->unwind.stack_lo && sp < t->unwind.stack_hi)
		return 0;
	pid_t tid = col_sys_gettid();
	return tid == t->tid ? 0 : tid;
}

static void on_signal(int sig, siginfo_t *si, void *uc)
{
	uint64_t entry_ns = col_now_ns_sigsafe();
	int saved_errno = errno;

	/* The switch events' and the counters' SIGTRAPs (col_states.c,
	 * col_counters.c) are handled there.  Attached, a switch event's
	 * first signal may come before the clock's: it sets the thread up. */
	struct col_thread *(*adopt_first)(const void *) = atomic_load(&adopt);
	if (adopt_first && col_states_is_switch_signal_sigsafe(sig, si)) {
		struct col_thread *st = col_thread_self_sigsafe();
		if (!st || st->exiting)
			adopt_first(uc);
	}
	if (col_states_signal_sigsafe(sig, si, uc, entry_ns)) {
		errno = saved_errno;
		return;
	}
	/* A clock or counter sample may see the blocks allocated so far
	 * (col_datablocks.c); a switch event's signal above samples no data. */
	if (col_proc.opt.data)
		col_data_epoch_tick_sigsafe();
	if (col_counters_signal_sigsafe(sig, si, uc, entry_ns)) {
		struct col_thread *ct = col_thread_self_sigsafe();
		if (ct && !ct->exiting && !atomic_exchange_explicit(&ct->busy, 1, memory_order_acquire)) {
			col_states_catch_up_sigsafe(ct, uc, entry_ns);
			atomic_store_explicit(&ct->busy, 0, memory_order_release);
		}
		errno = saved_errno;
		return;
	}
	if (!col_clock_signal_sigsafe(sig, si)) {
		col_count_sigsafe(EXP_CTR_FOREIGN_SIGNALS, 1);
		col_signal_forward(sig, si, uc);
		errno = saved_errno;
		return;
	}
	struct col_thread *t = col_thread_self_sigsafe();
	struct col_thread *(*adopt_fn)(const void *) = atomic_load(&adopt);
	if ((!t || t->exiting) && adopt_fn)
		t = adopt_fn(uc);            /* a thread of a process we attached to */
	if (t && !adopt_fn) {
		/* A raw clone's thread, on its creator's TLS: its own state,
		 * by its thread id (col_rawthread.h). */
		uint64_t sp = (uint64_t)((const ucontext_t *)uc)->uc_mcontext.gregs[REG_RSP];
		pid_t other = other_thread(t, sp);
		if (other && !(t = col_proc.active ? col_rawthread_self_sigsafe(t, other, sp, entry_ns) : NULL)) {
			errno = saved_errno;     /* its loss counted there */
			return;
		}
	}
	if (!t || t->exiting) {
		/* While collecting: a signal held through an attach by a
		 * thread that blocked it (a thread the attach met, not a raw
		 * clone's) may come after the detach, into a process no
		 * longer recorded, where it is only ignored. */
		if (!t && !col_thread_ended_sigsafe() && col_proc.active) {
			col_count_sigsafe(EXP_CTR_NO_THREAD_STATE, 1);
			/* A thread made by a raw clone in a process started
			 * under tally (attached, a thread without state is one
			 * the attach adopts): its creator (taken to be the first
			 * thread) loses its progress to such threads. */
			if (!adopt_fn && !col_proc.attached)
				col_clock_keep_apart_sigsafe(col_proc.pid);
		}
		errno = saved_errno;
		return;
	}
	t->clock_depth++;
	if (atomic_exchange_explicit(&t->busy, 1, memory_order_acquire)) {
		/* Inside collector code: if it was entered from normal context
		 * (an interposer), its col_leave takes this sample; else (a
		 * handler of ours) the sample is lost. */
		if (atomic_load_explicit(&t->entered, memory_order_relaxed)) {
			if (!atomic_load_explicit(&t->deferred, memory_order_relaxed))
				t->deferred_at_ns = entry_ns;   /* its signal came (ran_through) */
			atomic_store_explicit(&t->deferred, 1, memory_order_relaxed);
		} else if (t->clock_depth == 1) {
			col_count_sigsafe(EXP_CTR_LOST_REENTRY, 1);
		}
		/* else our own clock handler, taking a sample (SA_NODEFER): no
		 * loss, the CPU since it read the clock is the next sample's */
		/* Our signal reaches it: observed up to now (col_thread.c's
		 * check_sampled counts only the CPU after this).  A flag set
		 * here said nothing of the time after: a thread met in its
		 * set-up that then blocked the signal went unnamed (2 of 3
		 * runs at 20 kHz on a loaded CI machine). */
		t->busy_seen_ns = ran_through(t, entry_ns, switches_now())
					  ? t->last_cpu_ns + (entry_ns - t->last_end_ns)
					  : col_clock_read_sigsafe(t);
		col_clock_rearm_sigsafe(t);
		t->clock_depth--;
		errno = saved_errno;
		return;
	}
	sample_held(t, uc, entry_ns, true);
	t->clock_depth--;
	errno = saved_errno;
}

/* col_leave after a clock signal found the thread inside collector code
 * (col_state.h): the sample now, from here (tally's frames are dropped by
 * the analyzer: it is the traced call's), weighing the CPU time since the
 * previous one. */
static void take_deferred(struct col_thread *t)
{
	ucontext_t uc;

	/* Entered while it runs: a clock signal meanwhile is deferred again,
	 * and taken by the next round (or the next col_leave). */
	for (int round = 0; round < 2; round++) {
		if (t->exiting || !atomic_load_explicit(&t->deferred, memory_order_relaxed))
			return;
		atomic_store_explicit(&t->entered, 1, memory_order_relaxed);
		if (atomic_exchange_explicit(&t->busy, 1, memory_order_acquire)) {
			atomic_store_explicit(&t->entered, 0, memory_order_relaxed);
			return;
		}
		getcontext(&uc);
		sample_held(t, &uc, col_now_ns_sigsafe(), false);
		atomic_store_explicit(&t->entered, 0, memory_order_relaxed);
	}
}

/* The kernel swaps the contexts of two threads holding copies of one
 * inherited event when one switches to the other on a CPU (perf's
 * context-swap shortcut), and with them the progress through the period:
 * a thread that creates a thread and waits for it (a thread per request)
 * hands its progress to the child, which takes it away as it exits.  The
 * creator was never signalled: 0 samples for 74 ms of CPU in 3,000 such
 * rounds (kernel 6.18; 85 with an event of its own, or the child on
 * another CPU), and tally blamed a raw signal mask.  So after each
 * pthread_create (col_interpose_thread.c), a thread whose CPU since its
 * last sample is over two periods takes one there, weighing that CPU: its
 * stack is the caller's pthread_create, where the clone spent it.  One
 * thread-CPU-clock read per thread creation. */
void col_sample_catch_up(void)
{
	struct col_thread *t = col_thread_self_sigsafe();

	if (!t || t->exiting || !t->inherited_clock)
		return;
	uint64_t period = col_clock_period_ns();
	if (!period || cpu_since_sample(t) < 2 * period)
		return;
	atomic_store_explicit(&t->deferred, 1, memory_order_relaxed);
	take_deferred(t);
}

/* Where our signal is deferred (no SA_NODEFER: --states, attached), the
 * program's are too while our handler runs, all but the faults the kernel
 * forces (blocked, it would kill the process instead of calling the
 * program's handler: a JVM's SIGSEGV) and glibc's own (sigfillset leaves
 * out SIGCANCEL and SIGSETXID).  Else, as our signal is synchronous, the
 * kernel sets up our frame first when both are due on one return to user
 * mode, and the program's on top of it: the program's handler then ran
 * with SIGTRAP blocked by our frame beneath, every clock sample due in it
 * deferred to its end and charged to the code it interrupted (shapes.c at
 * 4 kHz beside four spinners: 0.003-0.005 of the profile in its handler,
 * measured 0.06-0.09; its handler found SIGTRAP blocked in 9 of 11 runs).
 * Blocked here, the program's signal waits the few microseconds of our
 * handler and comes after its return, at the interrupted code, with the
 * program's own mask.  A tracer's stop at our signal's delivery still
 * finds SIGTRAP blocked by our frame (col_states.c). */
static void defer_program_signals(sigset_t *mask)
{
	static const int forced[] = { SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGSYS, SIGTRAP };

	sigfillset(mask);
	for (size_t i = 0; i < sizeof(forced) / sizeof(forced[0]); i++)
		sigdelset(mask, forced[i]);
}

void col_sample_install(void)
{
	static const int sigs[] = { SIGTRAP, SIGPROF };
	struct sigaction sa, prev;

	col_on_deferred(take_deferred);
	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = on_signal;
	/* SA_NODEFER: when our signal and one of the program's are delivered
	 * on the same return to user mode, the kernel sets up our frame first
	 * (SIGTRAP is synchronous) and the program's on top, whose handler
	 * runs first.  Deferred, our signal stayed blocked through the
	 * program's whole handler, its time charged to the interrupted code
	 * (shapes.c at 4 kHz: 0.02 of the profile in its handler against 0.08
	 * measured).  Not deferred, the samples in the program's handler are
	 * taken, and the one of our frame waiting beneath is taken early, for
	 * the interrupted code (take_waiting_frame): charged to the first
	 * sample in the handler, its period had over-counted the handler
	 * (0.117 against 0.085).  A signal arriving in our own handler finds
	 * the thread busy (lost.reentry), its CPU in the next sample's weight.
	 * Not when attached (col_attach.c): there nested signals over-count
	 * (a second attach to tests/progs/attach_work.c sampled 129% of the
	 * kernel's CPU, with stacks of nested syscall frames), a cause not yet
	 * found; our signal is deferred there, as before.  Nor with --states:
	 * a tracer that attaches later (strace -p) stops the thread at each
	 * signal's delivery, a switch whose SIGTRAP came before the handler
	 * ran an instruction, and so on, frame on frame, until the stack was
	 * gone (SIGSEGV).  Deferred, the handler runs between them and moves
	 * the thread to the ring way (col_states.c); the program's signals
	 * are deferred with it (defer_program_signals), so that the
	 * program's handler never runs above our waiting frame. */
	sa.sa_flags = SA_SIGINFO | SA_RESTART | (col_proc.attached || col_proc.opt.states ? 0 : SA_NODEFER);
	/* Go runs goroutines on stacks of a few KiB and gives each thread a
	 * 32 KiB signal stack, which a handler not on it would overflow into
	 * the heap (a Go program under tally crashed in its runtime in 4 of
	 * 40 starts at 4 kHz).  Only for Go: a C or Rust program's alternate
	 * stack may be smaller than the handler needs (Rust's is 8 KiB). */
	if (col_runtime_go())
		sa.sa_flags |= SA_ONSTACK;
	sigemptyset(&sa.sa_mask);
	if (!(sa.sa_flags & SA_NODEFER))
		defer_program_signals(&sa.sa_mask);
	for (size_t i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++)
		if (col_sigaction_real(sigs[i], &sa, &prev) == 0 && prev.sa_sigaction != on_signal)
			col_signal_take(sigs[i], &prev);
}

