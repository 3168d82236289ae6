/* SPDX-License-Identifier: MIT
 *
 * col_counters.c — counter profiling (`tally record -c EVENT[/PERIOD]`).
 *
 * Each thread opens one perf event per counter (pid 0, any CPU), sampling
 * every `period` events with `sigtrap`: the kernel sends the thread SIGTRAP
 * on its return to user mode after the overflow, with the counter's tag in
 * si_perf_data.  The handler reads the counter (the count since the
 * thread's previous sample of it is the sample's weight, so overflows
 * coalesced into one signal lose nothing), unwinds from the interrupted
 * context and writes a COUNTER_SAMPLE.  For a page fault that is the
 * faulting instruction; for a hardware event, a few instructions after the
 * one that overflowed it (the Sun analyzer's skid).  When the thread ends, each
 * counter's total goes in a COUNTER_END record: what came after its last
 * sample is in no sample.
 *
 * A precise memory event (`tally record --data` where the PMU has one:
 * cli_datasrc.c) is a counter with a ring buffer: its overflows write
 * PERF_RECORD_SAMPLEs with the access's own pc, data address and data
 * source there, and the handler drains the ring into DATA_SAMPLE_SRC
 * records (format/exp_perf_mem.h parses them) with the interrupted stack,
 * instead of a COUNTER_SAMPLE.
 *
 * Kernel-mode events count when allowed (root, perf_event_paranoid <= 1),
 * else user mode only; the COUNTER_DEF says which.  `tally record` checked
 * that every event opens before the target started.
 *
 * Called at the collector's start, at thread start and end (col_thread.c),
 * around exec, and from the signal handler (col_sample.c).  Sigsafe file.
 */
#include <errno.h>
#include <linux/perf_event.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>

#include "collector/col_control.h"
#include "collector/col_counters.h"
#include "collector/col_fds.h"
#include "collector/col_files.h"
#include "collector/col_log.h"
#include "collector/col_real.h"
#include "collector/col_runtime.h"
#include "collector/col_signal.h"
#include "collector/col_stacks.h"
#include "collector/col_state.h"
#include "collector/col_sys.h"
#include "collector/col_time.h"
#include "format/exp_perf_mem.h"

#define RING_PAGES 8   /* a precise event's ring: 32 KiB, ~680 samples of 48 bytes */

/* sig_data of counter i's events is &tags[i]. */
static const char tags[EXP_MAX_COUNTERS];

/* Per counter: -1 unknown, 0 kernel-mode events included, 1 excluded. */
static _Atomic int exclude_kernel[EXP_MAX_COUNTERS] = { -1, -1, -1, -1, -1, -1, -1, -1 };
static _Atomic int defs_written;

struct col_counters_thread {
	int fd[EXP_MAX_COUNTERS];       /* -1: not counting */
	uint64_t last[EXP_MAX_COUNTERS];   /* the value at the previous sample */
	struct col_stack_memo memo;     /* the last stack interned */
	struct perf_event_mmap_page *ring[EXP_MAX_COUNTERS];   /* a precise event's; NULL */
};

void col_counters_configure(const char *spec)
{
	int bad = 0;

	col_proc.nevents = exp_events_decode(spec, col_proc.events, EXP_MAX_COUNTERS, &bad);
	size_t n = spec ? strlen(spec) : 0;
	if (n >= sizeof(col_proc.events_spec))
		n = 0;
	memcpy(col_proc.events_spec, spec ? spec : "", n);
	col_proc.events_spec[n] = 0;
	if (bad)
		col_log_sigsafe("warning", "TALLY_COUNTERS: events not understood were ignored");
}

static int perf_open(const struct exp_event *ev, int index, int excl)
{
	struct perf_event_attr a;

	exp_event_attr(ev, excl, true, &a);
	a.sig_data = (uint64_t)(uintptr_t)&tags[index];
	return col_real.perf_event_open(&a, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
}

/* Counter i of the calling thread: kernel mode included if allowed (the
 * first thread finds out).  fd or -errno. */
static int open_counter(int i)
{
	const struct exp_event *ev = &col_proc.events[i];
	int excl = atomic_load(&exclude_kernel[i]);

	if (excl == 0 && col_runtime_raw_syscalls())   /* a fork child: see col_clock.c */
		atomic_store(&exclude_kernel[i], excl = 1);
	if (excl >= 0) {
		int fd = perf_open(ev, i, excl);
		return fd >= 0 ? fd : -errno;
	}
	/* A program that execs by its own system calls: no overflow in kernel
	 * mode, whose SIGTRAP could reach the next image (col_runtime.h). */
	for (excl = col_runtime_raw_syscalls() ? 1 : 0; excl <= 1; excl++) {
		int fd = perf_open(ev, i, excl);
		if (fd >= 0) {
			atomic_store(&exclude_kernel[i], excl);
			return fd;
		}
	}
	return -errno;
}

/* open_counter for col_fd_open_above: `arg` points to the counter's index. */
static int open_counter_of(void *arg)
{
	return open_counter(*(int *)arg);
}

/* Counter i of thread state c, kept, is given up: closed, its slot -1. */
static void drop_counter(struct col_counters_thread *c, int i)
{
	col_fd_forget(c->fd[i]);
	col_sys_close(c->fd[i]);
	c->fd[i] = -1;
}

/* The COUNTER_DEF records, by the first thread that opened its counters. */
static void write_defs(struct col_thread *t)
{
	if (atomic_exchange(&defs_written, 1))
		return;
	for (int i = 0; i < col_proc.nevents; i++) {
		const struct exp_event *ev = &col_proc.events[i];
		struct exp_counter_def d;
		memset(&d, 0, sizeof(d));
		d.index = (uint16_t)i;
		d.flags = (atomic_load(&exclude_kernel[i]) == 0 ? EXP_COUNTER_KERNEL : 0) |
			  (ev->precise ? EXP_COUNTER_PRECISE : 0);
		d.type = ev->type;
		d.config = ev->config;
		d.period = ev->period;
		memcpy(d.name, ev->name, sizeof(d.name));
		col_write_sigsafe(t, EXP_FILE_HWC, EXP_REC_COUNTER_DEF, &d, sizeof(d));
		col_log_sigsafe("counter", ev->name);
	}
}

void col_counters_thread_start(struct col_thread *t)
{
	if (!col_proc.nevents || t->counters)
		return;
	struct col_counters_thread *c = col_sys_mmap(NULL, sizeof(*c), PROT_READ | PROT_WRITE,
						     MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
	if (c == MAP_FAILED) {
		col_log_error_sigsafe("counters: thread state", errno, "this thread's counters are not sampled");
		return;
	}
	for (int i = 0; i < EXP_MAX_COUNTERS; i++)
		c->fd[i] = -1;
	for (int i = 0; i < col_proc.nevents; i++) {
		/* Above the program's limit at once, enabled and mapped after:
		 * a program thread's open meanwhile gets the number it gets
		 * bare, unless it comes during the move (col_fd_open_above). */
		int fd = col_fd_open_above(open_counter_of, &i);
		if (fd >= 0)
			fd = col_fd_keep(fd, &c->fd[i], NULL);
		if (fd < 0) {
			col_log_error_sigsafe(col_proc.events[i].name, -fd,
					      col_real_perf_forbidden()
						      ? "this counter is not sampled in this thread: perf_event_open "
							"not tried under a seccomp filter"
						      : "this counter is not sampled in this thread");
			continue;
		}
		if (col_real.ioctl(fd, PERF_EVENT_IOC_ENABLE, 0) != 0) {
			col_log_error_sigsafe(col_proc.events[i].name, errno,
					      "this counter is not sampled in this thread");
			drop_counter(c, i);
			continue;
		}
		if (col_proc.events[i].precise) {
			void *r = col_sys_mmap(NULL, (RING_PAGES + 1) * 4096ul, PROT_READ | PROT_WRITE, MAP_SHARED,
					       fd, 0);
			if (r == MAP_FAILED) {
				col_log_error_sigsafe(col_proc.events[i].name, errno,
						      "its ring buffer: this event is not sampled in this thread");
				drop_counter(c, i);
				continue;
			}
			c->ring[i] = r;
		}
	}
	t->counters = c;
	write_defs(t);
}

/* The DATA_SAMPLE_SRC of one ring record: flags from its address and data
 * source (the thread's stack is the collector's to tell). */
static void write_precise(struct col_thread *t, int i, uint32_t stack, uint64_t entry_ns,
			  const struct exp_perf_mem_sample *ps, uint64_t count)
{
	uint16_t flags = exp_mem_is_store(ps->data_src) ? EXP_DATA_STORE : 0;

	if (!ps->addr)
		flags |= EXP_DATA_ADDR_UNKNOWN;
	else if (ps->addr >= t->unwind.stack_lo && ps->addr < t->unwind.stack_hi)
		flags |= EXP_DATA_STACK;
	struct exp_data_sample_src d = {
		.s = { .tid = (uint32_t)t->tid, .time_ns = entry_ns, .stack_id = stack, .index = (uint16_t)i,
		       .flags = flags, .pc = ps->ip, .addr = ps->addr, .count = count },
		.data_src = ps->data_src,
	};
	if (col_write_sigsafe(t, EXP_FILE_HWC, EXP_REC_DATA_SAMPLE_SRC, &d, sizeof(d)) != 0)
		col_count_sigsafe(EXP_CTR_COUNTER_LOST, 1);
}

/* Drain precise event i's ring: each sample a DATA_SAMPLE_SRC at the
 * interrupted stack, the counter's advance `count` shared among them (the
 * first takes the remainder); the kernel's lost records and a damaged ring
 * counted as lost samples.  Handler, t busy. */
static void take_precise(struct col_thread *t, struct col_counters_thread *c, int i, void *uc,
			 uint64_t entry_ns, uint64_t count, bool keep)
{
	struct perf_event_mmap_page *r = c->ring[i];
	uint64_t head = atomic_load_explicit((_Atomic uint64_t *)&r->data_head, memory_order_acquire);
	const uint8_t *data = (const uint8_t *)r + (r->data_offset ? r->data_offset : 4096);
	uint64_t size = r->data_size ? r->data_size : RING_PAGES * 4096ul;
	uint64_t body[8], n = 0, tail, lost = 0, leaf;
	uint32_t type, stack = 0;
	uint16_t misc;
	size_t len;
	int rc;

	for (tail = r->data_tail; (rc = exp_perf_ring_next(data, size, &tail, head, &type, &misc, body,
							     sizeof(body), &len)) == 1;)
		n += type == PERF_RECORD_SAMPLE;
	if (keep && n)
		stack = col_stack_interrupted_sigsafe(t, uc, &c->memo, &leaf);
	uint64_t each = n ? count / n : 0, first = n ? count - each * (n - 1) : 0;
	for (tail = r->data_tail; keep && exp_perf_ring_next(data, size, &tail, head, &type, &misc, body,
								sizeof(body), &len) == 1;) {
		struct exp_perf_mem_sample ps;
		if (type == PERF_RECORD_LOST && len >= 16)
			lost += body[1];
		if (type != PERF_RECORD_SAMPLE)
			continue;
		if (!stack || exp_perf_mem_parse(EXP_PERF_MEM_SAMPLE_TYPE, body, len, &ps) != 0) {
			lost++;
			continue;
		}
		write_precise(t, i, stack, entry_ns, &ps, first);
		first = each;
	}
	if (rc < 0)
		lost++;
	if (lost)
		col_count_sigsafe(EXP_CTR_COUNTER_LOST, lost);
	atomic_store_explicit((_Atomic uint64_t *)&r->data_tail, head, memory_order_release);
}

static void take_sample(struct col_thread *t, struct col_counters_thread *c, int i, void *uc,
			uint64_t entry_ns)
{
	uint64_t v, leaf;

	if (col_sys_read(c->fd[i], &v, sizeof(v)) != sizeof(v))
		v = c->last[i] + col_proc.events[i].period;
	uint64_t count = v > c->last[i] ? v - c->last[i] : 0;
	c->last[i] = v;
	if (c->ring[i]) {
		take_precise(t, c, i, uc, entry_ns, count, !col_control_paused_sigsafe(0));
		return;
	}
	if (col_control_paused_sigsafe(0))
		return;
	struct exp_counter_sample s = {
		.tid = (uint32_t)t->tid, .time_ns = entry_ns, .index = (uint16_t)i, .count = count,
		.stack_id = col_stack_interrupted_sigsafe(t, uc, &c->memo, &leaf),
	};
	if (!s.stack_id || col_write_sigsafe(t, EXP_FILE_HWC, EXP_REC_COUNTER_SAMPLE, &s, sizeof(s)) != 0)
		col_count_sigsafe(EXP_CTR_COUNTER_LOST, 1);
}

bool col_counters_signal_sigsafe(int sig, const siginfo_t *si, void *uc, uint64_t entry_ns)
{
	uint64_t data = col_signal_perf_data_sigsafe(sig, si);
	uint64_t first = (uint64_t)(uintptr_t)&tags[0];
	if (data < first || data >= first + EXP_MAX_COUNTERS)
		return false;
	int i = (int)(data - first);
	struct col_thread *t = col_thread_self_sigsafe();
	if (!t || t->exiting || !t->counters || t->counters->fd[i] < 0)
		return true;
	if (atomic_exchange_explicit(&t->busy, 1, memory_order_acquire)) {
		/* Inside the collector: the count goes to the next sample. */
		col_count_sigsafe(EXP_CTR_COUNTER_LOST, 1);
		return true;
	}
	take_sample(t, t->counters, i, uc, entry_ns);
	col_cost_outside(t, col_now_ns_sigsafe() - entry_ns);
	atomic_store_explicit(&t->busy, 0, memory_order_release);
	return true;
}

static void release(struct col_counters_thread *c)
{
	for (int i = 0; i < EXP_MAX_COUNTERS; i++)
		if (c->fd[i] >= 0) {
			if (c->ring[i])
				col_sys_munmap(c->ring[i], (RING_PAGES + 1) * 4096ul);
			col_fd_forget(c->fd[i]);
			col_sys_close(c->fd[i]);
		}
	col_sys_munmap(c, sizeof(*c));
}

void col_counters_thread_end(struct col_thread *t)
{
	struct col_counters_thread *c = t->counters;

	if (!c)
		return;
	for (int i = 0; i < col_proc.nevents; i++) {
		uint64_t v;
		if (c->fd[i] < 0)
			continue;
		col_real.ioctl(c->fd[i], PERF_EVENT_IOC_DISABLE, 0);
		if (col_sys_read(c->fd[i], &v, sizeof(v)) != sizeof(v))
			continue;
		struct exp_counter_end e = {
			.tid = (uint32_t)t->tid, .time_ns = col_now_ns_sigsafe(), .index = (uint16_t)i,
			.total = v,
		};
		col_write_sigsafe(t, EXP_FILE_HWC, EXP_REC_COUNTER_END, &e, sizeof(e));
	}
	t->counters = NULL;
	release(c);
}

void col_counters_drop_after_fork(struct col_thread *t)
{
	if (!t->counters)
		return;
	release(t->counters);
	t->counters = NULL;
}
