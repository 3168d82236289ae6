/* SPDX-License-Identifier: MIT
 *
 * col_states.c — thread states off the CPU (`tally record --states`): every
 * interval a thread spent switched out, from the kernel's context-switch
 * records, with the user stack at which it left the CPU.
 *
 * Each thread opens one perf event of its own with `context_switch` set and
 * a small ring buffer: the kernel writes a PERF_RECORD_SWITCH when the
 * thread goes off a CPU (flagged PREEMPT when it was still runnable) and
 * when it comes back, each with its CLOCK_MONOTONIC time.  Two ways:
 *
 *   - signal (the kernel lets us count in kernel mode: root, CAP_PERFMON or
 *     perf_event_paranoid <= 1): the event is a software context-switch
 *     counter of period 1 with `sigtrap`, so each switch-out queues a
 *     SIGTRAP that the kernel delivers at the thread's first return to user
 *     mode, where it resumes: the stack the handler unwinds is the stack at
 *     which it left the CPU (a blocking call's, or the preempted code's);
 *   - ring (perf_event_paranoid 2): a dummy event with the records only (a
 *     switch counter excluding the kernel never counts, and any signal sent
 *     to a sleeping thread would wake it); the ring is read at the thread's
 *     clock samples, the intervals have no stack of their own
 *     (EXP_STATE_NO_STACK) and the analyzer gives them the next sample's.
 *
 * Of an interval, the part spent runnable waiting for a CPU is all of it
 * when the thread was preempted; after a block, it is the latency from the
 * wake-up to the CPU, which no record carries: the thread's schedstat
 * run_delay (the kernel's sum of its time on a run queue) is read when a
 * batch holds a block, and its growth, less the preempted intervals', is the
 * wake-up latency of that batch's blocks.
 *
 * A block that resumes in user code, not after a system call, was a page
 * fault's (its I/O, a page another thread is reading) or a stop (SIGSTOP, a
 * debugger: a thread stops on its way back to user code).  A fault that
 * blocked has been counted by the resume: the thread's page faults
 * (getrusage, minor and major) are looked at then, and the batch is flagged
 * EXP_STATE_FAULTED when they grew since the last look.  The clock's sample
 * looks too, and so does a resume after its own work (its records, the
 * stack's interning and unwinding: faults of the collector's, on the
 * program's count), and the ring's header page is written once at thread
 * start (its first write faults): a stop is told apart unless the thread
 * faulted in the millisecond of CPU before it.
 *
 * With each clock sample the thread's user and system CPU time so far
 * (getrusage RUSAGE_THREAD) is written as a CPU_SPLIT record: the analyzer
 * splits the samples' CPU time by it.
 *
 * Called at thread start and end (col_thread.c), around exec, from the
 * clock's handler and from the signal handler (col_sample.c).  Sigsafe file.
 */
#include <errno.h>
#include <linux/perf_event.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <time.h>

#include "collector/col_control.h"
#include "collector/col_fds.h"
#include "collector/col_files.h"
#include "collector/col_log.h"
#include "collector/col_objset.h"
#include "collector/col_real.h"
#include "collector/col_runtime.h"
#include "collector/col_signal.h"
#include "collector/col_stacks.h"
#include "collector/col_state.h"
#include "collector/col_states.h"
#include "collector/col_sys.h"
#include "collector/col_time.h"
#include "collector/col_tracer_watch.h"
#include "format/exp_events.h"
#include "format/exp_schedstat.h"

#define PAGE 4096u
#define RING_PAGES_SIGNAL 2u         /* data pages: drained at every resume */
#define RING_PAGES_RING 8u           /* drained at clock samples: ~1,000 switches */
#define OWN_COST_MAX_NS 20000           /* col_sample.c's TAIL_REREAD_NS */
#define BATCH 64                     /* intervals written at once */

enum states_way { WAY_UNKNOWN, WAY_SIGNAL, WAY_RING, WAY_NONE };

static _Atomic int way = WAY_UNKNOWN;   /* decided by the first thread */

/* sig_data of the switch events: tells their SIGTRAP from the clock's. */
static const char tag;

struct interval {
	uint64_t off_ns, on_ns;
	bool preempted;
	bool own;                       /* stack_id and flags are its own, not the batch's */
	bool collector;                 /* it began inside the collector's handler */
	uint16_t flags;
	uint32_t stack_id;
};

/* One read of the thread's run delay: its value, when the read returned
 * and the ring's head then (a switch-in before is in the value). */
struct run_delay_read {
	bool ok;
	uint64_t value_ns, at_ns, head;
};

struct col_states_thread {
	int fd;                         /* the switch event */
	int schedstat_fd;               /* /proc/thread-self/schedstat, or -1 */
	struct perf_event_mmap_page *ring;
	size_t ring_bytes;              /* mapped: the header page and the data */
	uint64_t data_off, data_size;   /* the data area, in the mapping */
	bool have_out;                  /* a switch-out whose switch-in is to come */
	bool out_preempted;
	bool out_own;                   /* the switch-out is the attach's (a block under way) */
	uint16_t out_flags;             /* ... with these flags and stack, read from /proc */
	uint32_t out_stack_id;
	uint64_t out_ns;
	uint64_t run_delay_ns;          /* schedstat's at the last read */
	uint64_t read_at_ns;            /* ... when it returned: a switch-in before is in it */
	uint64_t head_at_read;          /* the ring's head then */
	struct run_delay_read early;    /* read at the resume, for the batch's flush */
	uint64_t preempted_ns;          /* preempted since that read */
	uint64_t opened_ns;             /* when run_delay_ns was first read */
	bool seen;                      /* a record came since the open (or the thread opened it) */
	bool delay_unknown;             /* records were lost: the growth is not the blocks' */
	bool signal;                    /* its event signals each switch (the signal way) */
	uint64_t faults;                /* the thread's page faults at the last look */
	uint64_t own_from_ns, own_to_ns; /* the collector's last handler on the thread */
	struct col_tracer_watch tracer_watch; /* when to ask for an outside tracer */
	uint32_t n;                     /* intervals waiting to be written */
	struct interval iv[BATCH];
	struct col_stack_memo memo;     /* the last stack interned */
};

/* The switch event of thread `tid` (0: the calling thread). */
static int perf_open_switches(bool signal, int excl_kernel, pid_t tid)
{
	const struct exp_event ev = { .name = "context-switches", .type = PERF_TYPE_SOFTWARE,
				      .config = signal ? PERF_COUNT_SW_CONTEXT_SWITCHES : PERF_COUNT_SW_DUMMY,
				      .period = signal ? 1 : 0 };
	struct perf_event_attr a;

	exp_event_attr(&ev, excl_kernel, signal, &a);     /* as a counter's (-c), and: */
	a.sample_type = PERF_SAMPLE_TIME;
	a.sample_id_all = 1;
	a.context_switch = 1;
	a.use_clockid = 1;
	a.clockid = CLOCK_MONOTONIC;
	if (signal)
		a.sig_data = (uint64_t)(uintptr_t)&tag;
	return col_real.perf_event_open(&a, tid, -1, -1, PERF_FLAG_FD_CLOEXEC);
}

/* Set when a thread of this process asked to be traced (PTRACE_TRACEME);
 * a fork child keeps it. */
static _Atomic bool asked_to_be_traced;

/* Is this process traced (strace, gdb), or about to be?  TracerPid is
 * read once per process with its status (col_real.c). */
static bool traced_now(void)
{
	int tracer, seccomp;

	if (atomic_load_explicit(&asked_to_be_traced, memory_order_relaxed))
		return true;
	col_real_proc_status(&tracer, &seccomp);
	return tracer > 0;
}

/* Open thread `tid`'s event (0: the calling thread's) the way this process
 * uses (the first thread finds out and logs it); *signal says which.  fd or
 * -errno. */
static int open_event(pid_t tid, bool *signal)
{
	int w = atomic_load(&way);

	/* A program that execs by its own system calls: no SIGTRAP from the
	 * kernel, which could reach the next image (col_runtime.h).  Nor under
	 * a tracer (strace -f, gdb): its stop at each signal is a switch-out,
	 * whose SIGTRAP is queued before the first one's handler runs, and so
	 * on: frames pile up without a user instruction between them until
	 * the stack is gone (SIGSEGV, SI_KERNEL; issue 19). */
	bool raw = col_runtime_raw_syscalls(), traced = traced_now();
	if ((w == WAY_SIGNAL || w == WAY_UNKNOWN) && !raw && !traced) {
		int fd = perf_open_switches(true, 0, tid);
		*signal = fd >= 0;
		if (fd >= 0 || w == WAY_SIGNAL) {
			if (fd >= 0 && atomic_exchange(&way, WAY_SIGNAL) == WAY_UNKNOWN)
				col_log_sigsafe("states", "context switches: perf_event switch records; a SIGTRAP "
						"at each resume takes the stack where the thread left the CPU");
			return fd >= 0 ? fd : -errno;
		}
	}
	int fd = perf_open_switches(false, 1, tid);
	*signal = false;
	if (fd < 0)
		return -errno;
	if (atomic_exchange(&way, WAY_RING) != WAY_RING)   /* a fork child may change */
		col_log_sigsafe("states", raw ? "context switches: perf_event switch records, read at clock "
					      "samples (the program makes its own system calls, exec included: "
					      "no signal from the kernel); an interval's stack is the thread's next sample's"
				    : traced ? "context switches: perf_event switch records, read at clock "
					       "samples (the program is traced, TracerPid: a tracer's stop at a "
					       "signal is itself a switch); an interval's stack is the thread's next sample's"
					     : "context switches: perf_event switch records, read at clock "
					       "samples (counting in the kernel is not permitted: perf_event_paranoid > 1); "
					       "an interval's stack is the thread's next sample's");
	return fd;
}

struct open_args {
	pid_t tid;
	bool signal;                    /* out: the event is the signal way's */
};

/* open_event for col_fd_open_above: `arg` is a struct open_args. */
static int open_event_of(void *arg)
{
	struct open_args *a = arg;

	return open_event(a->tid, &a->signal);
}

/* The file at path `arg`, read-only, for col_fd_open_above. */
static int open_for_reading(void *arg)
{
	return col_sys_openat(AT_FDCWD, arg, O_RDONLY | O_CLOEXEC, 0);
}

/* Map the ring: the header page and `pages` data pages (a power of two). */
static int map_ring(struct col_states_thread *s, unsigned pages)
{
	size_t bytes = (size_t)(pages + 1) * PAGE;
	void *p = col_sys_mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, s->fd, 0);

	if (p == MAP_FAILED)
		return -errno;
	s->ring = p;
	s->ring_bytes = bytes;
	/* The header page's first write faults: taken now, not by the first
	 * drain, where it would count as the program's (a stop told for I/O). */
	atomic_store_explicit((_Atomic uint64_t *)&s->ring->data_tail, 0, memory_order_relaxed);
	s->data_off = s->ring->data_offset ? s->ring->data_offset : PAGE;
	s->data_size = s->ring->data_size ? s->ring->data_size : (uint64_t)pages * PAGE;
	return 0;
}

/* The schedstat text of s's thread, from the descriptor it holds, into
 * buf (NUL-terminated); false if there is none or the read failed. */
static bool read_schedstat(const struct col_states_thread *s, char *buf, size_t size)
{
	if (!s || s->schedstat_fd < 0 || size < 2)
		return false;
	ssize_t n = col_syscall(SYS_pread64, s->schedstat_fd, buf, size - 1, 0);
	if (n <= 0)
		return false;
	buf[n] = 0;
	return true;
}

/* The thread's run delay now, from its schedstat (exp_schedstat_parse). */
static bool read_run_delay(struct col_states_thread *s, uint64_t *out)
{
	char buf[96];
	struct exp_schedstat st;

	if (!read_schedstat(s, buf, sizeof(buf)) || !exp_schedstat_parse(buf, &st))
		return false;
	*out = st.run_delay_ns;
	return true;
}

/* Read the run delay now, with the time and the ring's head taken just
 * before the read: an interval that ends during the read (a preemption at
 * its own exit, after the value was formatted, is the common one) is
 * after the base, taken off the next growth as any other, not left out
 * of it while its wait is in that growth (given twice: to it and to the
 * next batch's blocks).  One that ended inside the read before the value
 * was formatted is then taken off twice: an under-count, clamped at 0. */
static struct run_delay_read read_run_delay_now(struct col_states_thread *s)
{
	struct run_delay_read r = { 0 };

	r.at_ns = col_now_ns_sigsafe();
	r.head = atomic_load_explicit((_Atomic uint64_t *)&s->ring->data_head, memory_order_acquire);
	r.ok = read_run_delay(s, &r.value_ns);
	return r;
}

/* The run delay as the new base (the early read at the resume if there is
 * one, else read now): every wait for a CPU up to its read (the
 * collector's own included, the read's too) is in it, and the preempted
 * intervals that ended before are not taken off the next growth. */
static bool take_run_delay(struct col_states_thread *s, uint64_t *out)
{
	struct run_delay_read r = s->early.ok ? s->early : read_run_delay_now(s);

	s->early.ok = false;
	if (!r.ok)
		return false;
	*out = r.value_ns;
	s->read_at_ns = r.at_ns;
	s->head_at_read = r.head;
	return true;
}

/* The pages the thread's next states.dat and stacks.dat records go to: a
 * record written into a new page faults. */
static uintptr_t write_pages(const struct col_thread *t)
{
	const struct exp_cursor *a = &t->cursor[EXP_FILE_STATES], *b = &t->cursor[EXP_FILE_STACKS];

	return ((uintptr_t)(a->block + a->used) >> 12) * 31u + ((uintptr_t)(b->block + b->used) >> 12);
}

static uint64_t faults_of(const struct rusage *ru)
{
	return (uint64_t)ru->ru_minflt + (uint64_t)ru->ru_majflt;
}

/* Have the thread's page faults grown since the last look?  (Yes when
 * they cannot be read: a fault is never taken for a stop.) */
static bool faults_grew(struct col_states_thread *s)
{
	struct rusage ru;

	if (col_syscall(SYS_getrusage, RUSAGE_THREAD, &ru) != 0)
		return true;
	bool grew = faults_of(&ru) != s->faults;
	s->faults = faults_of(&ru);
	return grew;
}

/* Unmap and close what thread start made (its descriptors are ours). */
static void release(struct col_states_thread *s)
{
	col_sys_munmap(s->ring, s->ring_bytes);
	col_fd_forget(s->fd);
	col_sys_close(s->fd);
	if (s->schedstat_fd >= 0) {
		col_fd_forget(s->schedstat_fd);
		col_sys_close(s->schedstat_fd);
	}
	col_sys_munmap(s, sizeof(*s));
}

/* Open and map thread `tid`'s event (0: the caller's), with its schedstat,
 * and enable it unless `disabled`; NULL (logged) if it cannot be. */
static struct col_states_thread *open_thread(pid_t tid, bool disabled)
{
	char path[64];

	if (!col_proc.opt.states || atomic_load(&way) == WAY_NONE)
		return NULL;
	struct col_states_thread *s = col_sys_mmap(NULL, sizeof(*s), PROT_READ | PROT_WRITE,
						   MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
	if (s == MAP_FAILED) {
		col_log_error_sigsafe("states: thread state", errno, "this thread's states are not recorded");
		return NULL;
	}
	s->schedstat_fd = -1;
	/* Above the program's limit at once, its ring mapped after: a
	 * program thread's open meanwhile gets the number it gets bare,
	 * unless it comes during the move (col_fd_open_above). */
	struct open_args args = { tid, false };
	s->fd = col_fd_open_above(open_event_of, &args);
	s->signal = args.signal;
	if (s->fd >= 0)
		col_fd_keep(s->fd, &s->fd, NULL);
	if (s->fd < 0) {
		int e = -s->fd;
		int expected = WAY_UNKNOWN;
		bool filtered = col_real_perf_forbidden() != NULL;
		if (atomic_compare_exchange_strong(&way, &expected, WAY_NONE))
			col_log_error_sigsafe("states: perf_event_open", e,
					      filtered ? "no thread states recorded: not tried under a seccomp filter"
						       : "no thread states recorded");
		else
			col_log_error_sigsafe("states: perf_event_open", e,
					      filtered ? "this thread's states are not recorded: not tried under a "
							 "seccomp filter"
						       : "this thread's states are not recorded");
		col_sys_munmap(s, sizeof(*s));
		return NULL;
	}
	unsigned pages = s->signal ? RING_PAGES_SIGNAL : RING_PAGES_RING;
	int rc = map_ring(s, pages);
	if (rc == -EPERM || rc == -ENOMEM)          /* locked-memory limit: a smaller ring */
		rc = map_ring(s, 1);
	if (rc < 0) {
		col_log_error_sigsafe("states: ring buffer", -rc, "this thread's states are not recorded "
				      "(perf_event_mlock_kb, ulimit -l)");
		col_fd_forget(s->fd);
		col_sys_close(s->fd);
		col_sys_munmap(s, sizeof(*s));
		return NULL;
	}
	if (tid) {                               /* /proc/self/task/TID/schedstat */
		memcpy(path, "/proc/self/task/", 16);
		int n = col_fmt_u64_sigsafe(path + 16, (uint64_t)tid);
		memcpy(path + 16 + n, "/schedstat", 11);
	}
	s->schedstat_fd = col_fd_open_above(open_for_reading, tid ? path : (char *)"/proc/thread-self/schedstat");
	if (s->schedstat_fd < 0)
		col_log_error_sigsafe("states: schedstat", errno,
				      "wake-up latencies of this thread count as blocked time");
	else
		col_fd_keep(s->schedstat_fd, &s->schedstat_fd, NULL);
	s->opened_ns = col_now_ns_sigsafe();
	s->seen = !tid;                 /* the thread's own: running, a switch-out comes first */
	read_run_delay(s, &s->run_delay_ns);
	s->read_at_ns = s->opened_ns;
	if (!tid)
		faults_grew(s);
	if (!disabled && col_real.ioctl(s->fd, PERF_EVENT_IOC_ENABLE, 0) != 0) {
		col_log_error_sigsafe("states: enable", errno, "this thread's states are not recorded");
		release(s);
		return NULL;
	}
	return s;
}

void col_states_thread_start(struct col_thread *t)
{
	if (!t->states)
		t->states = open_thread(0, false);
}

struct col_states_thread *col_states_open_for(pid_t tid)
{
	return open_thread(tid, true);
}

void col_states_enable(struct col_states_thread *s)
{
	if (s && col_real.ioctl(s->fd, PERF_EVENT_IOC_ENABLE, 0) != 0)
		col_log_error_sigsafe("states: enable", errno, "this thread's states are not recorded");
}

void col_states_adopt_sigsafe(struct col_thread *t, struct col_states_thread *s)
{
	faults_grew(s);                            /* the thread's own count from here */
	t->states = s;
}

void col_states_close_unadopted(struct col_states_thread *s)
{
	if (s)
		release(s);
}

bool col_states_is_switch_signal_sigsafe(int sig, const siginfo_t *si)
{
	return col_signal_perf_data_sigsafe(sig, si) == (uint64_t)(uintptr_t)&tag;
}

/* Copy `len` bytes at ring offset `pos` (which may wrap). */
static void ring_copy(const struct col_states_thread *s, uint64_t pos, void *out, size_t len)
{
	const uint8_t *data = (const uint8_t *)s->ring + s->data_off;
	uint64_t at = pos & (s->data_size - 1);
	size_t first = len < s->data_size - at ? len : (size_t)(s->data_size - at);

	memcpy(out, data + at, first);
	memcpy((uint8_t *)out + first, data, len - first);
}

/* Read the ring's new records into intervals; false when the batch is full
 * (the rest stays in the ring). */
static bool drain(struct col_states_thread *s)
{
	uint64_t head = atomic_load_explicit((_Atomic uint64_t *)&s->ring->data_head, memory_order_acquire);
	uint64_t tail = s->ring->data_tail;
	bool room = true;

	while (tail + sizeof(struct perf_event_header) <= head) {
		struct perf_event_header h;
		uint64_t w[4] = { 0 };
		ring_copy(s, tail, &h, sizeof(h));
		if (h.size < sizeof(h) || tail + h.size > head)
			break;
		if (h.type == PERF_RECORD_SWITCH && !(h.misc & PERF_RECORD_MISC_SWITCH_OUT) &&
		    (s->have_out || !s->seen) && s->n == BATCH) {
			room = false;
			break;
		}
		ring_copy(s, tail + sizeof(h), w, h.size - sizeof(h) < sizeof(w) ? h.size - sizeof(h) : sizeof(w));
		tail += h.size;
		bool first = h.type == PERF_RECORD_SWITCH && !s->seen;
		s->seen = true;                 /* a record lost first too: no rule below */
		if (h.type == PERF_RECORD_LOST) {
			col_count_sigsafe(EXP_CTR_STATES_LOST, w[1]);
			s->have_out = false;        /* its switch-in may be among the lost */
			s->delay_unknown = true;    /* and so may preemptions' run delay */
		} else if (first && !(h.misc & PERF_RECORD_MISC_SWITCH_OUT) && !s->have_out) {
			/* A switch-in first: the thread was waiting for a CPU when its
			 * event was enabled from another thread (an attach), since the
			 * open's run-delay read at the latest.  That wait is a
			 * preemption's, or the batch's blocks would be given it. */
			if (w[0] >= s->opened_ns)
				s->iv[s->n++] = (struct interval){ s->opened_ns, w[0], true, true, false,
								   EXP_STATE_NO_STACK | EXP_STATE_FROM_ATTACH, 0 };
		} else if (h.type == PERF_RECORD_SWITCH && (h.misc & PERF_RECORD_MISC_SWITCH_OUT)) {
			s->have_out = true;
			s->out_own = false;
			s->out_ns = w[0];
			s->out_preempted = (h.misc & PERF_RECORD_MISC_SWITCH_OUT_PREEMPT) != 0;
		} else if (h.type == PERF_RECORD_SWITCH && s->have_out) {
			bool collector = s->out_ns >= s->own_from_ns && s->out_ns < s->own_to_ns;
			if (w[0] >= s->out_ns)
				s->iv[s->n++] = (struct interval){ s->out_ns, w[0], s->out_preempted, s->out_own,
								   collector, s->out_flags, s->out_stack_id };
			s->have_out = false;
			s->out_own = false;
		}
	}
	atomic_store_explicit((_Atomic uint64_t *)&s->ring->data_tail, tail, memory_order_release);
	return room;
}

/* Write the batch: each interval's runnable part (all of a preemption; the
 * batch's wake-up latency, from schedstat, shared by its blocks), with the
 * stack `stack_id` and `flags`.  An interval that began inside the
 * collector's own handler (EXP_STATE_COLLECTOR) is written as such, and a
 * batch of such blocks alone reads no run delay: that read, a system call
 * in the handler, could block again and make another. */
static void flush_as(struct col_thread *t, uint32_t tid, struct col_states_thread *s, uint32_t stack_id,
		     uint16_t flags)
{
	uint32_t blocked = 0, nblocked, preempts = 0;
	uint64_t wake = 0, base_at = s->read_at_ns;

	for (uint32_t i = 0; i < s->n; i++) {
		if (s->iv[i].on_ns <= base_at)
			continue;                  /* its wait for a CPU is in the base already */
		if (s->iv[i].preempted) {
			s->preempted_ns += s->iv[i].on_ns - s->iv[i].off_ns;
			preempts += !s->iv[i].collector;
		} else if (!s->iv[i].collector) {
			blocked++;
		}
	}
	uint64_t rd;
	nblocked = blocked;
	/* A batch of the program's preemptions reads the run delay too, as
	 * the new base: each preemption's records span 8-20 us more than the
	 * kernel's run delay counts for it, and summed over the preemptions
	 * up to the next block (a busy phase's dozens) that excess was taken
	 * off the block's wake-up latency (a sleep after a burn lost 0.4-0.7
	 * ms of its wait for a CPU).  Now only one batch's are. */
	if ((blocked || preempts) && take_run_delay(s, &rd)) {
		uint64_t grew = rd > s->run_delay_ns ? rd - s->run_delay_ns : 0;
		wake = grew > s->preempted_ns ? grew - s->preempted_ns : 0;
		if (s->delay_unknown)
			wake = 0;                  /* lost switches' waits are in it: not shared out */
		s->delay_unknown = false;
		s->run_delay_ns = rd;
		s->preempted_ns = 0;
	}
	for (uint32_t i = 0; i < s->n; i++) {
		const struct interval *v = &s->iv[i];
		uint64_t len = v->on_ns - v->off_ns, runnable = len;
		uint16_t f = (v->own ? v->flags : flags) | (v->preempted ? EXP_STATE_PREEMPTED : 0) |
			     (v->collector ? EXP_STATE_COLLECTOR : 0);
		if ((v->collector || v->on_ns <= base_at) && !v->preempted) {
			runnable = 0;              /* the collector's, or in the base: not the batch's */
		} else if (!v->preempted) {
			uint64_t share = wake / blocked--;
			runnable = share < len ? share : len;
			wake -= runnable;
			if (nblocked > 1)
				f |= EXP_STATE_WAKE_SPREAD;
		}
		struct exp_state rec = {
			.tid = tid, .off_ns = v->off_ns, .on_ns = v->on_ns,
			.runnable_ns = runnable, .stack_id = v->own ? v->stack_id : stack_id, .flags = f,
		};
		col_write_sigsafe(t, EXP_FILE_STATES, EXP_REC_STATE, &rec, sizeof(rec));
		if ((f & EXP_STATE_NO_STACK) && !v->collector)
			col_count_sigsafe(EXP_CTR_STATES_NO_STACK, 1);
	}
	s->n = 0;
}

/* The same, written by the thread itself. */
static void flush(struct col_thread *t, struct col_states_thread *s, uint32_t stack_id, uint16_t flags)
{
	flush_as(t, (uint32_t)t->tid, s, stack_id, flags);
}

/* Everything s's ring holds, batch by batch, written by `writer` for
 * thread tid with no stack (the thread is not where it blocked). */
static void drain_all_as(struct col_thread *writer, uint32_t tid, struct col_states_thread *s)
{
	bool room;

	do {
		room = drain(s);
		flush_as(writer, tid, s, 0, EXP_STATE_NO_STACK);
	} while (!room);
}

/* Does the code before `pc` end with a syscall instruction (0f 05)? */
static bool after_syscall(uint64_t pc)
{
	const struct col_object *o = col_objects_find_sigsafe(col_objects_current_sigsafe(), pc);

	if (!o || pc < o->text_lo + 2)
		return false;
	const uint8_t *p = (const uint8_t *)(uintptr_t)(pc - 2);
	return p[0] == 0x0f && p[1] == 0x05;
}

/* Does the batch hold an interval the thread was blocked in? */
static bool has_block(const struct col_states_thread *s)
{
	for (uint32_t i = 0; i < s->n; i++)
		if (!s->iv[i].preempted)
			return true;
	return false;
}

/* Does it hold one of the program's (not begun in the collector's
 * handler)?  `blocked`: a block of the program's. */
static bool has_programs(const struct col_states_thread *s, bool blocked)
{
	for (uint32_t i = 0; i < s->n; i++)
		if (!s->iv[i].collector && (!blocked || !s->iv[i].preempted))
			return true;
	return false;
}

/* The switch signal: the thread is back in user mode where it left; its
 * intervals get the stack it resumes at. */
static void on_resume(struct col_thread *t, struct col_states_thread *s, void *uc)
{
	uint32_t stack_id = 0;
	uint16_t flags = 0;
	bool paused = col_control_paused_sigsafe(0), unwound = false;

	uintptr_t pages = write_pages(t);
	bool room = drain(s);
	if (paused) {
		s->n = 0;                          /* paused: the time counts nowhere */
	} else if (s->n && !has_programs(s, false)) {
		/* The collector's own intervals alone (a handler's write that
		 * waited): counted apart, their stack unused, so none is taken
		 * (a handler that waits at every resume would make another). */
		flags = EXP_STATE_NO_STACK;
	} else if (s->n) {
		uint64_t leaf;
		unwound = true;
		/* The run delay before anything of ours that may leave the CPU
		 * (the unwinder's faults): a wait of ours after it is not the
		 * batch's blocks'. */
		if (has_programs(s, false))
			s->early = read_run_delay_now(s);
		/* The faults first: interning the stack may write a new page. */
		col_regs_from_ucontext(uc, &t->regs);
		if (after_syscall(t->regs.r[UW_RIP]))
			flags |= EXP_STATE_SYSCALL;
		else if (has_block(s) && faults_grew(s))
			flags |= EXP_STATE_FAULTED;
		stack_id = col_stack_interrupted_sigsafe(t, uc, &s->memo, &leaf);
		if (!stack_id)
			flags |= EXP_STATE_NO_STACK;
	}
	bool looked = unwound;                     /* a stack was interned */
	flush(t, s, stack_id, flags);
	while (!room) {                            /* a full batch: the rest, same stack */
		room = drain(s);
		flush(t, s, stack_id, flags);
	}
	s->early.ok = false;                       /* not used: no block of the program's left */
	/* Our own faults are no stop's: a record into a new page, and the
	 * stack's interning and unwinding (a table page, unwind tables read
	 * for the first time), which no cursor shows. */
	if (looked || write_pages(t) != pages)
		faults_grew(s);
}

/* At the end of a handler: did the thread leave the CPU in it since its
 * last run-delay read (a record write that waited for the disk, a fault
 * of the unwinder's)?  Then the run delay is read again as the new base:
 * the wait for a CPU after that wait is the collector's, and read only
 * at the next batch of the program's blocks it was theirs (a thread
 * woken late under load lost 1-15 ms of its naps' sleep to it).  The
 * base's head is taken before its read: a read that left the CPU itself
 * is read again once, here. */
static void rebase_after_own_wait(struct col_states_thread *s)
{
	uint64_t head = atomic_load_explicit((_Atomic uint64_t *)&s->ring->data_head, memory_order_acquire);
	uint64_t rd;

	if (head == s->ring->data_tail || head == s->head_at_read || !take_run_delay(s, &rd))
		return;
	s->run_delay_ns = rd;
	s->preempted_ns = 0;
	s->delay_unknown = false;
}

/* Thread t, on the signal way, is traced by `tracer`, which attached from
 * outside (strace -p, gdb -p): its intervals so far written, it moves to
 * the ring way, as do the process's threads opened from now on.  In t's
 * handler, t busy. */
static void ring_way_after_attach(struct col_thread *t, int tracer)
{
	static _Atomic bool said;

	atomic_store(&asked_to_be_traced, true);
	if (!atomic_exchange(&said, true)) {
		static const char head[] = "a tracer attached (TracerPid ",
				  tail[] = "): its threads' switches are read at clock samples from then on, "
					   "without a stack of their own";
		char why[sizeof(head) + sizeof(tail) + 20];
		size_t n = sizeof(head) - 1;
		memcpy(why, head, n);
		n += (size_t)col_fmt_u64_sigsafe(why + n, (uint64_t)tracer);
		memcpy(why + n, tail, sizeof(tail));
		col_log_sigsafe("states", why);
	}
	col_states_thread_end(t);
	col_states_thread_start(t);
}

/* Does this switch signal, on thread state s, show a tracer's loop
 * (col_tracer_watch.h)?  Asked only then, not on every blocked signal. */
static bool tracer_loop_shows(struct col_states_thread *s, const siginfo_t *si, void *uc)
{
	uint64_t pc = (uint64_t)((const ucontext_t *)uc)->uc_mcontext.gregs[REG_RIP];

	return col_tracer_watch_sigsafe(&s->tracer_watch, col_signal_perf_async_sigsafe(si), pc);
}

/* The calling thread's TracerPid now (0: none, -1: unknown), its status
 * file opened above the program's numbers (col_fd_open_above): a program
 * thread opening meanwhile gets the number it would without tally, and
 * its dup2 onto a low number can never be closed by us. */
static int tracer_now(void)
{
	int fd = col_fd_open_above(open_for_reading, (char *)"/proc/thread-self/status");

	if (fd < 0)
		return -1;
	int tracer = col_real_tracer_in(fd);
	col_sys_close(fd);
	return tracer;
}

bool col_states_signal_sigsafe(int sig, const siginfo_t *si, void *uc, uint64_t entry_ns)
{
	if (col_signal_perf_data_sigsafe(sig, si) != (uint64_t)(uintptr_t)&tag)
		return false;
	struct col_thread *t = col_thread_self_sigsafe();
	/* A signal of an event since closed (the thread moved to the ring
	 * way): its records are read at clock samples. */
	if (!t || t->exiting || !t->states || !t->states->signal)
		return true;
	/* Inside the collector (an interposer, the clock's handler): the
	 * records stay in the ring for the next resume. */
	if (atomic_exchange_explicit(&t->busy, 1, memory_order_acquire))
		return true;
	on_resume(t, t->states, uc);
	rebase_after_own_wait(t->states);
	/* Sent while SIGTRAP was blocked: inside a handler of ours, or at a
	 * tracer's stop as this signal was delivered (the stop is a switch,
	 * which sends the next one, and so on: the thread would run nothing
	 * but this handler while traced).  The tracer is asked then. */
	int tracer;
	if (tracer_loop_shows(t->states, si, uc) && (tracer = tracer_now()) > 0)
		ring_way_after_attach(t, tracer);
	uint64_t now = col_now_ns_sigsafe(), cost = now - entry_ns;
	if (t->states) {                 /* NULL if the ring way's open failed */
		t->states->own_from_ns = entry_ns;
		t->states->own_to_ns = now;
	}
	/* Its wall time is its cost, unless it left the CPU (a write that
	 * waited for the disk: the switch records say how long, written
	 * EXP_STATE_COLLECTOR) or was preempted: then at most what a handler
	 * takes on the CPU (col_sample.c re-reads the CPU clock past this). */
	col_cost_outside(t, cost < OWN_COST_MAX_NS ? cost : OWN_COST_MAX_NS);
	atomic_store_explicit(&t->busy, 0, memory_order_release);
	return true;
}

/* Does the ring hold records not read yet? */
static bool ring_has_news(const struct col_states_thread *s)
{
	return atomic_load_explicit((_Atomic uint64_t *)&s->ring->data_head, memory_order_acquire) !=
	       s->ring->data_tail;
}

void col_states_own_work_sigsafe(struct col_thread *t, uint64_t from_ns)
{
	struct col_states_thread *s = t ? t->states : NULL;

	if (s) {
		rebase_after_own_wait(s);
		s->own_from_ns = from_ns;
		s->own_to_ns = col_now_ns_sigsafe();
	}
}

void col_states_catch_up_sigsafe(struct col_thread *t, void *uc, uint64_t entry_ns)
{
	struct col_states_thread *s = t ? t->states : NULL;

	if (s && s->signal && ring_has_news(s)) {
		on_resume(t, s, uc);
		col_states_own_work_sigsafe(t, entry_ns);
	}
}

void col_states_on_sample_sigsafe(struct col_thread *t, uint64_t time_ns, void *uc)
{
	struct col_states_thread *s = t->states;
	struct rusage ru;

	if (!s)
		return;
	col_states_catch_up_sigsafe(t, uc, time_ns);
	uintptr_t pages = write_pages(t);
	if (col_syscall(SYS_getrusage, RUSAGE_THREAD, &ru) == 0) {
		struct exp_cpu_split rec = {
			.tid = (uint32_t)t->tid, .time_ns = time_ns,
			.user_ns = (uint64_t)ru.ru_utime.tv_sec * 1000000000u + (uint64_t)ru.ru_utime.tv_usec * 1000u,
			.system_ns = (uint64_t)ru.ru_stime.tv_sec * 1000000000u + (uint64_t)ru.ru_stime.tv_usec * 1000u,
		};
		s->faults = faults_of(&ru);             /* the batches before are written */
		col_write_sigsafe(t, EXP_FILE_STATES, EXP_REC_CPU_SPLIT, &rec, sizeof(rec));
	}
	if (!s->signal)
		drain_all_as(t, (uint32_t)t->tid, s);
	if (write_pages(t) != pages)
		faults_grew(s);
}

void col_states_blocked_at_attach(struct col_states_thread *s, uint64_t off_ns, uint32_t stack_id,
				  uint16_t flags)
{
	if (!s || s->have_out)
		return;
	s->have_out = true;
	s->out_preempted = false;
	s->out_own = true;
	s->out_ns = off_ns;
	s->out_stack_id = stack_id;
	s->out_flags = (uint16_t)(flags | EXP_STATE_FROM_ATTACH | (stack_id ? 0 : EXP_STATE_NO_STACK));
}

void col_states_disable(struct col_states_thread *s)
{
	if (s)
		col_real.ioctl(s->fd, PERF_EVENT_IOC_DISABLE, 0);
}

bool col_states_drain_at_end(struct col_thread *writer, pid_t tid, struct col_states_thread *s)
{
	if (!s)
		return false;
	drain_all_as(writer, (uint32_t)tid, s);
	return s->have_out && !s->out_preempted && !s->out_own;
}

void col_states_close_at_end(struct col_thread *writer, pid_t tid, struct col_states_thread *s, uint64_t end_ns,
			     uint32_t stack_id, uint16_t flags)
{
	if (!s || !s->have_out || end_ns < s->out_ns)
		return;
	if (s->n == BATCH)
		flush_as(writer, (uint32_t)tid, s, 0, EXP_STATE_NO_STACK);
	if (s->out_own) {                  /* blocked from the attach to the end */
		stack_id = s->out_stack_id;
		flags = s->out_flags;
	} else if (s->out_preempted) {     /* runnable: where it was preempted is not known here */
		stack_id = 0;
		flags = EXP_STATE_NO_STACK;
	} else if (!stack_id) {
		flags |= EXP_STATE_NO_STACK;
	}
	s->iv[s->n++] = (struct interval){ s->out_ns, end_ns, s->out_preempted, true, false,
					   (uint16_t)(flags | EXP_STATE_TO_END), stack_id };
	s->have_out = false;
	s->out_own = false;
	flush_as(writer, (uint32_t)tid, s, 0, EXP_STATE_NO_STACK);
}

bool col_states_schedstat_sigsafe(const struct col_thread *t, char *buf, size_t size)
{
	return read_schedstat(t->states, buf, size);
}

void col_states_thread_end(struct col_thread *t)
{
	struct col_states_thread *s = t->states;

	if (!s)
		return;
	col_real.ioctl(s->fd, PERF_EVENT_IOC_DISABLE, 0);
	drain_all_as(t, (uint32_t)t->tid, s);
	t->states = NULL;
	release(s);
}

void col_states_before_traced(struct col_thread *t)
{
	atomic_store(&asked_to_be_traced, true);
	if (!t || !t->states || !t->states->signal)
		return;
	/* Its intervals so far, then the same thread on the ring way. */
	while (atomic_exchange(&t->busy, 1))
		;
	col_states_thread_end(t);
	col_states_thread_start(t);
	atomic_store(&t->busy, 0);
}

void col_states_drop_after_fork(struct col_thread *t)
{
	if (!t->states)
		return;
	release(t->states);
	t->states = NULL;
}
