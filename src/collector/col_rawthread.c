/* SPDX-License-Identifier: MIT
 *
 * col_rawthread.c — threads made by a raw clone system call: their states,
 * found by thread id (col_rawthread.h).
 *
 * Such a thread (CLONE_THREAD without CLONE_SETTLS, as inline assembly, a
 * JIT or a runtime of its own makes it) passes no interposer and shares its
 * creator's TLS, where col_state.c's pointer to a thread's state lives.  It
 * still has a clock: the process's sigtrap event is inherited by every
 * CLONE_THREAD child (col_clock.c), and reads as its thread CPU clock.  The
 * handler (col_sample.c) sees that the state TLS gives is not the
 * interrupted thread's (its tid) and asks here: a table of RAW_MAX slots,
 * each a thread id and a state, claimed by compare-and-swap (no lock, no
 * malloc: a state is mmap'd at a slot's first use and kept for reuse).
 * A raw thread's end passes no code of ours either: a slot whose thread is
 * gone (its CPU clock no longer reads) is found when the table is full and
 * a new raw thread needs one; its THREAD_END is written then, at its last
 * signal, with its CPU time at that signal, and its state serves the new
 * thread.  Those still in the table at the process's end are ended by
 * col_rawthread_end_all.
 *
 * Not here: raw threads with no clock (the fasync and timer ways: no
 * signal to see them by), --states and -c in them, the tracers' events in
 * them (col_enter takes the creator's state).  Sigsafe file.
 */
#include <pthread.h>
#include <stddef.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <time.h>
#include <linux/futex.h>

#include "collector/col_clock.h"
#include "collector/col_fds.h"
#include "collector/col_files.h"
#include "collector/col_log.h"
#include "collector/col_maps.h"
#include "collector/col_rawthread.h"
#include "collector/col_real.h"
#include "collector/col_state.h"
#include "collector/col_sys.h"
#include "collector/col_thread.h"
#include "collector/col_time.h"

#define RAW_MAX 64                 /* raw threads with a state at once */
#define PROBE_PAGES 128            /* pages a readability probe asks at once */
#define REUSE_MAX (8u << 20)       /* a stack range larger is read from the maps again */
#define NO_KEY ((uintptr_t)1)      /* a slot's key when no robust list can be asked:
                                      its tid alone then */

struct raw_slot {
	_Atomic pid_t tid;             /* 0: free; -TID: being set up by thread TID
	                                  (a signal nested in it takes nothing); else its thread */
	struct col_thread *t;          /* its state, kept once made */
	_Atomic uint64_t last_ns;      /* its thread's last signal: its end if found gone */
	uintptr_t key;                 /* its thread's robust list head at its set-up
	                                  (robust_head): a reused tid's new thread has
	                                  another (none, or the program's own) */
	_Atomic bool ended;            /* its thread's THREAD_END is taken: whoever sets this
	                                  first (a new thread reusing the slot, or the process's
	                                  end) writes it, and no one else */
};

static struct raw_slot raw[RAW_MAX];
/* The robust list given to a slot's thread that had none: empty, so the
 * kernel's walk of it at the thread's exit finds nothing to release. */
static struct robust_list_head marks[RAW_MAX];
static _Atomic bool closed;        /* the process is ending: no new raw state */
static _Atomic bool logged;        /* the log has said raw threads are met */

/* Is every page of [lo, hi) readable now?  A byte of each, one system
 * call for PROBE_PAGES pages: the kernel stops at the first it cannot
 * read (process_vm_readv), where the unwinder's plain reads would fault. */
static bool readable(uint64_t lo, uint64_t hi)
{
	struct iovec remote[PROBE_PAGES], local;
	char sink[PROBE_PAGES];

	for (uint64_t at = lo & ~4095ull; at < hi;) {
		size_t n = 0;
		for (; n < PROBE_PAGES && at < hi; n++, at += 4096)
			remote[n] = (struct iovec){ (void *)(uintptr_t)at, 1 };
		local = (struct iovec){ sink, n };
		if (col_syscall(SYS_process_vm_readv, col_proc.pid, &local, 1, remote, n, 0) != (long)n)
			return false;
	}
	return true;
}

/* Thread tid's CPU time from its CPU clock (glibc's pthread_getcpuclockid:
 * MAKE_THREAD_CPUCLOCK(tid, CPUCLOCK_SCHED)); false when it is gone. */
static bool thread_cpu(pid_t tid, uint64_t *ns)
{
	struct timespec ts;
	clockid_t id = (clockid_t)((~(unsigned)tid << 3) | 6);

	if (col_syscall(SYS_clock_gettime, id, &ts) != 0)
		return false;
	*ns = (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
	return true;
}

/* Thread tid's robust list head (get_robust_list; 0: the caller's), the
 * key of a raw thread's slot: set for the thread at its set-up (`marks`)
 * when it had none, and reset by the kernel at every clone, so a new
 * thread given a gone one's id does not have it.  NO_KEY (no head's
 * address) when it cannot be read.  The caller has asked the gate: under
 * a seccomp filter the call may kill (a sandbox of raw-clone threads often
 * allows a short list), and is made only where `tally record`'s probe
 * made it (EXP_SECCOMP_ROBUST, col_real_robust_forbidden). */
static uintptr_t robust_head(pid_t tid)
{
	struct robust_list_head *head = NULL;
	size_t len = 0;

	if (col_syscall(SYS_get_robust_list, tid, &head, &len) != 0)
		return NO_KEY;
	return (uintptr_t)head;
}

/* May slot s's key be asked for now: the gate allowed the call at its
 * thread's set-up (else its key is NO_KEY: the tid alone), and the
 * program has added no filter since through a call we saw (one made by
 * an inline system call is not seen: docs/collector.md).  No system call:
 * a raw thread's every signal asks this. */
static bool keyed(const struct raw_slot *s)
{
	return s->key != NO_KEY && !col_real_filter_added_since();
}

/* Is slot s's thread, `tid`, still there: its CPU clock reads and the
 * thread of that id has the slot's key (not a new thread on a reused id)?
 * `may_ask`: the gate allows the calling thread get_robust_list. */
static bool still_there(const struct raw_slot *s, pid_t tid, uint64_t *cpu, bool may_ask)
{
	return thread_cpu(tid, cpu) && (!may_ask || !keyed(s) || robust_head(tid) == s->key);
}

/* Slot s's thread has ended (gone, or the process ends): its THREAD_END
 * and THREAD_COST through `via`'s cursor, if no one took them before (the
 * slot's `ended`); its CPU time now if it still runs, else at its last
 * signal. */
static void end_records(struct raw_slot *s, struct col_thread *via)
{
	struct col_thread *t = s->t;
	uint64_t cpu;

	if (atomic_exchange(&s->ended, true))
		return;
	if (!still_there(s, t->tid, &cpu, !col_real_robust_forbidden()))
		cpu = t->last_cpu_ns + t->pending_ns;
	struct exp_thread_end rec = { 0, (uint32_t)t->tid, atomic_load(&s->last_ns), cpu, t->samples };
	if (atomic_load(&closed))
		rec.time_ns = col_now_ns_sigsafe();
	col_write_sigsafe(via, EXP_FILE_THREADS, EXP_REC_THREAD_END, &rec, sizeof(rec));
	col_thread_write_cost(t, via, 0);
}

/* Slot s, held, had a thread that is gone: its end records (unless taken),
 * and its blocks let go for the slot's next thread. */
static void retire(struct raw_slot *s)
{
	end_records(s, s->t);
	exp_run_end_sigsafe(&s->t->run);
	for (int f = 0; f < EXP_FILE_COUNT_; f++) {
		exp_cursor_release_sigsafe(&s->t->cursor[f]);
		s->t->cursor[f] = (struct exp_cursor){ 0 };   /* from one block again */
	}
}

/* A slot for the calling raw thread `tid`, held (-tid): a free one, else
 * one whose thread is gone (ended here, and its blocks let go: its
 * cursors, kept for the next thread's runs, put a short run in each block
 * of their staging windows, which the reader took for copies of one
 * another, "a MIRROR names block N; its copy is block M" in 3 runs of 3,
 * `rawclone asmloop 2000 0.3` at -F 10000); NULL if every one is live. */
static struct raw_slot *claim(pid_t tid)
{
	for (int i = 0; i < RAW_MAX; i++) {
		pid_t none = 0;
		if (atomic_compare_exchange_strong(&raw[i].tid, &none, -tid))
			return &raw[i];
	}
	bool may_ask = !col_real_robust_forbidden();
	for (int i = 0; i < RAW_MAX; i++) {
		pid_t cur = atomic_load(&raw[i].tid);
		uint64_t cpu;
		if (cur <= 0 || still_there(&raw[i], cur, &cpu, may_ask) ||
		    !atomic_compare_exchange_strong(&raw[i].tid, &cur, -tid))
			continue;
		retire(&raw[i]);
		return &raw[i];
	}
	return NULL;
}

/* Set up slot s's state for the calling thread `tid`, whose creator's
 * state is `shared`: the fields of a thread's life zeroed, its stack, its
 * THREAD_START.  The stack is the mapping that holds sp, from the maps
 * (about 0.8 ms of CPU under load: most of a short thread's set-up), or
 * the gone thread's before it in this slot when sp is in it and all of it
 * is still readable (a runtime reusing its threads' stacks). */
static struct col_thread *set_up(struct raw_slot *s, pid_t tid, const struct col_thread *shared, uint64_t sp,
				 uint64_t now_ns)
{
	uint64_t t0 = col_thread_cputime_ns_sigsafe();
	struct col_thread *t = s->t;

	if (!t && !(t = s->t = col_thread_new_sigsafe(tid)))
		return NULL;
	uint64_t lo = t->unwind.stack_lo, hi = t->unwind.stack_hi;
	memset(t, 0, offsetof(struct col_thread, cursor));
	t->tid = tid;
	t->perf_fd = -1;
	t->live_slot = -1;
	t->inherited_clock = true;     /* its clone's copy of the process's event */
	t->born_ns = now_ns;
	atomic_store(&s->ended, false);   /* published with the slot's tid */
	/* The gate once, here (its getpid and prctl), and keyed() after. */
	s->key = col_real_robust_forbidden() ? NO_KEY : robust_head(0);
	if (!s->key) {
		struct robust_list_head *mark = &marks[s - raw];
		mark->list.next = &mark->list;
		mark->futex_offset = 0;
		mark->list_op_pending = NULL;
		if (col_syscall(SYS_set_robust_list, mark, sizeof(*mark)) == 0)
			s->key = (uintptr_t)mark;
	}
	if (sp >= lo && sp < hi && hi - lo <= REUSE_MAX && readable(lo, hi)) {
		t->unwind.stack_lo = lo;
		t->unwind.stack_hi = hi;
	} else {
		col_stack_bounds_sigsafe(sp, &t->unwind.stack_lo, &t->unwind.stack_hi);
	}
	atomic_store(&col_proc.threaded, true);

	struct exp_thread_start rec;
	memset(&rec, 0, sizeof(rec));
	rec.tid = (uint32_t)tid;
	rec.time_ns = now_ns;
	rec.creator_tid = (uint32_t)shared->tid;
	col_syscall(SYS_prctl, PR_GET_NAME, rec.name, 0, 0, 0);
	col_write_sigsafe(t, EXP_FILE_THREADS, EXP_REC_THREAD_START, &rec, sizeof(rec));
	/* The set-up is the collector's, out of the first sample's weight. */
	col_cost_outside(t, col_thread_cputime_ns_sigsafe() - t0);
	return t;
}

/* The calling raw thread `tid` in slot s, held (-tid) for it (NULL: none
 * could be had): its state set up, the slot published; NULL (the loss
 * counted) if it cannot be. */
static struct col_thread *set_up_held(struct raw_slot *s, pid_t tid, const struct col_thread *shared, uint64_t sp,
				      uint64_t now)
{
	struct col_thread *t = s ? set_up(s, tid, shared, sp, now) : NULL;

	if (s) {
		atomic_store(&s->last_ns, now);
		atomic_store_explicit(&s->tid, t ? tid : 0, memory_order_release);
	}
	if (!t) {
		col_count_sigsafe(EXP_CTR_NO_THREAD_STATE, 1);
		return NULL;
	}
	if (!atomic_exchange(&logged, true))
		col_log_sigsafe("thread.raw", "threads made by a raw clone (no pthread_create, their creator's "
				"TLS shared) are sampled by their thread id");
	return t;
}

struct col_thread *col_rawthread_self_sigsafe(const struct col_thread *shared, pid_t tid, uint64_t sp,
					       uint64_t now)
{
	uint32_t h = (uint32_t)tid * 2654435761u;

	for (int i = 0; i < RAW_MAX; i++) {
		struct raw_slot *s = &raw[(h + (uint32_t)i) % RAW_MAX];
		pid_t cur = atomic_load_explicit(&s->tid, memory_order_acquire);
		if (cur == tid && (!keyed(s) || robust_head(0) == s->key)) {
			atomic_store_explicit(&s->last_ns, now, memory_order_relaxed);
			return s->t;
		}
		if (cur == tid) {
			/* A new thread on a gone one's id (the slot's key is not
			 * its robust list): the gone one ended at its last
			 * signal, and this one starts in its slot. */
			if (atomic_load(&closed) || !atomic_compare_exchange_strong(&s->tid, &cur, -tid))
				break;
			retire(s);
			return set_up_held(s, tid, shared, sp, now);
		}
		if (cur == -tid) {        /* a signal in the thread's own set-up */
			col_count_sigsafe(EXP_CTR_LOST_REENTRY, 1);
			return NULL;
		}
	}
	/* Not a thread of this process (a child made with CLONE_VM, sharing
	 * the TLS too: no clock of ours is inherited there, but a signal
	 * could be forwarded), or too late. */
	if (atomic_load(&closed) || (pid_t)col_syscall(SYS_getpid) != col_proc.pid)
		return NULL;
	/* Its creator loses its clock's progress to such threads (col_clock.c). */
	col_clock_keep_apart_sigsafe(shared->tid);
	return set_up_held(claim(tid), tid, shared, sp, now);
}

void col_rawthread_end_all(struct col_thread *self)
{
	/* Their states stay: a raw thread still running samples on, as the
	 * others do after col_thread_end_others (its last slice). */
	atomic_store(&closed, true);
	if (!self)
		return;
	for (int i = 0; i < RAW_MAX; i++)
		if (atomic_load(&raw[i].tid) > 0)
			end_records(&raw[i], self);
}

/* pthread_atfork's child handler (col_rawthread_install). */
static void reset_after_fork(void)
{
	for (int i = 0; i < RAW_MAX; i++) {
		struct col_thread *t = raw[i].t;
		if (t) {
			for (int f = 0; f < EXP_FILE_COUNT_; f++)
				exp_cursor_release_sigsafe(&t->cursor[f]);
			col_sys_munmap(t, sizeof(*t));
		}
		raw[i].t = NULL;
		atomic_store(&raw[i].tid, 0);
	}
	atomic_store(&closed, false);
	atomic_store(&logged, false);
}

void col_rawthread_install(void)
{
	static int done;

	if (!done++)
		pthread_atfork(NULL, NULL, reset_after_fork);
}
