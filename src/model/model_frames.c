/* SPDX-License-Identifier: MIT
 *
 * model_frames.c — from a recorded stack to the functions of an entry, by
 * the Sun analyzer's rules (model_build_int.h lists its neighbours).
 *
 * Each pc is resolved in the process's address space at the event's time;
 * a return address is looked up at pc - 1.  Then: tally's own frames are
 * dropped (and the thread-start wrapper cuts the stack, which then starts at
 * the thread's routine); a PLT stub inside the stack is `@plt` of its
 * object, a PLT stub at the leaf gives its time to the call; a stack with no
 * frame left is <Unknown>; a truncated stack starts with <Truncated-stack>.
 * The MPI tracer's wrappers are the exception among tally's frames: each is
 * the MPI function it wraps (MPI_Send, whether called from C or Fortran),
 * the same function a traced call's entry gets as its leaf, so an MPI
 * function has both the time waited in it (mpi.time) and the CPU burnt in
 * it (cpu, inclusive).  An entry with an MPI function, or a frame in an MPI
 * library, is inside MPI (MODEL_ENTRY_IN_MPI).  The lazy resolver (ld.so's
 * _dl_runtime_resolve* and all it calls) is `@plt` of the calling object, as
 * the Sun analyzer says; the signal trampoline (__restore_rt, where a handler
 * returns to) is `<signal handler>`, the Sun analyzer's sigacthandler: called by the
 * interrupted code, calling the handler.  In the user view, model_structure.c then imputes the calls
 * to outlined parts and OpenMP bodies.  Functions are created on first use,
 * one per sym_func (the same function seen through two mappings of a file is
 * one), and classified then (outlined part, OpenMP body or runtime, parent).
 * Called once per new (stack, epoch) by model_entries.c, and to make the
 * stacks model_omp.c places.  Functions are made by model_func_make.c.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "format/exp_launch.h"
#include "format/exp_mpi_ops.h"
#include "model/model_build_int.h"

static const char *basename_of(const char *path)
{
	const char *s = strrchr(path, '/');
	return s ? s + 1 : path;
}

/* The parent of an outlined part or body named by the first `len` bytes of
 * its link name: the function of that symbol in the same object, or one
 * made by name (an inlined parent has no symbol); 0 if out of memory. */
static uint32_t func_of_sym(struct build *b, const struct sym_func *sf, struct sym_object *obj,
			    const char *path);

static uint32_t parent_named(struct build *b, struct sym_object *obj, const char *path,
			     const char *link, size_t len, bool make)
{
	char name[1024];

	if (len >= sizeof(name))
		return 0;
	memcpy(name, link, len);
	name[len] = 0;
	const struct sym_func *p = sym_object_find(obj, name);
	if (p)
		return func_of_sym(b, p, obj, path);
	return make ? model_func_by_name(b, sym_demangle(name), path, 0) : 0;
}

static uint32_t func_of_sym(struct build *b, const struct sym_func *sf, struct sym_object *obj,
			    const char *path)
{
	uint64_t *v = model_map_get(&b->func_by_sym, (uint64_t)(uintptr_t)sf);

	if (v)
		return (uint32_t)*v;
	/* The same function seen through another mapping of the same file
	 * shares its sym_func, so the pointer identifies it. */
	uint32_t id = model_func_add(b, sf->name, path, sf->start, sf->size, sf->flags, sf->aliases);
	if (!model_map_put(&b->func_by_sym, (uint64_t)(uintptr_t)sf, id, NULL))
		b->oom = true;
	if (!id)
		return id;
	struct model_func *f = &b->m->funcs[id];
	size_t plen;
	f->obj = obj;
	uint32_t kind = model_struct_kind(sf->link_name, &plen);
	f->link = sf->link_name ? strdup(sf->link_name) : NULL;
	if (sf->flags & SYM_FUNC_DYNAMIC) {     /* its object's name, not its key's */
		char *object = strdup(sym_object_name(obj));
		if (object) {
			free(f->object);
			f->object = object;
		}
		f->flags |= MODEL_FUNC_DYNAMIC;
		return id;
	}
	if (sf->link_name && !f->link)
		b->oom = true;
	if (model_omp_runtime_object(f->object))
		f->flags |= MODEL_FUNC_OMP_RUNTIME;
	else if (kind) {
		f->flags |= kind;
		uint32_t parent = plen ? parent_named(b, obj, path, sf->link_name, plen,
						      kind == MODEL_FUNC_OMP_BODY) : 0;
		const struct sym_func *enc = parent ? NULL : sym_object_enclosing(obj, sf->start);
		if (enc && enc != sf)
			parent = func_of_sym(b, enc, obj, path);
		b->m->funcs[id].parent = parent;
	}
	return id;
}

/* The <OMP-*> functions, made when a first stack goes through a runtime. */
static void omp_functions(struct build *b)
{
	static const char *const names[MODEL_OMP_FN_COUNT] = {
		[MODEL_OMP_FN_IDLE] = "<OMP-idle>", [MODEL_OMP_FN_BARRIER] = "<OMP-barrier>",
		[MODEL_OMP_FN_LOCK] = "<OMP-lock>", [MODEL_OMP_FN_OVERHEAD] = "<OMP-overhead>",
	};

	for (int i = 0; i < MODEL_OMP_FN_COUNT; i++)
		if (!b->omp_fn[i])
			b->omp_fn[i] = model_func_by_name(b, names[i], "", MODEL_FUNC_ARTIFICIAL);
}

/* How many frames at funcs[first..n) are where the thread library starts a
 * thread: clone3 (or clone) and start_thread, as perf and gdb show them.
 * The thread's own stack (its start routine, an OpenMP worker's runtime)
 * begins after them. */
static uint32_t thread_root_len(const struct build *b, const uint32_t *funcs, uint32_t first, uint32_t n)
{
	static const char *const clones[] = { "clone3", "__clone3", "clone", "__clone" };
	uint32_t i = first;

	for (size_t c = 0; i < n && c < sizeof(clones) / sizeof(clones[0]); c++)
		if (!strcmp(b->m->funcs[funcs[i]].name, clones[c])) {
			i++;
			break;
		}
	if (i < n && !strcmp(b->m->funcs[funcs[i]].name, "start_thread"))
		return i + 1 - first;
	return 0;
}

/* Is frame `fr` the lazy resolver's entry in ld.so? */
static bool is_lazy_resolver(const struct build *b, const struct frame *fr)
{
	const struct model_func *f = &b->m->funcs[fr->func];

	return !strncmp(f->name, "_dl_runtime_resolve", 19) || !strncmp(f->name, "_dl_runtime_profile", 19);
}

static bool is_tally_object(const char *path)
{
	return !strncmp(basename_of(path), "libtally", 8);
}

/* Open MPI's libraries and components, where a program is inside MPI. */
static bool is_mpi_object(const char *path)
{
	static const char *const prefixes[] = { "libmpi", "libopen-pal", "libopen-rte", "mca_",
						"libmca_", "libpmix", "libtally-mpi" };
	const char *base = basename_of(path);

	for (size_t i = 0; i < sizeof(prefixes) / sizeof(prefixes[0]); i++)
		if (!strncmp(base, prefixes[i], strlen(prefixes[i])))
			return true;
	return false;
}

uint32_t model_mpi_func(struct build *b, unsigned op)
{
	char unknown[32];
	const char *name = exp_mpi_op_name(op);

	if (!name) {
		snprintf(unknown, sizeof(unknown), "MPI_op%u", op);
		name = unknown;
	}
	return model_func_by_name(b, name, "", MODEL_FUNC_MPI);
}

/* The entry points of the instrumentation runtime (src/mcount/), which the
 * program's instrumented code calls: mcount and __fentry__ (mc_entry.S,
 * then mc_count_arc or the slow path's trampoline) and
 * __cyg_profile_func_enter/exit. */
static bool is_instrumentation_entry(const char *name)
{
	static const char *const entries[] = {
		"mcount", "_mcount", "__fentry__", "mc_count_arc", "mc_slow_trampoline",
		"__cyg_profile_func_enter", "__cyg_profile_func_exit",
	};

	for (size_t i = 0; i < sizeof(entries) / sizeof(entries[0]); i++)
		if (!strcmp(name, entries[i]))
			return true;
	return false;
}

/* A return address at the very first byte of a function came from no call:
 * it is a signal trampoline's (glibc's __restore_rt), named as itself rather
 * than as whatever precedes it. */
static void resolve(struct build *b, struct sym_mapping *mp, uint64_t pc, bool retaddr,
		    struct frame *fr)
{
	uint64_t at = retaddr ? pc - 1 : pc;

	memset(fr, 0, sizeof(*fr));
	fr->func = b->unknown;
	if (!mp)
		return;
	fr->path = mp->path;
	fr->tally = is_tally_object(mp->path);
	fr->mpi = is_mpi_object(mp->path);
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
	unsigned op = fr->tally && fr->mpi ? exp_mpi_op_of_symbol(sf->name) : 0;
	if (op) {                   /* the MPI tracer's wrapper of MPI function op */
		fr->tally = false;
		fr->func = model_mpi_func(b, op);
		return;
	}
	fr->func = func_of_sym(b, sf, mp->obj, sym_object_path(mp->obj));
	fr->lazy = is_lazy_resolver(b, fr);
	fr->addr = vaddr;
	fr->plt = (sf->flags & SYM_FUNC_PLT) != 0;
	fr->sigreturn = !strcmp(sf->name, "__restore_rt");
	fr->thread_start = fr->tally && !strcmp(sf->name, EXP_THREAD_WRAPPER);
	fr->instrumentation = fr->tally && is_instrumentation_entry(sf->name);
	if (!(b->m->funcs[fr->func].flags & (MODEL_FUNC_OMP_RUNTIME | MODEL_FUNC_OMP_BODY)))
		fr->tail = model_omp_tail_of(b, sf);
}

/* The OpenMP body that jumped to a function called from the runtime
 * (model_omp_tail.c): of the bodies jumping to it, the one whose parent is
 * on the stack funcs[first..k) (the opening thread's), else the first. */
static uint32_t tail_body(struct build *b, uint32_t tail, const uint32_t *funcs, uint32_t first,
			  uint32_t k)
{
	uint32_t pick = 0;

	for (uint32_t t = tail; t; t = model_omp_tail_next(b, t)) {
		struct sym_object *obj;
		const struct sym_func *sf = model_omp_tail_body(b, t, &obj);
		uint32_t body = func_of_sym(b, sf, obj, sym_object_path(obj));
		uint32_t parent = b->m->funcs[body].parent;
		if (!pick)
			pick = body;
		for (uint32_t i = first; parent && i < k; i++)
			if (funcs[i] == parent)
				return body;
	}
	return pick;
}

/* The function inlined as `in` into code of object `path`: one per (name,
 * object), flagged MODEL_FUNC_INLINED, named "NAME (inlined)" as perf marks
 * it, so that every view and export shows the mark and keeps it apart from
 * the function's own out-of-line copy. */
static uint32_t inlined_func(struct build *b, const struct sym_inline *in, const char *path)
{
	char name[4096];

	snprintf(name, sizeof(name), "%s (inlined)", in->name);
	uint32_t id = model_func_by_name(b, name, path, MODEL_FUNC_INLINED);
	struct model_func *f = &b->m->funcs[id];
	if (id && !f->link && in->link_name) {
		f->link = strdup(in->link_name);
		if (!f->link)
			b->oom = true;
	}
	return id;
}

/* The calls inlined at `addr` of `obj` as functions (b->inl_funcs), read
 * from DWARF the first time any process asks: the objects live as long as
 * the build, so their pointers name them.  NULL if out of memory. */
static const struct inl_at *inlines_at(struct build *b, struct sym_object *obj, uint64_t addr)
{
	struct sym_inline in[64];
	uint64_t key = model_hash64(model_hash64((uint64_t)(uintptr_t)obj) ^ addr);
	bool inserted;
	uint64_t *v = model_map_put(&b->inl_of, key, 0, &inserted);

	if (!v)
		return NULL;
	if (!inserted && b->inl_at[*v - 1].obj == obj && b->inl_at[*v - 1].addr == addr)
		return &b->inl_at[*v - 1];
	/* New, or another (obj, addr) of the same hash: that one keeps the
	 * slot and this one is read again each time (rare). */
	size_t n = sym_object_inlines(obj, addr, in, sizeof(in) / sizeof(in[0]));
	if (exp_grow(&b->inl_at, &b->cap_inl_at, b->ninl_at, sizeof(*b->inl_at)))
		return NULL;
	while (b->ninl_funcs + n > b->cap_inl_funcs)
		if (exp_grow(&b->inl_funcs, &b->cap_inl_funcs, b->cap_inl_funcs, sizeof(*b->inl_funcs)))
			return NULL;
	struct inl_at *at = &b->inl_at[b->ninl_at];
	*at = (struct inl_at){ obj, addr, (uint32_t)b->ninl_funcs, (uint32_t)n };
	const char *path = sym_object_path(obj);
	for (size_t i = 0; i < n; i++)
		b->inl_funcs[b->ninl_funcs++] = inlined_func(b, &in[i], path);
	if (inserted)
		*v = ++b->ninl_at;      /* kept for the next time */
	else
		b->ninl_funcs = at->start;   /* a scratch copy, until the next call */
	return at;
}

/* The chain of calls inlined at fr's address (DWARF), as functions in
 * c->inl.  Not for frames the rules replace or drop (the collector's, PLT
 * stubs, the lazy resolver, the signal trampoline) nor in an OpenMP
 * runtime, whose frames the user view rewrites by name. */
static void inlines(struct build *b, struct proc_ctx *c, struct sym_mapping *mp, struct frame *fr)
{
	if (fr->tally || fr->plt || fr->lazy || fr->sigreturn || fr->func == b->unknown ||
	    (b->m->funcs[fr->func].flags & (MODEL_FUNC_OMP_RUNTIME | MODEL_FUNC_DYNAMIC | MODEL_FUNC_MPI)))
		return;
	const struct inl_at *at = inlines_at(b, mp->obj, fr->addr);
	if (!at) {
		b->oom = true;  /* the build fails at the end, said */
		return;
	}
	size_t n = at->n;
	if (!n || c->ninl + n > UINT32_MAX)
		return;
	while (c->ninl + n > c->cap_inl)
		if (exp_grow(&c->inl, &c->cap_inl, c->cap_inl, sizeof(*c->inl))) {
			b->oom = true;
			return;
		}
	fr->inl = (uint32_t)c->ninl;
	memcpy(c->inl + c->ninl, b->inl_funcs + at->start, n * sizeof(*c->inl));
	c->ninl += n;
	fr->ninl = (uint32_t)n;
	/* An inlined function's address: the first where it is innermost, so
	 * that its source file is that of its own lines (annotate). */
	struct model_func *inner = &b->m->funcs[c->inl[c->ninl - 1]];
	if (!inner->addr)
		inner->addr = fr->addr;
}

size_t model_epoch_of(const struct proc_ctx *c, uint64_t t)
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

/* A deep stack's frames are mostly its neighbours': a pc is resolved once
 * per epoch.  The mapping found is the same all through the epoch when it
 * is alive then (no map change happens inside an epoch) or when there is
 * none; a pc outside every live mapping (sym_space_find's nearest in time)
 * is resolved each time. */
void model_frame_resolve(struct build *b, struct proc_ctx *c, uint64_t pc, bool retaddr,
			 uint64_t time_ns, struct frame *fr)
{
	uint64_t at = retaddr ? pc - 1 : pc;
	size_t epoch = model_epoch_of(c, time_ns);
	bool keyed = time_ns != UINT64_MAX && pc < (1ull << 47) && epoch < (1u << 15);
	uint64_t key = keyed ? ((uint64_t)epoch << 48 | pc << 1 | retaddr) + 1 : 0;
	uint64_t *v = keyed ? model_map_get(&c->frame_of, key) : NULL;

	if (v) {
		*fr = c->frames[*v - 1];
		return;
	}
	struct sym_mapping *mp = sym_space_find(c->space, at, time_ns);
	resolve(b, mp, pc, retaddr, fr);
	if (b->inline_frames && time_ns != UINT64_MAX && mp && mp->obj)
		inlines(b, c, mp, fr);
	if (!keyed || (mp && (mp->map_ns > time_ns || mp->unmap_ns <= time_ns)) ||
	    exp_grow(&c->frames, &c->cap_frames, c->nframes, sizeof(*c->frames)))
		return;
	c->frames[c->nframes] = *fr;
	if (model_map_put(&c->frame_of, key, c->nframes + 1, NULL))
		c->nframes++;
}

/* Append an entry of process c with frames funcs[0..n) (taken over). */
/* A new entry of process c with a copy of funcs/addrs[0..n) as its frames
 * (in the model's pool); its index, or -1 if out of memory.  The arrays
 * stay the caller's. */
static long entry_add(struct build *b, struct proc_ctx *c, const uint32_t *funcs,
		      const uint64_t *addrs, uint32_t n, uint32_t flags, uint32_t omp)
{
	struct model *m = b->m;

	if (exp_grow(&m->entries, &b->cap_entries, m->nentries, sizeof(*m->entries)))
		return -1;
	struct model_entry *e = &m->entries[m->nentries];
	memset(e, 0, sizeof(*e));
	if (model_entry_set_frames(m, e, funcs, addrs, n))
		return -1;
	e->proc = c->index;
	e->flags = flags;
	e->omp = omp;
	return (long)m->nentries++;
}

/* Room for `need` frames in a stack being made; 0, or -1 if out of memory
 * (the arrays are still the caller's to free). */
static int grow_frames(uint32_t **funcs, uint64_t **addrs, uint32_t *cap, uint32_t need)
{
	uint32_t *f = realloc(*funcs, need * sizeof(*f));
	if (f)
		*funcs = f;
	uint64_t *a = f ? realloc(*addrs, need * sizeof(*a)) : NULL;
	if (!a)
		return -1;
	*addrs = a;
	*cap = need;
	return 0;
}

long model_entry_native(struct build *b, struct proc_ctx *c, const uint64_t *pcs, uint32_t n,
			uint16_t sflags, bool missing, unsigned op, uint64_t time_ns,
			const struct model_options *o)
{
	struct model *m = b->m;
	uint32_t cap = 2 * n + 5;           /* room for imputed calls */
	uint32_t *funcs = malloc(cap * sizeof(*funcs));
	uint64_t *addrs = malloc(cap * sizeof(*addrs));
	uint32_t k = 0, flags = 0, omp = MODEL_OMP_NONE;
	const char *last_path = "";
	bool runtime = false, last_sigreturn = false;

	if (!funcs || !addrs) {
		free(funcs);
		free(addrs);
		return -1;
	}
	if (missing)
		m->unknown_stacks++;
	if (sflags & EXP_STACK_TRUNCATED) {
		funcs[k] = b->truncated;
		addrs[k++] = 0;
	}
	uint32_t first = k;
	for (uint32_t i = n; i-- > 0;) {
		bool retaddr = i > 0 || (sflags & EXP_STACK_LEAF_IS_RETADDR);
		struct frame fr;
		model_frame_resolve(b, c, pcs[i], retaddr, time_ns, &fr);
		if (fr.tally && fr.instrumentation && !o->keep_tally_frames && k > first) {
			/* The instrumented code's call of the -pg runtime: its time,
			 * with all the runtime calls, is the runtime's own, kept out
			 * of the instrumented function's (docs/mcount.md). */
			funcs[k] = model_func_by_name(b, "<instrumentation runtime>", "", MODEL_FUNC_ARTIFICIAL);
			addrs[k++] = 0;
			break;
		}
		if (fr.tally && !o->keep_tally_frames) {
			/* clone3 -> start_thread -> the routine, as in perf.  A
			 * trampoline returning into tally's own signal handler
			 * goes too: the program's handler was stacked on ours
			 * before ours ran (SA_NODEFER, collector/col_sample.c). */
			if (last_sigreturn && k > first)
				k--;
			last_sigreturn = false;
			continue;
		}
		if (MODEL_STRUCTURE_RULES(o) && fr.lazy) {
			/* the resolver and all it calls: @plt of the calling object */
			funcs[k] = model_func_by_name(b, "@plt", last_path, MODEL_FUNC_ARTIFICIAL);
			addrs[k++] = 0;
			break;
		}
		if (MODEL_STRUCTURE_RULES(o) && fr.sigreturn && last_sigreturn && k > first) {
			/* A trampoline entered from a trampoline: the outer one was
			 * interrupted as a handler returned through it (ours, or the
			 * program's), so that handler had finished and the next
			 * signal's handler is the interrupted code's: one
			 * <signal handler>, as if it had come a moment later.  The
			 * machine view keeps both. */
			continue;
		}
		if (MODEL_STRUCTURE_RULES(o) && fr.sigreturn) {
			/* the Sun analyzer's sigacthandler: the interrupted code calls
			 * it, it calls the program's handler */
			fr.func = model_func_by_name(b, "<signal handler>", "", MODEL_FUNC_ARTIFICIAL);
			fr.addr = 0;
		}
		if (fr.plt && i > 0)
			fr.func = model_func_by_name(b, "@plt", fr.path, MODEL_FUNC_ARTIFICIAL);
		else if (fr.plt && i == 0 && k > first)
			continue;           /* a PLT stub's time goes to the call */
		if (fr.mpi)
			flags |= MODEL_ENTRY_IN_MPI;
		runtime |= (m->funcs[fr.func].flags & MODEL_FUNC_OMP_RUNTIME) != 0;
		if (MODEL_STRUCTURE_RULES(o) && fr.tail && k > first && k + 1 < cap &&
		    (m->funcs[funcs[k - 1]].flags & MODEL_FUNC_OMP_RUNTIME)) {
			/* the runtime ran a body that jumped here: its frame back */
			funcs[k] = tail_body(b, fr.tail, funcs, first, k);
			addrs[k++] = 0;
		}
		if (o->hide_object && fr.path && model_filter_object_is(fr.path, o->hide_object)) {
			fr.func = model_filter_hidden(b, fr.path);
			fr.addr = 0;
			fr.ninl = 0;
			if (k > first && funcs[k - 1] == fr.func)
				continue;   /* one frame for a run of them */
		}
		funcs[k] = fr.func;
		addrs[k++] = fr.addr;
		last_path = fr.path ? fr.path : "";
		if (fr.ninl && fr.inl + fr.ninl <= c->ninl) {
			/* the calls inlined there, each a frame at the same address */
			if (k + fr.ninl + 2 * (n + 3) > cap && grow_frames(&funcs, &addrs, &cap, k + fr.ninl + 2 * (n + 3))) {
				free(funcs);
				free(addrs);
				return -1;
			}
			for (uint32_t q = 0; q < fr.ninl; q++) {
				funcs[k] = c->inl[fr.inl + q];
				addrs[k++] = fr.addr;
			}
		}
		last_sigreturn = fr.sigreturn;
	}
	if (MODEL_STRUCTURE_RULES(o)) {
		uint32_t body = first + thread_root_len(b, funcs, first, k);
		if (runtime) {
			omp_functions(b);
			omp = model_struct_omp(b, funcs, addrs, &k, body);
		}
		if (omp == MODEL_OMP_WORKER && body > first) {
			/* A worker is placed under the thread that opened the
			 * region (model_omp.c), not under its own thread's start. */
			memmove(funcs + first, funcs + body, (k - body) * sizeof(*funcs));
			memmove(addrs + first, addrs + body, (k - body) * sizeof(*addrs));
			k -= body - first;
			body = first;
		}
		/* A worker's first body gets its parent when it is placed. */
		k = model_struct_impute(b, funcs, addrs, k, omp == MODEL_OMP_WORKER ? body + 1 : body,
					cap - 1);
	}
	if (k == first && !op && omp != MODEL_OMP_WORKER) {
		funcs[k] = b->unknown;
		addrs[k++] = 0;
	}
	if (op) {
		flags |= MODEL_ENTRY_IN_MPI;
		funcs[k] = model_mpi_func(b, op);
		addrs[k++] = 0;
	}
	long e = entry_add(b, c, funcs, addrs, k, flags, omp);
	free(funcs);
	free(addrs);
	if (e >= 0 && (o->object || o->symbol))
		model_filter_entry(b, &m->entries[e], o);
	return e;
}

static uint64_t entry_hash(const struct model_entry *e)
{
	uint64_t h = model_hash64(e->n + 1);

	for (uint32_t i = 0; i < e->n; i++)
		h = model_hash64(h ^ ((uint64_t)e->funcs[i] << 40 ^ e->addrs[i]));
	return h | 1;
}

static bool same_frames(const struct model_entry *x, const struct model_entry *y)
{
	return x->n == y->n && x->omp == y->omp && x->java == y->java &&
	       !memcmp(x->funcs, y->funcs, x->n * sizeof(*x->funcs)) &&
	       !memcmp(x->addrs, y->addrs, x->n * sizeof(*x->addrs));
}

long model_entry_merge(struct build *b, long e)
{
	struct model *m = b->m;
	struct model_entry *new = &m->entries[e];
	uint64_t key = entry_hash(new);

	for (;;) {
		uint64_t *v = model_map_get(&b->entry_by_content, key);
		if (!v)
			break;
		if (same_frames(&m->entries[*v - 1], new)) {
			model_entry_drop_frames(m, new);
			m->nentries--;
			return (long)*v - 1;
		}
		key = model_hash64(key) | 1;
	}
	new->proc = MODEL_PROC_MERGED;
	return model_map_put(&b->entry_by_content, key, (uint64_t)e + 1, NULL) ? e : -1;
}


static uint64_t frames_hash(const uint32_t *funcs, const uint64_t *addrs, uint32_t n)
{
	struct model_entry e = { .n = n, .funcs = (uint32_t *)funcs, .addrs = (uint64_t *)addrs };

	return entry_hash(&e);
}

static long entry_of(struct build *b, struct proc_ctx *c, const uint32_t *funcs,
		     const uint64_t *addrs, uint32_t n, uint32_t omp, uint32_t java)
{
	struct model *m = b->m;
	uint64_t key = frames_hash(funcs, addrs, n);

	for (;;) {                          /* this process's placed stacks */
		uint64_t *v = model_map_get(&c->entry_by_funcs, key);
		if (!v)
			break;
		const struct model_entry *e = &m->entries[*v - 1];
		if (e->n == n && e->omp == omp && e->java == java &&
		    !memcmp(e->funcs, funcs, n * sizeof(*funcs)) &&
		    !memcmp(e->addrs, addrs, n * sizeof(*addrs)))
			return (long)*v - 1;
		key = model_hash64(key) | 1;
	}
	long e = entry_add(b, c, funcs, addrs, n, 0, omp);
	if (e >= 0)
		m->entries[e].java = java;
	if (e >= 0 && m->merged)
		e = model_entry_merge(b, e);
	if (e >= 0 && !model_map_put(&c->entry_by_funcs, key, (uint64_t)e + 1, NULL))
		return -1;
	return e;
}

long model_entry_of_frames(struct build *b, struct proc_ctx *c, const uint32_t *funcs,
			   const uint64_t *addrs, uint32_t n, uint32_t omp)
{
	return entry_of(b, c, funcs, addrs, n, omp, 0);
}

long model_entry_of_java(struct build *b, struct proc_ctx *c, const uint32_t *funcs,
			 const uint64_t *addrs, uint32_t n, uint32_t java)
{
	return entry_of(b, c, funcs, addrs, n, MODEL_OMP_NONE, java);
}
