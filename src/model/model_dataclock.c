/* SPDX-License-Identifier: MIT
 *
 * model_dataclock.c — data objects from clock samples (`tally record
 * --data`, docs/dataspace.md): each sample's registers (DATA_REGS) give the
 * address its instruction accesses, and its CPU time goes to the data
 * object there (metric cpu), to the accessing function, and for a variable
 * of a structure type to the member (the data layout).  Called once per
 * process by model_build.c, after the clock samples.
 *
 * The instruction is the one at the sampled pc, or the nearest memory
 * instruction before it in its basic block (sym_object_memop: counted in
 * model.data_backtracked).  The address is, in this order:
 *   <Unknown: in a traced call>      a sample taken at the end of a traced
 *                                    call: the registers are tally's;
 *   <Unknown: no code>               the pc's object could not be read;
 *   <Unknown: no memory operand>     nor one before it in its block;
 *   <Unknown: address overwritten>   backtracked, but a register of the
 *                                    address changed since;
 *   <Unknown: vector index>          a gather's (the sample has no vectors);
 *   <Stack: FUNC>                    in the thread's stack (its bounds, or
 *                                    within 128 bytes below %rsp), or a
 *                                    push, pop, call or ret: in FUNC's
 *                                    frame, by the sample's CFAs
 *                                    (DATA_FRAMES); <Stack> without them;
 *   <TLS>                            %fs-relative, or within 64 KiB below
 *                                    the thread pointer (glibc's static TLS);
 *   NAME (object)                    a variable (ELF symbol), with the member
 *                                    from DWARF: `{struct cell}.b`;
 *   <Scalars> (object)               a variable of a scalar type (the Sun
 *                                    analyzer's name for them all);
 *   <Unknown: no symbol> (object)    in an object's segments, no symbol;
 *   <File: PATH>                     in a file the program mapped (mmap),
 *                                    live at the sample's time;
 *   <Heap: FUNC>                     in a block live at the sample's time,
 *                                    FUNC its allocator's caller (with -H);
 *   <Heap: 128K-256K bytes>          the same without -H: by its size class;
 *   <Unknown: anonymous>             anywhere else (in no live block).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/model_build_int.h"

#define REDZONE 128                /* bytes below %rsp a leaf function may use */
#define TLS_BELOW (64u << 10)      /* static TLS lies below the thread pointer */
#define TLS_ABOVE 4096u            /* the thread descriptor above it */

/* A file the program mapped, [lo, hi) from from_ns until to_ns. */
struct file_map {
	uint64_t lo, hi, from_ns, to_ns;
	const char *path;
};

static int cmp_file_time(const void *a, const void *b)
{
	const struct exp_data_file_ev *x = *(const struct exp_data_file_ev *const *)a;
	const struct exp_data_file_ev *y = *(const struct exp_data_file_ev *const *)b;

	return x->time_ns < y->time_ns ? -1 : x->time_ns > y->time_ns;
}

/* The process's mapped files (DATA_FILE records) replayed in time order:
 * an unmap ends every mapping it overlaps (a partial munmap ends the
 * whole mapping: the rest is then anonymous), and so does a new mapping
 * over an old one.  0, or -1 out of memory. */
static int files_of(const struct exp_proc *p, struct file_map **out, size_t *nout)
{
	const struct exp_data_file_ev **ev = malloc((p->ndfiles + 1) * sizeof(*ev));
	struct file_map *v = malloc((p->ndfiles + 1) * sizeof(*v));
	size_t n = 0;

	*out = NULL;
	*nout = 0;
	if (!ev || !v) {
		free(ev);
		free(v);
		return -1;
	}
	for (size_t i = 0; i < p->ndfiles; i++)
		ev[i] = &p->dfiles[i];
	qsort(ev, p->ndfiles, sizeof(*ev), cmp_file_time);
	for (size_t i = 0; i < p->ndfiles; i++) {
		uint64_t lo = ev[i]->addr, hi = ev[i]->addr + ev[i]->len;
		for (size_t j = 0; j < n; j++)
			if (v[j].to_ns == UINT64_MAX && v[j].lo < hi && lo < v[j].hi)
				v[j].to_ns = ev[i]->time_ns;
		if (ev[i]->path)
			v[n++] = (struct file_map){ lo, hi, ev[i]->time_ns, UINT64_MAX, ev[i]->path };
	}
	free(ev);
	*out = v;
	*nout = n;
	return 0;
}

/* A decoded pc (cached per process: samples repeat pcs). */
struct decoded {
	struct sym_memop op;
	uint64_t bias;             /* of the mapping the pc was in */
	const char *object;        /* its basename */
	uint32_t func;             /* model function of the pc */
	bool have;                 /* op is valid (the pc's object was found) */
	const struct sym_object *obj;   /* the pc's object */
	bool typed;                /* pointee looked for (heap members: sym_dtype_pointee_at) */
	uint64_t pointee;          /* the structure type its base register points to, or 0 */
};

struct ctx {
	struct build *b;
	struct proc_ctx *c;
	struct model_map pc_of;    /* pc + 1 -> decoded index + 1 */
	struct decoded *dec;
	size_t ndec, cap_dec;
	struct model_heap_blocks blocks;
	struct model_map frames_of;  /* sample key -> DATA_FRAMES index + 1 */
	struct file_map *files;      /* files mapped, with their lifetimes */
	size_t nfiles;
};

/* The file mapped at ea at time t, or NULL (a linear scan: programs map
 * few files). */
static const struct file_map *file_at(const struct ctx *x, uint64_t ea, uint64_t t)
{
	for (size_t i = 0; i < x->nfiles; i++)
		if (ea >= x->files[i].lo && ea < x->files[i].hi && x->files[i].from_ns <= t && t < x->files[i].to_ns)
			return &x->files[i];
	return NULL;
}

static uint64_t sample_key(uint32_t tid, uint64_t time_ns)
{
	return model_data_sample_key(tid, time_ns);
}

/* The samples' frames with their CFAs (DATA_FRAMES), by sample; 0, or -1
 * out of memory. */
static int frames_index(struct ctx *x)
{
	const struct exp_proc *p = x->c->p;

	for (size_t i = 0; i < p->ndframes; i++)
		if (!model_map_put(&x->frames_of, sample_key(p->dframes[i].tid, p->dframes[i].time_ns), i + 1, NULL))
			return -1;
	return 0;
}

/* `<Stack: FUNC>`: the frame stack address ea lies in, from sample r's
 * frames and their CFAs (frame 0 from the red zone below %rsp up to its
 * CFA, frame i from frame i-1's CFA to its own); false when the sample has
 * none or ea is beyond the last known CFA. */
static bool stack_owner(struct ctx *x, const struct exp_data_regs *r, uint64_t ea, char *name, size_t len)
{
	const struct exp_proc *p = x->c->p;
	const uint64_t *v = model_map_get(&x->frames_of, sample_key(r->tid, r->time_ns));

	if (!v)
		return false;
	const struct exp_data_frames_ev *f = &p->dframes[*v - 1];
	if (f->tid != r->tid || f->time_ns != r->time_ns)
		return false;
	const uint64_t *pair = p->dframe_pairs + 2 * f->at;
	uint64_t lo = r->regs[7] - REDZONE;
	for (uint32_t i = 0; i < f->nframes; i++) {
		uint64_t cfa = pair[2 * i + 1];
		if (!cfa || cfa <= lo || ea < lo)
			return false;
		if (ea < cfa) {
			struct frame fr;
			model_frame_resolve(x->b, x->c, pair[2 * i], i > 0, r->time_ns, &fr);
			snprintf(name, len, "<Stack: %s>", x->b->m->funcs[fr.func].name);
			return true;
		}
		lo = cfa;
	}
	return false;
}

static struct decoded *decode(struct ctx *x, uint64_t pc, uint64_t time_ns)
{
	uint64_t *v = model_map_get(&x->pc_of, pc + 1);
	struct frame fr;

	if (v)
		return &x->dec[*v - 1];
	if (exp_grow(&x->dec, &x->cap_dec, x->ndec, sizeof(*x->dec)))
		return NULL;
	struct decoded *d = &x->dec[x->ndec];
	memset(d, 0, sizeof(*d));
	model_frame_resolve(x->b, x->c, pc, false, time_ns, &fr);
	d->func = fr.func;
	struct sym_mapping *mp = sym_space_find(x->c->space, pc, time_ns);
	if (mp && mp->obj) {
		sym_object_memop(mp->obj, pc - mp->bias, &d->op);
		d->bias = mp->bias;
		d->object = sym_object_name(mp->obj);
		d->obj = mp->obj;
		d->have = true;
	}
	if (!model_map_put(&x->pc_of, pc + 1, ++x->ndec, NULL))
		return NULL;
	return d;
}

/* The effective address of d's operand with the sample's registers; false
 * with the reason in *why when there is none. */
static bool address(const struct decoded *d, const struct exp_data_regs *r, uint64_t *ea, const char **why)
{
	const struct sym_memop *op = &d->op;

	*why = NULL;
	switch (op->status) {
	case SYM_MEMOP_OK: break;
	case SYM_MEMOP_STACK_OP: *ea = r->regs[7]; return true;
	case SYM_MEMOP_NONE: *why = "<Unknown: no memory operand>"; return false;
	case SYM_MEMOP_CLOBBERED: *why = "<Unknown: address overwritten>"; return false;
	case SYM_MEMOP_VECTOR_INDEX: *why = "<Unknown: vector index>"; return false;
	case SYM_MEMOP_NO_CODE:
	case SYM_MEMOP_NOT_DECODED: *why = "<Unknown: no code>"; return false;
	}
	uint64_t a = (uint64_t)op->disp;
	if (op->base == EXP_DREGS_RIP)
		a += op->insn_vaddr + d->bias + op->insn_size;
	else if (op->base >= 0)
		a += r->regs[op->base];
	if (op->index >= 0)
		a += r->regs[op->index] * (op->scale ? op->scale : 1);
	if (op->seg == 'f')
		a += r->fs_base;
	else if (op->seg == 'g') {
		*why = "<Unknown: %gs segment>";
		return false;
	}
	*ea = a;
	return true;
}

/* Name the data object at address ea of sample r: into name, *object,
 * *size; *dm the member (type NULL if none). */
static void classify(struct ctx *x, struct decoded *d, const struct exp_data_regs *r, uint64_t ea,
		     char *name, size_t len, const char **object, uint64_t *size, struct sym_dmember *dm)
{
	const struct exp_proc *p = x->c->p;
	uint64_t sp = r->regs[7];

	*object = "";
	*size = 0;
	memset(dm, 0, sizeof(*dm));
	if (d->op.status == SYM_MEMOP_STACK_OP || (r->stack_lo < r->stack_hi && ea >= r->stack_lo && ea < r->stack_hi) ||
	    (ea < sp && sp - ea <= REDZONE)) {
		if (!stack_owner(x, r, ea, name, len))
			snprintf(name, len, "<Stack>");
		return;
	}
	if (d->op.seg == 'f' || (r->fs_base && ((ea < r->fs_base && r->fs_base - ea <= TLS_BELOW) ||
						(ea >= r->fs_base && ea - r->fs_base < TLS_ABOVE)))) {
		snprintf(name, len, "<TLS>");
		return;
	}
	if (model_data_global(p, ea, name, len, object, size, dm))
		return;
	const struct file_map *fm = file_at(x, ea, r->time_ns);
	if (fm) {
		snprintf(name, len, "<File: %s>", fm->path[0] ? fm->path : "?");
		*size = fm->hi - fm->lo;
		return;
	}
	if (model_heap_block_name(x->b, x->c, &x->blocks, ea, r->time_ns, name, len, size)) {
		/* Its member, when the access's base register holds a pointer
		 * to a structure type (DWARF: a local or parameter there). */
		const struct model_heap_block *k = model_heap_block_at(&x->blocks, ea, r->time_ns);
		if (!d->typed && d->op.base >= 0 && d->op.base != EXP_DREGS_RIP) {
			d->pointee = sym_dtype_pointee_at(d->obj, d->op.insn_vaddr, d->op.base);
			d->typed = true;
		}
		if (k && d->pointee)
			sym_dtype_member_at(d->obj, d->pointee, ea - k->addr, dm);
		return;
	}
	snprintf(name, len, "<Unknown: anonymous>");
}

/* Set up x for process c's samples; 0, or -1 out of memory (x freed). */
static void ctx_close(struct ctx *x);

static int ctx_open(struct ctx *x, struct build *b, struct proc_ctx *c)
{
	const struct exp_proc *p = c->p;

	memset(x, 0, sizeof(*x));
	x->b = b;
	x->c = c;
	if ((p->ndblocks && model_heap_blocks_of(p, false, &x->blocks)) || frames_index(x) ||
	    (p->ndfiles && files_of(p, &x->files, &x->nfiles))) {
		ctx_close(x);
		return -1;
	}
	return 0;
}

static void ctx_close(struct ctx *x)
{
	model_heap_blocks_free(&x->blocks);
	model_map_free(&x->frames_of);
	free(x->files);
	free(x->dec);
	model_map_free(&x->pc_of);
}

/* Name sample r's data object into name (with *object, *size, *dm as
 * classify gives them); *why the reason when it has no address.  Returns
 * its decoded pc, or NULL out of memory. */
static struct decoded *name_sample(struct ctx *x, const struct exp_data_regs *r, char *name, size_t len,
					 const char **object, uint64_t *size, struct sym_dmember *dm,
					 const char **why)
{
	struct decoded *d = decode(x, r->regs[EXP_DREGS_RIP], r->time_ns);
	uint64_t ea = 0;

	*object = "";
	*size = 0;
	*why = NULL;
	memset(dm, 0, sizeof(*dm));
	if (!d)
		return NULL;
	if (r->flags & EXP_DREGS_DEFERRED)
		*why = "<Unknown: in a traced call>";
	else if (!d->have)
		*why = "<Unknown: no code>";
	else if (address(d, r, &ea, why))
		classify(x, d, r, ea, name, len, object, size, dm);
	if (*why)
		snprintf(name, len, "%s", *why);
	return d;
}

/* A clock sample of --data with what name_sample made of its access. */
struct named {
	const struct exp_data_regs *r;
	const struct decoded *d;
	const char *name, *object, *why;
	uint64_t size;
	struct sym_dmember dm;
};

/* fn on each of process c's --data samples the options keep, named:
 * 0, or -1 (out of memory, or fn's). */
static int each_named(struct build *b, struct proc_ctx *c, const struct model_options *o,
		      int (*fn)(struct build *b, struct proc_ctx *c, const struct model_options *o,
				const struct named *s))
{
	const struct exp_proc *p = c->p;
	struct ctx x;
	char name[512];
	int rc = 0;

	if (!p->ndregs)
		return 0;
	if (ctx_open(&x, b, c))
		return -1;
	for (size_t i = 0; i < p->ndregs && !rc; i++) {
		struct named s = { .r = &p->dregs[i], .name = name };
		if (!model_keep(c, o, s.r->tid, s.r->time_ns))
			continue;
		s.d = name_sample(&x, s.r, name, sizeof(name), &s.object, &s.size, &s.dm, &s.why);
		rc = s.d ? fn(b, c, o, &s) : -1;
	}
	ctx_close(&x);
	return rc;
}

/* --data-object: keep the sample when its object or member row is the one. */
static int select_one(struct build *b, struct proc_ctx *c, const struct model_options *o,
		      const struct named *s)
{
	char member[600] = "";

	(void)b;
	if (s->dm.type)      /* a member row's name, as --data-objects shows it */
		snprintf(member, sizeof(member), "{%s}.%s", s->dm.type->name,
			 s->dm.field >= 0 ? s->dm.type->fields[s->dm.field].name : "<padding>");
	if ((!strcmp(s->name, o->data_object) || !strcmp(member, o->data_object)) &&
	    !model_map_put(&c->data_keep, sample_key(s->r->tid, s->r->time_ns), 1, NULL))
		return -1;
	return 0;
}

int model_dataclock_select(struct build *b, struct proc_ctx *c, const struct model_options *o)
{
	c->data_filter = true;
	return each_named(b, c, o, select_one);
}

/* The sample's weight to its object (and member) and accessing function. */
static int add_one(struct build *b, struct proc_ctx *c, const struct model_options *o,
		   const struct named *s)
{
	(void)c;
	(void)o;
	long obj = model_data_object_of(b, s->name, s->object, s->size, MODEL_CPU);
	if (obj < 0 || model_data_access_add(b, obj, s->d->func, s->r->weight_ns) ||
	    (s->dm.type && model_data_member_add(b, obj, &s->dm, s->r->weight_ns)))
		return -1;
	b->m->data_objects[obj].value += s->r->weight_ns;
	b->m->data_objects[obj].samples++;
	b->m->data_samples++;
	b->m->data_backtracked += s->d->have && s->d->op.backtracked && !s->why;
	return 0;
}

int model_build_dataclock(struct build *b, struct proc_ctx *c, const struct model_options *o)
{
	return each_named(b, c, o, add_one);
}
