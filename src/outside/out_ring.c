/* SPDX-License-Identifier: MIT
 *
 * out_ring.c — the outside mode's perf events and rings (out_ring.h).
 *
 * Called by `tally record` only (never in the target), from its one thread.
 * Each drain copies every ring's complete records into one buffer, sorts
 * them by their time (every record carries it: sample_id_all) and passes
 * them on, so that a mapping or a fork recorded on one CPU is seen before
 * a later sample recorded on another.  A sample is ~16.5 KiB (the stack
 * copy), so a ring holds a few dozen: it is drained when a quarter is full
 * (wakeup_watermark) or every `timeout_ms`.
 */
#include <errno.h>
#include <linux/perf_event.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "outside/out_ring.h"

struct ring {
	int fd;
	int switches;                  /* the context-switch event's (its samples are
	                                  OUT_RECORD_SWITCH_SAMPLE) */
	struct perf_event_mmap_page *pg;
	size_t map_bytes;
};

struct slot {
	uint64_t time_ns;
	size_t off, len;
	int switches;
};

struct out_rings {
	struct ring *rings;
	size_t nrings;
	size_t page, data_bytes;       /* a ring's data area */
	uint64_t lost;
	uint8_t *buf;                  /* one drain's records */
	size_t buf_cap;
	struct slot *slots;
	size_t slots_cap;
};

static int perf_open(struct perf_event_attr *a, pid_t pid, int cpu)
{
	return (int)syscall(SYS_perf_event_open, a, pid, cpu, -1, PERF_FLAG_FD_CLOEXEC);
}

/* Close the rings from index `from` on. */
static void close_from(struct out_rings *r, size_t from)
{
	for (size_t i = from; i < r->nrings; i++) {
		if (r->rings[i].pg)
			munmap(r->rings[i].pg, r->rings[i].map_bytes);
		close(r->rings[i].fd);
	}
	r->nrings = from;
}

static void attr_init(struct perf_event_attr *a, uint64_t period_ns, int enable_on_exec,
		      int exclude_kernel, int callchain, size_t data_bytes)
{
	memset(a, 0, sizeof(*a));
	a->type = PERF_TYPE_SOFTWARE;
	a->size = sizeof(*a);
	a->config = PERF_COUNT_SW_TASK_CLOCK;
	a->sample_period = period_ns;
	a->sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_CPU |
			 PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER;
	if (callchain) {                   /* the kernel's part: the user's is unwound here */
		a->sample_type |= PERF_SAMPLE_CALLCHAIN;
		a->exclude_callchain_user = 1;
	}
	a->sample_regs_user = OUT_REGS_MASK;
	a->sample_stack_user = OUT_STACK_BYTES;
	a->disabled = enable_on_exec ? 1 : 0;
	a->enable_on_exec = enable_on_exec ? 1 : 0;
	a->inherit = 1;
	a->exclude_kernel = exclude_kernel ? 1 : 0;
	a->exclude_hv = 1;
	a->mmap = 1;
	a->mmap2 = 1;
	a->comm = 1;
	a->comm_exec = 1;
	a->task = 1;
	a->context_switch = 1;         /* each thread's time on a CPU */
	a->sample_id_all = 1;
	a->use_clockid = 1;
	a->clockid = CLOCK_MONOTONIC;
	a->watermark = 1;
	a->wakeup_watermark = (uint32_t)(data_bytes / 4);
}

/* --states: the software context-switch counter, period 1, sampling the
 * same registers and stack as the clock (the user's state at the system
 * call or the interrupt that took the thread off its CPU), without the side
 * records the clock's events already give. */
static void switch_attr(struct perf_event_attr *a, uint64_t period_ns, int enable_on_exec,
			int callchain, size_t data_bytes)
{
	attr_init(a, period_ns, enable_on_exec, 0, callchain, data_bytes);
	a->config = PERF_COUNT_SW_CONTEXT_SWITCHES;
	a->sample_period = 1;
	a->mmap = a->mmap2 = a->comm = a->comm_exec = a->task = a->context_switch = 0;
}

/* Open every event with this attr and ring size; 0, or an errno. */
static int open_all(struct out_rings *r, const pid_t *tids, size_t ntids, long ncpus,
		    struct perf_event_attr *a, int switches)
{
	for (size_t t = 0; t < ntids; t++) {
		for (long cpu = 0; cpu < ncpus; cpu++) {
			int fd = perf_open(a, tids[t], (int)cpu);
			if (fd < 0) {
				if (errno == ENODEV)
					continue;              /* an offline CPU */
				if (errno == ESRCH && ntids > 1)
					break;                 /* a thread that just ended */
				return errno;
			}
			struct ring *g = &r->rings[r->nrings++];
			g->fd = fd;
			g->switches = switches;
			g->pg = NULL;
			g->map_bytes = r->page + r->data_bytes;
			void *m = mmap(NULL, g->map_bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
			if (m == MAP_FAILED)
				return errno;
			g->pg = m;
		}
	}
	return r->nrings ? 0 : ENODEV;
}

struct out_rings *out_ring_open(const pid_t *tids, size_t ntids, int enable_on_exec,
				uint64_t period_ns, int callchain, int *kernel_ticks, int *switch_stacks,
				char *why, size_t why_len)
{
	struct out_rings *r = calloc(1, sizeof(*r));
	long ncpus = sysconf(_SC_NPROCESSORS_CONF);

	if (!r || ncpus < 1 || !(r->rings = calloc(2 * (size_t)ncpus * ntids, sizeof(*r->rings)))) {
		snprintf(why, why_len, "out of memory");
		free(r);
		return NULL;
	}
	r->page = (size_t)sysconf(_SC_PAGESIZE);
	/* The largest ring the kernel grants (an unprivileged user gets
	 * perf_event_mlock_kb, 516 KiB by default, per CPU), with the
	 * kernel's ticks where it allows them. */
	int err = 0;
	for (int excl = 0; excl <= 1; excl++) {
		for (size_t pages = 512; pages >= 64; pages /= 2) {
			struct perf_event_attr a;
			r->data_bytes = pages * r->page;
			attr_init(&a, period_ns, enable_on_exec, excl, callchain && !excl, r->data_bytes);
			err = open_all(r, tids, ntids, ncpus, &a, 0);
			if (!err) {
				*kernel_ticks = !excl;
				if (*switch_stacks) {
					/* It counts in the kernel: not allowed where the
					 * clock had to leave the kernel out. */
					size_t clock_rings = r->nrings;
					switch_attr(&a, period_ns, enable_on_exec, callchain, r->data_bytes);
					if (excl || open_all(r, tids, ntids, ncpus, &a, 1) != 0) {
						close_from(r, clock_rings);
						*switch_stacks = 0;
					}
				}
				return r;
			}
			close_from(r, 0);
			if (err != EPERM && err != ENOMEM)
				break;
		}
		if (err != EACCES && err != EPERM)
			break;
	}
	if (err == EACCES || err == EPERM)
		snprintf(why, why_len, "perf_event_open: %s (perf_event_paranoid above 2 forbids "
			 "sampling: run `sysctl kernel.perf_event_paranoid=2`, or as root)", strerror(err));
	else
		snprintf(why, why_len, "perf_event_open: %s", strerror(err));
	free(r->rings);
	free(r);
	return NULL;
}

/* Room for `more` bytes and one slot more; false when out of memory. */
static int reserve(struct out_rings *r, size_t used, size_t more, size_t nslots)
{
	if (used + more > r->buf_cap) {
		size_t cap = r->buf_cap ? r->buf_cap : (size_t)1 << 20;
		while (cap < used + more)
			cap *= 2;
		uint8_t *b = realloc(r->buf, cap);
		if (!b)
			return 0;
		r->buf = b;
		r->buf_cap = cap;
	}
	if (nslots + 1 > r->slots_cap) {
		size_t cap = r->slots_cap ? 2 * r->slots_cap : 1024;
		struct slot *s = realloc(r->slots, cap * sizeof(*s));
		if (!s)
			return 0;
		r->slots = s;
		r->slots_cap = cap;
	}
	return 1;
}

/* The time of a record: a sample's TIME field (after IP and TID), any
 * other's sample_id (TID, TIME, CPU at its end). */
static uint64_t record_time(uint32_t type, const uint8_t *rec, size_t len)
{
	uint64_t t = 0;

	if (type == PERF_RECORD_SAMPLE && len >= 32)
		memcpy(&t, rec + 24, 8);
	else if (len >= 8 + 24)
		memcpy(&t, rec + len - 16, 8);
	return t;
}

static int by_time(const void *a, const void *b)
{
	const struct slot *x = a, *y = b;

	if (x->time_ns != y->time_ns)
		return x->time_ns < y->time_ns ? -1 : 1;
	return x->off < y->off ? -1 : x->off > y->off;   /* a ring's own order */
}

size_t out_ring_drain(struct out_rings *r, int timeout_ms, out_record_fn fn, void *arg)
{
	struct pollfd pfd[256];
	size_t np = r->nrings < 256 ? r->nrings : 256;

	for (size_t i = 0; i < np; i++)
		pfd[i] = (struct pollfd){ r->rings[i].fd, POLLIN, 0 };
	if (timeout_ms > 0)
		poll(pfd, (nfds_t)np, timeout_ms);
	size_t used = 0, n = 0;
	for (size_t i = 0; i < r->nrings; i++) {
		struct ring *g = &r->rings[i];
		uint8_t *data = (uint8_t *)g->pg + r->page;
		uint64_t head = __atomic_load_n(&g->pg->data_head, __ATOMIC_ACQUIRE);
		uint64_t tail = g->pg->data_tail;
		while (tail + sizeof(struct perf_event_header) <= head) {
			struct perf_event_header h;
			for (size_t k = 0; k < sizeof(h); k++)
				((uint8_t *)&h)[k] = data[(tail + k) % r->data_bytes];
			if (h.size < sizeof(h) || tail + h.size > head)
				break;
			if (!reserve(r, used, h.size, n)) {
				r->lost++;             /* out of memory: counted, skipped */
				tail += h.size;
				continue;
			}
			size_t at = (size_t)(tail % r->data_bytes), first = r->data_bytes - at;
			if (first >= h.size) {
				memcpy(r->buf + used, data + at, h.size);
			} else {
				memcpy(r->buf + used, data + at, first);
				memcpy(r->buf + used + first, data, h.size - first);
			}
			if (h.type == PERF_RECORD_LOST && h.size >= 24) {
				uint64_t lost;
				memcpy(&lost, r->buf + used + 16, 8);
				r->lost += lost;
			}
			r->slots[n++] = (struct slot){ record_time(h.type, r->buf + used, h.size), used, h.size,
						       g->switches };
			used += h.size;
			tail += h.size;
		}
		__atomic_store_n(&g->pg->data_tail, tail, __ATOMIC_RELEASE);
	}
	qsort(r->slots, n, sizeof(*r->slots), by_time);
	for (size_t i = 0; i < n; i++) {
		const uint8_t *rec = r->buf + r->slots[i].off;
		struct perf_event_header h;
		memcpy(&h, rec, sizeof(h));
		uint32_t type = h.type == PERF_RECORD_SAMPLE && r->slots[i].switches ? OUT_RECORD_SWITCH_SAMPLE
										     : h.type;
		fn(arg, type, h.misc, rec, r->slots[i].len);
	}
	return n;
}

uint64_t out_ring_lost(const struct out_rings *r)
{
	return r->lost;
}

size_t out_ring_bytes(const struct out_rings *r)
{
	return r->data_bytes;
}

void out_ring_close(struct out_rings *r)
{
	if (!r)
		return;
	close_from(r, 0);
	free(r->rings);
	free(r->buf);
	free(r->slots);
	free(r);
}
