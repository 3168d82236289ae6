/* SPDX-License-Identifier: MIT
 *
 * out_image.c — a process image's experiment in the outside mode
 * (out_image.h).
 *
 * Called from `tally record`'s one thread, record by record as the rings
 * are drained.  Records go through the format's own writer
 * (format/exp_write.c, exp_write_run.c), the collector's: the same blocks,
 * runs and publication rules, so an experiment read while it is written, or
 * after tally was killed, parses.  A sample costs one unwind: the registers
 * the kernel saved and its copy of the stack are handed to
 * col_unwind_sigsafe with the image's object snapshot published for it.
 */
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "collector/col_objset.h"
#include "format/exp_header.h"
#include "format/exp_launch.h"
#include "format/exp_schedstat.h"
#include "outside/out_image.h"
#include "outside/out_ring.h"

static void log_line(const struct out_image *im, const char *key, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* "key: value" appended to the image's log.txt; a failure is counted by
 * nothing but the missing line (the log is read as text). */
static void log_line(const struct out_image *im, const char *key, const char *fmt, ...)
{
	char line[1024];
	va_list ap;
	int n = snprintf(line, sizeof(line), "%s: ", key);

	va_start(ap, fmt);
	n += vsnprintf(line + n, sizeof(line) - (size_t)n - 1, fmt, ap);
	va_end(ap);
	if (n > (int)sizeof(line) - 2)
		n = (int)sizeof(line) - 2;
	line[n++] = '\n';
	int fd = openat(im->dirfd, EXP_LOG_NAME, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
	if (fd < 0)
		return;
	if (write(fd, line, (size_t)n) != n)
		(void)0;                   /* the line is missing: nothing else to do */
	close(fd);
}

int out_image_open(struct out_image *im, const char *founder_dir, const char *lineage,
		   pid_t pid, pid_t ppid, const char *created_by, uint64_t time_ns,
		   uint32_t hz, uint32_t max_frames, int states)
{
	memset(im, 0, sizeof(*im));
	im->dirfd = -1;
	im->pid = pid;
	im->ppid = ppid;
	im->start_ns = time_ns;
	im->max_frames = max_frames;
	snprintf(im->lineage, sizeof(im->lineage), "%s", lineage);
	if (lineage[0]) {
		snprintf(im->dir, sizeof(im->dir), "%s/%s.exp", founder_dir, lineage);
		if (mkdir(im->dir, 0755) != 0 && errno != EEXIST)
			return -errno;
	} else {
		snprintf(im->dir, sizeof(im->dir), "%s", founder_dir);
	}
	im->dirfd = open(im->dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	im->uctx = calloc(1, sizeof(*im->uctx));
	if (im->dirfd < 0 || !im->uctx)
		return im->dirfd < 0 ? -errno : -ENOMEM;
	struct {
		struct exp_file_writer *w;
		enum exp_file_kind kind;
	} files[] = {
		{ &im->samples, EXP_FILE_SAMPLES }, { &im->stacks, EXP_FILE_STACKS },
		{ &im->maps, EXP_FILE_MAPS }, { &im->threads, EXP_FILE_THREADS },
	};
	for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		int rc = exp_writer_open(files[i].w, im->dirfd, exp_file_name(files[i].kind), files[i].kind,
					 (uint32_t)pid);
		if (rc != 0)
			return rc;
	}
	if (states) {
		int rc = exp_writer_open(&im->states_w, im->dirfd, exp_file_name(EXP_FILE_STATES),
					 EXP_FILE_STATES, (uint32_t)pid);
		if (rc != 0)
			return rc;
		im->states = 1;
	}
	im->open = 1;
	log_line(im, "pid", "%d", (int)pid);
	log_line(im, "ppid", "%d", (int)ppid);
	log_line(im, "lineage", "%s", lineage[0] ? lineage : "founder");
	log_line(im, "created-by", "%s", created_by);
	log_line(im, "start.mono_ns", "%llu", (unsigned long long)time_ns);
	log_line(im, "clock", "perf_event task-clock, outside the program: registers and %u KiB of "
		 "stack per sample, unwound by tally record", OUT_STACK_BYTES / 1024);
	log_line(im, "clock.threads", "one event per CPU, inherited by every thread and process");
	log_line(im, "clock.hz", "%u", hz);
	log_line(im, "max-frames", "%u", max_frames);
	if (states == OUT_STATES_STACKS)
		log_line(im, "states", "context switches: perf_event switch records and a sample of the "
			 "user's stack at each switch off a CPU, read by tally record (outside mode; "
			 "docs/static.md)");
	else if (states)
		log_line(im, "states", "context switches: perf_event switch records, read by tally record "
			 "(outside mode): exact intervals, no stack at a block: the kernel lets this user "
			 "count only in user mode (docs/static.md)");
	return 0;
}

/* The vDSO is in no file: the analyzer reads the founder's archived copy,
 * archive/<build-id in hex>, as the collector leaves it (col_objects.c).
 * tally's own is the program's (one kernel).  Once per experiment. */
static void archive_vdso(const struct out_image *im, const struct out_file *f)
{
	const Elf64_Ehdr *eh = (const Elf64_Ehdr *)f->image;
	char dir[PATH_MAX + 16], path[PATH_MAX + 64];
	size_t n = 0;

	if (!f->build_id_len || memcmp(eh->e_ident, ELFMAG, SELFMAG))
		return;
	size_t size = eh->e_shoff + (size_t)eh->e_shnum * eh->e_shentsize;
	if (size > (1u << 20))
		return;
	snprintf(dir, sizeof(dir), "%.*s/%s", (int)(strlen(im->dir) - (im->lineage[0] ?
		 strlen(im->lineage) + strlen(".exp") + 1 : 0)), im->dir, EXP_ARCHIVE_DIR);
	mkdir(dir, 0755);
	n = (size_t)snprintf(path, sizeof(path), "%s/", dir);
	if (n + 2 * EXP_BUILD_ID_MAX + 1 > sizeof(path))
		return;
	exp_build_id_hex(f->build_id, f->build_id_len, path + n);
	int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0444);
	if (fd < 0)
		return;                    /* there already (or unwritable: the report says) */
	if (write(fd, f->image, size) != (ssize_t)size)
		log_line(im, "warning", "could not archive the vDSO");
	close(fd);
}

void out_image_map(struct out_image *im, const struct out_map *m, uint64_t time_ns)
{
	struct {
		struct exp_map h;
		char path[PATH_MAX + 8];
	} r;
	size_t plen = strlen(m->path) + 1;

	if (!im->open || plen > PATH_MAX)
		return;
	if ((m->flags & EXP_MAP_VDSO) && m->file && m->file->image)
		archive_vdso(im, m->file);
	if ((m->flags & EXP_MAP_MAIN) && !im->exe[0]) {
		snprintf(im->exe, sizeof(im->exe), "%s", m->path);
		log_line(im, "exe", "%s", m->path);
	}
	memset(&r, 0, sizeof(r));
	r.h.flags = m->flags;
	r.h.time_ns = time_ns;
	r.h.start = m->start;
	r.h.end = m->end;
	r.h.bias = m->bias;
	if (m->file) {
		r.h.build_id_len = m->file->build_id_len;
		memcpy(r.h.build_id, m->file->build_id, m->file->build_id_len);
	}
	memcpy(r.path, m->path, plen);
	uint32_t len = (uint32_t)((sizeof(r.h) + plen + 7) & ~(size_t)7);
	if (exp_record_append_sigsafe(&im->maps, &im->maps_cur, EXP_REC_MAP, &r, len) != 0)
		im->counters[EXP_CTR_LOST_BUFFER]++;
}

struct out_thread *out_image_thread(struct out_image *im, uint32_t tid, uint64_t time_ns,
				    uint32_t creator)
{
	for (uint32_t i = 0; i < im->nthr; i++)
		if (im->thr[i].tid == tid && !im->thr[i].ended)
			return &im->thr[i];
	if (!im->open)
		return NULL;
	if (im->nthr == im->cap_thr) {
		uint32_t cap = im->cap_thr ? 2 * im->cap_thr : 8;
		struct out_thread *t = realloc(im->thr, cap * sizeof(*t));
		if (!t)
			return NULL;
		im->thr = t;
		im->cap_thr = cap;
	}
	struct out_thread *t = &im->thr[im->nthr];
	memset(t, 0, sizeof(*t));
	t->rw = calloc(1, sizeof(*t->rw));
	if (!t->rw)
		return NULL;
	im->nthr++;
	t->tid = tid;
	t->start_ns = t->last_ns = time_ns;
	struct exp_thread_start r = { 0 };
	r.tid = tid;
	r.time_ns = time_ns;
	r.creator_tid = creator;
	memcpy(r.name, im->comm, sizeof(r.name));
	if (exp_record_append_sigsafe(&im->threads, &im->threads_cur, EXP_REC_THREAD_START, &r,
				      sizeof(r)) != 0)
		im->counters[EXP_CTR_LOST_BUFFER]++;
	return t;
}

void out_image_thread_name(struct out_image *im, uint32_t tid, uint64_t time_ns, const char *name)
{
	struct {
		struct exp_thread_name r;
		char name[EXP_THREAD_NAME_MAX];
	} rec;
	size_t n = strnlen(name, EXP_THREAD_NAME_MAX - 1);

	if (!out_image_thread(im, tid, time_ns, 0))
		return;
	memset(&rec, 0, sizeof(rec));
	rec.r.tid = tid;
	rec.r.time_ns = time_ns;
	memcpy(rec.name, name, n);
	if (exp_record_append_sigsafe(&im->threads, &im->threads_cur, EXP_REC_THREAD_NAME, &rec,
				      (uint32_t)((sizeof(rec.r) + n + 1 + 7) & ~(size_t)7)) != 0)
		im->counters[EXP_CTR_LOST_BUFFER]++;
}

/* perf_regs order (out_ring.h) to the unwinder's DWARF numbering. */
static void regs_from_perf(const uint64_t *p, struct col_regs *regs)
{
	static const uint8_t dwarf_of[OUT_NREGS] = {
		UW_RAX, UW_RBX, UW_RCX, UW_RDX, UW_RSI, UW_RDI, UW_RBP, UW_RSP, UW_RIP,
		UW_R8, UW_R9, UW_R10, UW_R11, UW_R12, UW_R13, UW_R14, UW_R15,
	};
	for (int i = 0; i < OUT_NREGS; i++)
		regs->r[dwarf_of[i]] = p[i];
	regs->valid = (1u << UW_NREGS) - 1;
}

/* Unwind registers in OUT_REGS_MASK order and the stack copy into
 * pcs[0..n), leaf first: n (at least 1); *flags EXP_STACK_TRUNCATED and
 * EXP_STACK_BROKEN as they apply. */
static int unwind(struct out_image *im, const uint64_t *perf_regs, const uint8_t *stack,
		  uint64_t stack_len, uint64_t *pcs, uint16_t *flags)
{
	struct col_regs regs;
	regs_from_perf(perf_regs, &regs);
	im->uctx->stack_lo = regs.r[UW_RSP];
	im->uctx->stack_hi = regs.r[UW_RSP] + stack_len;
	im->uctx->stack_copy = stack;
	uint32_t short_copy = 0;
	im->uctx->copy_short = stack_len >= OUT_STACK_BYTES ? &short_copy : NULL;
	col_objects_publish(out_objects_set(&im->objs));
	int truncated = 0, broken = 0;
	int n = col_unwind_sigsafe(im->uctx, &regs, pcs, (int)im->max_frames, &truncated, &broken);
	if (broken && short_copy) {
		/* Deeper than the stack copy: cut by its size, not by a bad frame. */
		broken = 0;
		truncated = 1;
		im->copy_short++;
	}
	if (n <= 0) {
		pcs[0] = perf_regs[8];
		n = 1;
		broken = 1;
	}
	*flags = (uint16_t)((truncated ? EXP_STACK_TRUNCATED : 0) | (broken ? EXP_STACK_BROKEN : 0));
	return n;
}

void out_image_sample(struct out_image *im, uint32_t tid, uint64_t time_ns, uint32_t cpu,
		      uint64_t weight_ns, const uint64_t *perf_regs, const uint8_t *stack,
		      uint64_t stack_len, int kernel_mode)
{
	static uint64_t pcs[EXP_MAX_FRAMES];
	struct out_thread *t = out_image_thread(im, tid, time_ns, 0);

	if (!t)
		return;
	if (im->states) {
		/* The CPU split the collector reads from getrusage: here each
		 * sample's own mode, so each window is one sample's. */
		*(kernel_mode ? &t->system_ns : &t->user_ns) += weight_ns;
		struct exp_cpu_split r = { 0, tid, time_ns, t->user_ns, t->system_ns };
		if (exp_record_append_sigsafe(&im->states_w, &im->states_cur, EXP_REC_CPU_SPLIT, &r,
					      sizeof(r)) != 0)
			im->counters[EXP_CTR_LOST_BUFFER]++;
	}
	uint16_t flags;
	int n = unwind(im, perf_regs, stack, stack_len, pcs, &flags);
	if (flags & EXP_STACK_TRUNCATED)
		im->counters[EXP_CTR_UNWIND_TRUNCATED]++;
	if (flags & EXP_STACK_BROKEN)
		im->counters[EXP_CTR_UNWIND_BROKEN]++;
	struct exp_run_sample s = {
		.tid = tid,
		.cpu = cpu < 0xffff ? (uint16_t)cpu : 0xffff,
		.flags = flags,
		.time_ns = time_ns,
		.weight_ns = weight_ns,
	};
	if (exp_run_append_sigsafe(t->rw, &im->samples, &t->cur, &s, pcs, (uint32_t)n) != 0) {
		im->counters[EXP_CTR_LOST_BUFFER]++;
		if (im->samples.over_budget)
			im->counters[EXP_CTR_LOST_LIMIT]++;
		return;
	}
	t->samples++;
	t->last_ns = time_ns;
	im->counters[EXP_CTR_SAMPLES]++;
}

/* FNV-1a over a stack's pcs and flags, never 0 (an empty slot). */
static uint64_t stack_key(const uint64_t *pcs, int n, uint16_t flags)
{
	uint64_t h = 0xcbf29ce484222325ull ^ flags;

	for (int i = 0; i < n; i++) {
		h ^= pcs[i];
		h *= 0x100000001b3ull;
		h ^= h >> 29;
	}
	return h ? h : 1;
}

/* The STACK id of pcs[0..n), written to stacks.dat when new: 0 when it
 * could not be (out of memory, no room: counted lost).  Stacks are told
 * apart by a 64-bit hash of their frames, as the reader's trie does. */
static uint32_t stack_id_of(struct out_image *im, const uint64_t *pcs, int n, uint16_t flags)
{
	struct out_stack_ids *t = &im->stack_ids;
	uint64_t key = stack_key(pcs, n, flags);

	if (2 * (t->used + 1) > t->cap) {
		size_t cap = t->cap ? 2 * t->cap : 1024;
		uint64_t *keys = calloc(cap, sizeof(*keys));
		uint32_t *ids = calloc(cap, sizeof(*ids));
		if (!keys || !ids) {
			free(keys);
			free(ids);
			return 0;
		}
		for (size_t i = 0; i < t->cap; i++) {
			if (!t->keys[i])
				continue;
			size_t j = t->keys[i] & (cap - 1);
			while (keys[j])
				j = (j + 1) & (cap - 1);
			keys[j] = t->keys[i];
			ids[j] = t->ids[i];
		}
		free(t->keys);
		free(t->ids);
		t->keys = keys;
		t->ids = ids;
		t->cap = cap;
	}
	size_t j = key & (t->cap - 1);
	for (; t->keys[j]; j = (j + 1) & (t->cap - 1))
		if (t->keys[j] == key)
			return t->ids[j];
	struct {
		struct exp_stack h;
		uint64_t pcs[EXP_MAX_FRAMES];
	} r;
	memset(&r.h, 0, sizeof(r.h));
	r.h.stack_id = t->last + 1;
	r.h.nframes = (uint16_t)n;
	r.h.flags = flags;
	memcpy(r.pcs, pcs, 8u * (size_t)n);
	if (exp_record_append_sigsafe(&im->stacks, &im->stacks_cur, EXP_REC_STACK, &r,
				      sizeof(r.h) + 8u * (size_t)n) != 0) {
		im->counters[EXP_CTR_LOST_BUFFER]++;
		return 0;
	}
	t->keys[j] = key;
	t->ids[j] = ++t->last;
	t->used++;
	return t->last;
}

/* Does the code before `pc` end with a syscall instruction (0f 05)?  Read
 * in the object's bytes as loaded here (the collector's after_syscall
 * reads the target's own); true where they cannot be read.  A thread that blocked in a system call left
 * its CPU there (the user registers' pc is the return address of the
 * call); one that blocked in a page fault, at the faulting instruction. */
static bool after_syscall(const struct col_object_set *set, uint64_t pc)
{
	const struct col_object *o = col_objects_find_sigsafe(set, pc - 2);

	if (!o || o->text_hi <= o->text_lo || pc - 2 < o->text_lo || pc > o->text_hi)
		return true;      /* its code cannot be read here: as before, a call's */
	const uint8_t *p = (const uint8_t *)(uintptr_t)(pc - 2 + (uint64_t)o->mem_delta);
	return p[0] == 0x0f && p[1] == 0x05;
}

void out_image_switch_stack(struct out_image *im, uint32_t tid, uint64_t time_ns,
			    const uint64_t *perf_regs, const uint8_t *stack, uint64_t stack_len)
{
	static uint64_t pcs[EXP_MAX_FRAMES];
	struct out_thread *t = out_image_thread(im, tid, time_ns, 0);

	if (!t || !im->states)
		return;
	uint16_t flags;
	int n = unwind(im, perf_regs, stack, stack_len, pcs, &flags);
	uint32_t id = stack_id_of(im, pcs, n, flags);
	bool sc = after_syscall(out_objects_set(&im->objs), perf_regs[8]);   /* its pc */
	im->switch_stacks++;
	/* The kernel writes the sample just before the switch record; a
	 * drain may still pass that record first (two rings, one time). */
	if (t->nsw && t->sw[t->nsw - 1].out && !t->sw[t->nsw - 1].stack_id &&
	    t->sw[t->nsw - 1].time_ns >= time_ns) {
		t->sw[t->nsw - 1].stack_id = id;
		t->sw[t->nsw - 1].syscall = sc;
	} else {
		t->pending_stack = id;
		t->pending_syscall = sc;
	}
}

static int by_time(const void *a, const void *b)
{
	const struct out_switch *x = a, *y = b;

	return x->time_ns < y->time_ns ? -1 : x->time_ns > y->time_ns;
}

void out_image_read_run_delays(struct out_image *im)
{
	char path[96], buf[96];

	if (!im->states)
		return;
	for (uint32_t i = 0; i < im->nthr; i++) {
		struct out_thread *t = &im->thr[i];
		if (t->ended)
			continue;
		snprintf(path, sizeof(path), "/proc/%d/task/%u/schedstat", (int)im->pid, t->tid);
		int fd = open(path, O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			continue;
		ssize_t n = read(fd, buf, sizeof(buf) - 1);
		close(fd);
		struct exp_schedstat st;
		if (n <= 0)
			continue;
		buf[n] = 0;
		if (!exp_schedstat_parse(buf, &st))
			continue;
		uint64_t delay = st.run_delay_ns;
		struct timespec ts;
		clock_gettime(CLOCK_MONOTONIC, &ts);
		uint64_t now = (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
		/* A run delay that has not moved since the two reads before:
		 * the last one's time is moved up instead (the same shares,
		 * not an entry per poll for the thread's whole life). */
		if (t->nrd >= 2 && t->rd[t->nrd - 1].run_delay_ns == delay && t->rd[t->nrd - 2].run_delay_ns == delay) {
			t->rd[t->nrd - 1].time_ns = now;
			continue;
		}
		if (t->nrd == t->cap_rd) {
			uint32_t cap = t->cap_rd ? 2 * t->cap_rd : 64;
			struct out_run_delay *v = realloc(t->rd, cap * sizeof(*v));
			if (!v)
				continue;
			t->rd = v;
			t->cap_rd = cap;
		}
		t->rd[t->nrd++] = (struct out_run_delay){ now, delay };
	}
}

/* The blocks' waits for a CPU (runnable_ns) of the thread's intervals iv,
 * sorted by on_ns: between two run-delay reads, the run delay's growth less
 * the preemptions that ended there, shared by the blocks that ended there
 * (each at most its length; WAKE_SPREAD when several).  The kernel adds a
 * wait to run_delay when the thread gets its CPU, at on_ns.  Blocks before
 * the first read or after the last keep it all as blocked. */
static void share_run_delays(const struct out_thread *t, struct exp_state *iv, uint32_t n)
{
	uint32_t i = 0;

	for (uint32_t k = 1; k < t->nrd; k++) {
		uint64_t lo = t->rd[k - 1].time_ns, hi = t->rd[k].time_ns;
		while (i < n && iv[i].on_ns <= lo)
			i++;
		uint32_t first = i, blocks = 0;
		uint64_t preempted = 0;
		for (; i < n && iv[i].on_ns <= hi; i++) {
			if (iv[i].flags & EXP_STATE_PREEMPTED)
				preempted += iv[i].on_ns - iv[i].off_ns;
			else
				blocks++;
		}
		uint64_t grew = t->rd[k].run_delay_ns > t->rd[k - 1].run_delay_ns
					? t->rd[k].run_delay_ns - t->rd[k - 1].run_delay_ns : 0;
		uint64_t wake = grew > preempted ? grew - preempted : 0;
		uint32_t left = blocks;
		for (uint32_t j = first; j < i && left; j++) {
			if (iv[j].flags & EXP_STATE_PREEMPTED)
				continue;
			uint64_t len = iv[j].on_ns - iv[j].off_ns, share = wake / left--;
			iv[j].runnable_ns = share < len ? share : len;
			wake -= iv[j].runnable_ns;
			if (blocks > 1)
				iv[j].flags |= EXP_STATE_WAKE_SPREAD;
		}
	}
}

/* --states: the thread's intervals off the CPU, each from a switch off to
 * the next switch onto one (its records sorted by time first: two CPUs'
 * rings are merged only within a drain), as STATE records, with the stack
 * of the switch sample where there was one: a preemption is all wait for a
 * CPU, a block blocked but for its share of the run delay read from /proc
 * (share_run_delays).  The analyzer shows a preemption without a stack at
 * the thread's next sample, a block without one at <Unknown>
 * (docs/static.md). */
static void write_states(struct out_image *im, struct out_thread *t)
{
	qsort(t->sw, t->nsw, sizeof(*t->sw), by_time);
	struct exp_state *iv = t->nsw ? calloc(t->nsw, sizeof(*iv)) : NULL;
	uint32_t n = 0;
	for (uint32_t i = 0; i + 1 < t->nsw; i++) {
		if (!t->sw[i].out || t->sw[i + 1].out)
			continue;
		struct exp_state r = { 0 };
		if (!iv) {
			im->counters[EXP_CTR_STATES_LOST]++;
			continue;
		}
		r.tid = t->tid;
		r.off_ns = t->sw[i].time_ns;
		r.on_ns = t->sw[i + 1].time_ns;
		r.runnable_ns = t->sw[i].preempt ? r.on_ns - r.off_ns : 0;
		r.stack_id = t->sw[i].stack_id;
		/* A thread of a user program leaves its CPU preempted, or
		 * blocked in a system call or in a page fault (told apart by
		 * the instruction before its pc: after_syscall).  A block at
		 * no system call is taken for a fault's: a stop (SIGSTOP) of
		 * a thread running its code would be too, from outside. */
		uint16_t why = t->sw[i].syscall ? EXP_STATE_SYSCALL : EXP_STATE_FAULTED;
		r.flags = (uint16_t)((r.stack_id ? (t->sw[i].preempt ? 0 : why) : EXP_STATE_NO_STACK) |
				     (t->sw[i].preempt ? EXP_STATE_PREEMPTED : 0));
		iv[n++] = r;
	}
	share_run_delays(t, iv, n);
	for (uint32_t i = 0; i < n; i++) {
		if (exp_record_append_sigsafe(&im->states_w, &im->states_cur, EXP_REC_STATE, &iv[i],
					      sizeof(iv[i])) != 0)
			im->counters[EXP_CTR_LOST_BUFFER]++;
		else if (!iv[i].stack_id)
			im->counters[EXP_CTR_STATES_NO_STACK]++;
	}
	free(iv);
	free(t->sw);
	t->sw = NULL;
	t->nsw = t->cap_sw = 0;
	free(t->rd);
	t->rd = NULL;
	t->nrd = t->cap_rd = 0;
}

static void end_thread(struct out_image *im, struct out_thread *t, uint64_t time_ns,
		       uint64_t period_ns)
{
	if (im->states)
		write_states(im, t);
	/* The CPU the thread had: its time on a CPU between its switch
	 * records (the kernel's EXIT record comes before the thread's last
	 * switch off its CPU: it is on until then); what its samples stand
	 * for if it never switched (docs/static.md). */
	struct exp_thread_end r = { 0 };
	r.tid = t->tid;
	r.time_ns = time_ns > t->last_ns ? time_ns : t->last_ns;
	for (uint32_t i = 0; i < t->non; i++)
		if (r.time_ns > t->on[i].since_ns)
			t->switched_cpu_ns += r.time_ns - t->on[i].since_ns;
	t->non = 0;
	r.cpu_ns = t->switched ? t->switched_cpu_ns : t->samples * period_ns;
	r.samples = t->samples;
	if (exp_record_append_sigsafe(&im->threads, &im->threads_cur, EXP_REC_THREAD_END, &r,
				      sizeof(r)) != 0)
		im->counters[EXP_CTR_LOST_BUFFER]++;
	exp_run_end_sigsafe(t->rw);
	exp_cursor_release_sigsafe(&t->cur);
	free(t->rw);
	t->rw = NULL;
	t->ended = 1;
}

void out_image_switch(struct out_image *im, uint32_t tid, uint64_t time_ns, uint32_t cpu, int out,
		      int preempt)
{
	struct out_thread *t = out_image_thread(im, tid, time_ns, 0);

	if (!t)
		return;
	if (im->states) {
		if (t->nsw == t->cap_sw) {
			uint32_t cap = t->cap_sw ? 2 * t->cap_sw : 256;
			struct out_switch *v = realloc(t->sw, cap * sizeof(*v));
			if (v) {
				t->sw = v;
				t->cap_sw = cap;
			}
		}
		if (t->nsw < t->cap_sw)
			t->sw[t->nsw++] = (struct out_switch){ time_ns, out ? t->pending_stack : 0,
							       (uint8_t)out, (uint8_t)preempt,
							       (uint8_t)(out && t->pending_syscall) };
		else
			im->counters[EXP_CTR_STATES_LOST]++;
		t->pending_stack = 0;
		t->pending_syscall = 0;
	}
	if (out) {
		/* Off CPU `cpu`: on since its switch onto it, or, for its
		 * first record, since it was met (running when the events
		 * started: the exec, the attach). */
		uint64_t since = t->switched ? time_ns : t->start_ns;
		for (uint32_t i = 0; i < t->non; i++)
			if (t->on[i].cpu == cpu) {
				since = t->on[i].since_ns;
				t->on[i] = t->on[--t->non];
				break;
			}
		if (time_ns > since)
			t->switched_cpu_ns += time_ns - since;
	} else if (t->non < OUT_PENDING_ONS) {
		t->on[t->non].since_ns = time_ns;
		t->on[t->non++].cpu = cpu;
	} else {
		im->switch_unpaired++;
	}
	t->switched = 1;
}

void out_image_thread_end(struct out_image *im, uint32_t tid, uint64_t time_ns,
			  uint64_t period_ns)
{
	for (uint32_t i = 0; i < im->nthr; i++)
		if (im->thr[i].tid == tid && !im->thr[i].ended)
			end_thread(im, &im->thr[i], time_ns, period_ns);
}

static void write_counters(struct out_image *im)
{
	uint8_t buf[EXP_COUNTERS_BYTES];
	struct exp_file_header h;

	memset(buf, 0, sizeof(buf));
	exp_file_header_init(&h, 0, EXP_BLOCK_BYTES, (uint32_t)im->pid, im->start_ns, 0);
	memcpy(buf, &h, sizeof(h));
	memcpy(buf + EXP_HEADER_BYTES, im->counters, sizeof(im->counters));
	int fd = openat(im->dirfd, EXP_COUNTERS_NAME, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0 || write(fd, buf, sizeof(buf)) != (ssize_t)sizeof(buf))
		log_line(im, "error", "%s: %s (the loss counters are not recorded)", EXP_COUNTERS_NAME,
			 strerror(errno ? errno : EIO));
	if (fd >= 0)
		close(fd);
}

/* Remove a directory of files (a fork child that exec'd at once). */
static void remove_image(struct out_image *im)
{
	static const char *names[] = { "samples.dat", "stacks.dat", "maps.dat", "threads.dat", "states.dat",
				       EXP_COUNTERS_NAME, EXP_LOG_NAME };
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		unlinkat(im->dirfd, names[i], 0);
	rmdir(im->dir);
}

void out_image_close(struct out_image *im, uint64_t time_ns, uint64_t period_ns)
{
	if (!im->open)
		goto out;
	for (uint32_t i = 0; i < im->nthr; i++)
		if (!im->thr[i].ended)
			end_thread(im, &im->thr[i], time_ns, period_ns);
	exp_cursor_release_sigsafe(&im->maps_cur);
	exp_cursor_release_sigsafe(&im->threads_cur);
	exp_cursor_release_sigsafe(&im->states_cur);
	struct exp_file_writer *w[] = { &im->samples, &im->stacks, &im->maps, &im->threads, &im->states_w };
	for (size_t i = 0; i < (im->states ? 5u : 4u); i++) {
		if (w[i]->full && w[i]->err && !w[i]->over_budget)
			log_line(im, "error", "%s: %s (records lost)", exp_file_name((enum exp_file_kind)w[i]->kind),
				 strerror(w[i]->err));
		exp_writer_close(w[i]);
	}
	if (im->replaced && !im->counters[EXP_CTR_SAMPLES] && im->lineage[0]) {
		remove_image(im);
		goto out;
	}
	im->counters[EXP_CTR_FORKS] = im->nforks;
	im->counters[EXP_CTR_EXECS] = im->nexecs;
	write_counters(im);
	if (im->copy_short)
		log_line(im, "outside.copy_short", "%llu stacks deeper than the %u KiB stack copy "
			 "(cut: unwind.truncated)", (unsigned long long)im->copy_short, OUT_STACK_BYTES / 1024);
	if (im->no_regs)
		log_line(im, "outside.no_user_regs", "%llu samples had no user registers (not recorded)",
			 (unsigned long long)im->no_regs);
	if (im->switch_unpaired)
		log_line(im, "outside.switch_unpaired", "%llu switches onto a CPU had no room to wait for "
			 "their switch off it (their run is not in the thread's CPU)",
			 (unsigned long long)im->switch_unpaired);
	if (im->switch_stacks)
		log_line(im, "outside.switch_stacks", "%llu switches off a CPU with the user's stack "
			 "(%u distinct)", (unsigned long long)im->switch_stacks, im->stack_ids.last);
	log_line(im, "end.mono_ns", "%llu", (unsigned long long)time_ns);
out:
	free(im->stack_ids.keys);
	free(im->stack_ids.ids);
	for (uint32_t i = 0; i < im->nthr; i++)
		free(im->thr[i].rw);
	free(im->thr);
	free(im->uctx);
	out_objects_free(&im->objs);
	if (im->dirfd >= 0)
		close(im->dirfd);
	im->dirfd = -1;
	im->open = 0;
}
