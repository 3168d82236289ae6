/* SPDX-License-Identifier: MIT
 *
 * cli_kernel.c — kernel call chains for `tally record` (cli_kernel.h).
 *
 * The collector's clock (collector/col_clock.c) is one task-clock event
 * per process, inherited by its threads, raising SIGTRAP: a signal carries
 * no call chain, and the kernel does not map the ring buffer of an
 * inherited per-task event.  So `tally record` itself opens, on the program
 * before its exec, one task-clock event per CPU (an inherited per-CPU
 * event may have a ring), counting every thread and descendant the program
 * creates, with the collector's period, sampling in kernel mode only
 * (exclude_user: a tick in user mode writes nothing) with the kernel's
 * call chain, its time on CLOCK_MONOTONIC as the collector's.  Nothing runs
 * in the program: what it costs is the kernel's, a timer interrupt per
 * period of CPU time and a chain walk per tick in the kernel.  tally drains
 * the rings while it waits for the program and writes each sample as a
 * KERNEL_SAMPLE record of kernel.dat; at the end, the kernel functions the
 * samples hit are copied from /proc/kallsyms (KERNEL_SYM), so that the
 * experiment reports elsewhere.  The analyzer joins the samples to the
 * collector's (format/exp_read_kernel.c).
 *
 * With --states, a second event per CPU, the software context-switch
 * counter with a period of 1, records the kernel's call chain at each
 * switch of a thread out of its CPU (perf_sw_event_sched, in the
 * scheduler: schedule <- anon_pipe_read <- vfs_read <- ksys_read...) as a
 * KERNEL_SWITCH record; the analyzer puts it above the user stack of the
 * STATE interval the collector wrote for that switch.  A software event, no
 * tracepoint: it needs no tracefs, only the right to count in the kernel.
 *
 * Attached to a running process (cli_kernel_attach), the clock's event is
 * opened on each of its threads and every CPU, inherited by the threads
 * each creates; one ring per CPU, the other events writing into it; with
 * --states the context-switch event alike, into rings of its own.
 *
 * The kernel allows it to root, CAP_PERFMON or perf_event_paranoid <= 1;
 * otherwise the log says why and how to allow it, and nothing else changes.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/perf_event.h>
#include <poll.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "cli/cli.h"
#include "cli/cli_kernel.h"
#include "cli/cli_record.h"
#include "format/exp_header.h"
#include "format/exp_launch.h"
#include "format/exp_records.h"

#define RING_PAGES 64u            /* data pages per CPU: 256 KiB */

struct ring {
	int fd;
	bool switches;             /* the context-switch event's, else the clock's */
	struct perf_event_mmap_page *pg;
	size_t map_bytes;
};

struct cli_kernel {
	struct ring *rings;
	size_t nrings;
	size_t page;
	FILE *out;                 /* kernel.dat */
	char path[4200];
	uint64_t off;              /* bytes written to it */
	uint64_t period_ns;
	uint64_t samples, lost, empty, write_errors;
	bool switches_on;          /* the context-switch events are open */
	uint64_t switches, switches_lost, switches_empty;
	char switches_why[512];    /* why they are not, when asked for */
	uint64_t *pcs;             /* distinct kernel pcs seen (open addressing, 0 empty) */
	size_t pcs_cap, npcs;
	int *extra;                /* attach: the other threads' events, writing to the rings */
	size_t nextra;
};

static int perf_open(struct perf_event_attr *a, pid_t pid, int cpu)
{
	return (int)syscall(SYS_perf_event_open, a, pid, cpu, -1, PERF_FLAG_FD_CLOEXEC);
}

static int paranoid(void)
{
	FILE *f = fopen("/proc/sys/kernel/perf_event_paranoid", "r");
	int v = 2;

	if (f) {
		if (fscanf(f, "%d", &v) != 1)
			v = 2;
		fclose(f);
	}
	return v;
}

/* Append one record (len a multiple of 8) to kernel.dat, never across a
 * block boundary (the rest of the block is zeros). */
static void put(struct cli_kernel *k, const void *rec, size_t len)
{
	static const uint8_t zeros[EXP_BLOCK_BYTES];
	size_t in_block = (size_t)(k->off % EXP_BLOCK_BYTES);

	if (in_block + len > EXP_BLOCK_BYTES) {
		size_t pad = EXP_BLOCK_BYTES - in_block;
		if (fwrite(zeros, 1, pad, k->out) != pad)
			k->write_errors++;
		k->off += pad;
	}
	if (fwrite(rec, 1, len, k->out) != len)
		k->write_errors++;
	k->off += len;
}

static void put_info(struct cli_kernel *k)
{
	struct exp_kernel_info r = { EXP_REC_WORD(EXP_REC_KERNEL_INFO, sizeof(r)),
				     k->switches_on ? EXP_KERNEL_INFO_SWITCHES : 0, k->period_ns, k->lost,
				     k->switches_lost };
	put(k, &r, sizeof(r));
}

static void note_pc(struct cli_kernel *k, uint64_t pc)
{
	if (2 * (k->npcs + 1) > k->pcs_cap) {
		size_t cap = k->pcs_cap ? 2 * k->pcs_cap : 4096;
		uint64_t *t = calloc(cap, sizeof(*t));
		if (!t)
			return;
		for (size_t i = 0; i < k->pcs_cap; i++) {
			if (!k->pcs[i])
				continue;
			size_t j = (k->pcs[i] * 0x9e3779b97f4a7c15ull >> 20) & (cap - 1);
			while (t[j])
				j = (j + 1) & (cap - 1);
			t[j] = k->pcs[i];
		}
		free(k->pcs);
		k->pcs = t;
		k->pcs_cap = cap;
	}
	size_t j = (pc * 0x9e3779b97f4a7c15ull >> 20) & (k->pcs_cap - 1);
	for (; k->pcs[j]; j = (j + 1) & (k->pcs_cap - 1))
		if (k->pcs[j] == pc)
			return;
	k->pcs[j] = pc;
	k->npcs++;
}

/* One PERF_RECORD_SAMPLE (TID, TIME, CALLCHAIN) as a KERNEL_SAMPLE, or
 * a KERNEL_SWITCH when it is the context-switch event's. */
/* A chain (pcs as perf wrote them, context markers included) as a
 * KERNEL_SAMPLE, or with `sw` a KERNEL_SWITCH; none when it holds no
 * kernel pc. */
static void put_chain(struct cli_kernel *k, uint32_t pid, uint32_t tid, uint64_t time_ns,
		      const uint64_t *pcs, size_t npcs, bool sw)
{
	struct {
		struct exp_kernel_sample h;
		uint64_t pcs[EXP_KERNEL_MAX_FRAMES];
	} r;
	uint16_t n = 0;

	for (size_t i = 0; i < npcs && n < EXP_KERNEL_MAX_FRAMES; i++) {
		if (pcs[i] >= (uint64_t)PERF_CONTEXT_MAX || pcs[i] < EXP_KERNEL_ADDR_MIN)
			continue;                /* a context marker */
		r.pcs[n++] = pcs[i];
		note_pc(k, pcs[i]);
	}
	if (!n) {
		(*(sw ? &k->switches_empty : &k->empty))++;
		return;
	}
	memset(&r.h, 0, sizeof(r.h));
	r.h.word = EXP_REC_WORD(sw ? EXP_REC_KERNEL_SWITCH : EXP_REC_KERNEL_SAMPLE,
				sizeof(r.h) + 8u * n);
	r.h.pid = pid;
	r.h.tid = tid;
	r.h.nframes = n;
	r.h.time_ns = time_ns;
	put(k, &r, sizeof(r.h) + 8u * n);
	(*(sw ? &k->switches : &k->samples))++;
}

static void take_sample(struct cli_kernel *k, const uint8_t *p, size_t len, bool sw)
{
	uint64_t pcs[EXP_KERNEL_MAX_FRAMES + 8];   /* room for the context markers */
	uint32_t pid, tid;
	uint64_t time_ns, nr;

	if (len < 8 + 24)
		return;
	memcpy(&pid, p + 8, 4);
	memcpy(&tid, p + 12, 4);
	memcpy(&time_ns, p + 16, 8);
	memcpy(&nr, p + 24, 8);
	if (nr > (len - 32) / 8)
		nr = (len - 32) / 8;
	if (nr > sizeof(pcs) / 8)
		nr = sizeof(pcs) / 8;
	memcpy(pcs, p + 32, 8 * nr);
	put_chain(k, pid, tid, time_ns, pcs, (size_t)nr, sw);
}

/* Move what ring `r` holds to kernel.dat. */
static void drain(struct cli_kernel *k, struct ring *r)
{
	uint8_t *data = (uint8_t *)r->pg + k->page;
	uint64_t size = RING_PAGES * k->page;
	uint64_t head = __atomic_load_n(&r->pg->data_head, __ATOMIC_ACQUIRE);
	uint64_t tail = r->pg->data_tail;
	uint8_t rec[65536];

	while (tail + sizeof(struct perf_event_header) <= head) {
		struct perf_event_header h;
		for (size_t i = 0; i < sizeof(h); i++)
			((uint8_t *)&h)[i] = data[(tail + i) % size];
		if (h.size < sizeof(h) || tail + h.size > head)
			break;
		for (size_t i = 0; i < h.size; i++)
			rec[i] = data[(tail + i) % size];
		if (h.type == PERF_RECORD_SAMPLE)
			take_sample(k, rec, h.size, r->switches);
		else if (h.type == PERF_RECORD_LOST && h.size >= 24) {
			uint64_t lost;
			memcpy(&lost, rec + 16, 8);
			*(r->switches ? &k->switches_lost : &k->lost) += lost;
		}
		tail += h.size;
	}
	__atomic_store_n(&r->pg->data_tail, tail, __ATOMIC_RELEASE);
}

static void close_rings_from(struct cli_kernel *k, size_t from);

static void close_rings(struct cli_kernel *k)
{
	for (size_t i = 0; i < k->nextra; i++)
		close(k->extra[i]);
	free(k->extra);
	k->extra = NULL;
	k->nextra = 0;
	close_rings_from(k, 0);
	free(k->rings);
	k->rings = NULL;
	k->nrings = 0;
}

static int open_file(struct cli_kernel *k, int dirfd, const char *dir, char *why, size_t why_len);

/* Event `fd` as a new ring of k's: 0, or errno (the mapping failed). */
static int add_ring(struct cli_kernel *k, int fd, bool switches)
{
	struct ring *r = &k->rings[k->nrings++];

	r->fd = fd;
	r->switches = switches;
	r->map_bytes = (RING_PAGES + 1) * k->page;
	void *m = mmap(NULL, r->map_bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (m == MAP_FAILED)
		return errno;
	r->pg = m;
	return 0;
}

/* Open event `a` on `child` on every CPU, each with its ring.  0, or the
 * first errno that is not an offline CPU's (ENODEV when none opened). */
static int open_rings(struct cli_kernel *k, struct perf_event_attr *a, pid_t child, long ncpus,
		      bool switches)
{
	size_t before = k->nrings;

	a->wakeup_watermark = RING_PAGES * (uint32_t)k->page / 4;
	a->watermark = 1;
	for (long cpu = 0; cpu < ncpus; cpu++) {
		int fd = perf_open(a, child, (int)cpu);
		if (fd < 0) {
			if (errno != ENODEV)
				return errno;
			continue;              /* an offline CPU: ENODEV */
		}
		int e = add_ring(k, fd, switches);
		if (e)
			return e;
	}
	return k->nrings > before ? 0 : ENODEV;
}

/* Close the rings from index `from` on. */
static void close_rings_from(struct cli_kernel *k, size_t from)
{
	for (size_t i = from; i < k->nrings; i++) {
		if (k->rings[i].pg)
			munmap(k->rings[i].pg, k->rings[i].map_bytes);
		close(k->rings[i].fd);
	}
	k->nrings = from;
}

/* Why the kernel refused event errno `e`, and how to allow it. */
static void refused(int e, char *why, size_t why_len)
{
	if (e == EACCES || e == EPERM)
		snprintf(why, why_len,
			 "not allowed (perf_event_paranoid is %d, and tally has neither root nor "
			 "CAP_PERFMON): system-call time is charged to the calling function; to see the "
			 "kernel's frames, run `sysctl kernel.perf_event_paranoid=1` or give tally CAP_PERFMON",
			 paranoid());
	else
		snprintf(why, why_len, "not recorded: perf_event_open: %s", strerror(e));
}

/* A software event of the child and its descendants, on from their exec,
 * whose samples carry the kernel's part of the call chain and
 * CLOCK_MONOTONIC times (the collector's clock). */
static void kernel_chain_attr(struct perf_event_attr *a, uint64_t config, uint64_t period)
{
	memset(a, 0, sizeof(*a));
	a->type = PERF_TYPE_SOFTWARE;
	a->size = sizeof(*a);
	a->config = config;
	a->sample_period = period;
	a->sample_type = PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_CALLCHAIN;
	a->disabled = 1;
	a->enable_on_exec = 1;
	a->inherit = 1;
	a->exclude_hv = 1;
	a->exclude_callchain_user = 1;
	a->use_clockid = 1;
	a->clockid = CLOCK_MONOTONIC;
}

/* The context-switch events (--states): on success k->switches_on, else
 * k->switches_why says why not; the clock's events stay either way. */
static void open_switches(struct cli_kernel *k, pid_t child, long ncpus)
{
	struct perf_event_attr a;
	size_t from = k->nrings;

	kernel_chain_attr(&a, PERF_COUNT_SW_CONTEXT_SWITCHES, 1);   /* every switch out */
	int e = open_rings(k, &a, child, ncpus, true);
	if (e) {
		close_rings_from(k, from);
		refused(e, k->switches_why, sizeof(k->switches_why));
		return;
	}
	k->switches_on = true;
}

/* A cli_kernel with room for two rings per CPU (*ncpus), or NULL with `why`. */
static struct cli_kernel *kernel_new(uint64_t period_ns, long *ncpus, char *why, size_t why_len)
{
	struct cli_kernel *k = calloc(1, sizeof(*k));

	*ncpus = sysconf(_SC_NPROCESSORS_CONF);
	if (!k || *ncpus < 1) {
		snprintf(why, why_len, "not recorded: %s", k ? "no CPU count" : "out of memory");
		free(k);
		return NULL;
	}
	k->page = (size_t)sysconf(_SC_PAGESIZE);
	k->period_ns = period_ns;
	k->rings = calloc(2 * (size_t)*ncpus, sizeof(*k->rings));
	if (!k->rings) {
		snprintf(why, why_len, "not recorded: out of memory");
		free(k);
		return NULL;
	}
	return k;
}

struct cli_kernel *cli_kernel_open(pid_t child, uint64_t period_ns, bool states, const char *dir,
				   char *why, size_t why_len)
{
	long ncpus;
	struct cli_kernel *k = kernel_new(period_ns, &ncpus, why, why_len);

	if (!k)
		return NULL;
	struct perf_event_attr a;
	kernel_chain_attr(&a, PERF_COUNT_SW_TASK_CLOCK, period_ns);
	a.exclude_user = 1;                  /* ticks in the kernel only */
	int first_errno = open_rings(k, &a, child, ncpus, false);
	if (first_errno) {
		refused(first_errno, why, why_len);
		close_rings(k);
		free(k);
		return NULL;
	}
	if (states)
		open_switches(k, child, ncpus);
	if (open_file(k, -1, dir, why, why_len) != 0) {
		close_rings(k);
		free(k);
		return NULL;
	}
	return k;
}

/* kernel.dat in `dir`, its header and first KERNEL_INFO: 0, or -1 with
 * `why` (the file could not be made). */
static int open_file(struct cli_kernel *k, int dirfd, const char *dir, char *why, size_t why_len)
{
	snprintf(k->path, sizeof(k->path), "%s/%s", dir, exp_file_name(EXP_FILE_KERNEL));
	int fd = dirfd >= 0 ? openat(dirfd, exp_file_name(EXP_FILE_KERNEL),
				     O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644)
			    : open(k->path, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0644);
	k->out = fd >= 0 ? fdopen(fd, "w") : NULL;
	if (!k->out) {
		snprintf(why, why_len, "not recorded: %s: %s", k->path, strerror(errno));
		if (fd >= 0)
			close(fd);
		return -1;
	}
	struct exp_file_header h;
	exp_file_header_init(&h, EXP_FILE_KERNEL, EXP_BLOCK_BYTES, (uint32_t)getpid(), cli_now_ns(CLOCK_MONOTONIC),
			     cli_now_ns(CLOCK_REALTIME));
	if (fwrite(&h, 1, sizeof(h), k->out) != sizeof(h))
		k->write_errors++;
	k->off = sizeof(h);
	put_info(k);
	return 0;
}

struct cli_kernel *cli_kernel_file(const char *dir, uint64_t period_ns, char *why, size_t why_len)
{
	struct cli_kernel *k = calloc(1, sizeof(*k));

	if (!k) {
		snprintf(why, why_len, "not recorded: out of memory");
		return NULL;
	}
	k->period_ns = period_ns;
	if (open_file(k, -1, dir, why, why_len) != 0) {
		free(k);
		return NULL;
	}
	return k;
}

/* The threads of `pid` now (/proc/PID/task) into *tids: their number, or
 * -1 with errno. */
static ssize_t list_threads(pid_t pid, pid_t **tids)
{
	char path[64];
	size_t n = 0, cap = 0;

	snprintf(path, sizeof(path), "/proc/%d/task", (int)pid);
	DIR *d = opendir(path);
	if (!d)
		return -1;
	*tids = NULL;
	for (struct dirent *e; (e = readdir(d));) {
		pid_t t = (pid_t)atoi(e->d_name);
		if (t <= 0)
			continue;
		if (n == cap) {
			pid_t *q = realloc(*tids, (cap = cap ? 2 * cap : 64) * sizeof(*q));
			if (!q) {
				closedir(d);
				return -1;
			}
			*tids = q;
		}
		(*tids)[n++] = t;
	}
	closedir(d);
	return (ssize_t)n;
}

/* Whether thread `tid` is one of the n already opened. */
static bool opened(const pid_t *done, size_t n, pid_t tid)
{
	for (size_t i = 0; i < n; i++)
		if (done[i] == tid)
			return true;
	return false;
}

/* Event `a` on thread `tid` on every CPU: the first thread's events make
 * the CPUs' rings (ring_of[cpu]), the others write into them.  0, ESRCH
 * (the thread ended), or errno. */
static int open_thread(struct cli_kernel *k, struct perf_event_attr *a, pid_t tid, long ncpus,
		       int *ring_of, bool switches)
{
	for (long cpu = 0; cpu < ncpus; cpu++) {
		int fd = perf_open(a, tid, (int)cpu);
		if (fd < 0) {
			if (errno == ENODEV)
				continue;      /* an offline CPU */
			return errno;
		}
		if (ring_of[cpu] < 0) {
			ring_of[cpu] = (int)k->nrings;
			int e = add_ring(k, fd, switches);
			if (e)
				return e;
			continue;
		}
		int *q = realloc(k->extra, (k->nextra + 1) * sizeof(*q));
		if (!q) {
			close(fd);
			return ENOMEM;
		}
		k->extra = q;
		k->extra[k->nextra++] = fd;
		if (ioctl(fd, PERF_EVENT_IOC_SET_OUTPUT, k->rings[ring_of[cpu]].fd) != 0)
			return errno;
	}
	return 0;
}

struct cli_kernel *cli_kernel_attach(pid_t pid, uint64_t period_ns, bool states, int dirfd,
				     const char *dir, char *why, size_t why_len)
{
	long ncpus;
	struct cli_kernel *k = kernel_new(period_ns, &ncpus, why, why_len);
	pid_t *done = NULL, *tids = NULL;
	size_t ndone = 0;
	int *ring_of = k ? malloc(2 * (size_t)ncpus * sizeof(*ring_of)) : NULL;
	int *sw_ring_of = ring_of ? ring_of + ncpus : NULL;   /* the switch events' rings */
	int e = ENOMEM;

	if (!k)
		return NULL;
	if (!ring_of)
		goto fail;
	for (long c = 0; c < 2 * ncpus; c++)
		ring_of[c] = -1;
	struct perf_event_attr a, sw;
	kernel_chain_attr(&a, PERF_COUNT_SW_TASK_CLOCK, period_ns);
	a.exclude_user = 1;
	a.enable_on_exec = 0;                /* cli_kernel_enable starts them */
	a.wakeup_watermark = RING_PAGES * (uint32_t)k->page / 4;
	a.watermark = 1;
	/* --states: each switch out of a CPU, with the kernel's chain. */
	kernel_chain_attr(&sw, PERF_COUNT_SW_CONTEXT_SWITCHES, 1);
	sw.enable_on_exec = 0;
	sw.wakeup_watermark = a.wakeup_watermark;
	sw.watermark = 1;
	bool sw_open = states;
	/* Each thread's events are inherited by the threads it creates from
	 * then on; a thread made while we list and open is found by the next
	 * round, until one finds none new. */
	for (int round = 0; round < 16; round++) {
		ssize_t n = list_threads(pid, &tids);
		if (n < 0) {
			e = errno;
			goto fail;
		}
		size_t fresh = 0;
		for (ssize_t i = 0; i < n; i++) {
			if (opened(done, ndone, tids[i]))
				continue;
			int r = open_thread(k, &a, tids[i], ncpus, ring_of, false);
			if (r && r != ESRCH) {
				e = r;
				goto fail;
			}
			int rs = sw_open ? open_thread(k, &sw, tids[i], ncpus, sw_ring_of, true) : 0;
			if (rs && rs != ESRCH) {   /* the clock's chains stay: said at the close */
				refused(rs, k->switches_why, sizeof(k->switches_why));
				sw_open = false;
			}
			pid_t *q = realloc(done, (ndone + 1) * sizeof(*q));
			if (!q)
				goto fail;
			done = q;
			done[ndone++] = tids[i];
			fresh++;
		}
		free(tids);
		tids = NULL;
		if (!fresh)
			break;
	}
	free(done);
	free(ring_of);
	k->switches_on = sw_open;
	if (!k->nrings) {
		refused(ESRCH, why, why_len);
		close_rings(k);
		free(k);
		return NULL;
	}
	if (open_file(k, dirfd, dir, why, why_len) != 0) {
		close_rings(k);
		free(k);
		return NULL;
	}
	return k;
fail:
	refused(e, why, why_len);
	free(tids);
	free(done);
	free(ring_of);
	close_rings(k);
	free(k);
	return NULL;
}

void cli_kernel_enable(struct cli_kernel *k, bool on)
{
	unsigned long req = on ? PERF_EVENT_IOC_ENABLE : PERF_EVENT_IOC_DISABLE;

	for (size_t i = 0; i < k->nrings; i++)
		ioctl(k->rings[i].fd, req, 0);
	for (size_t i = 0; i < k->nextra; i++)
		ioctl(k->extra[i], req, 0);
}

void cli_kernel_chain(void *arg, uint32_t pid, uint32_t tid, uint64_t time_ns, const uint64_t *pcs,
		      size_t n)
{
	put_chain(arg, pid, tid, time_ns, pcs, n, false);
}

void cli_kernel_switch_chain(void *arg, uint32_t pid, uint32_t tid, uint64_t time_ns,
			     const uint64_t *pcs, size_t n)
{
	struct cli_kernel *k = arg;

	k->switches_on = true;
	put_chain(k, pid, tid, time_ns, pcs, n, true);
}

void cli_kernel_poll(struct cli_kernel *k, int timeout_ms)
{
	struct pollfd fds[256];
	size_t n = k->nrings < 256 ? k->nrings : 256;

	for (size_t i = 0; i < n; i++)
		fds[i] = (struct pollfd){ .fd = k->rings[i].fd, .events = POLLIN };
	poll(fds, n, timeout_ms);
	for (size_t i = 0; i < k->nrings; i++)
		drain(k, &k->rings[i]);
}

struct ksym {
	uint64_t addr;
	const char *name;          /* in the file's copy */
	bool used;
};

static int cmp_ksym(const void *a, const void *b)
{
	const struct ksym *x = a, *y = b;

	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

/* The text symbols of /proc/kallsyms, sorted, their names in *text (the
 * file read whole, each line cut to "name" or "name [module]": some 120,000
 * lines, parsed by hand: sscanf and a strdup a line cost a fifth of a
 * second); 0 addresses (kptr_restrict) make *hidden true. */
static struct ksym *read_kallsyms(size_t *n, bool *hidden, char **text)
{
	int fd = open("/proc/kallsyms", O_RDONLY | O_CLOEXEC);
	size_t len = 0, cap = 0;
	char *buf = NULL;
	struct ksym *v = NULL;

	*n = 0;
	*hidden = false;
	*text = NULL;
	if (fd < 0)
		return NULL;
	for (;;) {
		if (cap - len < 65536) {
			char *q = realloc(buf, cap ? 2 * cap : 1 << 22);
			if (!q)
				break;
			buf = q;
			cap = cap ? 2 * cap : 1 << 22;
		}
		ssize_t got = read(fd, buf + len, cap - len - 1);
		if (got <= 0)
			break;
		len += (size_t)got;
	}
	close(fd);
	if (!buf)
		return NULL;
	buf[len] = 0;
	size_t lines = 0, vcap;
	for (size_t i = 0; i < len; i++)
		lines += buf[i] == '\n';
	vcap = lines + 1;
	v = malloc(vcap * sizeof(*v));
	for (char *p = buf; v && *p;) {
		char *eol = strchr(p, '\n'), *e;
		if (eol)
			*eol = 0;
		uint64_t addr = strtoull(p, &e, 16);
		if (e[0] == ' ' && (e[1] == 't' || e[1] == 'T') && e[2] == ' ' && e[3]) {
			char *tab = strchr(e + 3, '\t');
			if (tab)
				*tab = ' ';            /* "name [module]" */
			if (!addr)
				*hidden = true;
			else if (*n < vcap)
				v[(*n)++] = (struct ksym){ addr, e + 3, false };
		}
		if (!eol)
			break;
		p = eol + 1;
	}
	if (v && *n)
		qsort(v, *n, sizeof(*v), cmp_ksym);
	*text = buf;
	return v;
}

/* The kernel functions the samples' pcs fall in, as KERNEL_SYM records.
 * Returns how many pcs no symbol holds. */
static uint64_t put_symbols(struct cli_kernel *k, bool *hidden)
{
	size_t n;
	char *text;
	uint64_t unnamed = 0;

	if (!k->npcs)
		return 0;                    /* nothing to name: the file is not read */
	struct ksym *v = read_kallsyms(&n, hidden, &text);

	for (size_t i = 0; i < k->pcs_cap; i++) {
		uint64_t pc = k->pcs[i];
		if (!pc)
			continue;
		size_t lo = 0, hi = n;           /* the last symbol at or below pc */
		while (lo < hi) {
			size_t mid = (lo + hi) / 2;
			if (v[mid].addr <= pc)
				lo = mid + 1;
			else
				hi = mid;
		}
		if (lo == 0 || lo == n)          /* below the first, past the last: not text */
			unnamed++;
		else
			v[lo - 1].used = true;
	}
	for (size_t i = 0; i + 1 < n; i++) {
		if (!v[i].used)
			continue;
		size_t len = strlen(v[i].name) + 1;
		if (len > 512) {                 /* no kernel name is this long */
			unnamed++;
			continue;
		}
		size_t rec = (sizeof(struct exp_kernel_sym) + len + 7) & ~(size_t)7;
		uint8_t buf[sizeof(struct exp_kernel_sym) + 528];
		struct exp_kernel_sym r = { EXP_REC_WORD(EXP_REC_KERNEL_SYM, rec), 0, v[i].addr, 0 };
		size_t j = i + 1;
		while (j < n && v[j].addr == v[i].addr)
			j++;
		r.size = j < n ? v[j].addr - v[i].addr : 1;
		memset(buf, 0, rec);
		memcpy(buf, &r, sizeof(r));
		memcpy(buf + sizeof(r), v[i].name, len);
		put(k, buf, rec);
	}
	free(v);
	free(text);
	return unnamed;
}

void cli_kernel_refused(struct cli_kernel *k, const char *log_path)
{
	char why[512];

	refused(EACCES, why, sizeof(why));
	if (k->out)
		fclose(k->out);
	unlink(k->path);
	int fd = open(log_path, O_WRONLY | O_APPEND | O_NOFOLLOW | O_CLOEXEC);
	FILE *log = fd >= 0 ? fdopen(fd, "a") : NULL;
	if (log) {
		cli_log_line(log, "kernel.frames", "%s", why);
		fclose(log);
	} else if (fd >= 0) {
		close(fd);
	}
	free(k->pcs);
	free(k);
}

void cli_kernel_close(struct cli_kernel *k, const char *log_path)
{
	bool hidden = false;

	for (size_t i = 0; i < k->nrings; i++)
		drain(k, &k->rings[i]);
	close_rings(k);
	uint64_t unnamed = put_symbols(k, &hidden);
	put_info(k);
	if (fflush(k->out) != 0)
		k->write_errors++;
	if (fclose(k->out) != 0)
		k->write_errors++;
	int fd = open(log_path, O_WRONLY | O_APPEND | O_NOFOLLOW | O_CLOEXEC);
	FILE *log = fd >= 0 ? fdopen(fd, "a") : NULL;
	if (log) {
		cli_log_line(log, "kernel.frames", "recorded: call chains of the ticks in kernel mode (%s)",
			     exp_file_name(EXP_FILE_KERNEL));
		cli_log_line(log, "kernel.samples", "%llu", (unsigned long long)k->samples);
		if (k->switches_on)
			cli_log_line(log, "kernel.switches", "recorded: %llu switches out of a CPU with the "
				     "kernel's call chain", (unsigned long long)k->switches);
		if (k->switches_lost)
			cli_log_line(log, "kernel.switches_lost", "%llu",
				     (unsigned long long)k->switches_lost);
		else if (k->switches_why[0])
			cli_log_line(log, "kernel.switches", "%s", k->switches_why);
		if (k->lost)
			cli_log_line(log, "kernel.lost", "%llu", (unsigned long long)k->lost);
		if (hidden || unnamed)
			cli_log_line(log, "kernel.symbols", "%s%llu kernel pcs without a symbol",
				     hidden ? "hidden by kptr_restrict (run as root); " : "",
				     (unsigned long long)unnamed);
		if (k->write_errors)
			cli_log_line(log, "kernel.error", "%s: %llu writes failed", k->path,
				     (unsigned long long)k->write_errors);
		fclose(log);
	} else if (fd >= 0) {
		close(fd);
	}
	free(k->pcs);
	free(k);
}
