/* SPDX-License-Identifier: MIT
 *
 * sigfloor.c — a diagnostic preload for the overhead benchmark: a sampling
 * *mechanism* with nothing else.  It opens a PERF_COUNT_SW_TASK_CLOCK event
 * on the main thread (period 1 ms of its CPU time, or SIGFLOOR_HZ) and, as
 * SIGFLOOR_MODE says:
 *   sigtrap (default)  the kernel sends SIGTRAP to the thread at each
 *                      overflow (perf_event_attr.sigtrap), as tally does;
 *   fasync             SIGPROF through O_ASYNC/F_SETSIG/F_SETOWN_EX, the
 *                      handler re-arming with PERF_EVENT_IOC_REFRESH (tally's
 *                      fallback before Linux 5.13);
 *   nosignal           overflows and no signal at all: the timer alone;
 *   count              no sampling period: the event only counts (no timer),
 *                      what scheduling the event in and out at each context
 *                      switch costs by itself;
 *   none               nothing at all: the cost of preloading a library
 *                      (the loader's), the floor under any preloaded collector.
 * SIGFLOOR_CLOCK=1: the handler also reads the thread's CPU clock
 * (CLOCK_THREAD_CPUTIME_ID), as tally's handler does for each sample's
 * weight.  The kernel updates the running task's runtime for that read
 * (task_sched_runtime, update_curr), and where its slice is over and others
 * wait it is preempted then, not at the next tick: under load the program's
 * context switches rise (heapmix at 1 kHz, load 17-21: 277 against 165
 * without the read, docs/benchmarks.md, "fifteenth pass").
 * SIGFLOOR_QUIET=1: no line on stderr at the end (a process-heavy workload
 * of short processes would pay a stdio write in each).
 * SIGFLOOR_INHERIT=1 opens it once with inherit (and inherit_thread), as
 * tally does: each thread the program creates gets its own copy (sigtrap:
 * signalling that thread).  Without it only the main thread is sampled.
 * The handler does nothing else: no unwinding, no writing.  The wall time of
 * a program run under it, over the bare program, is the floor the kernel and
 * the machine (here a VM) put under any collector that samples this way:
 * what tally adds above it is its own.
 *
 * Signal-free sampling, the way perf records: the kernel writes a record per
 * overflow into a perf mmap ring (SIGFLOOR_PAGES data pages, default 64, plus
 * the header page) and a drain thread, started here and blocked in poll()
 * until the ring is half full (wakeup_watermark), consumes the records
 * (counts samples, bytes and PERF_RECORD_LOST, advances data_tail):
 *   ring-stack         IP|TID|TIME|REGS_USER (the registers perf's DWARF mode
 *                      asks for)|STACK_USER 8192 bytes: what `perf record
 *                      --call-graph dwarf` copies per sample, for a consumer
 *                      to unwind from .eh_frame;
 *   ring-callchain     IP|TID|TIME|CALLCHAIN, exclude_callchain_kernel: the
 *                      kernel walks frame pointers.  Cheap, but wrong for
 *                      code built without frame pointers (the workloads are
 *                      -fomit-frame-pointer: the walk stops after a frame or
 *                      two, so this is the cost of a short walk);
 *   ring-stack-unwind  ring-stack, and the drain thread also scans each
 *                      copied stack for words inside the main executable's
 *                      text (a crude stand-in for unwinding it there).
 * The drain thread's CPU time is its own line: the kernel's copy is charged
 * to the sampled thread, the consumer's work to the drain thread.
 *
 * Built by bench/run.sh as build/bench/bin/libsigfloor.so; used as
 *   env LD_PRELOAD=.../libsigfloor.so PROGRAM ARGS
 * At exit it prints one line to stderr: the number of signals taken and of
 * periods the event counted (its overflows, signalled or not), or for
 * the ring modes the records, bytes, lost records, wakeups and the drain
 * thread's CPU time.
 */
#define _GNU_SOURCE
#include <asm/perf_regs.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/perf_event.h>
#include <limits.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

static int fd = -1;
static unsigned long long period; /* ns of the thread's CPU time per overflow */
static volatile unsigned long signals;

/* The registers `perf record --call-graph dwarf` samples on x86-64: all the
 * general ones, not the segment registers. */
#define REGS_MASK                                                                    \
	(((1ull << PERF_REG_X86_64_MAX) - 1) &                                         \
	 ~((1ull << PERF_REG_X86_DS) | (1ull << PERF_REG_X86_ES) |                      \
	   (1ull << PERF_REG_X86_FS) | (1ull << PERF_REG_X86_GS)))
#define STACK_BYTES 8192

/* The ring and what its drain thread counted (written by it, read after it
 * is joined). */
static struct {
	const char *mode;
	bool stack, unwind;
	struct perf_event_mmap_page *meta;
	unsigned char *data;
	uint64_t size;                /* data bytes, a power of two */
	int stop[2];                  /* a pipe: written at exit to end the drain */
	pthread_t thread;
	bool running;
	uintptr_t text_lo, text_hi;   /* the main executable's text, for the scan */
	unsigned char rec[65536];     /* a record that wraps the ring, copied */
	unsigned long samples, others, lost, wakeups;
	unsigned long long bytes, frames, words, hits;
	double drain_cpu;
	struct timespec t0;
} ring;

static double seconds(clockid_t c)
{
	struct timespec t;

	clock_gettime(c, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

static bool read_clock;          /* SIGFLOOR_CLOCK=1 */

static void on_signal(int sig, siginfo_t *si, void *uc)
{
	(void)sig, (void)si, (void)uc;
	__atomic_fetch_add(&signals, 1, __ATOMIC_RELAXED);   /* threads too (SIGFLOOR_INHERIT) */
	if (read_clock) {
		struct timespec ts;
		clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	}
	if (sig == SIGPROF)
		ioctl(fd, PERF_EVENT_IOC_REFRESH, 1);
}

/* One PERF_RECORD_SAMPLE laid out as the sample_type set in start():
 * ip, pid/tid, time, then either the callchain or the user registers and
 * the user stack (size, bytes, dyn_size). */
static void take_sample(const unsigned char *p, const unsigned char *end)
{
	uint64_t v;

	p += sizeof(struct perf_event_header) + 8 + 8 + 8;
	if (!ring.stack) {
		if (p + 8 <= end) {
			memcpy(&v, p, 8);
			ring.frames += v;
		}
		return;
	}
	memcpy(&v, p, 8); /* abi: PERF_SAMPLE_REGS_ABI_NONE (0) means no registers */
	p += 8 + (v ? 8 * (uint64_t)__builtin_popcountll(REGS_MASK) : 0);
	if (p + 8 > end)
		return;
	uint64_t size, dyn;
	memcpy(&size, p, 8);
	if (size == 0 || p + 8 + size + 8 > end)
		return;
	memcpy(&dyn, p + 8 + size, 8);
	if (dyn > size)
		dyn = size;
	ring.words += dyn / 8;
	if (!ring.unwind)
		return;
	const unsigned char *w = p + 8;
	for (uint64_t i = 0; i + 8 <= dyn; i += 8) {
		uintptr_t a;
		memcpy(&a, w + i, 8);
		ring.hits += a - ring.text_lo < ring.text_hi - ring.text_lo;
	}
}

/* Consume every record between data_tail and data_head. */
static void drain(void)
{
	uint64_t head = __atomic_load_n(&ring.meta->data_head, __ATOMIC_ACQUIRE);
	uint64_t tail = ring.meta->data_tail;

	while (tail < head) {
		struct perf_event_header h;
		uint64_t off = tail & (ring.size - 1);
		const unsigned char *p = ring.data + off;

		if (off + sizeof(h) <= ring.size) {
			memcpy(&h, p, sizeof(h));
		} else {
			uint64_t n = ring.size - off;
			memcpy(&h, p, n);
			memcpy((unsigned char *)&h + n, ring.data, sizeof(h) - n);
		}
		if (h.size < sizeof(h))
			break;
		if (off + h.size > ring.size) {
			uint64_t n = ring.size - off;
			memcpy(ring.rec, p, n);
			memcpy(ring.rec + n, ring.data, h.size - n);
			p = ring.rec;
		}
		if (h.type == PERF_RECORD_SAMPLE) {
			ring.samples++;
			take_sample(p, p + h.size);
		} else {
			ring.others++;
			if (h.type == PERF_RECORD_LOST) {
				uint64_t lost;
				memcpy(&lost, p + sizeof(h) + 8, 8);
				ring.lost += lost;
			}
		}
		ring.bytes += h.size;
		tail += h.size;
	}
	__atomic_store_n(&ring.meta->data_tail, tail, __ATOMIC_RELEASE);
}

static void *drain_thread(void *arg)
{
	(void)arg;
	for (;;) {
		struct pollfd p[2] = { { fd, POLLIN, 0 }, { ring.stop[0], POLLIN, 0 } };

		if (poll(p, 2, -1) < 0) {
			if (errno == EINTR)
				continue;
			perror("sigfloor: poll");
			break;
		}
		if (p[1].revents)
			break;
		ring.wakeups++;
		drain();
	}
	drain();
	ring.drain_cpu = seconds(CLOCK_THREAD_CPUTIME_ID);
	return NULL;
}

/* The text of the main executable: the lowest and highest executable
 * mapping of /proc/self/exe in /proc/self/maps. */
static void find_text(void)
{
	char exe[PATH_MAX], line[PATH_MAX + 128];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	FILE *f = fopen("/proc/self/maps", "r");

	if (n <= 0 || !f) {
		if (f)
			fclose(f);
		return;
	}
	exe[n] = 0;
	while (fgets(line, sizeof(line), f)) {
		unsigned long lo, hi;
		char perms[8], path[PATH_MAX];

		path[0] = 0;
		if (sscanf(line, "%lx-%lx %7s %*s %*s %*s %4095s", &lo, &hi, perms, path) < 3)
			continue;
		if (perms[2] != 'x' || strcmp(path, exe))
			continue;
		if (!ring.text_lo || lo < ring.text_lo)
			ring.text_lo = lo;
		if (hi > ring.text_hi)
			ring.text_hi = hi;
	}
	fclose(f);
}

static void report_ring(void)
{
	double wall, main_cpu = seconds(CLOCK_THREAD_CPUTIME_ID);
	struct timespec t1;

	ioctl(fd, PERF_EVENT_IOC_DISABLE, 0);
	if (ring.running) {
		if (write(ring.stop[1], "x", 1) != 1)
			perror("sigfloor: stopping the drain thread");
		pthread_join(ring.thread, NULL);
	}
	clock_gettime(CLOCK_MONOTONIC, &t1);
	wall = (double)(t1.tv_sec - ring.t0.tv_sec) + (double)(t1.tv_nsec - ring.t0.tv_nsec) / 1e9;
	fprintf(stderr,
		"sigfloor: %s: %lu samples, %lu other records, %llu bytes (%.0f B/sample, %.0f B/s),"
		" %lu lost, %lu wakeups, drain thread %.6f s CPU (%.2f us/sample),"
		" main thread %.3f s CPU, %.3f s wall",
		ring.mode, ring.samples, ring.others, ring.bytes,
		ring.samples ? (double)ring.bytes / (double)ring.samples : 0.0,
		wall > 0 ? (double)ring.bytes / wall : 0.0, ring.lost, ring.wakeups, ring.drain_cpu,
		ring.samples ? ring.drain_cpu * 1e6 / (double)ring.samples : 0.0, main_cpu, wall);
	if (ring.stack)
		fprintf(stderr, ", %.0f stack words/sample", ring.samples ? (double)ring.words / (double)ring.samples : 0.0);
	else
		fprintf(stderr, ", %.1f callchain entries/sample",
			ring.samples ? (double)ring.frames / (double)ring.samples : 0.0);
	if (ring.unwind)
		fprintf(stderr, ", %.1f text hits/sample", ring.samples ? (double)ring.hits / (double)ring.samples : 0.0);
	fputc('\n', stderr);
}

/* The ring's data pages: SIGFLOOR_PAGES (a power of two), default 64. */
static long ring_pages(void)
{
	const char *pg = getenv("SIGFLOOR_PAGES");
	long pages = pg ? atol(pg) : 64;

	if (pages < 1 || (pages & (pages - 1))) {
		fprintf(stderr, "sigfloor: SIGFLOOR_PAGES=%s is not a power of two\n", pg);
		return -1;
	}
	return pages;
}

/* Map the ring of the event just opened and start its drain thread. */
static int start_ring(long pages)
{
	long psz = sysconf(_SC_PAGESIZE);
	void *m;

	m = mmap(NULL, (size_t)(pages + 1) * (size_t)psz, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (m == MAP_FAILED) {
		perror("sigfloor: mapping the ring");
		return -1;
	}
	ring.meta = m;
	ring.data = (unsigned char *)m + psz;
	ring.size = (uint64_t)pages * (uint64_t)psz;
	if (ring.unwind)
		find_text();
	if (pipe2(ring.stop, O_CLOEXEC) != 0) {
		perror("sigfloor: pipe");
		return -1;
	}
	clock_gettime(CLOCK_MONOTONIC, &ring.t0);
	if ((errno = pthread_create(&ring.thread, NULL, drain_thread, NULL)) != 0) {
		perror("sigfloor: starting the drain thread");
		return -1;
	}
	ring.running = true;
	return 0;
}

/* The signals taken, and the periods the event counted (its overflows, with
 * or without a signal: the timer alone's sample count). */
static void report(void)
{
	unsigned long long ns = 0;

	if (read(fd, &ns, sizeof(ns)) != (ssize_t)sizeof(ns))
		ns = 0;
	fprintf(stderr, "sigfloor: %lu signals, %llu periods counted\n", signals, ns / period);
}

__attribute__((constructor)) static void start(void)
{
	struct perf_event_attr a;
	struct sigaction sa;
	const char *hz = getenv("SIGFLOOR_HZ"), *mode = getenv("SIGFLOOR_MODE");
	long f = hz ? atol(hz) : 1000;
	bool fasync = mode && !strcmp(mode, "fasync");
	bool nosignal = mode && !strcmp(mode, "nosignal");
	bool count = mode && !strcmp(mode, "count");
	const char *inh = getenv("SIGFLOOR_INHERIT"), *clk = getenv("SIGFLOOR_CLOCK");
	bool inherit = inh && !strcmp(inh, "1");
	read_clock = clk && !strcmp(clk, "1");
	bool rstack = mode && (!strcmp(mode, "ring-stack") || !strcmp(mode, "ring-stack-unwind"));
	bool rchain = mode && !strcmp(mode, "ring-callchain");
	bool inring = rstack || rchain;
	long pages = 0;

	if (mode && !strcmp(mode, "none"))
		return;
	if (mode && !fasync && !nosignal && !count && !inring && strcmp(mode, "sigtrap")) {
		fprintf(stderr, "sigfloor: unknown SIGFLOOR_MODE %s\n", mode);
		return;
	}
	memset(&a, 0, sizeof(a));
	a.type = PERF_TYPE_SOFTWARE;
	a.size = sizeof(a);
	a.config = PERF_COUNT_SW_TASK_CLOCK;
	period = 1000000000ull / (unsigned long long)(f > 0 ? f : 1000);
	a.sample_period = count ? 0 : period;
	a.disabled = 1;
	a.exclude_hv = 1;
	a.inherit = inherit;
	a.inherit_thread = inherit;
	if (inring) {
		ring.mode = mode;
		ring.stack = rstack;
		ring.unwind = !strcmp(mode, "ring-stack-unwind");
		a.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME;
		if (rstack) {
			a.sample_type |= PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER;
			a.sample_regs_user = REGS_MASK;
			a.sample_stack_user = STACK_BYTES;
		} else {
			a.sample_type |= PERF_SAMPLE_CALLCHAIN;
			a.exclude_callchain_kernel = 1;
		}
		if ((pages = ring_pages()) < 0)
			return;
		a.watermark = 1; /* wake the drain thread when half the ring is full */
		a.wakeup_watermark = (uint32_t)(pages * sysconf(_SC_PAGESIZE) / 2);
	} else {
		memset(&sa, 0, sizeof(sa));
		sa.sa_sigaction = on_signal;
		sa.sa_flags = SA_SIGINFO | SA_RESTART;
		sigaction(fasync ? SIGPROF : SIGTRAP, &sa, NULL);
		if (!fasync && !nosignal && !count) {
			a.sigtrap = 1;
			a.remove_on_exec = 1;
		}
	}
	fd = (int)syscall(SYS_perf_event_open, &a, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
	if (fd < 0) {
		perror("sigfloor: perf_event_open");
		return;
	}
	const char *quiet = getenv("SIGFLOOR_QUIET");
	if (inring) {
		if (start_ring(pages) != 0)
			return;
		atexit(report_ring);
	} else if (!quiet || strcmp(quiet, "1")) {
		atexit(report);
	}
	if (fasync) {
		struct f_owner_ex owner = { F_OWNER_TID, (pid_t)syscall(SYS_gettid) };
		if (fcntl(fd, F_SETFL, O_ASYNC) != 0 || fcntl(fd, F_SETSIG, SIGPROF) != 0 ||
		    fcntl(fd, F_SETOWN_EX, &owner) != 0 || ioctl(fd, PERF_EVENT_IOC_REFRESH, 1) != 0) {
			perror("sigfloor: arming the event");
			return;
		}
	} else if (ioctl(fd, PERF_EVENT_IOC_ENABLE, 0) != 0) {
		perror("sigfloor: enabling the event");
		return;
	}
}
