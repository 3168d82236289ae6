/* SPDX-License-Identifier: MIT
 *
 * col_attach.c — collecting in a process that `tally record -p` attached to.
 *
 * tally dlopens the collector in one thread of the running process and calls
 * tally__attach(DIR, OPTIONS) there (src/attach/).  That call only starts a
 * helper thread ("tally-attach", all signals blocked) and returns, so the
 * borrowed thread is back to its own work within microseconds.  The helper:
 *   1. opens the experiment in DIR (its files placed at high descriptor
 *      numbers, out of the program's way), logs, installs the handler,
 *      records the loaded objects;
 *   2. for every thread in /proc/PID/task (listed aside: col_fds_use)
 *      writes THREAD_START and opens a task-clock event for it (pid = that
 *      tid).  With sigtrap events the
 *      event is `inherit`ed by the threads it creates afterwards: they are
 *      sampled from their first instruction without any interposer.  Without
 *      sigtrap (kernel < 5.13) the events are fasync ones and the helper
 *      looks for new threads every tick (TICK_MS) instead;
 *   3. answers "started" on DIR/attach.ack, then waits on DIR/attach.ctl for
 *      "stop" (or its end of file: tally is gone), ticking every TICK_MS to
 *      note loaded objects and ended threads;
 *   4. stops: no more set-ups, every event disabled and closed, THREAD_END for
 *      every thread, files closed; answers "stopped" and exits.  The
 *      collector stays loaded and idle; its handler stays installed (a late
 *      signal is recognised and ignored) and the next attach reuses it all.
 * A thread's state is set up by the first signal of its clock, in the signal
 * handler (adopt_sigsafe): memory from mmap, its stack's bounds
 * from /proc/self/maps, read with raw system calls (or by the first signal
 * of its context-switch event, with --states: col_states.c, opened
 * by the helper before its clock, pid = that tid).  A thread blocked at the
 * attach (its /proc stat) has its interval opened there, at the stack the
 * helper unwinds from its /proc syscall sp and pc; at the stop the switch
 * events are disabled with the clocks (attach.window_end_ns) and an
 * interval still open is closed there, so a thread's states run from the
 * attach to the stop, a thread blocked throughout included.
 * Weights: the thread's CPU clock (CLOCK_THREAD_CPUTIME_ID), since an
 * inherited event's fd is not the thread's own (reading the parent's adds up
 * its children).  docs/attach.md has the design and its limits.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <time.h>
#include <ucontext.h>
#include <unistd.h>
#include <linux/perf_event.h>

#include "collector/col_clock.h"
#include "collector/col_fds.h"
#include "collector/col_files.h"
#include "collector/col_log.h"
#include "collector/col_maps.h"
#include "collector/col_mem.h"
#include "collector/col_objects.h"
#include "collector/col_real.h"
#include "collector/col_thread.h"
#include "collector/col_sample.h"
#include "collector/col_sched.h"
#include "collector/col_stacks.h"
#include "collector/col_state.h"
#include "collector/col_states.h"
#include "collector/col_sys.h"
#include "collector/col_time.h"

#define SLOTS 32768                /* threads of one attach (a power of two) */
#define TICK_MS 50

struct slot {
	_Atomic int tid;               /* 0: free */
	bool existing;                 /* there at the attach: the helper wrote THREAD_START */
	bool ended;                    /* THREAD_END written */
	int fd;                        /* its clock when the helper opened one, else -1 */
	uint64_t cpu0_ns;              /* its CPU time when that clock started */
	struct exp_thread_sched sched0; /* existing: its schedstat at the attach */
	bool has_sched0;
	/* --states: its switch event until adopted (taken by its first
	 * signal, clock's or switch's, with an atomic exchange). */
	struct col_states_thread *_Atomic states;
	struct col_thread *_Atomic t;  /* its state, set up by its first sample */
};

static struct slot *slots;
static _Atomic bool collecting;
static _Atomic int helper_running;
static bool inherits;              /* threads created later get a clock from their creator */
static char req_dir[4096], req_options[256];
static int ctl_fd = -1, ack_fd = -1, fd_floor;
static pid_t helper_tid;
static unsigned unsampled;         /* threads we could give no clock (descriptors) */
static unsigned states_idle;       /* switch events never adopted by a thread that had a state */

static uint64_t thread_cpu_ns(pid_t tid)
{
	struct timespec ts;
	clockid_t id = (clockid_t)((~(unsigned)tid << 3) | 6);   /* MAKE_THREAD_CPUCLOCK(tid, SCHED) */

	if (clock_gettime(id, &ts) != 0)
		return 0;
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static uint64_t process_cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* The slot of `tid`; with `claim`, a free one is taken (*claimed set). */
static struct slot *slot_get_sigsafe(pid_t tid, bool claim, bool *claimed)
{
	uint32_t h = (uint32_t)tid * 2654435761u;

	for (uint32_t i = 0; slots && i < SLOTS; i++) {
		struct slot *s = &slots[(h + i) & (SLOTS - 1)];
		int cur = atomic_load(&s->tid);
		if (cur == tid)
			return s;
		if (cur)
			continue;
		if (!claim)
			return NULL;
		if (atomic_compare_exchange_strong(&s->tid, &cur, tid)) {
			*claimed = true;
			return s;
		}
		if (cur == tid)
			return s;
	}
	return NULL;
}

/* Thread `tid`'s state letter in /proc/self/task/TID/stat (0: unreadable). */
static char thread_state(pid_t tid)
{
	char path[64], buf[512];

	/* The process's number, not self: read aside, in a helper that is
	 * another process (col_fds_read). */
	snprintf(path, sizeof(path), "/proc/%d/task/%d/stat", (int)col_proc.pid, (int)tid);
	if (col_fds_read(path, buf, sizeof(buf)) <= 0)
		return 0;
	const char *paren = strrchr(buf, ')');     /* the name may hold spaces and parentheses */
	return paren && paren[1] == ' ' ? paren[2] : 0;
}

/* Where thread `tid`, off the CPU now, is: its user stack unwound from the
 * stack pointer and pc of /proc/self/task/TID/syscall by the CFI (the
 * other registers are not known there: a frame whose CFA is rbp-based has
 * its rbp found on the stack, col_unwind_ctx.find_fp; one whose rule needs
 * another register ends the walk), interned by `writer`, with `h`'s (the helper's) unwinder.
 * True when the thread is blocked or stopped (state S, D, T, t), with
 * *stack_id (0: none) and *flags: EXP_STATE_SYSCALL in a system call,
 * EXP_STATE_FAULTED in an uninterruptible wait outside one (a fault's). */
static bool blocked_where(struct col_thread *h, struct col_thread *writer, pid_t tid, uint32_t *stack_id,
			  uint16_t *flags)
{
	char path[64], buf[256];
	char st = thread_state(tid);

	*stack_id = 0;
	*flags = 0;
	if (st != 'S' && st != 'D' && st != 'T' && st != 't')
		return false;
	snprintf(path, sizeof(path), "/proc/%d/task/%d/syscall", (int)col_proc.pid, (int)tid);
	if (col_fds_read(path, buf, sizeof(buf)) <= 0)
		return true;
	/* "NR a1 ... a6 sp pc", "-1 sp pc" outside a system call, or "running" */
	char *words[9], *save = NULL;
	int nw = 0;
	/* strtok_r: strtok's state is the program's too */
	for (char *w = strtok_r(buf, " \n", &save); w && nw < 9; w = strtok_r(NULL, " \n", &save))
		words[nw++] = w;
	if (nw < 3 || !strcmp(words[0], "running"))
		return true;
	long nr = strtol(words[0], NULL, 10);
	if (nr >= 0)
		*flags |= EXP_STATE_SYSCALL;
	else if (st == 'D')
		*flags |= EXP_STATE_FAULTED;
	struct col_regs r;
	memset(&r, 0, sizeof(r));
	r.r[UW_RSP] = strtoull(words[nw - 2], NULL, 16);
	r.r[UW_RIP] = strtoull(words[nw - 1], NULL, 16);
	r.valid = (1u << UW_RSP) | (1u << UW_RIP);
	if (!r.r[UW_RIP])
		return true;
	uint64_t lo = h->unwind.stack_lo, hi = h->unwind.stack_hi;
	int truncated = 0, broken = 0;
	col_stack_bounds_sigsafe(r.r[UW_RSP], &h->unwind.stack_lo, &h->unwind.stack_hi);
	h->unwind.find_fp = true;           /* rbp is not known: found where a frame needs it */
	int nf = col_unwind_sigsafe(&h->unwind, &r, h->frames, (int)col_proc.opt.max_frames, &truncated, &broken);
	h->unwind.find_fp = false;
	h->unwind.stack_lo = lo;
	h->unwind.stack_hi = hi;
	if (nf < 1) {
		h->frames[0] = r.r[UW_RIP];
		nf = 1;
	}
	*stack_id = col_stack_intern_sigsafe(writer, h->frames, (uint32_t)nf,
					     col_stack_flags_sigsafe(truncated, broken));
	return true;
}

/* --states: the schedstat of the process's first BEFORE_MAX threads, read
 * just before the window's start (col_proc.start_ns; read_before).  A
 * thread blocked when the helper reaches it, whose schedstat has not moved
 * since, has not run since before the window: its block covers the
 * helper's set-up (tens of ms, 187 under load 12), and its interval
 * starts with the window, not when the helper came to it. */
#define BEFORE_MAX COL_SCHED_BATCH
static struct exp_thread_sched before[BEFORE_MAX];
static size_t nbefore;

/* Has thread `tid` (blocked now) not run since the read before the
 * window?  Its schedstat read now, after its switch event opened. */
static bool still_since_before(pid_t tid)
{
	struct exp_thread_sched now;

	for (size_t i = 0; i < nbefore; i++) {
		if ((pid_t)before[i].tid != tid || !before[i].time_ns)
			continue;
		col_sched_read_many(&tid, 1, &now);
		return now.time_ns && now.cpu_ns == before[i].cpu_ns && now.slices == before[i].slices;
	}
	return false;
}

/* --states, at the attach: thread `tid`, whose event `st` was opened at
 * `since_ns`, may be blocked already (a block under way, or for the whole
 * window): its interval starts at the attach, where /proc says it is:
 * at the window's start if it has not run since before it, else at
 * since_ns. */
static void note_blocked_at_attach(pid_t tid, struct col_states_thread *st, uint64_t since_ns)
{
	uint32_t stack_id;
	uint16_t flags;
	struct col_thread *h = col_enter();

	if (!h)
		return;
	if (blocked_where(h, h, tid, &stack_id, &flags))
		col_states_blocked_at_attach(st, still_since_before(tid) ? col_proc.start_ns : since_ns,
					     stack_id, flags);
	col_leave(h);
}

/* --states, at the stop (the event disabled): thread `tid`'s intervals
 * left in event `st`'s ring, written by `writer` (its own state, busy, or
 * the helper's), and one still open closed at the window's end `end_ns`,
 * where /proc says the thread is blocked. */
static void close_states_at_end(struct col_thread *writer, pid_t tid, struct col_states_thread *st,
				uint64_t end_ns)
{
	uint32_t stack_id = 0;
	uint16_t flags = 0;
	struct col_thread *h = col_enter();

	if (!h || !st) {
		if (h)
			col_leave(h);
		return;
	}
	if (!writer)
		writer = h;
	if (col_states_drain_at_end(writer, tid, st))
		blocked_where(h, writer, tid, &stack_id, &flags);
	col_states_close_at_end(writer, tid, st, end_ns, stack_id, flags);
	col_leave(h);
}

/* The first signal of our clock in a thread without state (col_sample.c
 * calls this): set its state up.  NULL if it cannot be (then not counted
 * as a sample: EXP_CTR_NO_THREAD_STATE). */
static struct col_thread *adopt_sigsafe(const void *uc)
{
	pid_t tid = col_sys_gettid();
	bool claimed = false;

	if (!atomic_load_explicit(&collecting, memory_order_acquire))
		return NULL;
	struct slot *s = slot_get_sigsafe(tid, true, &claimed);
	if (!s || s->ended)
		return NULL;
	struct col_thread *t = col_thread_self_sigsafe();   /* from an earlier attach: reused */
	if (t) {
		memset(t, 0, sizeof(*t));
		t->tid = tid;
		t->perf_fd = -1;
	} else if (!(t = col_thread_new_sigsafe(tid))) {
		return NULL;
	}
	const ucontext_t *u = uc;
	col_stack_bounds_sigsafe((uint64_t)u->uc_mcontext.gregs[REG_RSP], &t->unwind.stack_lo,
			     &t->unwind.stack_hi);
	if (!inherits && s->fd >= 0)
		t->perf_fd = s->fd;          /* fasync: read and re-armed through it */
	else
		t->last_cpu_ns = claimed ? 0 : s->cpu0_ns;
	/* --states: the event the helper opened at the attach (the intervals
	 * since are in its ring), or for a thread created since, its own
	 * from here on. */
	struct col_states_thread *st = atomic_exchange(&s->states, NULL);
	if (st)
		col_states_adopt_sigsafe(t, st);
	else
		col_states_thread_start(t);
	if (claimed) {
		/* Created after the attach: it inherited its creator's clock. */
		struct exp_thread_start rec;
		memset(&rec, 0, sizeof(rec));
		rec.tid = (uint32_t)tid;
		rec.time_ns = col_now_ns_sigsafe();
		col_syscall(SYS_prctl, PR_GET_NAME, rec.name, 0, 0, 0);
		col_write_sigsafe(t, EXP_FILE_THREADS, EXP_REC_THREAD_START, &rec, sizeof(rec));
	}
	atomic_store(&s->t, t);
	col_thread_set_self(t);
	return t;
}

/* Put our descriptor high, out of the range the program uses (select()'s
 * 1024 included).  Returns the new fd, or -1 (closed) if there is no room. */
static int move_high(int fd)
{
	if (fd < 0 || fd >= fd_floor)
		return fd;
	int nfd = col_real.fcntl(fd, F_DUPFD_CLOEXEC, fd_floor);
	col_sys_close(fd);
	return nfd;
}

static void reply(const char *msg)
{
	if (ack_fd >= 0 && col_sys_write(ack_fd, msg, strlen(msg)) < 0)
		col_log_sigsafe("attach.warning", "could not answer tally");
}

static void write_thread_start(pid_t tid)
{
	struct exp_thread_start rec;
	char path[64];

	memset(&rec, 0, sizeof(rec));
	rec.tid = (uint32_t)tid;
	rec.time_ns = col_now_ns_sigsafe();
	snprintf(path, sizeof(path), "/proc/%d/task/%d/comm", (int)col_proc.pid, (int)tid);
	ssize_t n = col_fds_read(path, rec.name, sizeof(rec.name));
	if (n > 0 && rec.name[n - 1] == '\n')
		rec.name[n - 1] = 0;
	struct col_thread *h = col_enter();
	if (h) {
		col_write_sigsafe(h, EXP_FILE_THREADS, EXP_REC_THREAD_START, &rec, sizeof(rec));
		col_leave(h);
	}
}

/* The schedstat at the attach of the threads of slots s[0..n), read in
 * one use after their set-up (col_sched_read_many), so that no thread's
 * switch event waits for it. */
static void read_sched0(struct slot **s, size_t n)
{
	pid_t tids[COL_SCHED_BATCH] = { 0 };
	struct exp_thread_sched v[COL_SCHED_BATCH];

	if (!n)
		return;
	for (size_t i = 0; i < n; i++)
		tids[i] = atomic_load(&s[i]->tid);
	col_sched_read_many(tids, n, v);
	for (size_t i = 0; i < n; i++) {
		s[i]->sched0 = v[i];
		s[i]->has_sched0 = v[i].time_ns != 0;
	}
}

struct task_list {
	char path[64];                 /* /proc/PID/task: the helper's /proc/self is its own */
	pid_t *tids;
	size_t n, max;
};

/* The listing's buffer: not on the helper's small stack (one listing at a
 * time, the attach helper's). */
static char task_dents[4096];

/* In the helper of col_fds_aside (raw system calls only): the thread ids
 * in l->path, at most l->max.  0 or -errno. */
static int list_tasks(void *p)
{
	struct task_list *l = p;
	int fd = col_sys_openat(AT_FDCWD, l->path, O_RDONLY | O_DIRECTORY | O_CLOEXEC, 0);
	long n;

	l->n = 0;
	if (fd < 0)
		return -errno;
	while ((n = col_syscall(SYS_getdents64, fd, task_dents, sizeof(task_dents))) > 0) {
		/* struct linux_dirent64: ino 8, off 8, reclen 2, type 1, name */
		for (long at = 0; at + 19 < n;) {
			unsigned short reclen;
			memcpy(&reclen, task_dents + at + 16, sizeof(reclen));
			pid_t tid = 0;
			for (const char *c = task_dents + at + 19; *c >= '0' && *c <= '9'; c++)
				tid = tid * 10 + (*c - '0');
			if (tid > 0 && l->n < l->max)
				l->tids[l->n++] = tid;
			if (!reclen)
				break;
			at += reclen;
		}
	}
	int rc = n < 0 ? -errno : 0;
	col_sys_close(fd);
	return rc;
}

/* --states: the first BEFORE_MAX threads' schedstat into before[], just
 * before the window starts (still_since_before). */
static void read_before(void)
{
	static pid_t tids[BEFORE_MAX];
	struct task_list l = { .tids = tids, .max = BEFORE_MAX };

	nbefore = 0;
	snprintf(l.path, sizeof(l.path), "/proc/%d/task", (int)col_proc.pid);
	if (col_fds_use(list_tasks, &l) < 0)
		return;
	col_sched_read_many(tids, l.n, before);
	nbefore = l.n;
}

/* Give every thread we have no slot for a clock, listed aside
 * (list_tasks: a thread of the program that opens a file meanwhile gets
 * the number it gets without tally; the clocks are opened in place, as
 * their descriptors are needed: docs/collector.md).  Returns how many
 * were added, or -errno when the very first clock could not be opened. */
static int add_threads(void)
{
	static pid_t *tids;
	struct task_list l = { .max = SLOTS };
	int added = 0, err = 0;
	struct slot *fresh[COL_SCHED_BATCH];      /* their schedstat not yet read */
	size_t nfresh = 0;

	if (!tids && !(tids = col_alloc(SLOTS * sizeof(*tids))))
		return -ENOMEM;
	l.tids = tids;
	snprintf(l.path, sizeof(l.path), "/proc/%d/task", (int)col_proc.pid);
	int rc = col_fds_use(list_tasks, &l);
	if (rc < 0)
		return rc;
	for (size_t i = 0; i < l.n; i++) {
		pid_t tid = tids[i];
		bool claimed = false;
		if (tid <= 0 || tid == helper_tid)
			continue;
		struct slot *s = slot_get_sigsafe(tid, true, &claimed);
		if (!s || !claimed)
			continue;
		s->existing = true;
		write_thread_start(tid);
		s->cpu0_ns = thread_cpu_ns(tid);
		fresh[nfresh++] = s;
		if (nfresh == COL_SCHED_BATCH) {
			read_sched0(fresh, nfresh);
			nfresh = 0;
		}
		/* --states: its switch event, in the slot before its clock or
		 * itself can signal (else its first signal would open another
		 * one and this one would idle), and from now. */
		uint64_t since = col_now_ns_sigsafe();
		struct col_states_thread *st = col_states_open_for(tid);
		if (st) {
			note_blocked_at_attach(tid, st, since);
			atomic_store(&s->states, st);
			col_states_enable(st);
		}
		bool inh;
		int fd = col_clock_open_for(tid, &inh);
		if (fd < 0) {
			err = fd;
			unsampled++;
			continue;
		}
		inherits = inh;
		s->fd = move_high(fd);
		if (s->fd < 0)
			unsampled++;
		added++;
	}
	read_sched0(fresh, nfresh);
	return added || !err ? added : err;
}

/* CPU time of slot s's thread since the attach (or its creation).  A thread
 * that ended: as of its last sample (its clock is gone with it). */
static uint64_t cpu_used(const struct slot *s, const struct col_thread *t, bool dead)
{
	uint64_t base = s->existing ? s->cpu0_ns : 0;

	if (!dead) {
		uint64_t now = thread_cpu_ns(atomic_load(&s->tid));
		return now > base ? now - base : 0;
	}
	if (!t)
		return 0;
	if (!inherits)
		return t->last_cpu_ns;             /* fasync: the event's count since it started */
	return t->last_cpu_ns > base ? t->last_cpu_ns - base : 0;
}

/* A thread still alive at the stop, whose schedstat now is *now (read by
 * end_at_stop): made its share of the window (less what it was at the
 * attach; all of it for a thread made since; its wait for a CPU at most
 * the window less its CPU); false if either read failed
 * (a thread that ended in the window has no /proc entry left to read: no
 * record). */
static bool sched_in_window(const struct slot *s, struct exp_thread_sched *now)
{
	if (!now->time_ns || (s->existing && !s->has_sched0))
		return false;
	if (s->existing) {
		now->cpu_ns -= now->cpu_ns > s->sched0.cpu_ns ? s->sched0.cpu_ns : now->cpu_ns;
		now->run_delay_ns -= now->run_delay_ns > s->sched0.run_delay_ns ? s->sched0.run_delay_ns
									      : now->run_delay_ns;
		now->slices -= now->slices > s->sched0.slices ? s->sched0.slices : now->slices;
		/* The kernel adds a wait for a CPU when it ends: one under way at
		 * the attach counts whole, its part before the attach too (load
		 * 7: 1.196 s in a 1.094 s window).  At most what the window left
		 * beside its CPU. */
		uint64_t window = now->time_ns > s->sched0.time_ns ? now->time_ns - s->sched0.time_ns : 0;
		uint64_t room = window > now->cpu_ns ? window - now->cpu_ns : 0;
		if (now->run_delay_ns > room)
			now->run_delay_ns = room;
	}
	return true;
}

/* THREAD_END for the thread of slot s; it has ended when `dead`.  At the
 * stop, `window_end_ns` is the window's end (else 0), and a thread alive
 * then has a THREAD_SCHED record of the window's share too, `sched` (read
 * before its end's time: within its life; NULL if none). */
static void end_thread(struct slot *s, bool dead, uint64_t window_end_ns, const struct exp_thread_sched *sched)
{
	struct col_thread *t = atomic_load(&s->t);
	pid_t tid = atomic_load(&s->tid);
	bool has_sched = !dead && window_end_ns && sched;
	struct exp_thread_end rec = { 0, (uint32_t)tid, col_now_ns_sigsafe(), cpu_used(s, t, dead),
				      t ? t->samples : 0 };

	if (t) {
		while (atomic_exchange(&t->busy, 1))
			;                    /* its handler is at work: a few µs */
		t->exiting = true;
		t->perf_fd = -1;
		if (!dead && window_end_ns)
			close_states_at_end(t, tid, t->states, window_end_ns);
		col_states_thread_end(t);    /* the intervals its ring still holds */
		col_write_sigsafe(t, EXP_FILE_THREADS, EXP_REC_THREAD_END, &rec, sizeof(rec));
		if (has_sched)
			col_sched_write_rec(t, sched);
		for (int i = 0; i < EXP_FILE_COUNT_; i++)
			exp_cursor_release_sigsafe(&t->cursor[i]);
		atomic_store(&t->busy, 0);
		if (dead) {
			atomic_store(&s->t, NULL);
			col_sys_munmap(t, sizeof(*t));   /* its thread is gone: nobody can reach it */
		}
	} else {
		/* Never back on a CPU since the attach: blocked throughout
		 * (its interval from the attach to the stop), or ended. */
		if (!dead && window_end_ns)
			close_states_at_end(NULL, tid, atomic_load(&s->states), window_end_ns);
		struct col_thread *h = col_enter();
		if (h) {
			col_write_sigsafe(h, EXP_FILE_THREADS, EXP_REC_THREAD_END, &rec, sizeof(rec));
			if (has_sched)
				col_sched_write_rec(h, sched);
			col_leave(h);
		}
	}
	struct col_states_thread *idle = atomic_exchange(&s->states, NULL);
	if (idle && t)
		states_idle++;               /* it opened its own: the helper's idled */
	col_states_close_unadopted(idle);
	s->ended = true;
}

static bool thread_alive(pid_t tid)
{
	return !(col_syscall(SYS_tgkill, col_proc.pid, tid, 0) != 0 && errno == ESRCH);
}

/* At the stop: THREAD_END (and THREAD_SCHED) for the threads of slots
 * s[0..n), their schedstat read in one use (col_sched_read_many). */
static void end_batch_at_stop(struct slot **s, size_t n, uint64_t window_end_ns)
{
	pid_t tids[COL_SCHED_BATCH] = { 0 };
	struct exp_thread_sched now[COL_SCHED_BATCH];

	for (size_t i = 0; i < n; i++)
		tids[i] = atomic_load(&s[i]->tid);
	col_sched_read_many(tids, n, now);
	for (size_t i = 0; i < n; i++) {
		bool dead = !thread_alive(tids[i]);
		bool in_window = !dead && sched_in_window(s[i], &now[i]);
		end_thread(s[i], dead, window_end_ns, in_window ? &now[i] : NULL);
	}
}

/* At the stop: every thread not ended yet, COL_SCHED_BATCH at a time. */
static void end_all_at_stop(uint64_t window_end_ns)
{
	struct slot *batch[COL_SCHED_BATCH];
	size_t n = 0;

	for (uint32_t i = 0; i < SLOTS; i++) {
		struct slot *s = &slots[i];
		if (!atomic_load(&s->tid) || s->ended)
			continue;
		batch[n++] = s;
		if (n == COL_SCHED_BATCH) {
			end_batch_at_stop(batch, n, window_end_ns);
			n = 0;
		}
	}
	if (n)
		end_batch_at_stop(batch, n, window_end_ns);
}

static void tick(void)
{
	col_objects_rescan(0);         /* dlopen is not interposed here */
	if (col_proc.opt.hz)
		col_sample_install();          /* again, if the program replaced ours */
	if (!inherits)
		add_threads();
	for (uint32_t i = 0; i < SLOTS; i++) {
		struct slot *s = &slots[i];
		pid_t tid = atomic_load(&s->tid);
		if (tid && !s->ended && !thread_alive(tid))
			end_thread(s, true, 0, NULL);
	}
}

static void close_experiment(void)
{
	col_close_files();
	col_proc.counters = NULL;     /* its mapping stays: a late handler may count */
}

static void stop(void)
{
	atomic_store(&collecting, false);
	/* The clocks stop first and the window ends with them: what follows
	 * (waiting for handlers, closing, ending threads) is the collector's,
	 * and in no sample.  Read after it, the window took in that work and
	 * the program's CPU meanwhile: sampled + collector 0.55-0.65 of it at
	 * load 6, at 10 kHz, with stops of up to 7 s. */
	for (uint32_t i = 0; i < SLOTS; i++)
		if (slots[i].fd >= 0)
			col_real.ioctl(slots[i].fd, PERF_EVENT_IOC_DISABLE, 0);
	/* The switch events in the same step (--states): no interval past
	 * the window.  The slot holds one not adopted yet, the thread's state
	 * one it adopted or opened itself (a thread created since). */
	for (uint32_t i = 0; i < SLOTS && col_proc.opt.states; i++) {
		struct slot *s = &slots[i];
		struct col_thread *t = atomic_load(&s->t);
		if (atomic_load(&s->tid) && !s->ended) {
			col_states_disable(atomic_load(&s->states));
			col_states_disable(t ? t->states : NULL);
		}
	}
	uint64_t window_end = col_now_ns_sigsafe();
	uint64_t cpu_end = process_cpu_ns();
	/* No handler uses a thread's state or clock past this. */
	for (uint32_t i = 0; i < SLOTS; i++) {
		struct col_thread *t = atomic_load(&slots[i].t);
		if (!t)
			continue;
		while (atomic_exchange(&t->busy, 1))
			col_syscall(SYS_sched_yield);   /* its handler was preempted */
		t->exiting = true;
		t->perf_fd = -1;
		atomic_store(&t->busy, 0);
	}
	for (uint32_t i = 0; i < SLOTS; i++) {
		if (slots[i].fd >= 0) {
			col_sys_close(slots[i].fd);
			slots[i].fd = -1;
		}
	}
	col_log_u64_sigsafe("attach.cpu_end_ns", cpu_end);
	col_log_u64_sigsafe("attach.window_end_ns", window_end);
	end_all_at_stop(window_end);
	if (col_proc.opt.states)
		col_log_u64_sigsafe("attach.states.idle", states_idle);
	states_idle = 0;
	col_log_u64_sigsafe("end.mono_ns", col_now_ns_sigsafe());
	col_log_sigsafe("attach.detached", "collection stopped; the process goes on");
}

static int start(char *err, size_t len)
{
	struct rlimit rl;

	col_proc.pid = getpid();
	col_unwind_set_pid(col_proc.pid);
	/* This helper and the program's threads: one-use opens go aside
	 * (col_fds_use), never at a number of the program's. */
	atomic_store(&col_proc.threaded, true);
	col_time_init();
	exp_launch_decode(req_options, &col_proc.opt);
	if (col_proc.opt.states)
		read_before();
	col_proc.start_ns = col_now_ns_sigsafe();
	snprintf(col_proc.dir, sizeof(col_proc.dir), "%s", req_dir);
	snprintf(col_proc.root, sizeof(col_proc.root), "%s", req_dir);
	col_proc.lineage[0] = 0;
	atomic_store(&col_proc.stopped, 0);    /* a size limit reached by an earlier attach */
	fd_floor = getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur >= 2048 ? 1024
		   : (int)(rl.rlim_cur * 3 / 4);
	int rc = col_open_experiment();
	if (rc != 0) {
		snprintf(err, len, "cannot open the experiment's files in %s: %s", req_dir, strerror(-rc));
		close_experiment();
		return -1;
	}
	for (int i = 0; i < EXP_FILE_COUNT_; i++)
		col_proc.file[i].fd = move_high(col_proc.file[i].fd);
	col_proc.log_fd = move_high(col_proc.log_fd);
	col_proc.dirfd = move_high(col_proc.dirfd);
	col_stacks_init();
	struct col_thread *h = col_thread_new_sigsafe(helper_tid);
	if (!h) {
		snprintf(err, len, "out of memory");
		close_experiment();
		return -1;
	}
	col_thread_set_self(h);
	col_proc.attached = true;
	col_proc.active = true;
	col_log_start("tally record -p");
	col_sample_set_adopt(adopt_sigsafe);
	if (col_proc.opt.hz)
		col_sample_install();
	col_objects_init(NULL);
	if (!slots)
		slots = col_alloc(SLOTS * sizeof(*slots));
	if (!slots) {
		snprintf(err, len, "out of memory");
		return -1;
	}
	memset(slots, 0, SLOTS * sizeof(*slots));
	for (uint32_t i = 0; i < SLOTS; i++)
		slots[i].fd = -1;          /* never 0: that is the program's stdin */
	unsampled = 0;
	inherits = false;
	col_log_u64_sigsafe("attach.cpu_start_ns", process_cpu_ns());
	atomic_store(&collecting, true);
	int added = 0, n;
	for (int round = 0; round < 20 && (n = add_threads()) != 0; round++) {
		if (n < 0 && !added) {
			snprintf(err, len, "perf_event_open: %s (tally record -p needs it; the perf_event_paranoid "
				 "setting or a seccomp filter may forbid it)", strerror(-n));
			return -1;
		}
		added += n > 0 ? n : 0;
	}
	static bool clock_logged;      /* the first clock opened in the process logs itself */
	if (clock_logged)
		col_clock_log_way();
	clock_logged = true;
	col_log_sigsafe("attach.threads.new",
			inherits ? "sampled from their start (inherited sigtrap clock)"
				 : "found every 50 ms in /proc/self/task (no inherited clock)");
	col_log_u64_sigsafe("attach.threads", (uint64_t)added);
	if (unsampled)
		col_log_u64_sigsafe("attach.threads.unsampled", unsampled);
	return added;
}

static void wait_for_stop(void)
{
	char buf[64];

	for (;;) {
		struct pollfd p = { ctl_fd, POLLIN, 0 };
		int n = poll(&p, 1, TICK_MS);
		if (n > 0) {
			ssize_t r = col_sys_read(ctl_fd, buf, sizeof(buf));
			if (r <= 0 && r != -EAGAIN)
				return;      /* end of file: tally is gone */
			if (r > 0 && memmem(buf, (size_t)r, "stop", 4))
				return;
		}
		tick();
	}
}

/* An attach FIFO, for col_fd_open_above. */
struct fifo_open {
	const char *path;
	int flags;
};

static int open_fifo(void *arg)
{
	const struct fifo_open *f = arg;

	return col_sys_openat(AT_FDCWD, f->path, f->flags | O_NONBLOCK | O_CLOEXEC, 0);
}

/* The FIFO `name` in the request's directory, kept: opened and moved
 * above the limit at once (col_fd_open_above; a descriptor for
 * later use cannot be opened aside), registered as the collector's. */
static int keep_fifo(char *path, size_t len, const char *name, int flags, int *where)
{
	snprintf(path, len, "%s/%s", req_dir, name);
	struct fifo_open f = { path, flags };
	return col_fd_keep(col_fd_open_above(open_fifo, &f), where, NULL);
}

static void *helper_main(void *unused)
{
	char path[4200], err[512] = "", msg[600];
	bool started = false;
	(void)unused;

	helper_tid = col_sys_gettid();
	col_syscall(SYS_prctl, PR_SET_NAME, "tally-attach", 0, 0, 0);
	/* Kept for the whole attach. */
	ack_fd = keep_fifo(path, sizeof(path), "attach.ack", O_WRONLY, &ack_fd);
	ctl_fd = keep_fifo(path, sizeof(path), "attach.ctl", O_RDONLY, &ctl_fd);
	if (ack_fd < 0 || ctl_fd < 0) {
		snprintf(msg, sizeof(msg), "error cannot open %s: %s\n", path, strerror(errno));
		reply(msg);
	} else {
		int n = start(err, sizeof(err));
		if (n < 0) {
			if (col_proc.active)
				stop();
			snprintf(msg, sizeof(msg), "error %s\n", err);
		} else {
			snprintf(msg, sizeof(msg), "started %d %u %s\n", n, unsampled,
				 inherits ? "inherit" : "scan");
		}
		reply(msg);
		if (n >= 0) {
			wait_for_stop();
			stop();
			started = true;
		}
	}
	struct col_thread *h = col_thread_self_sigsafe();
	if (h) {
		for (int i = 0; i < EXP_FILE_COUNT_; i++)
			exp_cursor_release_sigsafe(&h->cursor[i]);
		col_thread_set_self(NULL);
		col_sys_munmap(h, sizeof(*h));
	}
	close_experiment();
	col_proc.active = false;
	col_proc.attached = false;
	col_sample_set_adopt(NULL);
	/* Idle again before tally hears "stopped": an attach right after it
	 * (tally record -p twice in a row) must not find this helper still
	 * running (-EBUSY, seen at load 7).  The descriptors are this helper's
	 * own from here on: the next one opens its own. */
	int ack = ack_fd, ctl = ctl_fd;
	ctl_fd = ack_fd = -1;
	atomic_store(&helper_running, 0);
	if (started)   /* nowhere to say it if this fails: tally then times out */
		(void)col_sys_write(ack, "stopped\n", 8);
	col_fd_forget(ctl);
	col_fd_forget(ack);
	if (ctl >= 0)
		col_sys_close(ctl);
	if (ack >= 0)
		col_sys_close(ack);
	return NULL;
}

/* Called by tally in one thread of the process, through ptrace, once the
 * collector is loaded: start the helper and return at once.  0, or -EBUSY
 * (collecting already: started by `tally record`, or attached), -errno. */
COL_API int tally__attach(const char *dir, const char *options);
COL_API int tally__attach(const char *dir, const char *options)
{
	pthread_attr_t attr;
	pthread_t th;
	sigset_t all, old;

	if (col_proc.active || atomic_exchange(&helper_running, 1))
		return -EBUSY;
	if (strlen(dir) >= sizeof(req_dir) || strlen(options) >= sizeof(req_options)) {
		atomic_store(&helper_running, 0);
		return -ENAMETOOLONG;
	}
	strcpy(req_dir, dir);
	strcpy(req_options, options);
	/* The helper takes no signal of the program's (and not the clock's:
	 * the real function, which our interposer does not narrow). */
	const struct col_real *r = col_real_table();
	if (!r || !r->pthread_sigmask || !r->pthread_create) {
		atomic_store(&helper_running, 0);
		return -ENOSYS;
	}
	sigfillset(&all);
	r->pthread_sigmask(SIG_SETMASK, &all, &old);
	pthread_attr_init(&attr);
	pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
	pthread_attr_setstacksize(&attr, 256 * 1024);
	int rc = r->pthread_create(&th, &attr, helper_main, NULL);
	pthread_attr_destroy(&attr);
	r->pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (rc != 0)
		atomic_store(&helper_running, 0);
	return -rc;
}
