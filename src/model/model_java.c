/* SPDX-License-Identifier: MIT
 *
 * model_java.c — a JVM's samples in the Sun analyzer's three representations
 * (model_build_int.h lists the neighbours; docs/java.md states the rules).
 *
 * A sample of a Java thread holds two stacks (exp_records.h): its Java
 * frames (method, bytecode index) from AsyncGetCallTrace, then its machine
 * frames.  They are aligned from the leaf: a machine frame in a compiled
 * method's code (JIT_CODE records) carries that method's Java frame and
 * the frames of the methods inlined into it at that point (the Java frames
 * up to the first of that method); a frame in the interpreter carries one
 * Java frame; stubs, the JVM and native code carry none.  Java frames left
 * over (the machine walk broke) go outermost, where they belong.  Then:
 *
 *  user (the Sun analyzer's Java representation, the default): Java methods by
 *    name, their interpreted and compiled versions one function; native
 *    code called from Java (JNI) in its own name; the JVM's frames, and
 *    whatever they call, left out, so the time the JVM spends for a method
 *    is the method's; the frames that start the thread and enter Java left
 *    out (a program's own native code that calls into Java stays).  The
 *    JVM's own threads (GC, compiler) and Java threads outside Java code
 *    are <JVM-System>; a Java thread whose stack the JVM would not walk is
 *    <no Java callstack recorded>.
 *  expert (Expert-Java): as user, but interpreted, compiled and inlined
 *    frames of a method are apart, the JVM's frames under Java code and the
 *    JVM threads' machine stacks are shown.
 *  machine: the machine frames only; the JIT's code by its method and
 *    version ("m(int) [compiled #2]"), the JVM's generated code by its name
 *    ("Interpreter", "vtable stub").
 *
 * Every sample's kind (model_entry.java) is the same in all three views,
 * so the overview counts alike.  Called by model_frames.c once per new
 * (stack, epoch) of a process that ran a JVM.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/model_build_int.h"
#include "model/model_java.h"

/* What a machine frame is. */
enum nclass {
	N_NATIVE,                  /* the program's or a library's native code */
	N_SYSLIB,                  /* libc, ld.so: native, but not the program's */
	N_JDK,                     /* the JDK's launcher and libraries (outside Java) */
	N_JVM,                     /* libjvm.so */
	N_COMPILED,                /* a JIT-compiled method's code */
	N_INTERP,                  /* the interpreter */
	N_STUB,                    /* other code the JVM generated */
	N_UNKNOWN,                 /* no mapping, no generated code */
};

/* Java frame variants: the function a Java frame is in each view. */
enum { V_USER, V_INTERP, V_COMPILED, V_INLINED, V_UNPLACED };

struct nframe {
	uint32_t func;             /* the machine view's function */
	uint64_t addr;
	uint8_t cls;               /* enum nclass */
	uint64_t method;           /* N_COMPILED: the method ... */
	uint32_t line;             /* ... and its source line there (0: not known) */
	const struct exp_jit_ev *jit;   /* N_COMPILED: its code, ... */
	uint64_t off;                   /* ... and the pc's offset in it */
};

struct jframe {
	uint64_t method;
	uint32_t line;             /* 0: unknown */
	uint8_t how;               /* V_INTERP, V_COMPILED, V_INLINED, V_UNPLACED */
	int32_t at;                /* the machine frame carrying it, -1 none */
};

static const char *base_of(const char *path)
{
	const char *s = strrchr(path, '/');
	return s ? s + 1 : path;
}

static bool is_syslib(const char *base)
{
	return !strncmp(base, "libc.so", 7) || !strncmp(base, "ld-linux", 8) ||
	       !strncmp(base, "libpthread", 10) || !strncmp(base, "libdl.so", 8);
}

/* ---- the process: its generated code over time ---------------------------- */

int model_java_proc(struct build *b, struct proc_ctx *c)
{
	const struct exp_proc *p = c->p;

	(void)b;
	/* Without the agent's records (not built, -j off) the JVM is native code. */
	c->jvm = p->njit > 0 || p->njmethods > 0;
	if (!c->jvm)
		return 0;
	for (size_t i = 0; i < p->nmaps && !c->jdk_home; i++)
		if (!p->maps[i].unmap && !strcmp(base_of(p->maps[i].path), "libjvm.so")) {
			const char *path = p->maps[i].path;
			const char *lib = strstr(path, "/lib/");
			c->jdk_home_len = lib ? (size_t)(lib - path) : 0;
			c->jdk_home = path;
		}
	c->code = sym_space_new();
	c->jit_version = calloc(p->njit + 1, sizeof(*c->jit_version));
	uint64_t *epochs = realloc(c->epochs, (c->nepochs + p->njit + 1) * sizeof(*epochs));
	if (!c->code || !c->jit_version || !epochs)
		return -1;
	c->epochs = epochs;
	struct model_map versions = { 0 };
	for (size_t i = 0; i < p->njit; i++) {
		const struct exp_jit_ev *e = &p->jit[i];
		/* New code at a start still in use replaces it. */
		sym_space_unmap(c->code, e->time_ns, e->start);
		if (e->unload) {
			c->epochs[c->nepochs++] = e->time_ns;   /* pcs there may mean anew */
			continue;
		}
		sym_space_map_code(c->code, e->time_ns, e->start, e->start + e->size, e->name, i);
		if (e->kind == EXP_JIT_JAVA) {
			uint64_t *v = model_map_put(&versions, e->method, 0, NULL);
			if (!v) {
				model_map_free(&versions);
				return -1;
			}
			c->jit_version[i] = (uint32_t)++*v;
		}
	}
	model_map_free(&versions);
	return 0;
}

void model_java_free(struct proc_ctx *c)
{
	sym_space_free(c->code);
	free(c->jit_version);
	model_map_free(&c->jfunc);
	c->code = NULL;
	c->jit_version = NULL;
}

/* ---- functions ------------------------------------------------------------- */

/* The function of Java method `method` in variant v (V_*), made once. */
static uint32_t method_func(struct build *b, struct proc_ctx *c, uint64_t method, int v)
{
	static const char *const suffix[] = { "", " [interpreted]", " [compiled]", " [inlined]", "" };
	uint64_t key = method << 3 | (uint64_t)v;
	bool fresh;
	uint64_t *slot = model_map_put(&c->jfunc, key, 0, &fresh);

	if (!slot) {
		b->oom = true;
		return 0;
	}
	if (!fresh)
		return (uint32_t)*slot;
	const struct exp_java_method_ev *ev = exp_java_method_find(c->p, method);
	char name[2048], path[1024] = "";
	size_t n;
	if (ev && !(ev->flags & EXP_JAVA_METHOD_UNNAMED)) {
		n = model_java_name(ev->klass, ev->name, ev->sig, name, sizeof(name) - 24);
		model_java_source_path(ev->klass, ev->src, path, sizeof(path));
	} else {
		n = (size_t)snprintf(name, sizeof(name) - 24, "<Java method 0x%" PRIx64 ">", method);
	}
	snprintf(name + n, sizeof(name) - n, "%s", suffix[v]);
	uint32_t f = model_func_by_name(b, name, "", MODEL_FUNC_JAVA);
	struct model_func *mf = &b->m->funcs[f];
	if (f && !mf->link && path[0]) {
		mf->link = strdup(path);      /* where annotate looks for its source */
		if (!mf->link)
			b->oom = true;
	}
	if (f && !ev && !(mf->flags & MODEL_FUNC_ARTIFICIAL)) {
		mf->flags |= MODEL_FUNC_ARTIFICIAL;   /* counted once */
		b->m->java.unnamed++;
	}
	slot = model_map_get(&c->jfunc, key);
	*slot = f;
	return f;
}

/* The line of bytecode index `bci` in method `method` (0: unknown). */
static uint32_t line_of(const struct proc_ctx *c, uint64_t method, int64_t bci)
{
	const struct exp_java_method_ev *ev = exp_java_method_find(c->p, method);
	uint32_t line = 0;

	for (uint32_t i = 0; ev && bci >= 0 && i < ev->nlines && ev->lines[2 * i] <= (uint64_t)bci; i++)
		line = ev->lines[2 * i + 1];
	return line;
}

/* The machine view's function of generated code `d` (index in p->jit). */
static uint32_t code_func(struct build *b, struct proc_ctx *c, size_t d)
{
	const struct exp_jit_ev *e = &c->p->jit[d];
	char name[2100];

	if (e->kind != EXP_JIT_JAVA)
		return model_func_by_name(b, e->name[0] ? e->name : "<JVM stub>", "",
					  MODEL_FUNC_DYNAMIC | MODEL_FUNC_ARTIFICIAL);
	const struct exp_java_method_ev *ev = exp_java_method_find(c->p, e->method);
	size_t n = ev && !(ev->flags & EXP_JAVA_METHOD_UNNAMED)
			   ? model_java_name(ev->klass, ev->name, ev->sig, name, 2048)
			   : (size_t)snprintf(name, 2048, "<Java method 0x%" PRIx64 ">", e->method);
	snprintf(name + n, sizeof(name) - n, " [compiled #%u]", c->jit_version[d]);
	return model_func_by_name(b, name, "", MODEL_FUNC_DYNAMIC | MODEL_FUNC_JAVA);
}

/* Resolve machine frame `pc` (a return address unless the leaf). */
static void resolve(struct build *b, struct proc_ctx *c, uint64_t pc, bool retaddr, uint64_t t,
		    struct nframe *nf, struct frame *fr)
{
	model_frame_resolve(b, c, pc, retaddr, t, fr);
	nf->func = fr->func;
	nf->addr = fr->addr;
	nf->method = 0;
	nf->line = 0;
	if (fr->path) {
		const char *base = base_of(fr->path);
		nf->cls = !strcmp(base, "libjvm.so") ? N_JVM
			  : c->jdk_home_len && !strncmp(fr->path, c->jdk_home, c->jdk_home_len) &&
					  fr->path[c->jdk_home_len] == '/' ? N_JDK
			  : is_syslib(base) ? N_SYSLIB : N_NATIVE;
		/* The JDK's native methods are native code called from Java. */
		if (nf->cls == N_JDK && strcmp(base, "libjli.so") && strstr(fr->path, "/lib/"))
			nf->cls = N_NATIVE;
		return;
	}
	struct sym_mapping *m = c->code ? sym_space_find(c->code, retaddr ? pc - 1 : pc, t) : NULL;
	nf->cls = N_UNKNOWN;
	if (!m)
		return;
	const struct exp_jit_ev *e = &c->p->jit[m->tag];
	nf->func = code_func(b, c, m->tag);
	nf->addr = 0;
	if (e->kind == EXP_JIT_JAVA) {
		nf->cls = N_COMPILED;
		nf->method = e->method;
		/* the line of the instruction in the record's line table: the
		 * compiled method's own line, what was inlined there aside
		 * (jv_agent.c).  A call's: HotSpot describes a call at its
		 * return address (its PcDesc's pc), hence pc, not pc - 1. */
		uint64_t off = pc - e->start;
		for (uint32_t i = 0; i < e->nlines && e->lines[2 * i] <= off; i++)
			nf->line = e->lines[2 * i + 1];
		nf->jit = e;
		nf->off = off;
	} else {
		nf->cls = !strcmp(e->name, "Interpreter") ? N_INTERP : N_STUB;
	}
}

/* ---- aligning the two stacks ------------------------------------------------ */

/* Place Java frames j[0..nj) on machine frames nf[0..nn) (both leaf first). */
static void align(const struct nframe *nf, uint32_t nn, struct jframe *j, uint32_t nj)
{
	uint32_t k = 0;

	for (uint32_t i = 0; i < nn && k < nj; i++) {
		if (nf[i].cls == N_INTERP) {
			j[k].how = V_INTERP;
			j[k++].at = (int32_t)i;
		} else if (nf[i].cls == N_COMPILED) {
			uint32_t x = k;
			while (x < nj && j[x].method != nf[i].method)
				x++;
			if (x == nj)
				continue;          /* not this stack's: a stub-like frame */
			for (; k < x; k++) {
				j[k].how = V_INLINED;
				j[k].at = (int32_t)i;
			}
			j[k].how = V_COMPILED;
			j[k++].at = (int32_t)i;
		}
	}
}

/* A Java thread's sample without its Java stack (AsyncGetCallTrace gave
 * up: most often in the JVM's runtime called from compiled code, an
 * allocation's slow path, as async-profiler also finds) still has its
 * machine frames, and a compiled method's code is that method (what was
 * inlined into it at that point is not known: the time is the outer
 * method's, at the line the JIT_CODE record's table gives its
 * instruction).  An interpreter frame's method is the collector's, read
 * from the frame (interp[0..ninterp), Java frames after the sample's
 * marker, leaf first: the first interpreter frames in order).  Its Java
 * frames are recovered from the leaf up to the first interpreted frame
 * without one, or unknown frame: there the stack is cut (*cut), as it is when the walk ends before the JVM or native code
 * that entered Java.  Stubs, and the JVM's and native frames nearer the
 * leaf, are skipped.  Returns how many, placed (j, leaf first). */
static uint32_t recover(const struct proc_ctx *c, const struct nframe *nf, uint32_t nn, struct jframe *j,
			uint32_t cap, bool *cut, const uint64_t *interp, uint32_t ninterp)
{
	uint32_t k = 0, x = 0;

	*cut = true;          /* unless the walk shows where Java was entered */
	for (uint32_t i = 0; i < nn && k < cap; i++) {
		uint8_t cls = nf[i].cls;
		if (cls == N_INTERP && x < ninterp) {
			uint64_t method = EXP_JAVA_METHOD_OF(interp[x]);
			unsigned field = EXP_JAVA_FIELD_OF(interp[x++]);
			uint32_t line = field >= EXP_JAVA_BCI_BIAS ? line_of(c, method, field - EXP_JAVA_BCI_BIAS) : 0;
			j[k++] = (struct jframe){ method, line, V_INTERP, (int32_t)i };
			continue;
		}
		if (cls == N_INTERP || cls == N_UNKNOWN)
			break;
		if (cls == N_COMPILED) {
			/* What the JIT inlined there (JIT_INLINE records), innermost
			 * first, each a frame of its own; the last, the method
			 * itself, gives its line at the place. */
			const struct exp_jit_inline_frame *in = NULL;
			uint32_t ni = nf[i].jit ? exp_jit_inline_at(nf[i].jit, nf[i].off, &in) : 0;
			uint32_t line = nf[i].line;
			if (ni >= 2 && in[ni - 1].method == nf[i].method && k + ni <= cap) {
				for (uint32_t f = 0; f + 1 < ni; f++)
					j[k++] = (struct jframe){ in[f].method, in[f].line, V_INLINED, (int32_t)i };
				line = in[ni - 1].line ? in[ni - 1].line : line;
			}
			j[k++] = (struct jframe){ nf[i].method, line, V_COMPILED, (int32_t)i };
		} else if (k && cls != N_STUB) {
			*cut = false;         /* entered from the JVM (call_stub) or native code */
			break;
		}
	}
	return k;
}

/* ---- the views ------------------------------------------------------------- */

/* The entry's frames, root first. */
struct out {
	uint32_t *funcs;
	uint64_t *addrs;
	uint32_t n, cap;
};

static void push(struct out *o, uint32_t f, uint64_t a)
{
	if (o->n < o->cap) {
		o->funcs[o->n] = f;
		o->addrs[o->n++] = a;
	}
}

/* Is machine frame class `cls` native code a user sees when Java calls it
 * (JNI), or what that code calls? */
static bool user_native(uint8_t cls)
{
	return cls == N_NATIVE || cls == N_SYSLIB;
}

/* The user or expert view of a Java stack: Java frames in their places,
 * native frames as the view keeps them.  Walked from the root: the machine
 * frames outside the outermost machine frame that carries a Java frame
 * start the thread and enter Java (only the program's own native code among
 * them stays); then the Java frames the machine walk did not place (an
 * unwind that broke, or skipped a frame at a method's entry); inside, once
 * a JVM frame appears, what it calls is the JVM's work (hidden in the user
 * view) until the next Java frame.  When no Java frame was placed, all the
 * machine frames are under the Java ones (native code called from Java). */
static void merged(struct build *b, struct proc_ctx *c, const struct nframe *nf, uint32_t nn,
		   const struct jframe *j, uint32_t nj, bool expert, struct out *o)
{
	int32_t outer = -1;
	for (uint32_t k = 0; k < nj; k++)
		if (j[k].at > outer)
			outer = j[k].at;
	int32_t i = (int32_t)nn - 1;
	for (; outer >= 0 && i > outer; i--)
		if (nf[i].cls == N_NATIVE)
			push(o, nf[i].func, nf[i].addr);
	bool hidden = false;
	int32_t jk = (int32_t)nj - 1;      /* the next Java frame, from the root */
	for (; jk >= 0 && j[jk].at < 0; jk--)
		push(o, method_func(b, c, j[jk].method, expert ? V_UNPLACED : V_USER), j[jk].line);
	for (; i >= 0; i--) {
		bool carries = false;
		for (; jk >= 0 && j[jk].at == i; jk--) {
			carries = true;
			hidden = false;
			push(o, method_func(b, c, j[jk].method, expert ? j[jk].how : V_USER), j[jk].line);
		}
		if (carries)
			continue;
		uint8_t cls = nf[i].cls;
		if (expert ? cls != N_COMPILED && cls != N_INTERP : !hidden && user_native(cls))
			push(o, nf[i].func, nf[i].addr);
		if (!user_native(cls))
			hidden = true;
	}
}

#define RECOVERED_INLINED_MAX 256   /* inlined frames a recovered stack may gain */

long model_java_entry(struct build *b, struct proc_ctx *c, const uint64_t *pcs, uint32_t n,
		      uint32_t nj, uint16_t sflags, uint64_t time_ns, const struct model_options *o)
{
	uint32_t nn = n - nj;
	struct nframe *nf = malloc((nn + 1) * sizeof(*nf));
	/* nj, or those recovered with the frames inlined into them */
	uint32_t jcap = n + 1 + RECOVERED_INLINED_MAX;
	struct jframe *jf = malloc(jcap * sizeof(*jf));
	uint32_t cap = nn + jcap + 4;         /* machine and Java frames, merged, and marks */
	struct out out = { malloc(cap * sizeof(uint32_t)), malloc(cap * sizeof(uint64_t)), 0, cap };
	long e = -1;

	if (!nf || !jf || !out.funcs || !out.addrs)
		goto done;
	/* Machine frames, leaf first; the collector's own dropped
	 * (model_frames.c's rule). */
	uint32_t k = 0;
	bool jvm_code = false;
	for (uint32_t i = 0; i < nn; i++) {
		struct frame fr;
		resolve(b, c, pcs[nj + i], i > 0 || (sflags & EXP_STACK_LEAF_IS_RETADDR), time_ns, &nf[k], &fr);
		if (fr.tally && !o->keep_tally_frames)
			continue;      /* clone3 -> start_thread -> the routine, as native stacks */
		jvm_code |= nf[k].cls >= N_JVM;
		k++;
	}
	nn = k;
	uint32_t kind = MODEL_JAVA_STACK, why = 0, ninterp = 0;
	if (nj >= 1 && !EXP_JAVA_METHOD_OF(pcs[0])) {      /* a marker ... */
		why = EXP_JAVA_FIELD_OF(pcs[0]);
		kind = why ? MODEL_JAVA_NO_STACK : MODEL_JAVA_SYSTEM;
		ninterp = why ? nj - 1 : 0;                 /* ... and interpreted frames */
		nj = 0;
	} else if (nj == 0) {
		kind = MODEL_JAVA_SYSTEM;
		if (!jvm_code) {       /* plain native code: not the JVM's */
			e = -2;
			goto done;
		}
	}
	for (uint32_t i = 0; i < nj; i++) {
		unsigned field = EXP_JAVA_FIELD_OF(pcs[i]);
		jf[i].method = EXP_JAVA_METHOD_OF(pcs[i]);
		jf[i].line = field >= EXP_JAVA_BCI_BIAS ? line_of(c, jf[i].method, field - EXP_JAVA_BCI_BIAS) : 0;
		jf[i].how = V_UNPLACED;
		jf[i].at = -1;
	}
	align(nf, nn, jf, nj);
	bool cut = false;
	if (kind == MODEL_JAVA_NO_STACK && (nj = recover(c, nf, nn, jf, jcap, &cut, pcs + 1, ninterp)) > 0)
		kind = MODEL_JAVA_RECOVERED;
	cut &= kind == MODEL_JAVA_RECOVERED && o->view != MODEL_VIEW_MACHINE;   /* machine: as recorded */

	if ((sflags & EXP_STACK_TRUNCATED) || cut)
		push(&out, b->truncated, 0);
	if (o->view == MODEL_VIEW_MACHINE || (o->view == MODEL_VIEW_EXPERT && kind == MODEL_JAVA_SYSTEM)) {
		for (uint32_t i = nn; i-- > 0;)
			push(&out, nf[i].func, nf[i].addr);
	} else if (kind == MODEL_JAVA_SYSTEM) {
		push(&out, model_func_by_name(b, "<JVM-System>", "", MODEL_FUNC_ARTIFICIAL), 0);
	} else if (kind == MODEL_JAVA_NO_STACK) {
		push(&out, model_func_by_name(b, "<no Java callstack recorded>", "", MODEL_FUNC_ARTIFICIAL), 0);
		for (uint32_t i = nn; o->view == MODEL_VIEW_EXPERT && i-- > 0;)
			push(&out, nf[i].func, nf[i].addr);
	} else {
		/* Cut: nothing of the machine frames outside the last one recovered. */
		uint32_t upto = kind == MODEL_JAVA_RECOVERED && cut ? (uint32_t)jf[nj - 1].at + 1 : nn;
		merged(b, c, nf, upto, jf, nj, o->view == MODEL_VIEW_EXPERT, &out);
	}
	if (out.n == (uint32_t)((sflags & EXP_STACK_TRUNCATED) || cut))
		push(&out, b->unknown, 0);
	e = model_entry_of_java(b, c, out.funcs, out.addrs, out.n, kind + why);
	if (e >= 0 && (o->object || o->symbol))
		model_filter_entry(b, &b->m->entries[e], o);
done:
	free(nf);
	free(jf);
	free(out.funcs);
	free(out.addrs);
	return e;
}
