/* SPDX-License-Identifier: MIT
 *
 * exp_read_data.c — loading an experiment directory (see exp_data.h).
 *
 * For each process directory (the founder, then every `_*.exp` inside it):
 * parse log.txt, map counters.dat, and walk each record file with
 * exp_file_next, checking each record's length and fields before copying it.
 * Event files are read before stacks.dat, so that in a live experiment every
 * stack an event names has been published before the stacks are read.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "format/exp_cost.h"
#include "format/exp_data.h"
#include "format/exp_read_code.h"
#include "format/exp_read_kernel.h"
#include "format/exp_read_run.h"
#include "format/exp_launch.h"
#include "format/exp_procfile.h"
#include "format/exp_thread_lives.h"

#define MAX_STACK_ID (1u << 28)

static int nomem(struct exp_error *err, const char *path)
{
	snprintf(err->msg, sizeof(err->msg), "%s: out of memory", path);
	return -ENOMEM;
}

/* The next process of e, zeroed (its list grown by doubling, from `*cap`);
 * NULL without memory. */
static struct exp_proc *next_proc(struct exp_experiment *e, size_t *cap)
{
	if (e->nprocs == *cap) {
		struct exp_proc *q = realloc(e->procs, 2 * *cap * sizeof(*q));
		if (!q)
			return NULL;
		memset(q + *cap, 0, *cap * sizeof(*q));
		e->procs = q;
		*cap *= 2;
	}
	return &e->procs[e->nprocs++];
}

int exp_stack_frames(const struct exp_proc *p, uint32_t id, uint64_t *pcs, int max, uint16_t *flags)
{
	int n = 0;

	if (id == 0 || id >= p->nstacks || !p->stacks[id].pcs)
		return -1;
	*flags = p->stacks[id].flags;
	for (uint32_t at = id; at && n < max; at = p->stacks[at].parent) {
		for (uint16_t k = 0; k < p->stacks[at].n && n < max; k++)
			pcs[n++] = p->stacks[at].pcs[k];
		if (p->stacks[at].cut)
			*flags |= EXP_STACK_TRUNCATED;
	}
	return n;
}

const char *exp_proc_log(const struct exp_proc *p, const char *key)
{
	for (size_t i = p->nlog; i-- > 0;)
		if (!strcmp(p->log[i].key, key))
			return p->log[i].value;
	return NULL;
}

/* One log line (its newline taken off) into p->log: "key: value"; a line
 * without ": " is skipped.  0, or -ENOMEM. */
static int add_log_line(struct exp_proc *p, size_t *cap, const char *line, size_t n)
{
	const char *colon = memmem(line, n, ": ", 2);

	if (!colon)
		return 0;
	if (exp_grow(&p->log, cap, p->nlog, sizeof(*p->log)))
		return -ENOMEM;
	char *key = strndup(line, (size_t)(colon - line)), *value = strndup(colon + 2, n - (size_t)(colon + 2 - line));
	if (!key || !value) {
		free(key);
		free(value);
		return -ENOMEM;
	}
	p->log[p->nlog].key = key;
	p->log[p->nlog].value = value;
	p->nlog++;
	return 0;
}

static int load_log(struct exp_proc *p, struct exp_error *err)
{
	char path[4200], *line = NULL;
	size_t linecap = 0, cap = 0;
	ssize_t n;

	snprintf(path, sizeof(path), "%s/%s", p->dir, EXP_LOG_NAME);
	/* Not blocking on a FIFO someone left there, nor reading a device. */
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	struct stat st;
	if (fd < 0)
		return errno == ENOENT ? -ENOENT : (snprintf(err->msg, sizeof(err->msg), "%s: %s", path, strerror(errno)), -errno);
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
		close(fd);
		snprintf(err->msg, sizeof(err->msg), "%s: not a regular file", path);
		return -EINVAL;
	}
	FILE *f = fdopen(fd, "r");
	if (!f) {
		int e = errno;
		close(fd);
		snprintf(err->msg, sizeof(err->msg), "%s: %s", path, strerror(e));
		return -e;
	}
	while ((n = getline(&line, &linecap, f)) > 0) {
		if (line[n - 1] == '\n')
			line[--n] = 0;
		if (add_log_line(p, &cap, line, (size_t)n)) {
			free(line);
			fclose(f);
			return nomem(err, path);
		}
	}
	free(line);
	fclose(f);
	return 0;
}

/* Loader state for one process. */
struct loader {
	struct exp_proc *p;
	size_t cap_samples, cap_maps, cap_threads, cap_heap, cap_sync, cap_held, cap_wakes, cap_keys, cap_io, cap_fds, cap_flows, cap_arcs;
	size_t cap_fdwaits, cap_wait_fds, cap_watches;
	size_t cap_mpi, cap_comms, cap_jmethods, cap_jit, cap_dyn;
	size_t cap_states, cap_splits, cap_csamples, cap_cends, cap_dsamples, cap_dregs, cap_dblocks;
	size_t cap_dframes, cap_dframe_pairs, cap_dfiles;
	size_t cap_heap_sums, cap_heap_live, cap_psamples;
	size_t cap_ksamples, cap_kpcs, cap_ksyms, cap_kswitches;
	size_t pool_used, pool_cap;
	struct exp_run_trie trie;        /* the stacks of SAMPLE_RUN records */
	struct exp_thread_lives lives;   /* threads.dat's records, placed at the end */
	exp_damage_fn *on_damage;
	void *damage_arg;
};

/* The counters: missing is fine (a process killed before it made them),
 * unreadable is damage. */
static void load_counters(struct loader *l)
{
	struct exp_proc *p = l->p;
	char path[4200];
	uint8_t buf[EXP_COUNTERS_BYTES];

	snprintf(path, sizeof(path), "%s/%s", p->dir, EXP_COUNTERS_NAME);
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);   /* a FIFO must not block */
	struct stat st;
	if (fd < 0) {
		/* Absent: loss counters unknown (jobgen's experiments have
		 * none); unreadable: damage. */
		if (errno != ENOENT)
			exp_damage_note(&p->damage, l->on_damage, l->damage_arg, path, EXP_DAMAGE_WHOLE_FILE, 0,
					strerror(errno));
		return;
	}
	ssize_t n = fstat(fd, &st) == 0 && S_ISREG(st.st_mode) ? pread(fd, buf, sizeof(buf), 0) : -1;
	close(fd);
	if (n < EXP_HEADER_BYTES + 8 * EXP_CTR_COUNT_ || memcmp(buf, EXP_MAGIC, 8) != 0) {
		exp_damage_note(&p->damage, l->on_damage, l->damage_arg, path, 0, n > 0 ? (uint64_t)n : 0,
				"not a counters file (short, or bad magic): loss counters unknown");
		return;
	}
	/* Its version checked as every file's: a newer tally's counters may
	 * mean other things at these places (said, left out); a garbage
	 * version is damage. */
	struct exp_file_header h;
	struct exp_error why;
	memcpy(&h, buf, sizeof(h));
	int rc = exp_header_check(&h, path, 0, 0, &why);
	if (rc == -EXP_ENEWER) {
		char line[sizeof(why.msg) + 200];
		snprintf(line, sizeof(line), "%s: written by a newer tally (format %u): its loss counters left "
			 "out (read it with the tally that recorded it, or a newer one)", path, why.version);
		if (!p->newer_part)
			p->newer_part = strdup(line);   /* out of memory: the counters are still left out */
		return;
	}
	if (rc) {
		exp_damage_note(&p->damage, l->on_damage, l->damage_arg, path, why.offset, 0,
				why.cause ? why.cause : why.msg);
		return;
	}
	memcpy(p->counters, buf + EXP_HEADER_BYTES, sizeof(p->counters));
	p->has_counters = true;
}

/* Check that a NUL terminates the string at `off` of the record. */
static bool has_nul(const struct exp_rec *r, size_t off)
{
	return off < r->len && memchr((const char *)r->p + off, 0, r->len - off) != NULL;
}

/* Record r's fields are wrong: count it as damaged and go on (returns 1,
 * what a handler returns for a record it rejects). */
__attribute__((format(printf, 3, 4)))
static int reject(struct exp_file *f, const struct exp_rec *r, const char *fmt, ...)
{
	char cause[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(cause, sizeof(cause), fmt, ap);
	va_end(ap);
	exp_file_reject_record(f, r, "%s", cause);
	return 1;
}

static int take_copy(struct loader *l, struct exp_file *f, const struct exp_rec *r,
		     struct exp_error *err);

static int take_sample(struct loader *l, struct exp_file *f, const struct exp_rec *r,
		       struct exp_error *err)
{
	int rc = take_copy(l, f, r, err);

	if (rc == 0)   /* a run's trie id: never valid in a SAMPLE */
		l->p->samples[l->p->nsamples - 1].stack_id &= ~EXP_RUN_LOCAL;
	return rc;
}

static int take_sample_run(struct loader *l, struct exp_file *f, const struct exp_rec *r,
			   struct exp_error *err)
{
	struct exp_proc *p = l->p;
	int rc = exp_run_decode(&l->trie, f->path, r, &p->samples, &p->nsamples, &l->cap_samples, err);

	if (rc == -EXP_ECORRUPT)
		return reject(f, r, "%s", err->cause);
	return rc == -ENOMEM ? nomem(err, f->path) : rc;
}

/* Store stack `id` (not yet defined): n pcs (leaf first), copied, then the
 * stack `parent`.  The pcs go to the pool, whose place is kept as an offset
 * in .pcs until the pool stops moving (load_proc).  0, or -1: no memory. */
static int store_stack(struct loader *l, uint32_t id, uint32_t parent, uint16_t n, uint16_t flags,
		       const void *pcs)
{
	struct exp_proc *p = l->p;

	if (id >= p->nstacks) {
		uint32_t cap = p->nstacks ? p->nstacks : 256;
		while (cap <= id)
			cap *= 2;
		struct exp_stack_ref *q = realloc(p->stacks, cap * sizeof(*q));
		if (!q)
			return -1;
		memset(q + p->nstacks, 0, (cap - p->nstacks) * sizeof(*q));
		p->stacks = q;
		p->nstacks = cap;
	}
	if (l->pool_used + n + 1 > l->pool_cap) {
		size_t cap = l->pool_cap ? l->pool_cap : 4096;
		while (cap < l->pool_used + n + 1)
			cap *= 2;
		uint64_t *q = realloc(p->pc_pool, cap * 8);
		if (!q)
			return -1;
		p->pc_pool = q;
		l->pool_cap = cap;
	}
	memcpy(p->pc_pool + l->pool_used, pcs, 8u * n);
	p->stacks[id].pcs = (const uint64_t *)(uintptr_t)(l->pool_used + 1);
	p->stacks[id].n = n;
	p->stacks[id].flags = flags;
	p->stacks[id].parent = parent;
	l->pool_used += n;
	return 0;
}

/* Store stack `id` of a record of stacks.dat: n pcs (leaf first), then the
 * stack `parent`. */
static int add_stack(struct loader *l, struct exp_file *f, const struct exp_rec *r,
		     uint32_t id, uint32_t parent, uint16_t n, uint16_t flags, const void *pcs,
		     struct exp_error *err)
{
	struct exp_proc *p = l->p;

	/* Ids are handed out one by one, each written as a record of at least
	 * 16 bytes: a bigger id than the file can hold is corrupt (and would
	 * size the table by it). */
	if (id == 0 || id >= MAX_STACK_ID || id > f->size / 16)
		return reject(f, r, "stack id %u out of range", id);
	if (id < p->nstacks && p->stacks[id].pcs)
		return reject(f, r, "stack id %u defined twice", id);
	return store_stack(l, id, parent, n, flags, pcs) ? nomem(err, f->path) : 0;
}

/* Give the run trie's nodes stack ids after those of stacks.dat, and the
 * samples that name them those ids. */
static int merge_run_trie(struct loader *l, struct exp_error *err)
{
	struct exp_proc *p = l->p;
	struct exp_run_trie *t = &l->trie;
	uint32_t base = p->nstacks;

	if (!t->n)
		return 0;
	if ((uint64_t)base + t->n >= EXP_RUN_LOCAL) {      /* corrupt runs: their stacks are lost */
		char path[4200];
		snprintf(path, sizeof(path), "%s/%s", p->dir, exp_file_name(EXP_FILE_SAMPLES));
		exp_damage_note(&p->damage, l->on_damage, l->damage_arg, path, EXP_DAMAGE_WHOLE_FILE, 0,
				"too many stacks in sample runs: their samples are shown as <Unknown>");
		for (size_t i = 0; i < p->nsamples; i++)
			if (p->samples[i].stack_id & EXP_RUN_LOCAL)
				p->samples[i].stack_id = 0;
		return 0;
	}
	for (uint32_t i = (uint32_t)t->n; i >= 1; i--)      /* the highest first: one realloc */
		if (store_stack(l, base + i, t->parent[i] ? base + t->parent[i] : 0, 1, t->flags[i],
				&t->pc[i]))
			return nomem(err, p->dir);
	for (size_t i = 0; i < p->nsamples; i++)
		if (p->samples[i].stack_id & EXP_RUN_LOCAL)
			p->samples[i].stack_id = base + (p->samples[i].stack_id & ~EXP_RUN_LOCAL);
	return 0;
}

static int take_stack(struct loader *l, struct exp_file *f, const struct exp_rec *r,
		      struct exp_error *err)
{
	struct exp_stack s;

	memcpy(&s, r->p, sizeof(s));
	if (s.nframes > EXP_MAX_FRAMES)
		return reject(f, r, "stack depth %u > %d", s.nframes, EXP_MAX_FRAMES);
	if (r->len != sizeof(s) + 8u * s.nframes)
		return reject(f, r, "stack record of %u frames has length %u", s.nframes, r->len);
	return add_stack(l, f, r, s.stack_id, 0, s.nframes, s.flags,
			 (const char *)r->p + sizeof(s), err);
}

static int take_stack_node(struct loader *l, struct exp_file *f, const struct exp_rec *r,
			   struct exp_error *err)
{
	struct exp_stack_node nd;

	memcpy(&nd, r->p, sizeof(nd));
	if (nd.parent_id >= nd.stack_id)
		return reject(f, r, "stack %u has parent %u (not older)", nd.stack_id, nd.parent_id);
	return add_stack(l, f, r, nd.stack_id, nd.parent_id, 1, nd.flags,
			 (const char *)r->p + offsetof(struct exp_stack_node, pc), err);
}

static int take_map(struct loader *l, struct exp_file *f, const struct exp_rec *r,
		    struct exp_error *err)
{
	struct exp_proc *p = l->p;
	struct exp_map m;

	if (!has_nul(r, sizeof(m)))
		return reject(f, r, "map record without a path");
	memcpy(&m, r->p, sizeof(m));
	if (m.start >= m.end || m.build_id_len > EXP_BUILD_ID_MAX)
		return reject(f, r, "map record with range 0x%llx-0x%llx", (unsigned long long)m.start,
			      (unsigned long long)m.end);
	if (exp_grow(&p->maps, &l->cap_maps, p->nmaps, sizeof(*p->maps)))
		return nomem(err, f->path);
	struct exp_map_ev *e = &p->maps[p->nmaps];
	memset(e, 0, sizeof(*e));
	e->order = (uint32_t)p->nmaps++;
	e->flags = m.flags;
	e->time_ns = m.time_ns;
	e->start = m.start;
	e->end = m.end;
	e->bias = m.bias;
	e->build_id_len = m.build_id_len;
	memcpy(e->build_id, m.build_id, m.build_id_len);
	e->path = strdup((const char *)r->p + sizeof(m));
	return e->path ? 0 : nomem(err, f->path);
}

static int take_unmap(struct loader *l, struct exp_file *f, const struct exp_rec *r,
		      struct exp_error *err)
{
	struct exp_proc *p = l->p;
	struct exp_unmap u;

	memcpy(&u, r->p, sizeof(u));
	if (exp_grow(&p->maps, &l->cap_maps, p->nmaps, sizeof(*p->maps)))
		return nomem(err, f->path);
	struct exp_map_ev *e = &p->maps[p->nmaps];
	memset(e, 0, sizeof(*e));
	e->order = (uint32_t)p->nmaps++;
	e->unmap = true;
	e->time_ns = u.time_ns;
	e->start = u.start;
	e->end = u.end;
	return 0;
}

/* A THREAD_START, END, SCHED or SWITCHES record (their lengths checked by
 * rec_types): kept until every file is read, then placed into its
 * thread's life (exp_thread_lives.c). */
static int take_thread_rec(struct loader *l, struct exp_file *f, const struct exp_rec *r,
			   struct exp_error *err)
{
	return exp_thread_lives_add(&l->lives, r->type, r->p, r->len) ? nomem(err, f->path) : 0;
}

static int take_thread_cost(struct loader *l, struct exp_file *f, const struct exp_rec *r,
			    struct exp_error *err)
{
	struct exp_thread_cost tc;

	memcpy(&tc, r->p, sizeof(tc));
	if ((uint32_t)tc.first_bucket + tc.nbuckets > EXP_COST_BUCKETS)
		return reject(f, r, "thread-cost buckets %u..%u (at most %d)",
				   tc.first_bucket, tc.first_bucket + tc.nbuckets, EXP_COST_BUCKETS);
	if (r->len != ((sizeof(tc) + 4u * tc.nbuckets + 7) & ~7u))
		return reject(f, r, "thread-cost record of %u buckets has length %u",
				   tc.nbuckets, r->len);
	return take_thread_rec(l, f, r, err);
}

static int take_heap_free(struct loader *l, struct exp_file *f, const struct exp_rec *r,
			  struct exp_error *err)
{
	struct exp_proc *p = l->p;
	struct exp_heap_free hf;

	memcpy(&hf, r->p, sizeof(hf));
	if (exp_grow(&p->heap, &l->cap_heap, p->nheap, sizeof(*p->heap)))
		return nomem(err, f->path);
	p->heap[p->nheap++] = (struct exp_heap){ .tid = hf.tid, .time_ns = hf.time_ns,
						 .op = EXP_HEAP_FREE, .addr = hf.addr };
	return 0;
}

/* A table of slots after a header: nslots a power of two filling len. */
static bool table_fits(uint32_t nslots, size_t head, size_t slot, uint32_t len)
{
	return nslots && !(nslots & (nslots - 1)) && head + (uint64_t)nslots * slot == len;
}

static int take_heap_sums(struct loader *l, struct exp_file *f, const struct exp_rec *r,
			  struct exp_error *err)
{
	struct exp_proc *p = l->p;
	struct exp_heap_sums t;

	memcpy(&t, r->p, sizeof(t));
	if (!table_fits(t.nslots, sizeof(t), sizeof(struct exp_heap_sum), r->len))
		return reject(f, r, "heap sums table of %u slots in %u bytes", t.nslots, r->len);
	const char *slots = (const char *)r->p + sizeof(t);
	for (uint32_t i = 0; i < t.nslots; i++) {
		struct exp_heap_sum s;
		memcpy(&s, slots + (size_t)i * sizeof(s), sizeof(s));
		if (!s.count)
			continue;
		if (exp_grow(&p->heap_sums, &l->cap_heap_sums, p->nheap_sums, sizeof(*p->heap_sums)))
			return nomem(err, f->path);
		p->heap_sums[p->nheap_sums++] = (struct exp_heap_sum_ev){ s.tid ? s.tid : t.tid, s.stack_id,
									   s.count, s.bytes, s.first_ns };
	}
	return 0;
}

static int take_heap_live(struct loader *l, struct exp_file *f, const struct exp_rec *r,
			  struct exp_error *err)
{
	struct exp_proc *p = l->p;
	struct exp_heap_live_table t;

	memcpy(&t, r->p, sizeof(t));
	if (!table_fits(t.nslots, sizeof(t), sizeof(struct exp_heap_live), r->len) || t.stripe >= t.nstripes)
		return reject(f, r, "live-block table of %u slots in %u bytes (stripe %u of %u)", t.nslots,
			      r->len, t.stripe, t.nstripes);
	const char *slots = (const char *)r->p + sizeof(t);
	/* The table itself, with no block (address UINT64_MAX): a stripe's
	 * newest table counts even when it is empty (every block of a larger
	 * generation freed), or the older one's blocks would be taken for live. */
	if (exp_grow(&p->heap_live, &l->cap_heap_live, p->nheap_live, sizeof(*p->heap_live)))
		return nomem(err, f->path);
	p->heap_live[p->nheap_live++] = (struct exp_heap_live_ev){
		UINT64_MAX, 0, 0, 0, t.gen, t.stripe, t.complete != 0 };
	for (uint32_t i = 0; i < t.nslots; i++) {
		struct exp_heap_live s;
		memcpy(&s, slots + (size_t)i * sizeof(s), sizeof(s));
		if (s.addr <= EXP_HEAP_LIVE_TOMB)
			continue;       /* empty, or released (format 6) */
		if (exp_grow(&p->heap_live, &l->cap_heap_live, p->nheap_live, sizeof(*p->heap_live)))
			return nomem(err, f->path);
		p->heap_live[p->nheap_live++] = (struct exp_heap_live_ev){
			s.addr, s.size, s.stack_id, s.tid, t.gen, t.stripe, t.complete != 0 };
	}
	return 0;
}

static int take_heap_state(struct loader *l, struct exp_file *f, const struct exp_rec *r,
			   struct exp_error *err)
{
	(void)f;
	(void)err;
	memcpy(&l->p->heap_state, r->p, sizeof(l->p->heap_state));
	l->p->has_heap_state = true;
	return 0;
}

static int take_fd_name(struct loader *l, struct exp_file *f, const struct exp_rec *r,
			struct exp_error *err)
{
	struct exp_proc *p = l->p;
	struct exp_fd_name fn;

	if (!has_nul(r, sizeof(fn)))
		return reject(f, r, "fd-name record without a name");
	memcpy(&fn, r->p, sizeof(fn));
	if (exp_grow(&p->fds, &l->cap_fds, p->nfds, sizeof(*p->fds)))
		return nomem(err, f->path);
	struct exp_fd_ev *e = &p->fds[p->nfds++];
	e->fd = fn.fd;
	e->time_ns = fn.time_ns;
	e->name = strdup((const char *)r->p + sizeof(fn));
	return e->name ? 0 : nomem(err, f->path);
}

static int take_fd_wait(struct loader *l, struct exp_file *f, const struct exp_rec *r,
			struct exp_error *err)
{
	struct exp_proc *p = l->p;
	struct exp_fd_wait w;

	memcpy(&w, r->p, sizeof(w));
	if (w.nfds > EXP_WAIT_FDS_MAX || sizeof(w) + 4ull * w.nfds > r->len ||
	    ((w.flags & EXP_WAIT_EPOLL) && w.nfds != 1))
		return reject(f, r, "fd-wait record of %u descriptors in %u bytes", w.nfds, r->len);
	if (exp_grow(&p->fdwaits, &l->cap_fdwaits, p->nfdwaits, sizeof(*p->fdwaits)))
		return nomem(err, f->path);
	for (uint32_t i = 0; i < w.nfds; i++) {
		if (exp_grow(&p->wait_fds, &l->cap_wait_fds, p->nwait_fds, sizeof(*p->wait_fds)))
			return nomem(err, f->path);
		memcpy(&p->wait_fds[p->nwait_fds++], (const char *)r->p + sizeof(w) + 4 * i, 4);
	}
	p->fdwaits[p->nfdwaits++] = (struct exp_fd_wait_ev){ .tid = w.tid, .stack_id = w.stack_id,
		.time_ns = w.time_ns, .dur_ns = w.dur_ns, .flags = w.flags, .nfds = w.nfds,
		.first = p->nwait_fds - w.nfds };
	return 0;
}

static int take_dyn_func(struct loader *l, struct exp_file *f, const struct exp_rec *r,
			 struct exp_error *err)
{
	struct exp_proc *p = l->p;
	struct exp_dyn_func d;
	const uint8_t *b = r->p;

	memcpy(&d, r->p, sizeof(d));
	uint64_t name_pad = ((uint64_t)d.name_len + 7) & ~7ull;
	uint64_t need = sizeof(d) + name_pad + 8ull * d.nlines + d.code_len;
	if (!d.name_len || need > r->len || d.code_len > d.size || b[sizeof(d) + d.name_len - 1] ||
	    !d.size || d.addr + d.size < d.addr)
		return reject(f, r, "dynamic function record of inconsistent lengths");
	if (exp_grow(&p->dyn, &l->cap_dyn, p->ndyn, sizeof(*p->dyn)))
		return nomem(err, f->path);
	struct exp_dyn_ev *e = &p->dyn[p->ndyn];
	memset(e, 0, sizeof(*e));
	e->time_ns = d.time_ns;
	e->unload_ns = UINT64_MAX;
	e->addr = d.addr;
	e->size = d.size;
	e->flags = d.flags;
	e->nlines = d.nlines;
	e->code_len = d.code_len;
	e->name = strdup((const char *)b + sizeof(d));
	e->lines = d.nlines ? malloc(8ull * d.nlines) : NULL;
	e->code = d.code_len ? malloc(d.code_len) : NULL;
	if (!e->name || (d.nlines && !e->lines) || (d.code_len && !e->code)) {
		free(e->name);
		free(e->lines);
		free(e->code);
		return nomem(err, f->path);
	}
	if (d.nlines)
		memcpy(e->lines, b + sizeof(d) + name_pad, 8ull * d.nlines);
	if (d.code_len)
		memcpy(e->code, b + sizeof(d) + name_pad + 8ull * d.nlines, d.code_len);
	p->ndyn++;
	return 0;
}

/* The function loaded last at `addr` before the unload is gone then. */
static int take_dyn_unload(struct loader *l, struct exp_file *f, const struct exp_rec *r,
			   struct exp_error *err)
{
	struct exp_proc *p = l->p;
	struct exp_dyn_unload u;

	(void)f;
	(void)err;
	memcpy(&u, r->p, sizeof(u));
	for (size_t i = p->ndyn; i-- > 0;)
		if (p->dyn[i].addr == u.addr && p->dyn[i].unload_ns == UINT64_MAX && p->dyn[i].time_ns <= u.time_ns) {
			p->dyn[i].unload_ns = u.time_ns;
			break;
		}
	return 0;
}

static int take_arc_table(struct loader *l, struct exp_file *f, const struct exp_rec *r,
			  struct exp_error *err)
{
	struct exp_proc *p = l->p;
	struct exp_arc_table t;

	memcpy(&t, r->p, sizeof(t));
	if (t.nslots == 0 || (t.nslots & (t.nslots - 1)) ||
	    (uint64_t)t.nslots * sizeof(struct exp_arc) + sizeof(t) != r->len) {
		/* A length that fits some table: nslots is what is wrong. */
		uint64_t fits = (r->len - sizeof(t)) / sizeof(struct exp_arc);
		if ((r->len - sizeof(t)) % sizeof(struct exp_arc) == 0 && fits && !(fits & (fits - 1)))
			return reject(f, r, "arc table of %u slots in %u bytes", t.nslots, r->len);
		exp_file_reject_block(f, r, "arc table of %u slots in %u bytes", t.nslots, r->len);
		return 1;
	}
	const struct exp_arc *slots = (const void *)((const char *)r->p + sizeof(t));
	for (uint32_t i = 0; i < t.nslots; i++) {
		struct exp_arc a;
		memcpy(&a, &slots[i], sizeof(a));
		if (!a.frompc || !a.count)
			continue;
		if (exp_grow(&p->arcs, &l->cap_arcs, p->narcs, sizeof(*p->arcs)))
			return nomem(err, f->path);
		p->arcs[p->narcs++] = (struct exp_arc_ev){ a.frompc, a.selfpc, a.count,
							    a.incl_ns, t.call_ns, t.own_ns,
							    t.flags };
	}
	return 0;
}

static int take_state(struct loader *l, struct exp_file *f, const struct exp_rec *r,
		      struct exp_error *err)
{
	struct exp_state st;

	memcpy(&st, r->p, sizeof(st));
	if (st.on_ns < st.off_ns || st.runnable_ns > st.on_ns - st.off_ns)
		return reject(f, r, "state interval %llu..%llu, %llu runnable", (unsigned long long)st.off_ns,
			      (unsigned long long)st.on_ns, (unsigned long long)st.runnable_ns);
	return take_copy(l, f, r, err);
}

static int take_counter_def(struct loader *l, struct exp_file *f, const struct exp_rec *r,
			    struct exp_error *err)
{
	struct exp_counter_def d;

	(void)err;
	memcpy(&d, r->p, sizeof(d));
	if (d.index >= EXP_MAX_COUNTERS || !memchr(d.name, 0, sizeof(d.name)) || !d.name[0])
		return reject(f, r, "counter definition %u without a name, or past the last (%d)", d.index,
			      EXP_MAX_COUNTERS - 1);
	l->p->counter_defs[d.index] = d;
	l->p->counter_mask |= 1u << d.index;
	return 0;
}

/* A counter's sample, end or data sample names one of the counters (its
 * definition may come later in the file: records are not in time order;
 * the model leaves out a counter that has none).  Its index is at offset 20
 * of a sample and a data sample, 16 of an end. */
static int take_counted(struct loader *l, struct exp_file *f, const struct exp_rec *r,
			struct exp_error *err)
{
	uint16_t index;

	memcpy(&index, (const char *)r->p + (r->type == EXP_REC_COUNTER_END ? 16 : 20), sizeof(index));
	if (index >= EXP_MAX_COUNTERS)
		return reject(f, r, "counter %u: at most %d counters", index, EXP_MAX_COUNTERS);
	return take_copy(l, f, r, err);
}

/* A precise sample (EXP_REC_DATA_SAMPLE, or _SRC with its data source):
 * its counter in range; a DATA_SAMPLE's data_src is 0 (not given). */
static int take_data_sample(struct loader *l, struct exp_file *f, const struct exp_rec *r,
			    struct exp_error *err)
{
	struct exp_data_sample_src s;

	memset(&s, 0, sizeof(s));
	memcpy(&s, r->p, r->len < sizeof(s) ? r->len : sizeof(s));
	if (s.s.index >= EXP_MAX_COUNTERS)
		return reject(f, r, "counter %u: at most %d counters", s.s.index, EXP_MAX_COUNTERS);
	if (exp_grow((void **)&l->p->dsamples, &l->cap_dsamples, l->p->ndsamples, sizeof(s)))
		return nomem(err, f->path);
	l->p->dsamples[l->p->ndsamples++] = s;
	return 0;
}

/* A holder's part of a wait (EXP_REC_SYNC_HELD): a known reason, a part
 * no longer than a day (a corrupt one would swamp the blame view). */
static int take_held(struct loader *l, struct exp_file *f, const struct exp_rec *r,
		     struct exp_error *err)
{
	struct exp_sync_held h;

	memcpy(&h, r->p, sizeof(h));
	if (h.why >= EXP_HELD_WHY_COUNT_)
		return reject(f, r, "sync-held: reason %u unknown", h.why);
	if (h.held_ns > 86400000000000ull)
		return reject(f, r, "sync-held: held %llu ns, more than a day",
			      (unsigned long long)h.held_ns);
	return take_copy(l, f, r, err);
}

/* A record copied as it is to the end of an array of the process (`field`,
 * `nfield`, the loader's `cap_field`): take_copy. */
#define COPY_TO(field) offsetof(struct exp_proc, field), offsetof(struct exp_proc, n##field), \
		       offsetof(struct loader, cap_##field)
#define COPY(field) take_copy, COPY_TO(field)

/* code.dat and thread names (exp_read_code.c): 0, 1 rejected, -1 no memory. */
static int took(struct exp_file *f, const struct exp_rec *r, struct exp_error *err, int rc,
		const char *cause)
{
	if (rc < 0)
		return nomem(err, f->path);
	return rc ? reject(f, r, "%s", cause) : 0;
}

static int take_java_method(struct loader *l, struct exp_file *f, const struct exp_rec *r,
			    struct exp_error *err)
{
	char cause[256];
	int rc = exp_take_java_method(l->p, &l->cap_jmethods, r->p, r->len, cause, sizeof(cause));
	return took(f, r, err, rc, cause);
}

static int take_jit_code(struct loader *l, struct exp_file *f, const struct exp_rec *r,
			 struct exp_error *err)
{
	char cause[256];
	int rc = exp_take_jit_code(l->p, &l->cap_jit, r->p, r->len, cause, sizeof(cause));
	return took(f, r, err, rc, cause);
}

static int take_jit_unload(struct loader *l, struct exp_file *f, const struct exp_rec *r,
			   struct exp_error *err)
{
	char cause[256];
	int rc = exp_take_jit_unload(l->p, &l->cap_jit, r->p, r->len, cause, sizeof(cause));
	return took(f, r, err, rc, cause);
}

static int take_jit_inline(struct loader *l, struct exp_file *f, const struct exp_rec *r,
			   struct exp_error *err)
{
	char cause[256];
	int rc = exp_take_jit_inline(l->p, r->p, r->len, cause, sizeof(cause));
	return took(f, r, err, rc, cause);
}

static int take_kernel_sample(struct loader *l, struct exp_file *f, const struct exp_rec *r,
			      struct exp_error *err)
{
	char cause[256];
	int rc = exp_take_kernel_sample(l->p, &l->cap_ksamples, &l->cap_kpcs, r->p, r->len, cause,
					sizeof(cause));
	return took(f, r, err, rc, cause);
}

static int take_kernel_switch(struct loader *l, struct exp_file *f, const struct exp_rec *r,
			      struct exp_error *err)
{
	char cause[256];
	int rc = exp_take_kernel_switch(l->p, &l->cap_kswitches, &l->cap_kpcs, r->p, r->len, cause,
					sizeof(cause));
	return took(f, r, err, rc, cause);
}

static int take_kernel_sym(struct loader *l, struct exp_file *f, const struct exp_rec *r,
			   struct exp_error *err)
{
	char cause[256];
	int rc = exp_take_kernel_sym(l->p, &l->cap_ksyms, r->p, r->len, cause, sizeof(cause));
	return took(f, r, err, rc, cause);
}

static int take_kernel_info(struct loader *l, struct exp_file *f, const struct exp_rec *r,
			    struct exp_error *err)
{
	char cause[256];
	int rc = exp_take_kernel_info(l->p, r->p, r->len, cause, sizeof(cause));
	return took(f, r, err, rc, cause);
}

static int take_data_frames(struct loader *l, struct exp_file *f, const struct exp_rec *r,
			    struct exp_error *err)
{
	struct exp_proc *p = l->p;
	struct exp_data_frames h;

	memcpy(&h, r->p, sizeof(h));
	if (h.nframes < 1 || h.nframes > EXP_DATA_FRAMES_MAX)
		return reject(f, r, "data-frames record of %u frames (1..%d)", h.nframes, EXP_DATA_FRAMES_MAX);
	if (r->len != sizeof(h) + 16u * h.nframes)
		return reject(f, r, "data-frames record of %u frames has length %u", h.nframes, r->len);
	if (exp_grow(&p->dframes, &l->cap_dframes, p->ndframes, sizeof(*p->dframes)))
		return nomem(err, f->path);
	while (l->cap_dframe_pairs < 2 * (p->ndframe_pairs + h.nframes))     /* words */
		if (exp_grow(&p->dframe_pairs, &l->cap_dframe_pairs, l->cap_dframe_pairs, sizeof(*p->dframe_pairs)))
			return nomem(err, f->path);
	p->dframes[p->ndframes++] = (struct exp_data_frames_ev){ h.tid, h.nframes, h.time_ns, p->ndframe_pairs };
	memcpy(p->dframe_pairs + 2 * p->ndframe_pairs, (const char *)r->p + sizeof(h), 16u * h.nframes);
	p->ndframe_pairs += h.nframes;
	return 0;
}

static int take_data_file(struct loader *l, struct exp_file *f, const struct exp_rec *r,
			  struct exp_error *err)
{
	struct exp_proc *p = l->p;
	struct exp_data_file d;
	bool unmap;

	memcpy(&d, r->p, sizeof(d));
	unmap = d.flags & EXP_DATA_FILE_UNMAP;
	if (!unmap && !has_nul(r, sizeof(d)))
		return reject(f, r, "data-file record without a path");
	if (!d.len || d.addr + d.len < d.addr)
		return reject(f, r, "data-file record with range 0x%llx + %llu", (unsigned long long)d.addr,
			      (unsigned long long)d.len);
	if (exp_grow(&p->dfiles, &l->cap_dfiles, p->ndfiles, sizeof(*p->dfiles)))
		return nomem(err, f->path);
	struct exp_data_file_ev *e = &p->dfiles[p->ndfiles];
	*e = (struct exp_data_file_ev){ d.time_ns, d.addr, d.len, NULL };
	if (!unmap && !(e->path = strdup((const char *)r->p + sizeof(d))))
		return nomem(err, f->path);
	p->ndfiles++;
	return 0;
}

static int take_thread_name(struct loader *l, struct exp_file *f, const struct exp_rec *r,
			    struct exp_error *err)
{
	char cause[256];
	struct exp_thread_ev scratch;      /* checked here, taken into its life later */

	memset(&scratch, 0, sizeof(scratch));
	int rc = exp_take_thread_name(&scratch, r->p, r->len, cause, sizeof(cause));
	if (rc)
		return took(f, r, err, rc, cause);
	return take_thread_rec(l, f, r, err);
}

/* What the loader knows of each record type: the file it belongs in, its
 * length (exactly, or at least), whether it may span blocks, and what takes
 * it.  A handler sees a record of the right file and length; it checks the
 * fields, and a wrong one costs that record (reject(): the handler returns
 * 1; 0 when it took the record, <0 out of memory).  Types not here (newer
 * ones) are skipped by length and counted.  A new record type is one
 * handler and one line. */
static const struct rec_type {
	const char *name;
	uint32_t kind;             /* enum exp_file_kind */
	uint32_t len;              /* bytes */
	bool at_least;             /* len is a minimum (variable-length records) */
	bool large;                /* may span blocks (starting at a boundary) */
	int (*take)(struct loader *l, struct exp_file *f, const struct exp_rec *r,
		    struct exp_error *err);
	size_t events, count;      /* take_copy: the array and count in struct exp_proc */
	size_t cap;                /* and its capacity in struct loader */
} rec_types[] = {
	[EXP_REC_SAMPLE] = { "sample", EXP_FILE_SAMPLES, sizeof(struct exp_sample), false, false, take_sample,
			     COPY_TO(samples) },
	[EXP_REC_SAMPLE_RUN] = { "sample-run", EXP_FILE_SAMPLES, sizeof(struct exp_sample_run), true, false,
				 take_sample_run },
	[EXP_REC_STACK] = { "stack", EXP_FILE_STACKS, sizeof(struct exp_stack), true, false, take_stack },
	[EXP_REC_STACK_NODE] = { "stack-node", EXP_FILE_STACKS, sizeof(struct exp_stack_node), false, false,
				 take_stack_node },
	[EXP_REC_MAP] = { "map", EXP_FILE_MAPS, sizeof(struct exp_map), true, false, take_map },
	[EXP_REC_UNMAP] = { "unmap", EXP_FILE_MAPS, sizeof(struct exp_unmap), false, false, take_unmap },
	[EXP_REC_THREAD_START] = { "thread-start", EXP_FILE_THREADS, sizeof(struct exp_thread_start),
				   false, false, take_thread_rec },
	[EXP_REC_THREAD_END] = { "thread-end", EXP_FILE_THREADS, sizeof(struct exp_thread_end), false, false,
				 take_thread_rec },
	[EXP_REC_THREAD_SCHED] = { "thread-sched", EXP_FILE_THREADS, sizeof(struct exp_thread_sched), false,
				   false, take_thread_rec },
	[EXP_REC_THREAD_SWITCHES] = { "thread-switches", EXP_FILE_THREADS, sizeof(struct exp_thread_switches),
				      false, false, take_thread_rec },
	[EXP_REC_THREAD_COST] = { "thread-cost", EXP_FILE_THREADS, sizeof(struct exp_thread_cost), true, false,
				  take_thread_cost },
	[EXP_REC_HEAP] = { "heap", EXP_FILE_HEAP, sizeof(struct exp_heap), false, false, COPY(heap) },
	[EXP_REC_HEAP_FREE] = { "heap-free", EXP_FILE_HEAP, sizeof(struct exp_heap_free), false, false,
				take_heap_free },
	[EXP_REC_HEAP_SUMS] = { "heap-sums", EXP_FILE_HEAP, sizeof(struct exp_heap_sums), true, true,
				take_heap_sums },
	[EXP_REC_HEAP_LIVE] = { "heap-live", EXP_FILE_HEAP, sizeof(struct exp_heap_live_table), true, true,
				take_heap_live },
	[EXP_REC_HEAP_STATE] = { "heap-state", EXP_FILE_HEAP, sizeof(struct exp_heap_state), false, true,
				 take_heap_state },
	[EXP_REC_SYNC] = { "sync", EXP_FILE_SYNC, sizeof(struct exp_sync), false, false, COPY(sync) },
	[EXP_REC_SYNC_HELD] = { "sync-held", EXP_FILE_SYNC, sizeof(struct exp_sync_held), false, false,
				take_held, COPY_TO(held) },
	[EXP_REC_SYNC_WAKE] = { "sync-wake", EXP_FILE_SYNC, sizeof(struct exp_sync_wake), false, false,
				COPY(wakes) },
	[EXP_REC_SYNC_KEY] = { "sync-key", EXP_FILE_SYNC, sizeof(struct exp_sync_key), false, false,
			       COPY(keys) },
	[EXP_REC_IO] = { "io", EXP_FILE_IO, sizeof(struct exp_io), false, false, COPY(io) },
	[EXP_REC_FD_NAME] = { "fd-name", EXP_FILE_IO, sizeof(struct exp_fd_name), true, false,
			       take_fd_name },
	[EXP_REC_FD_FLOW] = { "fd-flow", EXP_FILE_IO, sizeof(struct exp_fd_flow), false, false, COPY(flows) },
	[EXP_REC_FD_WAIT] = { "fd-wait", EXP_FILE_IO, sizeof(struct exp_fd_wait), true, false, take_fd_wait },
	[EXP_REC_FD_WATCH] = { "fd-watch", EXP_FILE_IO, sizeof(struct exp_fd_watch), false, false,
			       COPY(watches) },
	[EXP_REC_ARC_TABLE] = { "arc-table", EXP_FILE_ARCS, sizeof(struct exp_arc_table), true, true,
				take_arc_table },
	[EXP_REC_MPI] = { "mpi", EXP_FILE_MPI, sizeof(struct exp_mpi), false, false, COPY(mpi) },
	[EXP_REC_DYN_FUNC] = { "dyn-func", EXP_FILE_DYN, sizeof(struct exp_dyn_func), true, true,
			       take_dyn_func },
	[EXP_REC_DYN_UNLOAD] = { "dyn-unload", EXP_FILE_DYN, sizeof(struct exp_dyn_unload), false, false,
				 take_dyn_unload },
	[EXP_REC_MPI_COMM] = { "mpi-comm", EXP_FILE_MPI, sizeof(struct exp_mpi_comm), false, false,
			       COPY(comms) },
	[EXP_REC_JAVA_METHOD] = { "java-method", EXP_FILE_CODE, sizeof(struct exp_java_method), true,
				  false, take_java_method },
	[EXP_REC_JIT_CODE] = { "jit-code", EXP_FILE_CODE, sizeof(struct exp_jit_code), true, false,
			       take_jit_code },
	[EXP_REC_JIT_UNLOAD] = { "jit-unload", EXP_FILE_CODE, sizeof(struct exp_jit_unload), false, false,
				 take_jit_unload },
	[EXP_REC_JIT_INLINE] = { "jit-inline", EXP_FILE_CODE, sizeof(struct exp_jit_inline), true, false,
				 take_jit_inline },
	[EXP_REC_PROC_SAMPLE] = { "proc-sample", EXP_FILE_THREADS, sizeof(struct exp_proc_sample), false,
				  false, COPY(psamples) },
	[EXP_REC_THREAD_NAME] = { "thread-name", EXP_FILE_THREADS, sizeof(struct exp_thread_name), true,
				  false, take_thread_name },
	[EXP_REC_STATE] = { "state", EXP_FILE_STATES, sizeof(struct exp_state), false, false, take_state,
			    COPY_TO(states) },
	[EXP_REC_CPU_SPLIT] = { "cpu-split", EXP_FILE_STATES, sizeof(struct exp_cpu_split), false, false,
				COPY(splits) },
	[EXP_REC_COUNTER_DEF] = { "counter-def", EXP_FILE_HWC, sizeof(struct exp_counter_def), false, false,
				  take_counter_def },
	[EXP_REC_COUNTER_SAMPLE] = { "counter-sample", EXP_FILE_HWC, sizeof(struct exp_counter_sample),
				     false, false, take_counted, COPY_TO(csamples) },
	[EXP_REC_COUNTER_END] = { "counter-end", EXP_FILE_HWC, sizeof(struct exp_counter_end), false, false,
				  take_counted, COPY_TO(cends) },
	[EXP_REC_DATA_SAMPLE] = { "data-sample", EXP_FILE_HWC, sizeof(struct exp_data_sample), false, false,
				  take_data_sample },
	[EXP_REC_DATA_SAMPLE_SRC] = { "data-sample-src", EXP_FILE_HWC, sizeof(struct exp_data_sample_src), false,
				      false, take_data_sample },
	[EXP_REC_KERNEL_INFO] = { "kernel-info", EXP_FILE_KERNEL, sizeof(struct exp_kernel_info), false,
				  false, take_kernel_info },
	[EXP_REC_KERNEL_SAMPLE] = { "kernel-sample", EXP_FILE_KERNEL, sizeof(struct exp_kernel_sample),
				    true, false, take_kernel_sample },
	[EXP_REC_KERNEL_SWITCH] = { "kernel-switch", EXP_FILE_KERNEL, sizeof(struct exp_kernel_sample),
				    true, false, take_kernel_switch },
	[EXP_REC_KERNEL_SYM] = { "kernel-sym", EXP_FILE_KERNEL, sizeof(struct exp_kernel_sym), true, false,
				 take_kernel_sym },
	[EXP_REC_DATA_REGS] = { "data-regs", EXP_FILE_HWC, sizeof(struct exp_data_regs), false, false,
				COPY(dregs) },
	[EXP_REC_DATA_BLOCK] = { "data-block", EXP_FILE_HWC, sizeof(struct exp_data_block), false, false,
				 COPY(dblocks) },
	[EXP_REC_DATA_FRAMES] = { "data-frames", EXP_FILE_HWC, sizeof(struct exp_data_frames), true, false,
				  take_data_frames },
	[EXP_REC_DATA_FILE] = { "data-file", EXP_FILE_HWC, sizeof(struct exp_data_file), true, false,
				take_data_file },
};

static int take_copy(struct loader *l, struct exp_file *f, const struct exp_rec *r,
		     struct exp_error *err)
{
	const struct rec_type *t = &rec_types[r->type];
	void **events = (void **)((char *)l->p + t->events);
	size_t *count = (size_t *)((char *)l->p + t->count);
	size_t *cap = (size_t *)((char *)l + t->cap);

	if (exp_grow(events, cap, *count, t->len))
		return nomem(err, f->path);
	memcpy((char *)*events + (*count)++ * t->len, r->p, t->len);
	return 0;
}

int exp_rec_info(uint32_t type, const char **name, uint32_t *kind, uint32_t *len, bool *at_least)
{
	if (type >= sizeof(rec_types) / sizeof(rec_types[0]) || !rec_types[type].take)
		return -1;
	*name = rec_types[type].name;
	*kind = rec_types[type].kind;
	*len = rec_types[type].len;
	*at_least = rec_types[type].at_least;
	return 0;
}

static int take_record(struct loader *l, struct exp_file *f, const struct exp_rec *r,
		       struct exp_error *err)
{
	const struct rec_type *t = r->type < sizeof(rec_types) / sizeof(rec_types[0]) ?
					   &rec_types[r->type] : NULL;
	const size_t bs = f->hdr.block_bytes;

	if (!t || !t->take) {
		l->p->unknown_records++;    /* a newer record type: skipped by length */
		return 0;
	}
	/* Its type is wrong for this file, its length intact (a flipped type
	 * byte): it alone is lost. */
	if (t->kind != f->hdr.kind) {
		reject(f, r, "record type %u does not belong in this file", r->type);
		return 0;
	}
	/* Its length is wrong for its type: where the next record starts is
	 * unknown; skipped to the next valid point. */
	if ((t->at_least ? r->len < t->len : r->len != t->len) ||
	    (!t->large && r->offset % bs + r->len > bs)) {
		exp_file_reject_block(f, r, "%s record (type %u) has length %u, expected %s%u", t->name,
				      r->type, r->len, t->at_least ? "at least " : "", t->len);
		return 0;
	}
	int rc = t->take(l, f, r, err);
	if (rc == 0 && t->kind < EXP_FILE_COUNT_)
		l->p->records[t->kind]++;
	return rc < 0 ? rc : 0;
}

static int load_file(struct loader *l, const char *name, uint32_t kind, struct exp_error *err)
{
	char path[4200];
	struct exp_file f;
	struct exp_rec r;
	int rc;

	snprintf(path, sizeof(path), "%s/%s", l->p->dir, name);
	rc = exp_file_open(&f, path, kind, err);
	if (rc == -ENOENT)
		return 0;
	if (rc == -EXP_ECORRUPT) {              /* its header: the whole file is lost */
		exp_damage_note(&l->p->damage, l->on_damage, l->damage_arg, path, err->offset, f.size,
				err->cause);
		return 0;
	}
	if (rc == -ENOMEM || rc == -EXP_ENEWER)   /* a newer format is refused, not damage */
		return rc;
	if (rc) {                               /* unreadable, a FIFO...: that file is lost */
		exp_damage_note(&l->p->damage, l->on_damage, l->damage_arg, path, EXP_DAMAGE_WHOLE_FILE, 0,
				err->cause ? err->cause : strerror(-rc));
		return 0;
	}
	f.on_damage = l->on_damage;
	f.damage_arg = l->damage_arg;
	while ((rc = exp_file_next(&f, &r, err)) > 0)
		if ((rc = take_record(l, &f, &r, err)) < 0)
			break;
	exp_damage_add(&l->p->damage, &f.damage);
	exp_file_close(&f);
	return rc < 0 ? rc : 0;
}

static int cmp_arc(const void *a, const void *b)
{
	const struct exp_arc_ev *x = a, *y = b;

	if (x->frompc != y->frompc)
		return x->frompc < y->frompc ? -1 : 1;
	return x->selfpc < y->selfpc ? -1 : x->selfpc > y->selfpc;
}

/* Sum the arcs of all threads' tables. */
static void merge_arcs(struct exp_proc *p)
{
	size_t n = 0;

	if (p->narcs)
		qsort(p->arcs, p->narcs, sizeof(*p->arcs), cmp_arc);
	for (size_t i = 0; i < p->narcs; i++) {
		if (n && p->arcs[n - 1].frompc == p->arcs[i].frompc &&
		    p->arcs[n - 1].selfpc == p->arcs[i].selfpc) {
			p->arcs[n - 1].count += p->arcs[i].count;
			p->arcs[n - 1].incl_ns += p->arcs[i].incl_ns;
			p->arcs[n - 1].flags |= p->arcs[i].flags;
			if (p->arcs[i].call_ns > p->arcs[n - 1].call_ns) {
				p->arcs[n - 1].call_ns = p->arcs[i].call_ns;
				p->arcs[n - 1].own_ns = p->arcs[i].own_ns;
			}
		} else {
			p->arcs[n++] = p->arcs[i];
		}
	}
	p->narcs = n;
}

static uint64_t log_u64(const struct exp_proc *p, const char *key)
{
	const char *v = exp_proc_log(p, key);
	return v ? strtoull(v, NULL, 10) : 0;
}

static int cmp_map_time(const void *a, const void *b)
{
	const struct exp_map_ev *x = a, *y = b;

	if (x->time_ns != y->time_ns)
		return x->time_ns < y->time_ns ? -1 : 1;
	return x->order < y->order ? -1 : x->order > y->order;
}

static bool file_exists(const char *dir, const char *name)
{
	char path[4200];

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	return access(path, F_OK) == 0;
}

/* Did the collector make this process's stacks.dat?  It is made at the
 * first stack node written (a process whose samples' stacks
 * all went into samples.dat's runs has none), and the log says so
 * (`file.opened: stacks.dat`); a writer that logs no `file.opened` at all
 * (older collectors, other writers) made it with the others. */
static bool stacks_were_made(const struct exp_proc *p)
{
	bool any = false;

	for (size_t i = 0; i < p->nlog; i++) {
		if (strcmp(p->log[i].key, "file.opened"))
			continue;
		if (!strcmp(p->log[i].value, exp_file_name(EXP_FILE_STACKS)))
			return true;
		any = true;
	}
	return !any;
}

/* A file p's data needs that is absent: its log (who it was, how it ended),
 * the load-object map (what its addresses are), the stacks (what its events
 * name).  NULL if none. */
static const char *missing_file(const struct exp_proc *p, bool log_missing)
{
	bool events = p->nsamples || p->nheap || p->nsync || p->nio || p->narcs || p->nmpi;

	if (log_missing)
		return EXP_LOG_NAME;
	if (events && !file_exists(p->dir, exp_file_name(EXP_FILE_MAPS)))
		return exp_file_name(EXP_FILE_MAPS);
	if ((p->nsamples || p->nheap || p->nsync || p->nio) && stacks_were_made(p) &&
	    !file_exists(p->dir, exp_file_name(EXP_FILE_STACKS)))
		return exp_file_name(EXP_FILE_STACKS);
	return NULL;
}

static int name_proc(struct exp_proc *p, struct exp_error *err);

/* Data files the process's own records say were written, and that are not
 * there: damage, as an unreadable file is (report partial, check lists it).
 * samples.dat when the collector counted samples; every record file its
 * log says the collector opened (`file.opened: heap.dat`: the tracer ran).
 * (counters.dat itself may be absent: writers other than the collector,
 * jobgen's, make none.) */
static void missing_data(struct loader *l)
{
	struct exp_proc *p = l->p;
	const char *samples = exp_file_name(EXP_FILE_SAMPLES);
	char path[4200], cause[160];
	bool samples_noted = false;

	if (p->has_counters && p->counters[EXP_CTR_SAMPLES] && !file_exists(p->dir, samples)) {
		snprintf(path, sizeof(path), "%s/%s", p->dir, samples);
		snprintf(cause, sizeof(cause), "missing: the collector counted %llu samples written there",
			 (unsigned long long)p->counters[EXP_CTR_SAMPLES]);
		exp_damage_note(&p->damage, l->on_damage, l->damage_arg, path, EXP_DAMAGE_WHOLE_FILE, 0, cause);
		samples_noted = true;
	}
	for (size_t i = 0; i < p->nlog; i++) {
		const char *name = p->log[i].value;
		if (strcmp(p->log[i].key, "file.opened") || !name[0] || strchr(name, '/') ||
		    (samples_noted && !strcmp(name, samples)) || file_exists(p->dir, name))
			continue;
		bool again = false;              /* logged twice (a fork child's own log) */
		for (size_t j = 0; j < i && !again; j++)
			again = !strcmp(p->log[j].key, "file.opened") && !strcmp(p->log[j].value, name);
		if (again)
			continue;
		snprintf(path, sizeof(path), "%s/%s", p->dir, name);
		snprintf(cause, sizeof(cause), "missing: the collector opened it (log.txt: file.opened)");
		exp_damage_note(&p->damage, l->on_damage, l->damage_arg, path, EXP_DAMAGE_WHOLE_FILE, 0, cause);
	}
}

/* A descendant's process file in a slot of processes.dat (format 9), with
 * its continuation in its own process file if any (exp_procfile_join), as
 * one process file in memory: `f` as exp_file_open would fill it, its name
 * the slot's, a damaged place named in the file it came from (the slot's
 * bytes at their offset in processes.dat, the continuation's in it).  A
 * continuation that cannot be read is damage of its own: the slot is
 * read; one written by a newer tally is left out and said
 * (p->newer_part), not damage.  0, -ENOMEM, -EXP_ENEWER, -EXP_ECORRUPT or -errno, with err
 * filled. */
static int open_slot(struct loader *l, struct exp_file *f, struct exp_error *err)
{
	struct exp_proc *p = l->p;
	struct exp_procfile_src src = { p->slots_path, p->slot_off, p->proc_path };
	struct exp_procfile_joined j;

	memset(f, 0, sizeof(*f));
	/* Its places are processes.dat's own offsets (f->origin_off). */
	snprintf(f->path, sizeof(f->path), "%s", p->slots_path);
	int rc = exp_procfile_join(&src, &j, err);
	if (rc)
		return rc;
	if (j.file_rc == -EXP_ENEWER) {
		/* Refused as a newer whole experiment is, not damage: the
		 * slot's part is read, the rest left out and said. */
		char line[sizeof(j.file_err.msg) + 200];
		snprintf(line, sizeof(line), "%s: written by a newer tally (format %u): its part of the "
			 "process left out (read it with the tally that recorded it, or a newer one)",
			 p->proc_path, j.file_err.version);
		if (!p->newer_part && !(p->newer_part = strdup(line))) {
			free(j.data);
			return nomem(err, p->proc_path);
		}
	} else if (j.file_rc && j.file_rc != -ENOENT) {
		const struct exp_error *fe = &j.file_err;
		bool placed = j.file_rc == -EXP_ECORRUPT;
		exp_damage_note(&p->damage, l->on_damage, l->damage_arg, p->proc_path,
				placed ? fe->offset : EXP_DAMAGE_WHOLE_FILE, 0,
				fe->cause ? fe->cause : strerror(-j.file_rc));
	}
	f->data = j.data;
	f->size = j.size;
	memcpy(&f->hdr, j.data, sizeof(f->hdr));
	f->origin_split = j.slot_bytes;
	f->origin_off = (size_t)p->slot_off;
	f->origin2_path = j.file_rc == 0 ? p->proc_path : NULL;
	f->origin2_off = EXP_PROC_HEAD_BYTES;
	return 0;
}

/* A descendant's process file (format 8, exp_records.h): its log lines,
 * its counters and its threads' records.  A file that is not one (its
 * header) is damage, named once: its log is lost with it, not said again
 * as missing (there is no log.txt to miss); an item cut short or malformed
 * costs the rest of the file, as damage.  0, or -ENOMEM / -EXP_ENEWER
 * with err filled. */
static int load_proc_file(struct loader *l, struct exp_error *err)
{
	struct exp_proc *p = l->p;
	struct exp_file f;
	size_t cap = 0;
	int rc = p->slots_path ? open_slot(l, &f, err) : exp_file_open(&f, p->proc_path, EXP_PROC_KIND, err);
	const char *where = p->slots_path ? p->slots_path : p->proc_path;

	if (rc == -ENOMEM || rc == -EXP_ENEWER)
		return rc;
	if (rc == -EXP_ECORRUPT || rc == -ENOENT || rc) {
		exp_damage_note(&p->damage, l->on_damage, l->damage_arg, where,
				rc == -EXP_ECORRUPT ? err->offset : EXP_DAMAGE_WHOLE_FILE, 0,
				err->cause ? err->cause : strerror(-rc));
		return 0;
	}
	f.on_damage = l->on_damage;
	f.damage_arg = l->damage_arg;
	if (f.size < EXP_PROC_HEAD_BYTES) {
		struct exp_rec whole = { 0, (uint32_t)f.size, 0, f.data };
		exp_file_reject_record(&f, &whole, "process file of %zu bytes: its counters cut short", f.size);
		goto out;
	}
	memcpy(p->counters, f.data + EXP_HEADER_BYTES, sizeof(p->counters));
	p->has_counters = true;
	/* Its records are threads.dat's, each whole in the file. */
	f.hdr.kind = EXP_FILE_THREADS;
	f.hdr.block_bytes = 1u << 31;
	struct exp_procfile_item *it = malloc(sizeof(*it));
	if (!it) {
		rc = nomem(err, where);
		goto out;
	}
	size_t at = EXP_PROC_HEAD_BYTES;
	int got;
	while (rc >= 0 && (got = exp_procfile_next(f.data, f.size, &at, it)) != 0) {
		if (got < 0) {
			struct exp_rec cut = { 0, (uint32_t)(f.size - at), at, f.data + at };
			exp_file_reject_record(&f, &cut, "%s cut short or malformed",
					       f.data[at] ? "log line" : "record");
			break;
		}
		if (!it->is_record)
			rc = add_log_line(p, &cap, it->text, it->len) ? nomem(err, where) : 0;
		else
			rc = take_record(l, &f, &it->rec, err);
	}
	free(it);
out:
	exp_damage_add(&p->damage, &f.damage);
	exp_file_close(&f);
	return rc < 0 ? rc : 0;
}

static int load_proc(struct exp_proc *p, exp_damage_fn *on_damage, void *arg,
		     struct exp_error *err)
{
	static const enum exp_file_kind files[] = {
		EXP_FILE_SAMPLES, EXP_FILE_HEAP, EXP_FILE_SYNC,  EXP_FILE_IO,
		EXP_FILE_ARCS,    EXP_FILE_THREADS, EXP_FILE_MPI, EXP_FILE_CODE, EXP_FILE_STATES,
		EXP_FILE_HWC,     EXP_FILE_MAPS,    EXP_FILE_STACKS, EXP_FILE_DYN, EXP_FILE_KERNEL,
	};
	bool log_missing = false;
	int rc = p->proc_path || p->slots_path ? 0 : load_log(p, err);

	if (rc == -ENOENT)
		log_missing = true;
	else if (rc)
		return rc;
	rc = 0;
	struct loader *l = calloc(1, sizeof(*l));     /* 24 KiB of scratch */
	if (!l)
		return nomem(err, p->dir);
	l->p = p;
	l->on_damage = on_damage;
	l->damage_arg = arg;
	/* A descendant of format 8: log, counters and threads in its
	 * process file, the rest (if any) in its directory. */
	if (p->proc_path || p->slots_path)
		rc = load_proc_file(l, err);
	else
		load_counters(l);
	for (size_t i = 0; i < sizeof(files) / sizeof(files[0]) && rc >= 0; i++)
		rc = load_file(l, exp_file_name(files[i]), files[i], err);
	if (exp_thread_lives_place(p, &l->cap_threads, &l->lives) && rc >= 0)
		rc = nomem(err, p->dir);
	if (rc >= 0)
		exp_jit_inlines_sort(p);
	if (rc >= 0)
		rc = merge_run_trie(l, err);
	if (rc >= 0)
		missing_data(l);
	exp_run_trie_free(&l->trie);
	free(l);
	if (rc < 0)
		return rc;
	/* The threads outlive the events (exp_experiment_drop_events), in
	 * every rank of a job: no room to spare (64 slots are 14 KiB). */
	struct exp_thread_ev *t = p->nthreads ? realloc(p->threads, p->nthreads * sizeof(*t)) : NULL;
	if (t)
		p->threads = t;
	/* Records of one thread are not in time order in the file (a staging
	 * block comes before the copies of earlier ones), nor are threads'. */
	if (p->nmaps)
		qsort(p->maps, p->nmaps, sizeof(*p->maps), cmp_map_time);
	exp_code_sort(p);
	/* Parents have smaller ids: one pass in id order gives every depth. */
	for (uint32_t i = 0; i < p->nstacks; i++) {
		struct exp_stack_ref *s = &p->stacks[i];
		if (!s->pcs)
			continue;
		s->pcs = p->pc_pool + ((uintptr_t)s->pcs - 1);
		/* A parent lost with a damaged record, or a chain too deep
		 * (a corrupt parent id): the stack keeps the frames it has. */
		uint32_t depth = s->n;
		if (s->parent && (!p->stacks[s->parent].pcs ||
				  depth + p->stacks[s->parent].depth > EXP_MAX_FRAMES)) {
			s->parent = 0;
			s->cut = true;
			p->cut_stacks++;
		}
		if (s->parent)
			depth += p->stacks[s->parent].depth;
		s->depth = (uint16_t)depth;
	}
	for (size_t i = 0; i < p->nsamples; i++) {
		uint32_t id = p->samples[i].stack_id;
		if (id >= p->nstacks || !p->stacks[id].pcs)
			p->missing_stacks++;
	}
	for (size_t i = 0; i < p->nstates; i++) {
		uint32_t id = p->states[i].stack_id;
		if (id && (id >= p->nstacks || !p->stacks[id].pcs))
			p->missing_stacks++;
	}
	merge_arcs(p);

	p->missing = missing_file(p, log_missing);
	return name_proc(p, err);
}

/* Who p is, from its log (or its main mapping): pid, times, program. */
static int name_proc(struct exp_proc *p, struct exp_error *err)
{
	p->pid = (uint32_t)log_u64(p, "pid");
	p->ppid = (uint32_t)log_u64(p, "ppid");
	p->fork_tid = (uint32_t)log_u64(p, "fork.tid");
	p->start_ns = log_u64(p, "start.mono_ns");
	p->end_ns = log_u64(p, "end.mono_ns");
	if (!p->end_ns)
		p->end_ns = log_u64(p, "record.end.mono_ns");
	const char *exe = exp_proc_log(p, "exe");
	for (size_t i = 0; !exe && i < p->nmaps; i++)
		if (p->maps[i].flags & EXP_MAP_MAIN)
			exe = p->maps[i].path;
	if (!exe)
		exe = exp_proc_log(p, "target");
	p->exe = strdup(exe ? exe : "?");
	const char *slash = p->exe ? strrchr(p->exe, '/') : NULL;
	p->name = p->exe ? strdup(slash ? slash + 1 : p->exe) : NULL;
	return p->name ? 0 : nomem(err, p->dir);
}

static int cmp_lineage(const void *a, const void *b)
{
	return strverscmp(((const struct exp_proc *)a)->lineage, ((const struct exp_proc *)b)->lineage);
}

/* Does the regular file dir/name begin with one of `heads` (n of them)? */
static bool begins_with(const char *dir, const char *name, const char *const *heads, size_t n)
{
	char path[4200], buf[16] = "";
	struct stat st;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	ssize_t got = fd >= 0 && fstat(fd, &st) == 0 && S_ISREG(st.st_mode) ? pread(fd, buf, sizeof(buf), 0) : -1;
	if (fd >= 0)
		close(fd);
	for (size_t i = 0; i < n; i++)
		if (got >= (ssize_t)strlen(heads[i]) && !memcmp(buf, heads[i], strlen(heads[i])))
			return true;
	return false;
}

/* Is `dir` an experiment: does one of its files say so?  A record file or
 * counters.dat by its tally header; the log by its first line, the one
 * `tally record` writes first ("tally.format:") or the collector does in a
 * descendant ("pid:").  Any other log.txt is any text. */
static bool is_experiment(const char *dir)
{
	static const char *const magic[] = { EXP_MAGIC }, *const log_heads[] = { "tally.format: ", "pid: " };
	const char *name;

	for (size_t i = 0; (name = exp_dir_file(i)); i++)
		if (strcmp(name, EXP_LOG_NAME) ? begins_with(dir, name, magic, 1)
					       : begins_with(dir, name, log_heads, 2))
			return true;
	return false;
}

void exp_experiment_damage(const struct exp_experiment *e, struct exp_damage *total)
{
	memset(total, 0, sizeof(*total));
	for (size_t i = 0; i < e->nprocs; i++)
		exp_damage_add(total, &e->procs[i].damage);
}

int exp_experiment_load(struct exp_experiment *e, const char *path, struct exp_error *err)
{
	return exp_experiment_load_with(e, path, err, NULL, NULL);
}

static void free_events(struct exp_proc *p);
static void free_proc(struct exp_proc *p);

int exp_experiment_load_with(struct exp_experiment *e, const char *path, struct exp_error *err,
			     exp_damage_fn *on_damage, void *arg)
{
	struct stat st;
	size_t cap = 8;

	memset(e, 0, sizeof(*e));
	e->path = strdup(path);
	e->rank = -1;
	if (!e->path)
		return nomem(err, path);
	if (stat(path, &st) != 0) {
		snprintf(err->msg, sizeof(err->msg), "%s: %s", path, strerror(errno));
		return -errno;
	}
	if (!S_ISDIR(st.st_mode)) {
		snprintf(err->msg, sizeof(err->msg), "%s: not an experiment directory", path);
		return -ENOTDIR;
	}
	if (!is_experiment(path)) {
		snprintf(err->msg, sizeof(err->msg),
			 "%s: not a tally experiment (none of its files has a tally header, nor its log.txt tally's first line)", path);
		return -ENOENT;
	}
	e->procs = calloc(cap, sizeof(*e->procs));
	if (!e->procs)
		return nomem(err, path);
	e->procs[0].dir = strdup(path);
	e->procs[0].lineage = strdup("");
	e->nprocs = 1;
	if (!e->procs[0].dir || !e->procs[0].lineage)
		return nomem(err, path);

	/* Each descendant: its directory LINEAGE.exp, its process file
	 * LINEAGE.proc (format 8), or both (one process). */
	DIR *d = opendir(path);
	struct dirent *de;
	while (d && (de = readdir(d))) {
		size_t n = strlen(de->d_name), stem = exp_procfile_stem(de->d_name);
		bool proc = stem > 0;
		if (de->d_name[0] != '_' || (!proc && (n < 6 || strcmp(de->d_name + n - 4, ".exp"))))
			continue;
		if (!proc)
			stem = n - 4;
		char sub[4200], file[4200];
		snprintf(sub, sizeof(sub), "%s/%.*s.exp", path, (int)stem, de->d_name);
		snprintf(file, sizeof(file), "%s/%s", path, de->d_name);
		struct exp_proc *p = next_proc(e, &cap);
		if (!p) {
			closedir(d);
			return nomem(err, path);
		}
		p->dir = strdup(sub);
		p->lineage = strndup(de->d_name, stem);
		/* A process file without even its magic (its first write
		 * failed: a full disk) holds nothing, as a directory without
		 * data; one with a wrong head is damage (load_proc_file), and
		 * so is one that is not a regular file (a directory, a FIFO):
		 * read, it is named "not a regular file", never skipped unsaid. */
		struct stat fst;
		bool empty = proc ? stat(file, &fst) != 0 || (S_ISREG(fst.st_mode) && fst.st_size < 8)
				  : !is_experiment(sub);
		p->proc_path = proc && !empty ? strdup(file) : NULL;
		/* Without data, for now (merged below). */
		p->exe = empty ? p->dir : NULL;
		if (!p->dir || !p->lineage || (proc && !empty && !p->proc_path)) {
			closedir(d);
			return nomem(err, path);
		}
	}
	if (d)
		closedir(d);
	/* Format 9: the descendants in slots of processes.dat, each with its
	 * lineage (a slot whose first line is not its lineage is named by its
	 * place, and read as far as it can be). */
	size_t nslots = 0;
	struct exp_procslot *slots = exp_procslots_list(path, &nslots);
	for (size_t i = 0; i < nslots; i++) {
		char sub[4200], lineage[300];
		if (slots[i].lineage[0])
			snprintf(lineage, sizeof(lineage), "%s", slots[i].lineage);
		else
			snprintf(lineage, sizeof(lineage), "_slot%llu", (unsigned long long)slots[i].off);
		snprintf(sub, sizeof(sub), "%s/%s.exp", path, lineage);
		struct exp_proc *p = next_proc(e, &cap);
		if (!p) {
			free(slots);
			return nomem(err, path);
		}
		p->dir = strdup(sub);
		p->lineage = strdup(lineage);
		char slots_path[4200];
		snprintf(slots_path, sizeof(slots_path), "%s/%s", path, EXP_SLOTS_NAME);
		p->slots_path = strdup(slots_path);
		p->slot_off = slots[i].off;
		if (!p->dir || !p->lineage || !p->slots_path) {
			free(slots);
			return nomem(err, path);
		}
	}
	free(slots);
	qsort(e->procs + 1, e->nprocs - 1, sizeof(*e->procs), cmp_lineage);
	/* One process per lineage: a directory and its process file merged;
	 * a directory with no data and no process file is an empty one. */
	size_t kept_procs = 1;
	for (size_t i = 1; i < e->nprocs; i++) {
		struct exp_proc *p = &e->procs[i], *q = &e->procs[kept_procs - 1];
		if (kept_procs > 1 && !strcmp(p->lineage, q->lineage)) {
			if (!q->proc_path) {
				q->proc_path = p->proc_path;
				p->proc_path = NULL;
			}
			if (!q->slots_path) {      /* its slot: the process file's start */
				q->slots_path = p->slots_path;
				q->slot_off = p->slot_off;
				p->slots_path = NULL;
			} else if (p->slots_path) {
				/* The collector claims a slot once per process:
				 * a second of one lineage is damage (one is
				 * read, the first in the file). */
				char cause[400];
				uint64_t first = q->slot_off < p->slot_off ? q->slot_off : p->slot_off;
				uint64_t second = q->slot_off < p->slot_off ? p->slot_off : q->slot_off;
				snprintf(cause, sizeof(cause), "a second slot of lineage %s (the first at 0x%llx): not read",
					 q->lineage, (unsigned long long)first);
				q->slot_off = first;
				exp_damage_note(&q->damage, on_damage, arg, q->slots_path, (size_t)second,
						EXP_SLOT_BYTES, cause);
			}
			if (!p->exe)
				q->exe = NULL;     /* either has data */
			free(p->dir);
			free(p->lineage);
			free(p->proc_path);
			free(p->slots_path);
			continue;
		}
		e->procs[kept_procs++] = *p;
	}
	e->nprocs = kept_procs;
	kept_procs = 1;
	for (size_t i = 1; i < e->nprocs; i++) {
		struct exp_proc *p = &e->procs[i];
		if (p->exe && !p->proc_path && !p->slots_path) {
			e->empty_descendants++;
			free(p->dir);
			free(p->lineage);
			continue;
		}
		p->exe = NULL;
		e->procs[kept_procs++] = *p;
	}
	e->nprocs = kept_procs;
	/* No spare room: a job keeps thousands of these. */
	struct exp_proc *fit = realloc(e->procs, e->nprocs * sizeof(*e->procs));
	if (fit)
		e->procs = fit;
	/* A process that cannot be read at all costs only itself: the others
	 * are loaded (the founder's place is kept, with what could be read). */
	size_t kept = 0, all = e->nprocs;
	int first_rc = 0;
	for (size_t i = 0; i < e->nprocs; i++) {
		struct exp_error why;
		int rc = load_proc(&e->procs[i], on_damage, arg, &why);
		if (rc == -ENOMEM) {
			*err = why;
			return rc;
		}
		if (rc) {
			/* Its lineage kept (out of memory: not, and the overview
			 * may count it among the fork children not recorded). */
			char **lins = i ? realloc(e->lost_lineages, (e->nlost_lineages + 1) * sizeof(*lins)) : NULL;
			if (lins) {
				e->lost_lineages = lins;
				lins[e->nlost_lineages++] = e->procs[i].lineage;
				e->procs[i].lineage = NULL;
			}
			if (!e->lost_procs++) {
				first_rc = rc;
				*err = why;
				e->lost_why = strdup(why.msg);
			}
			if (i) {
				free_proc(&e->procs[i]);
				continue;
			}
			free_events(&e->procs[0]);
			if (!e->procs[0].name && name_proc(&e->procs[0], &why) != 0)
				return -ENOMEM;
		}
		e->procs[kept++] = e->procs[i];
	}
	e->nprocs = kept;
	if (e->lost_procs == all)
		return first_rc;        /* nothing could be read */
	if (exp_kernel_join(e))
		return nomem(err, path);
	const char *rank = exp_proc_log(&e->procs[0], "mpi.rank");
	e->rank = rank ? (int32_t)strtol(rank, NULL, 10) : -1;
	return 0;
}

/* A process's events (what exp_experiment_drop_events frees). */
static void free_events(struct exp_proc *p)
{
	for (size_t i = 0; i < p->nmaps; i++)
		free(p->maps[i].path);
	for (size_t i = 0; i < p->nfds; i++)
		free(p->fds[i].name);
	for (size_t i = 0; i < p->ndyn; i++) {
		free(p->dyn[i].name);
		free(p->dyn[i].lines);
		free(p->dyn[i].code);
	}
	free(p->dyn);
	p->dyn = NULL;
	p->ndyn = 0;
	free(p->maps);
	free(p->fds);
	free(p->samples);
	free(p->stacks);
	free(p->pc_pool);
	free(p->heap);
	free(p->heap_sums);
	free(p->heap_live);
	free(p->sync);
	free(p->held);
	free(p->wakes);
	free(p->keys);
	free(p->flows);
	free(p->fdwaits);
	free(p->wait_fds);
	free(p->watches);
	free(p->io);
	free(p->arcs);
	free(p->mpi);
	free(p->comms);
	free(p->states);
	free(p->splits);
	free(p->csamples);
	free(p->cends);
	free(p->dsamples);
	exp_kernel_free(p);
	free(p->dregs);
	free(p->dblocks);
	free(p->dframes);
	free(p->dframe_pairs);
	for (size_t i = 0; i < p->ndfiles; i++)
		free(p->dfiles[i].path);
	free(p->dfiles);
	p->dfiles = NULL;
	p->ndfiles = 0;
	p->dregs = NULL;
	p->dblocks = NULL;
	p->dframes = NULL;
	p->dframe_pairs = NULL;
	p->ndregs = p->ndblocks = p->ndframes = p->ndframe_pairs = 0;
	p->states = NULL;
	p->splits = NULL;
	p->csamples = NULL;
	p->cends = NULL;
	p->dsamples = NULL;
	p->nstates = p->nsplits = p->ncsamples = p->ncends = p->ndsamples = 0;
	p->maps = NULL;
	p->fds = NULL;
	p->samples = NULL;
	p->stacks = NULL;
	p->pc_pool = NULL;
	p->heap = NULL;
	p->heap_sums = NULL;
	p->heap_live = NULL;
	p->nheap_sums = p->nheap_live = 0;
	p->sync = NULL;
	p->held = NULL;
	p->nheld = 0;
	p->wakes = NULL;
	p->nwakes = 0;
	p->keys = NULL;
	p->nkeys = 0;
	p->flows = NULL;
	p->nflows = 0;
	p->fdwaits = NULL;
	p->wait_fds = NULL;
	p->watches = NULL;
	p->nfdwaits = p->nwait_fds = p->nwatches = 0;
	p->io = NULL;
	p->arcs = NULL;
	p->mpi = NULL;
	p->comms = NULL;
	p->nmaps = p->nfds = p->nsamples = p->nheap = p->nsync = p->nio = p->narcs = 0;
	p->nmpi = p->ncomms = 0;
	p->nstacks = 0;
}

static void free_proc(struct exp_proc *p)
{
	for (size_t i = 0; i < p->nlog; i++) {
		free(p->log[i].key);
		free(p->log[i].value);
	}
	free_events(p);
	exp_code_free(p);          /* names: kept by exp_experiment_drop_events */
	for (size_t i = 0; i < p->nthreads; i++)
		free(p->threads[i].handler_hist);
	free(p->log);
	free(p->psamples);         /* kept by exp_experiment_drop_events, as threads */
	free(p->dir);
	free(p->proc_path);
	free(p->slots_path);
	free(p->newer_part);
	free(p->lineage);
	free(p->exe);
	free(p->name);
	free(p->threads);
	free(p->thread_order);
}

void exp_experiment_drop_events(struct exp_experiment *e)
{
	for (size_t i = 0; i < e->nprocs; i++)
		free_events(&e->procs[i]);
}

void exp_experiment_free(struct exp_experiment *e)
{
	for (size_t i = 0; i < e->nprocs; i++)
		free_proc(&e->procs[i]);
	free(e->procs);
	free(e->path);
	free(e->lost_why);
	for (size_t i = 0; i < e->nlost_lineages; i++)
		free(e->lost_lineages[i]);
	free(e->lost_lineages);
	memset(e, 0, sizeof(*e));
}
