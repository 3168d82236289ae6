/* SPDX-License-Identifier: MIT
 *
 * model_build.c — from loaded experiments to entries (see model.h).
 *
 * One pass per process over each kind of event.  An event's stack is looked
 * up by (stack id, epoch): the epoch counts the load-object map changes
 * before the event, so a stack whose pcs were a plugin at one time and
 * another plugin at the same address later becomes two entries.  Each new
 * (stack, epoch) is symbolized once: every pc is resolved in the process's
 * address space at the event's time and the frames are rewritten by the
 * seed's rules.  Heap events are replayed in time order to find the bytes
 * never freed and the peak of live bytes.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/model.h"
#include "model/model_map.h"
#include "symbols/sym.h"

static const struct model_metric_info metric_info[MODEL_METRIC_COUNT] = {
	[MODEL_CPU] = { "cpu", "CPU", true },
	[MODEL_HEAP_BYTES] = { "heap.bytes", "Heap bytes", false },
	[MODEL_HEAP_COUNT] = { "heap.count", "Allocs", false },
	[MODEL_HEAP_LEAK] = { "heap.leak", "Leaked bytes", false },
	[MODEL_SYNC_WAIT] = { "sync.wait", "Sync wait", true },
	[MODEL_SYNC_COUNT] = { "sync.count", "Waits", false },
	[MODEL_SYNC_OTHER] = { "sync.other", "Other waits", true },
	[MODEL_IO_BYTES] = { "io.bytes", "I/O bytes", false },
	[MODEL_IO_TIME] = { "io.time", "I/O time", true },
	[MODEL_IO_COUNT] = { "io.count", "I/O calls", false },
};

const struct model_metric_info *model_metric_info(enum model_metric m)
{
	return &metric_info[m];
}

int model_metric_parse(const char *name)
{
	for (int i = 0; i < MODEL_METRIC_COUNT; i++)
		if (!strcmp(name, metric_info[i].name))
			return i;
	return -1;
}

/* Indexes kept while building. */
struct build {
	struct model *m;
	struct model_map func_by_sym;     /* sym_func pointer -> func id */
	struct model_map func_by_name;    /* hash(name, object) -> func id */
	struct model_map arc_of;          /* (caller, callee) -> arc index + 1 */
	size_t cap_arcs, cap_files;
	struct model_map file_of;         /* hash(name) -> file index + 1 */
	size_t cap_funcs, cap_entries, cap_threads;
	uint32_t unknown, truncated;      /* artificial function ids */
};

/* Per process while building. */
struct proc_ctx {
	const struct exp_proc *p;
	uint32_t index;                   /* in model.procs */
	struct sym_space *space;
	uint64_t *epochs;                 /* sorted times of map changes */
	size_t nepochs;
	struct model_map entry_of;        /* (stack id, epoch) -> entry index + 1 */
	struct model_map thread_of;       /* tid -> thread index + 1 */
	uint64_t base_ns;                 /* founder's start, for --time */
};

static const char *basename_of(const char *path)
{
	const char *s = strrchr(path, '/');
	return s ? s + 1 : path;
}

static uint32_t add_func(struct build *b, const char *name, const char *path, uint64_t addr,
			 uint64_t size, uint32_t flags, const char *aliases)
{
	struct model *m = b->m;

	if (exp_grow(&m->funcs, &b->cap_funcs, m->nfuncs, sizeof(*m->funcs)))
		return 0;
	struct model_func *f = &m->funcs[m->nfuncs];
	f->name = strdup(name);
	f->path = strdup(path ? path : "");
	f->object = strdup(basename_of(f->path));
	f->aliases = aliases ? strdup(aliases) : NULL;
	f->addr = addr;
	f->size = size;
	f->flags = flags;
	return m->nfuncs++;
}

/* The function called `name` in `path`, created on first use. */
static uint32_t func_by_name(struct build *b, const char *name, const char *path, uint32_t flags)
{
	uint64_t key = model_hash_str(model_hash_str(0, name), path ? path : "") | 1;

	for (;;) {
		uint64_t *v = model_map_get(&b->func_by_name, key);
		if (!v) {
			uint32_t id = add_func(b, name, path, 0, 0, flags, NULL);
			uint64_t *slot = model_map_put(&b->func_by_name, key, id, NULL);
			(void)slot;
			return id;
		}
		const struct model_func *f = &b->m->funcs[*v];
		if (!strcmp(f->name, name) && !strcmp(f->path, path ? path : ""))
			return (uint32_t)*v;
		key = model_hash64(key) | 1;
	}
}

static uint32_t func_of_sym(struct build *b, const struct sym_func *sf, const char *path)
{
	uint64_t *v = model_map_get(&b->func_by_sym, (uint64_t)(uintptr_t)sf);

	if (v)
		return (uint32_t)*v;
	/* The same function seen through another mapping of the same file
	 * shares its sym_func, so the pointer identifies it. */
	uint32_t id = add_func(b, sf->name, path, sf->start, sf->size, sf->flags, sf->aliases);
	model_map_put(&b->func_by_sym, (uint64_t)(uintptr_t)sf, id, NULL);
	return id;
}

static bool is_tally_object(const char *path)
{
	return !strncmp(basename_of(path), "libtally", 8);
}

/* One resolved frame. */
struct frame {
	uint32_t func;
	uint64_t addr;
	bool tally, thread_start, plt;
	const char *path;
};

/* Resolve a frame's pc; `retaddr`: it is a return address, so the call is
 * the instruction before it.  A return address at the very first byte of a
 * function came from no call: it is a signal trampoline's (glibc's
 * __restore_rt), named as itself rather than as whatever precedes it. */
static void resolve(struct build *b, struct proc_ctx *c, uint64_t pc, bool retaddr,
		    uint64_t time_ns, struct frame *fr)
{
	uint64_t at = retaddr ? pc - 1 : pc;
	struct sym_mapping *mp = sym_space_find(c->space, at, time_ns);

	memset(fr, 0, sizeof(*fr));
	fr->func = b->unknown;
	if (!mp)
		return;
	fr->path = mp->path;
	fr->tally = is_tally_object(mp->path);
	if (!mp->obj)
		return;
	uint64_t vaddr = at - mp->bias;
	const struct sym_func *sf = sym_object_lookup(mp->obj, vaddr);
	if (retaddr) {
		const struct sym_func *here = sym_object_lookup(mp->obj, pc - mp->bias);
		if (here && here != sf && here->start == pc - mp->bias)
			sf = here;
	}
	if (!sf)
		return;
	fr->func = func_of_sym(b, sf, sym_object_path(mp->obj));
	fr->addr = vaddr;
	fr->plt = (sf->flags & SYM_FUNC_PLT) != 0;
	fr->thread_start = fr->tally && !strcmp(sf->name, "tally_thread_start");
}

/* Symbolize and rewrite one stack into a new entry; returns its index. */
static long new_entry(struct build *b, struct proc_ctx *c, uint32_t stack_id, uint64_t time_ns,
		      const struct model_options *o)
{
	struct model *m = b->m;
	uint64_t pcs[EXP_MAX_FRAMES];
	uint16_t sflags = 0;
	int got = exp_stack_frames(c->p, stack_id, pcs, EXP_MAX_FRAMES, &sflags);
	uint32_t n = got > 0 ? (uint32_t)got : 0;
	uint32_t *funcs = malloc((n + 2) * sizeof(*funcs));
	uint64_t *addrs = malloc((n + 2) * sizeof(*addrs));
	uint32_t k = 0;

	if (!funcs || !addrs) {
		free(funcs);
		free(addrs);
		return -1;
	}
	if (got < 0)
		m->unknown_stacks++;
	if (sflags & EXP_STACK_TRUNCATED) {
		funcs[k] = b->truncated;
		addrs[k++] = 0;
	}
	uint32_t first = k;
	for (uint32_t i = n; i-- > 0;) {
		bool retaddr = i > 0 || (sflags & EXP_STACK_LEAF_IS_RETADDR);
		struct frame fr;
		resolve(b, c, pcs[i], retaddr, time_ns, &fr);
		if (fr.tally && !o->keep_tally_frames) {
			if (fr.thread_start)
				k = first;      /* the thread's stack starts at its routine */
			continue;
		}
		if (fr.plt && i > 0)
			fr.func = func_by_name(b, "@plt", fr.path, MODEL_FUNC_ARTIFICIAL);
		else if (fr.plt && i == 0 && k > first)
			continue;           /* a PLT stub's time goes to the call */
		funcs[k] = fr.func;
		addrs[k++] = fr.addr;
	}
	if (k == first) {
		funcs[k] = b->unknown;
		addrs[k++] = 0;
	}
	if (exp_grow(&m->entries, &b->cap_entries, m->nentries, sizeof(*m->entries))) {
		free(funcs);
		free(addrs);
		return -1;
	}
	struct model_entry *e = &m->entries[m->nentries];
	memset(e, 0, sizeof(*e));
	e->proc = c->index;
	e->n = k;
	e->funcs = funcs;
	e->addrs = addrs;
	return (long)m->nentries++;
}

static size_t epoch_of(const struct proc_ctx *c, uint64_t t)
{
	size_t lo = 0, hi = c->nepochs;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		if (c->epochs[mid] <= t)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* The entry for an event with this stack at this time; -1 if out of memory. */
static long entry_for(struct build *b, struct proc_ctx *c, uint32_t stack_id, uint64_t time_ns,
		      const struct model_options *o)
{
	uint64_t key = ((uint64_t)stack_id << 32 | epoch_of(c, time_ns)) + 1;
	bool inserted;
	uint64_t *v = model_map_put(&c->entry_of, key, 0, &inserted);

	if (!v)
		return -1;
	if (!inserted)
		return (long)*v - 1;
	long e = new_entry(b, c, stack_id, time_ns, o);
	v = model_map_get(&c->entry_of, key);
	*v = (uint64_t)(e + 1);
	return e;
}

static struct model_thread *thread_for(struct build *b, struct proc_ctx *c, uint32_t tid)
{
	struct model *m = b->m;
	bool inserted;
	uint64_t *v = model_map_put(&c->thread_of, (uint64_t)tid + 1, 0, &inserted);

	if (!v)
		return NULL;
	if (!inserted)
		return &m->threads[*v - 1];
	if (exp_grow(&m->threads, &b->cap_threads, m->nthreads, sizeof(*m->threads)))
		return NULL;
	struct model_thread *t = &m->threads[m->nthreads];
	memset(t, 0, sizeof(*t));
	t->proc = c->index;
	t->tid = tid;
	for (size_t i = 0; i < c->p->nthreads; i++)
		if (c->p->threads[i].tid == tid)
			t->src = &c->p->threads[i];
	if (t->src && t->src->start_routine) {
		struct frame fr;
		resolve(b, c, t->src->start_routine, false, t->src->start_ns, &fr);
		t->routine = fr.func;
	}
	*model_map_get(&c->thread_of, (uint64_t)tid + 1) = m->nthreads + 1;
	return &m->threads[m->nthreads++];
}

static bool keep(const struct proc_ctx *c, const struct model_options *o, uint32_t tid, uint64_t t)
{
	if (o->ntids) {
		bool found = false;
		for (size_t i = 0; i < o->ntids && !found; i++)
			found = o->tids[i] == tid;
		if (!found)
			return false;
	}
	if (o->has_time) {
		uint64_t rel = t > c->base_ns ? t - c->base_ns : 0;
		if (rel < o->from_ns || rel >= o->to_ns)
			return false;
	}
	return true;
}

/* Add `value` of metric `mm` for an event. */
static int add(struct build *b, struct proc_ctx *c, const struct model_options *o, uint32_t tid,
	       uint64_t t, uint32_t stack_id, enum model_metric mm, uint64_t value, long *entry_out)
{
	struct model *m = b->m;
	long e = entry_for(b, c, stack_id, t, o);
	struct model_thread *th = thread_for(b, c, tid);

	if (e < 0 || !th)
		return -1;
	m->entries[e].v[mm] += value;
	m->procs[c->index].v[mm] += value;
	m->total[mm] += value;
	m->present |= 1u << mm;
	th->v[mm] += value;
	if (!th->first_ns || t < th->first_ns)
		th->first_ns = t;
	if (t > th->last_ns)
		th->last_ns = t;
	if (entry_out)
		*entry_out = e;
	return 0;
}

/* Arcs of the instrumentation runtime.  frompc is a return address in the
 * caller; selfpc is inside the callee (mcount: the return address of its
 * mcount call; -finstrument-functions: its entry).  An arc out of tally's
 * thread-start wrapper is the thread library calling the start routine: its
 * caller is where the wrapper returns to (logged by the collector). */
static int build_arcs(struct build *b, struct proc_ctx *c, const struct model_options *o)
{
	struct model *m = b->m;
	const char *tcaller = exp_proc_log(c->p, "thread.entry.caller_pc");
	uint64_t thread_caller = tcaller ? strtoull(tcaller, NULL, 16) : 0;

	for (size_t i = 0; i < c->p->narcs; i++) {
		const struct exp_arc_ev *a = &c->p->arcs[i];
		struct frame from, to;
		resolve(b, c, a->frompc, true, UINT64_MAX, &from);
		if (from.thread_start && thread_caller)
			resolve(b, c, thread_caller, true, UINT64_MAX, &from);
		resolve(b, c, a->selfpc, !(a->flags & EXP_ARCS_CYG), UINT64_MAX, &to);
		if ((from.tally && !from.thread_start) || to.tally) {
			if (!o->keep_tally_frames)
				continue;
		}
		uint64_t key = ((uint64_t)from.func << 32 | to.func) + 1;
		bool inserted;
		uint64_t *v = model_map_put(&b->arc_of, key, 0, &inserted);
		if (!v)
			return -1;
		if (inserted) {
			if (exp_grow(&m->arcs, &b->cap_arcs, m->narcs, sizeof(*m->arcs)))
				return -1;
			m->arcs[m->narcs] = (struct model_arc){ from.func, to.func, 0, 0, 0 };
			*model_map_get(&b->arc_of, key) = ++m->narcs;
			v = model_map_get(&b->arc_of, key);
		}
		struct model_arc *ma = &m->arcs[*v - 1];
		ma->count += a->count;
		ma->incl_ns += a->incl_ns;
		ma->flags |= a->flags;
	}
	return 0;
}

static int cmp_arc(const void *x, const void *y)
{
	const struct model_arc *a = x, *b = y;

	if (a->caller != b->caller)
		return a->caller < b->caller ? -1 : 1;
	return a->callee < b->callee ? -1 : a->callee > b->callee;
}

/* The model_file of `name`, created on first use. */
static struct model_file *file_named(struct build *b, const char *name)
{
	struct model *m = b->m;
	uint64_t key = model_hash_str(0, name) | 1;

	for (;;) {
		uint64_t *v = model_map_get(&b->file_of, key);
		if (!v)
			break;
		if (!strcmp(m->files[*v - 1].name, name))
			return &m->files[*v - 1];
		key = model_hash64(key) | 1;
	}
	if (exp_grow(&m->files, &b->cap_files, m->nfiles, sizeof(*m->files)))
		return NULL;
	struct model_file *f = &m->files[m->nfiles];
	memset(f, 0, sizeof(*f));
	f->name = strdup(name);
	model_map_put(&b->file_of, key, ++m->nfiles, NULL);
	return f;
}

static int cmp_fd_ev(const void *a, const void *b)
{
	const struct exp_fd_ev *x = a, *y = b;

	if (x->fd != y->fd)
		return x->fd < y->fd ? -1 : 1;
	return x->time_ns < y->time_ns ? -1 : x->time_ns > y->time_ns;
}

/* What `fd` named at `time`: the last FD_NAME for it at or before then.
 * `fds` is sorted by (fd, time). */
static const char *fd_name_at(const struct exp_fd_ev *fds, size_t n, int32_t fd, uint64_t time,
			      char *buf, size_t len)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {                 /* first entry after (fd, time) */
		size_t mid = (lo + hi) / 2;
		if (fds[mid].fd < fd || (fds[mid].fd == fd && fds[mid].time_ns <= time))
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo > 0 && fds[lo - 1].fd == fd)
		return fds[lo - 1].name;
	snprintf(buf, len, "fd %d", fd);
	return buf;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

static void heap_replay(struct build *b, struct proc_ctx *c, const struct model_options *o);

static int build_proc(struct build *b, struct proc_ctx *c, const struct model_options *o)
{
	const struct exp_proc *p = c->p;
	struct model *m = b->m;
	char archive[4300];

	c->space = sym_space_new();
	if (!c->space)
		return -1;
	snprintf(archive, sizeof(archive), "%s/archive", m->procs[0].exp ? m->procs[c->index].exp->path : p->dir);
	sym_space_set_archive(c->space, archive);
	c->epochs = malloc((p->nmaps + 1) * sizeof(*c->epochs));
	for (size_t i = 0; i < p->nmaps; i++) {
		const struct exp_map_ev *e = &p->maps[i];
		if (e->unmap)
			sym_space_unmap(c->space, e->time_ns, e->start);
		else
			sym_space_map(c->space, e->time_ns, e->start, e->end, e->bias, e->path,
				      e->build_id, e->build_id_len, e->flags);
		c->epochs[c->nepochs++] = e->time_ns;
	}
	qsort(c->epochs, c->nepochs, sizeof(*c->epochs), cmp_u64);

	for (size_t i = 0; i < p->nthreads; i++)
		thread_for(b, c, p->threads[i].tid);
	for (size_t i = 0; i < p->nsamples; i++) {
		const struct exp_sample *s = &p->samples[i];
		if (!keep(c, o, s->tid, s->time_ns))
			continue;
		if (add(b, c, o, s->tid, s->time_ns, s->stack_id, MODEL_CPU, s->weight_ns, NULL))
			return -1;
		m->samples++;
		struct model_thread *th = thread_for(b, c, s->tid);
		th->samples++;
	}
	for (size_t i = 0; i < p->nsync; i++) {
		const struct exp_sync *s = &p->sync[i];
		if (!keep(c, o, s->tid, s->time_ns))
			continue;
		bool lock = s->op == EXP_SYNC_MUTEX || s->op == EXP_SYNC_RWLOCK_RD ||
			    s->op == EXP_SYNC_RWLOCK_WR || s->op == EXP_SYNC_SEM;
		if (!lock) {
			if (add(b, c, o, s->tid, s->time_ns, s->stack_id, MODEL_SYNC_OTHER, s->wait_ns, NULL))
				return -1;
		} else if (add(b, c, o, s->tid, s->time_ns, s->stack_id, MODEL_SYNC_WAIT, s->wait_ns, NULL) ||
			   add(b, c, o, s->tid, s->time_ns, s->stack_id, MODEL_SYNC_COUNT, 1, NULL)) {
			return -1;
		}
	}
	struct exp_fd_ev *fds = p->nfds ? malloc(p->nfds * sizeof(*fds)) : NULL;
	if (fds) {
		memcpy(fds, p->fds, p->nfds * sizeof(*fds));
		qsort(fds, p->nfds, sizeof(*fds), cmp_fd_ev);
	}
	for (size_t i = 0; i < p->nio; i++) {
		const struct exp_io *s = &p->io[i];
		char buf[32];
		if (!keep(c, o, s->tid, s->time_ns))
			continue;
		struct model_file *f = file_named(b, fd_name_at(fds, fds ? p->nfds : 0, s->fd,
								 s->time_ns, buf, sizeof(buf)));
		if (!f) {
			free(fds);
			return -1;
		}
		f->ops[s->op < 8 ? s->op : 0]++;
		f->v[MODEL_IO_TIME] += s->dur_ns;
		if (s->op == EXP_IO_READ || s->op == EXP_IO_WRITE) {
			f->v[MODEL_IO_COUNT]++;
			if (s->bytes > 0)
				f->v[MODEL_IO_BYTES] += (uint64_t)s->bytes;
		}
		if (add(b, c, o, s->tid, s->time_ns, s->stack_id, MODEL_IO_TIME, s->dur_ns, NULL)) {
			free(fds);
			return -1;
		}
		if ((s->op == EXP_IO_READ || s->op == EXP_IO_WRITE) &&
		    (add(b, c, o, s->tid, s->time_ns, s->stack_id, MODEL_IO_COUNT, 1, NULL) ||
		     (s->bytes > 0 &&
		      add(b, c, o, s->tid, s->time_ns, s->stack_id, MODEL_IO_BYTES, (uint64_t)s->bytes, NULL)))) {
			free(fds);
			return -1;
		}
	}
	free(fds);
	heap_replay(b, c, o);
	return build_arcs(b, c, o);
}

static const struct exp_proc *heap_sort_proc;

static int cmp_heap_time(const void *a, const void *b)
{
	const struct exp_heap *x = &heap_sort_proc->heap[*(const uint32_t *)a];
	const struct exp_heap *y = &heap_sort_proc->heap[*(const uint32_t *)b];

	if (x->time_ns != y->time_ns)
		return x->time_ns < y->time_ns ? -1 : 1;
	return *(const uint32_t *)a < *(const uint32_t *)b ? -1 : 1;
}

/* Replay allocations and releases in time order: bytes, counts, leaks, peak. */
static void heap_replay(struct build *b, struct proc_ctx *c, const struct model_options *o)
{
	const struct exp_proc *p = c->p;
	struct model *m = b->m;
	struct model_map live = { 0 };      /* address -> (entry + 1) << 40 | size */
	struct model_map live_size = { 0 }; /* address -> size */
	uint64_t live_bytes = 0;
	uint32_t *order = malloc(p->nheap * sizeof(*order));

	if (!order)
		return;
	for (uint32_t i = 0; i < p->nheap; i++)
		order[i] = i;
	heap_sort_proc = p;
	qsort(order, p->nheap, sizeof(*order), cmp_heap_time);
	for (size_t i = 0; i < p->nheap; i++) {
		const struct exp_heap *h = &p->heap[order[i]];
		if (!keep(c, o, h->tid, h->time_ns))
			continue;
		uint64_t freed = 0;
		if (h->op == EXP_HEAP_FREE || h->op == EXP_HEAP_DELETE || h->op == EXP_HEAP_REALLOC) {
			uint64_t old = h->op == EXP_HEAP_REALLOC ? h->old_addr : h->addr;
			uint64_t *sz = old ? model_map_get(&live_size, old) : NULL;
			if (sz) {
				freed = *sz;
				live_bytes -= freed;
				model_map_del(&live_size, old);
				model_map_del(&live, old);
			}
		}
		if (h->op == EXP_HEAP_FREE || h->op == EXP_HEAP_DELETE || !h->addr)
			continue;
		long e;
		if (add(b, c, o, h->tid, h->time_ns, h->stack_id, MODEL_HEAP_BYTES, h->size, &e) ||
		    add(b, c, o, h->tid, h->time_ns, h->stack_id, MODEL_HEAP_COUNT, 1, NULL))
			break;
		bool fresh;
		uint64_t *size = model_map_put(&live_size, h->addr, h->size, &fresh);
		uint64_t *entry = model_map_put(&live, h->addr, 0, NULL);
		if (!size || !entry)
			continue;          /* an address no allocator returns */
		if (!fresh)
			live_bytes -= *size;   /* its release was not seen */
		*size = h->size;
		*entry = (uint64_t)e + 1;
		live_bytes += h->size;
		if (live_bytes > m->heap_peak.bytes) {
			m->heap_peak.bytes = live_bytes;
			m->heap_peak.time_ns = h->time_ns;
			m->heap_peak.entry = (uint32_t)e + 1;
		}
	}
	for (size_t j = 0; j < live.cap; j++) {
		uint64_t addr = live.keys[j];
		if (addr == 0 || addr == UINT64_MAX)
			continue;
		uint64_t *sz = model_map_get(&live_size, addr);
		struct model_entry *e = &m->entries[live.vals[j] - 1];
		if (!sz)
			continue;
		e->v[MODEL_HEAP_LEAK] += *sz;
		m->procs[e->proc].v[MODEL_HEAP_LEAK] += *sz;
		m->total[MODEL_HEAP_LEAK] += *sz;
		m->present |= 1u << MODEL_HEAP_LEAK;
	}
	if (p->nheap)
		m->present |= 1u << MODEL_HEAP_LEAK;
	model_map_free(&live);
	model_map_free(&live_size);
	free(order);
}

/* Does `p` answer to `which`: its pid, its lineage (`founder`, `_f1_x1`) or
 * its program's name? */
static bool proc_matches(const struct exp_proc *p, const char *which)
{
	char pid[16];

	snprintf(pid, sizeof(pid), "%u", p->pid);
	return !strcmp(which, pid) || !strcmp(which, p->lineage) || !strcmp(which, p->name) ||
	       (!p->lineage[0] && !strcmp(which, "founder"));
}

int model_build(struct model *m, const struct exp_experiment *exps, size_t nexps,
		const struct model_options *o, char *err, size_t errlen)
{
	struct build b = { .m = m };
	size_t nprocs = 0;

	memset(m, 0, sizeof(*m));
	add_func(&b, "<Total>", "", 0, 0, MODEL_FUNC_ARTIFICIAL, NULL);
	b.unknown = func_by_name(&b, "<Unknown>", "", MODEL_FUNC_ARTIFICIAL);
	b.truncated = func_by_name(&b, "<Truncated-stack>", "", MODEL_FUNC_ARTIFICIAL);
	for (size_t i = 0; i < nexps; i++)
		nprocs += exps[i].nprocs;
	m->procs = calloc(nprocs ? nprocs : 1, sizeof(*m->procs));
	struct proc_ctx *ctx = calloc(nprocs ? nprocs : 1, sizeof(*ctx));
	if (!m->procs || !ctx) {
		snprintf(err, errlen, "out of memory");
		free(ctx);
		return -1;
	}
	int rc = 0;
	for (size_t i = 0; i < nexps && !rc; i++) {
		const struct exp_experiment *x = &exps[i];
		for (size_t j = 0; j < x->nprocs && !rc; j++) {
			if (o->process && !proc_matches(&x->procs[j], o->process))
				continue;
			struct model_proc *mp = &m->procs[m->nprocs];
			struct proc_ctx *c = &ctx[m->nprocs];
			mp->src = &x->procs[j];
			mp->exp = x;
			snprintf(mp->label, sizeof(mp->label), "[%s %u]", mp->src->name, mp->src->pid);
			c->p = mp->src;
			c->index = (uint32_t)m->nprocs++;
			c->base_ns = x->procs[0].start_ns;
			if (build_proc(&b, c, o)) {
				snprintf(err, errlen, "%s: out of memory", x->procs[j].dir);
				rc = -1;
			}
		}
	}
	for (size_t i = 0; i < m->nprocs; i++) {
		sym_space_free(ctx[i].space);
		free(ctx[i].epochs);
		model_map_free(&ctx[i].entry_of);
		model_map_free(&ctx[i].thread_of);
	}
	free(ctx);
	if (m->narcs)
		qsort(m->arcs, m->narcs, sizeof(*m->arcs), cmp_arc);
	model_map_free(&b.arc_of);
	model_map_free(&b.file_of);
	model_map_free(&b.func_by_sym);
	model_map_free(&b.func_by_name);
	return rc;
}

void model_free(struct model *m)
{
	for (uint32_t i = 0; i < m->nfuncs; i++) {
		free(m->funcs[i].name);
		free(m->funcs[i].object);
		free(m->funcs[i].path);
		free(m->funcs[i].aliases);
	}
	for (size_t i = 0; i < m->nentries; i++) {
		free(m->entries[i].funcs);
		free(m->entries[i].addrs);
	}
	for (size_t i = 0; i < m->nfiles; i++)
		free(m->files[i].name);
	free(m->files);
	free(m->funcs);
	free(m->entries);
	free(m->arcs);
	free(m->procs);
	free(m->threads);
	memset(m, 0, sizeof(*m));
}
