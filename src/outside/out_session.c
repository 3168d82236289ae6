/* SPDX-License-Identifier: MIT
 *
 * out_session.c — the outside mode's run (out.h): the records of the perf
 * events made into process images (out_image.c).
 *
 * A COMM record with the exec flag starts a new image of its process
 * (`_xN`, as the collector's exec interposer names it), a FORK record whose
 * pid differs from its parent's a new process (`_fN`, with its parent's
 * mappings), a FORK or EXIT of a thread starts or ends it, an MMAP2 adds
 * an executable mapping, and a SAMPLE is unwound into its image.  Records
 * come sorted by time within each drain (out_ring.c).
 */
#include <dirent.h>
#include <errno.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/sysmacros.h>
#include <time.h>
#include <unistd.h>

#include "outside/out.h"
#include "outside/out_image.h"
#include "outside/out_ring.h"

struct out_session {
	struct out_options o;
	struct out_rings *rings;
	uint64_t period_ns;
	int kernel_ticks;
	int callchain;                 /* the samples carry the kernel's call chain */
	int switch_stacks;             /* --states: a sample at each switch off a CPU */
	struct out_image **live;       /* images of processes alive */
	size_t nlive, cap_live;
	struct out_image *founder;     /* kept open to the end */
	int founder_before_exec;       /* a launch: its exec is the founder's own */
	uint64_t records, samples;
	uint64_t before_exec;          /* ticks of the child before its exec (tally's code) */
	uint64_t no_image;             /* samples of a process with no image (not recorded) */
};

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static struct out_image *image_of(struct out_session *s, uint32_t pid)
{
	for (size_t i = 0; i < s->nlive; i++)
		if ((uint32_t)s->live[i]->pid == pid)
			return s->live[i];
	return NULL;
}

static void drop_live(struct out_session *s, struct out_image *im)
{
	for (size_t i = 0; i < s->nlive; i++)
		if (s->live[i] == im) {
			s->live[i] = s->live[--s->nlive];
			return;
		}
}

/* A new image; NULL when it cannot be opened (its records are then not
 * kept: the founder's log says so). */
static struct out_image *new_image(struct out_session *s, const char *lineage, pid_t pid,
				   pid_t ppid, const char *by, uint64_t t)
{
	if (s->nlive == s->cap_live) {
		size_t cap = s->cap_live ? 2 * s->cap_live : 8;
		struct out_image **l = realloc(s->live, cap * sizeof(*l));
		if (!l)
			return NULL;
		s->live = l;
		s->cap_live = cap;
	}
	struct out_image *im = calloc(1, sizeof(*im));
	if (!im)
		return NULL;
	int rc = out_image_open(im, s->o.dir, lineage, pid, ppid, by, t, s->o.hz, s->o.max_frames,
				s->o.states ? (s->switch_stacks ? OUT_STATES_STACKS : OUT_STATES_RECORDS) : 0);
	if (rc != 0) {
		fprintf(stderr, "tally record: %s: %s (that process is not recorded)\n", im->dir, strerror(-rc));
		out_image_close(im, t, s->period_ns);
		free(im);
		return NULL;
	}
	s->live[s->nlive++] = im;
	return im;
}

static void end_image(struct out_session *s, struct out_image *im, uint64_t t)
{
	drop_live(s, im);
	if (im == s->founder)
		return;                    /* closed last, by out_session_close */
	out_image_close(im, t, s->period_ns);
	free(im);
}

/* sample_id at the end of a non-sample record: pid, tid, time, cpu. */
static uint64_t id_time(const uint8_t *rec, size_t len)
{
	uint64_t t = 0;

	if (len >= 8 + 24)
		memcpy(&t, rec + len - 16, 8);
	return t;
}

static void on_comm(struct out_session *s, uint16_t misc, const uint8_t *rec, size_t len)
{
	uint32_t pid, tid;

	char comm[16] = "";

	if (len < 16)
		return;
	memcpy(&pid, rec + 8, 4);
	memcpy(&tid, rec + 12, 4);
	memcpy(comm, rec + 16, len - 16 < sizeof(comm) - 1 ? len - 16 : sizeof(comm) - 1);
	struct out_image *old = image_of(s, pid);
	uint64_t t = id_time(rec, len);
	if (!old)
		return;
	if (!(misc & PERF_RECORD_MISC_COMM_EXEC)) {
		out_image_thread_name(old, tid, t, comm);     /* prctl(PR_SET_NAME) */
		return;
	}
	if (old == s->founder && s->founder_before_exec) {
		s->founder_before_exec = 0;    /* the program's own start */
		memcpy(old->comm, comm, sizeof(old->comm));
		out_image_thread_name(old, tid, t, comm);
		return;
	}
	char lineage[sizeof(old->lineage)];
	snprintf(lineage, sizeof(lineage), "%s_x%u", old->lineage, ++old->nexecs);
	pid_t ppid = old->ppid;
	old->replaced = 1;
	end_image(s, old, t);
	struct out_image *im = new_image(s, lineage, (pid_t)pid, ppid, "exec", t);
	if (im) {
		memcpy(im->comm, comm, sizeof(im->comm));
		out_image_thread_name(im, tid, t, comm);
	}
}

static void on_fork(struct out_session *s, const uint8_t *rec, size_t len)
{
	uint32_t pid, ppid, tid, ptid;
	uint64_t t;

	if (len < 8 + 24)
		return;
	memcpy(&pid, rec + 8, 4);
	memcpy(&ppid, rec + 12, 4);
	memcpy(&tid, rec + 16, 4);
	memcpy(&ptid, rec + 20, 4);
	memcpy(&t, rec + 24, 8);
	struct out_image *parent = image_of(s, ppid);
	if (!parent)
		return;
	if (pid == ppid) {
		out_image_thread(parent, tid, t, ptid);
		return;
	}
	char lineage[sizeof(parent->lineage)];
	snprintf(lineage, sizeof(lineage), "%s_f%u", parent->lineage, ++parent->nforks);
	struct out_image *child = new_image(s, lineage, (pid_t)pid, (pid_t)ppid, "fork", t);
	if (!child)
		return;
	memcpy(child->comm, parent->comm, sizeof(child->comm));
	if (out_objects_copy(&child->objs, &parent->objs) == 0)
		for (uint32_t i = 0; i < child->objs.n; i++)
			out_image_map(child, &child->objs.maps[i], t);
	out_image_thread(child, tid, t, ptid);
}

static void on_exit_rec(struct out_session *s, const uint8_t *rec, size_t len)
{
	uint32_t pid, tid;
	uint64_t t;

	if (len < 8 + 24)
		return;
	memcpy(&pid, rec + 8, 4);
	memcpy(&tid, rec + 16, 4);
	memcpy(&t, rec + 24, 8);
	struct out_image *im = image_of(s, pid);
	if (!im)
		return;
	out_image_thread_end(im, tid, t, s->period_ns);
	if (pid == tid)
		end_image(s, im, t);
}

static void on_mmap2(struct out_session *s, const uint8_t *rec, size_t len)
{
	uint32_t pid, maj, min, prot;
	uint64_t addr, mlen, pgoff, ino;

	if (len < 8 + 64 + 1)
		return;
	memcpy(&pid, rec + 8, 4);
	memcpy(&addr, rec + 16, 8);
	memcpy(&mlen, rec + 24, 8);
	memcpy(&pgoff, rec + 32, 8);
	memcpy(&maj, rec + 40, 4);
	memcpy(&min, rec + 44, 4);
	memcpy(&ino, rec + 48, 8);
	memcpy(&prot, rec + 64, 4);
	const char *name = (const char *)rec + 72;
	size_t room = len - 72;
	if (!(prot & PROT_EXEC) || !memchr(name, 0, room))
		return;
	struct out_image *im = image_of(s, pid);
	if (!im)
		return;
	const struct out_map *m = out_objects_add(&im->objs, name, addr, mlen, pgoff,
						  makedev(maj, min), ino);
	if (m)
		out_image_map(im, m, id_time(rec, len));
}

/* A sample's fields (the clock's and the switch event's layout: IP, TID,
 * TIME, CPU, [CALLCHAIN], REGS_USER, STACK_USER). */
struct sample {
	uint32_t pid, tid, cpu;
	uint64_t time_ns;
	const uint8_t *chain;          /* the kernel's pcs, nchain of them */
	uint64_t nchain;
	uint64_t regs[OUT_NREGS];
	int has_regs;                  /* 0: no user registers (a kernel thread's) */
	const uint8_t *stack;
	uint64_t stack_len;            /* of the copy, as the kernel filled it */
};

/* Parse a sample; 0, or -1 when it is cut short. */
static int parse_sample(const uint8_t *rec, size_t len, int callchain, struct sample *ps)
{
	uint64_t abi, size, dyn = 0;
	size_t at = 40;

	if (len < 56)
		return -1;
	memcpy(&ps->pid, rec + 16, 4);
	memcpy(&ps->tid, rec + 20, 4);
	memcpy(&ps->time_ns, rec + 24, 8);
	memcpy(&ps->cpu, rec + 32, 4);
	ps->nchain = 0;
	if (callchain) {                   /* PERF_SAMPLE_CALLCHAIN: nr, then its pcs */
		memcpy(&ps->nchain, rec + at, 8);
		if (ps->nchain > (len - at - 8) / 8)
			return -1;
		at += 8 + 8 * ps->nchain;
		if (at + 16 > len)
			return -1;
	}
	ps->chain = rec + 48;
	memcpy(&abi, rec + at, 8);
	at += 8;
	ps->has_regs = abi != 0;
	if (!abi)
		return 0;
	if (at + sizeof(ps->regs) + 8 > len)
		return -1;
	memcpy(ps->regs, rec + at, sizeof(ps->regs));
	at += sizeof(ps->regs);
	memcpy(&size, rec + at, 8);
	at += 8;
	if (size > len - at)
		return -1;
	ps->stack = rec + at;
	if (size && at + size + 8 <= len)
		memcpy(&dyn, rec + at + size, 8);
	ps->stack_len = dyn > size ? size : dyn;
	return 0;
}

/* The sample's kernel chain into pcs (at most 128, context markers and
 * all): how many. */
static size_t chain_pcs(const struct sample *ps, uint64_t pcs[128])
{
	size_t n = ps->nchain < 128 ? (size_t)ps->nchain : 128;

	memcpy(pcs, ps->chain, 8 * n);
	return n;
}

/* The image a sample of process `pid` goes to, NULL when none (counted). */
static struct out_image *sample_image(struct out_session *s, uint32_t pid)
{
	struct out_image *im = image_of(s, pid);

	if (!im) {
		s->no_image++;             /* a process whose start was not seen */
		return NULL;
	}
	if (im == s->founder && s->founder_before_exec) {
		s->before_exec++;          /* tally's own child, in its execve */
		return NULL;
	}
	return im;
}

static void on_sample(struct out_session *s, uint16_t misc, const uint8_t *rec, size_t len)
{
	struct sample ps;

	if (parse_sample(rec, len, s->callchain, &ps) != 0)
		return;
	struct out_image *im = sample_image(s, ps.pid);
	if (!im)
		return;
	s->samples++;
	if (!ps.has_regs) {
		im->no_regs++;
		return;
	}
	out_image_sample(im, ps.tid, ps.time_ns, ps.cpu, s->period_ns, ps.regs, ps.stack, ps.stack_len,
			 (misc & PERF_RECORD_MISC_CPUMODE_MASK) == PERF_RECORD_MISC_KERNEL);
	if (ps.nchain) {
		uint64_t pcs[128];
		s->o.kernel_chain(s->o.kernel_arg, ps.pid, ps.tid, ps.time_ns, pcs, chain_pcs(&ps, pcs));
	}
}

/* --states: the user's stack where a thread went off its CPU (the
 * context-switch event's sample, just before the switch record), and with
 * --kernel the kernel's chain there. */
static void on_switch_sample(struct out_session *s, const uint8_t *rec, size_t len)
{
	struct sample ps;

	if (parse_sample(rec, len, s->callchain, &ps) != 0 || !ps.has_regs)
		return;
	struct out_image *im = sample_image(s, ps.pid);
	if (!im)
		return;
	out_image_switch_stack(im, ps.tid, ps.time_ns, ps.regs, ps.stack, ps.stack_len);
	if (ps.nchain && s->o.kernel_switch) {
		uint64_t pcs[128];
		s->o.kernel_switch(s->o.kernel_arg, ps.pid, ps.tid, ps.time_ns, pcs, chain_pcs(&ps, pcs));
	}
}

/* A thread's switch off or onto a CPU (context_switch): its sample_id
 * (pid, tid, time, cpu) follows the header. */
static void on_switch(struct out_session *s, uint16_t misc, const uint8_t *rec, size_t len)
{
	uint32_t pid, tid, cpu;
	uint64_t t;

	if (len < 8 + 24)
		return;
	memcpy(&pid, rec + 8, 4);
	memcpy(&tid, rec + 12, 4);
	memcpy(&t, rec + 16, 8);
	memcpy(&cpu, rec + 24, 4);
	struct out_image *im = image_of(s, pid);
	if (!im || (im == s->founder && s->founder_before_exec))
		return;
	out_image_switch(im, tid, t, cpu, (misc & PERF_RECORD_MISC_SWITCH_OUT) != 0,
			 (misc & PERF_RECORD_MISC_SWITCH_OUT_PREEMPT) != 0);
}

static void on_record(void *arg, uint32_t type, uint16_t misc, const uint8_t *rec, size_t len)
{
	struct out_session *s = arg;

	s->records++;
	switch (type) {
	case PERF_RECORD_SAMPLE: on_sample(s, misc, rec, len); break;
	case PERF_RECORD_MMAP2: on_mmap2(s, rec, len); break;
	case PERF_RECORD_COMM: on_comm(s, misc, rec, len); break;
	case PERF_RECORD_FORK: on_fork(s, rec, len); break;
	case PERF_RECORD_EXIT: on_exit_rec(s, rec, len); break;
	case PERF_RECORD_SWITCH: on_switch(s, misc, rec, len); break;
	case OUT_RECORD_SWITCH_SAMPLE: on_switch_sample(s, rec, len); break;
	default: break;
	}
}

int out_session_kernel_chains(const struct out_session *s)
{
	return s->callchain;
}

static struct out_session *session_new(const struct out_options *o)
{
	struct out_session *s = calloc(1, sizeof(*s));

	if (!s)
		return NULL;
	s->o = *o;
	s->period_ns = 1000000000ull / (o->hz ? o->hz : 1000);
	return s;
}

struct out_session *out_session_launch(pid_t child, const struct out_options *o, char *why,
				       size_t why_len)
{
	struct out_session *s = session_new(o);

	if (!s) {
		snprintf(why, why_len, "out of memory");
		return NULL;
	}
	s->switch_stacks = s->o.states;
	s->rings = out_ring_open(&child, 1, 1, s->period_ns, s->o.kernel_chain != NULL, &s->kernel_ticks,
				 &s->switch_stacks, why, why_len);
	s->callchain = s->o.kernel_chain && s->kernel_ticks;
	if (!s->rings) {
		free(s);
		return NULL;
	}
	s->founder = new_image(s, "", child, getpid(), "tally record", now_ns());
	if (!s->founder) {
		snprintf(why, why_len, "%s: cannot write the experiment", o->dir);
		out_ring_close(s->rings);
		free(s);
		return NULL;
	}
	s->founder_before_exec = 1;
	return s;
}

/* The running process's executable mappings, as MMAP2 records would give. */
static void synthesize_maps(struct out_session *s, struct out_image *im, pid_t pid)
{
	char path[64], line[4096 + 256];

	snprintf(path, sizeof(path), "/proc/%d/maps", (int)pid);
	FILE *f = fopen(path, "r");
	if (!f)
		return;
	uint64_t t = now_ns();
	while (fgets(line, sizeof(line), f)) {
		unsigned long long lo, hi, off, ino;
		unsigned maj, min;
		char perms[8];
		int name_at = 0;
		if (sscanf(line, "%llx-%llx %7s %llx %x:%x %llu %n", &lo, &hi, perms, &off, &maj, &min, &ino,
			   &name_at) < 7 || perms[2] != 'x')
			continue;
		char *name = line + name_at;
		name[strcspn(name, "\n")] = 0;
		if (!name[0] || (name[0] != '/' && strcmp(name, "[vdso]")))
			continue;
		const struct out_map *m = out_objects_add(&im->objs, name, lo, hi - lo, off,
							  makedev(maj, min), ino);
		if (m)
			out_image_map(im, m, t);
	}
	fclose(f);
	(void)s;
}

struct out_session *out_session_attach(pid_t pid, const struct out_options *o, char *why,
				       size_t why_len)
{
	struct out_session *s = session_new(o);
	pid_t tids[1024];
	size_t n = 0;
	char path[64];

	if (!s) {
		snprintf(why, why_len, "out of memory");
		return NULL;
	}
	snprintf(path, sizeof(path), "/proc/%d/task", (int)pid);
	DIR *d = opendir(path);
	for (struct dirent *e; d && (e = readdir(d)) && n < 1024;)
		if (e->d_name[0] != '.')
			tids[n++] = (pid_t)atoi(e->d_name);
	if (d)
		closedir(d);
	if (!n) {
		snprintf(why, why_len, "%s: %s", path, strerror(errno ? errno : ESRCH));
		free(s);
		return NULL;
	}
	/* The events count from their open (not enabled on exec): the image
	 * starts before it, or the records of the first moments (a thread's
	 * switches while the others' events open, under load 0.1 s and more)
	 * fall before its start.mono_ns and the window leaves them out. */
	uint64_t t = now_ns();
	s->switch_stacks = s->o.states;
	s->rings = out_ring_open(tids, n, 0, s->period_ns, s->o.kernel_chain != NULL, &s->kernel_ticks,
				 &s->switch_stacks, why, why_len);
	s->callchain = s->o.kernel_chain && s->kernel_ticks;
	if (!s->rings) {
		free(s);
		return NULL;
	}
	pid_t ppid = 0;
	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	FILE *f = fopen(path, "r");
	if (f) {
		char buf[1024];
		size_t got = fread(buf, 1, sizeof(buf) - 1, f);
		buf[got] = 0;
		char *p = strrchr(buf, ')');
		if (p)
			sscanf(p + 1, " %*c %d", &ppid);
		fclose(f);
	}
	s->founder = new_image(s, "", pid, ppid, "attach", t);
	if (!s->founder) {
		snprintf(why, why_len, "%s: cannot write the experiment", o->dir);
		out_ring_close(s->rings);
		free(s);
		return NULL;
	}
	synthesize_maps(s, s->founder, pid);
	for (size_t i = 0; i < n; i++) {
		char name[16] = "";
		snprintf(path, sizeof(path), "/proc/%d/task/%d/comm", (int)pid, (int)tids[i]);
		FILE *c = fopen(path, "r");
		if (c) {
			if (fgets(name, sizeof(name), c))
				name[strcspn(name, "\n")] = 0;
			fclose(c);
		}
		if (tids[i] == pid)
			memcpy(s->founder->comm, name, sizeof(name));
		out_image_thread(s->founder, (uint32_t)tids[i], t, 0);
		if (name[0])
			out_image_thread_name(s->founder, (uint32_t)tids[i], t, name);
	}
	return s;
}

/* --states: each live thread's run delay, after the switches drained
 * (out_image_read_run_delays). */
static void read_run_delays(struct out_session *s)
{
	for (size_t i = 0; i < s->nlive; i++)
		out_image_read_run_delays(s->live[i]);
}

void out_session_poll(struct out_session *s, int timeout_ms)
{
	out_ring_drain(s->rings, timeout_ms, on_record, s);
	read_run_delays(s);
}

void out_session_close(struct out_session *s)
{
	uint64_t t = now_ns();

	while (out_ring_drain(s->rings, 0, on_record, s))
		;
	read_run_delays(s);
	uint64_t lost = out_ring_lost(s->rings);
	size_t ring = out_ring_bytes(s->rings);
	out_ring_close(s->rings);
	while (s->nlive) {
		struct out_image *im = s->live[s->nlive - 1];
		end_image(s, im, t);
	}
	struct out_image *f = s->founder;
	if (f) {
		FILE *log = NULL;
		char path[PATH_MAX + 16];
		snprintf(path, sizeof(path), "%s/%s", f->dir, "log.txt");
		log = fopen(path, "a");
		if (log) {
			fprintf(log, "collector.mode: outside mode: %s; tracing unavailable\n",
				s->o.mode_why ? s->o.mode_why : "statically linked");
			fprintf(log, "outside.ring_bytes: %zu\n", ring);
			fprintf(log, "outside.kernel_ticks: %s\n", s->kernel_ticks ?
				"sampled at the user stack that entered the kernel" :
				"not sampled (perf_event_paranoid): system time is in no sample");
			fprintf(log, "outside.records: %llu\n", (unsigned long long)s->records);
			fprintf(log, "outside.lost: %llu\n", (unsigned long long)lost);
			if (s->no_image)
				fprintf(log, "outside.no_image: %llu samples of processes whose start was "
					"not seen (not recorded)\n", (unsigned long long)s->no_image);
			if (s->before_exec)
				fprintf(log, "outside.before_exec: %llu ticks of tally's child before the "
					"program's exec (not recorded)\n", (unsigned long long)s->before_exec);
			fclose(log);
		}
		out_image_close(f, t, s->period_ns);
		free(f);
	}
	free(s->live);
	free(s);
}
