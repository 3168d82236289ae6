/* SPDX-License-Identifier: MIT
 *
 * test_java.c — Java in the analyzer without a JVM: names as Java
 * programmers write them; the checks of code.dat's records and thread
 * names; and the three views of hand-made samples of a JVM (model_java.c):
 * Java frames placed on the machine frames that carry them (compiled with
 * inlining, interpreted), frames the machine walk did not reach, markers
 * (<no Java callstack recorded>, <JVM-System>), the JVM's own threads, and
 * the counts of the overview.
 */
#include <stdlib.h>
#include <string.h>

#include "format/exp_data.h"
#include "format/exp_read_code.h"
#include "model/model.h"
#include "model/model_java.h"
#include "testhelp.h"

static void names_as_written(void)
{
	char b[256];

	model_java_name("Lpkg/Outer$Inner;", "run", "(I[Ljava/lang/String;)V", b, sizeof(b));
	CHECKF(!strcmp(b, "pkg.Outer$Inner.run(int, java.lang.String[])"), "%s", b);
	model_java_name("LA;", "m", "(BCDFIJSZ[[J)J", b, sizeof(b));
	CHECKF(!strcmp(b, "A.m(byte, char, double, float, int, long, short, boolean, long[][])"), "%s", b);
	model_java_name("LHot$$Lambda$14.0x0000000800c01000;", "call", "()Ljava/lang/Object;", b, sizeof(b));
	CHECKF(!strcmp(b, "Hot$$Lambda$14.call()"), "%s", b);
	model_java_name("LA;", "<init>", "()V", b, sizeof(b));
	CHECKF(!strcmp(b, "A.<init>()"), "%s", b);
	/* Malformed descriptors: kept as they are from where they go wrong. */
	model_java_name("LA;", "m", "(Q)V", b, sizeof(b));
	CHECKF(!strcmp(b, "A.m(Q)V)"), "%s", b);
	model_java_name("LA;", "m", "(Ljava/lang", b, sizeof(b));
	CHECKF(!strcmp(b, "A.m(Ljava/lang)"), "%s", b);
	model_java_name("LA;", "m", "x", b, sizeof(b));
	CHECKF(!strcmp(b, "A.mx"), "%s", b);
	/* Cut to the buffer, always terminated. */
	CHECK(model_java_name("Lpkg/Outer;", "run", "()V", b, 8) == 7 && !strcmp(b, "pkg.Out"));
	model_java_source_path("Lpkg/sub/Outer$Inner;", "Outer.java", b, sizeof(b));
	CHECKF(!strcmp(b, "pkg/sub/Outer.java"), "%s", b);
	model_java_source_path("LTop;", "Top.java", b, sizeof(b));
	CHECKF(!strcmp(b, "Top.java"), "%s", b);
	CHECK(model_java_source_path("LTop;", "", b, sizeof(b)) == 0 && !b[0]);
}

/* A JAVA_METHOD record of method `id` with these strings and lines. */
static size_t method_rec(uint8_t *buf, uint64_t id, const char *cls, const char *name,
			 const char *sig, const char *src, const uint32_t *lines, uint32_t n)
{
	struct exp_java_method r = { 0 };
	size_t at = sizeof(r);
	const char *s[] = { cls, name, sig, src };
	uint16_t *lens[] = { &r.class_len, &r.name_len, &r.sig_len, &r.src_len };

	r.method = id;
	r.nlines = n;
	if (n)
		memcpy(buf + at, lines, 8u * n);
	at += 8u * n;
	for (int i = 0; i < 4; i++) {
		*lens[i] = (uint16_t)(strlen(s[i]) + 1);
		memcpy(buf + at, s[i], *lens[i]);
		at += *lens[i];
	}
	while (at % 8)
		buf[at++] = 0;
	r.word = EXP_REC_WORD(EXP_REC_JAVA_METHOD, at);
	memcpy(buf, &r, sizeof(r));
	return at;
}

static void records_checked(void)
{
	struct exp_proc p;
	uint8_t buf[512];
	char cause[256];
	size_t cap = 0, dcap = 0;
	uint32_t lines[] = { 0, 10, 4, 11 };

	memset(&p, 0, sizeof(p));
	size_t len = method_rec(buf, 0x100, "LA;", "m", "()V", "A.java", lines, 2);
	CHECK(exp_take_java_method(&p, &cap, buf, (uint32_t)len, cause, sizeof(cause)) == 0);
	CHECK(p.njmethods == 1 && !strcmp(p.jmethods[0].klass, "LA;") && p.jmethods[0].nlines == 2 &&
	      p.jmethods[0].lines[3] == 11);
	/* A name's length past its NUL, a length beyond the record, method 0. */
	struct exp_java_method r;
	memcpy(&r, buf, sizeof(r));
	r.name_len++;
	r.sig_len--;
	memcpy(buf, &r, sizeof(r));
	CHECK(exp_take_java_method(&p, &cap, buf, (uint32_t)len, cause, sizeof(cause)) == 1);
	r.sig_len = 200;
	memcpy(buf, &r, sizeof(r));
	CHECK(exp_take_java_method(&p, &cap, buf, (uint32_t)len, cause, sizeof(cause)) == 1);
	len = method_rec(buf, 0, "LA;", "m", "()V", "", NULL, 0);
	CHECK(exp_take_java_method(&p, &cap, buf, (uint32_t)len, cause, sizeof(cause)) == 1);
	CHECK(p.njmethods == 1);

	struct {
		struct exp_jit_code r;
		char name[16];
	} d = { { 0 }, "Interpreter" };
	d.r.kind = EXP_JIT_JVM_STUB;
	d.r.name_len = 12;
	d.r.start = 0x1000;
	d.r.size = 0x100;
	CHECK(exp_take_jit_code(&p, &dcap, &d, sizeof(d), cause, sizeof(cause)) == 0);
	d.r.kind = EXP_JIT_JAVA;           /* a Java method's code names its method */
	CHECK(exp_take_jit_code(&p, &dcap, &d, sizeof(d), cause, sizeof(cause)) == 1);
	d.r.kind = EXP_JIT_JVM_STUB;
	d.r.size = 0;
	CHECK(exp_take_jit_code(&p, &dcap, &d, sizeof(d), cause, sizeof(cause)) == 1);
	d.r.size = 0x100;
	d.r.name_len = 40;                 /* past the record */
	CHECK(exp_take_jit_code(&p, &dcap, &d, sizeof(d), cause, sizeof(cause)) == 1);
	CHECK(p.njit == 1 && !strcmp(p.jit[0].name, "Interpreter"));
	exp_code_free(&p);

	/* Thread names: a Java name beats a native one; the first Java name and
	 * the latest native one win. */
	struct exp_thread_ev t;
	struct {
		struct exp_thread_name r;
		char name[24];
	} n = { { 0 }, "" };
	memset(&t, 0, sizeof(t));
	strcpy(n.name, "C2 CompilerThre");
	n.r.time_ns = 10;
	CHECK(exp_take_thread_name(&t, &n, sizeof(n), cause, sizeof(cause)) == 0 && !strcmp(t.name, n.name));
	strcpy(n.name, "main");
	n.r.flags = EXP_THREAD_NAME_JAVA;
	n.r.time_ns = 20;
	CHECK(exp_take_thread_name(&t, &n, sizeof(n), cause, sizeof(cause)) == 0 && !strcmp(t.name, "main"));
	strcpy(n.name, "DestroyJavaVM");
	n.r.time_ns = 30;
	CHECK(exp_take_thread_name(&t, &n, sizeof(n), cause, sizeof(cause)) == 0 && !strcmp(t.name, "main"));
	strcpy(n.name, "native");
	n.r.flags = 0;
	n.r.time_ns = 40;
	CHECK(exp_take_thread_name(&t, &n, sizeof(n), cause, sizeof(cause)) == 0 && !strcmp(t.name, "main"));
	memset(n.name, 'x', sizeof(n.name));  /* no NUL */
	CHECK(exp_take_thread_name(&t, &n, sizeof(n), cause, sizeof(cause)) == 1);
}

/* A JIT_INLINE record of code 0x1000 in buf: entries at offs[0..n), each
 * of two frames (method 0x10 + k inlined into 0x100); returns its length. */
static size_t inline_rec(uint8_t *buf, const uint32_t *offs, uint32_t n)
{
	struct exp_jit_inline r = { 0, n, 0x1000 };
	size_t at = sizeof(r);

	memcpy(buf, &r, sizeof(r));
	for (uint32_t k = 0; k < n; k++) {
		struct exp_jit_inline_pc pc = { offs[k], 2 };
		struct exp_jit_inline_frame f[2] = { { 0x10 + k, 7, 0 }, { 0x100, 12, 0 } };
		memcpy(buf + at, &pc, sizeof(pc));
		memcpy(buf + at + sizeof(pc), f, sizeof(f));
		at += sizeof(pc) + sizeof(f);
	}
	return at;
}

/* JIT_INLINE: a place's frames are those of the first entry at or after
 * the offset, whatever the order of one code's records; a record whose
 * count of entries exceeds its length is refused (before: taken, as far as
 * its bytes went). */
static void inline_records_checked(void)
{
	struct exp_proc p;
	uint8_t buf[512];
	char cause[256];
	size_t dcap = 0;
	const struct exp_jit_inline_frame *in = NULL;
	struct {
		struct exp_jit_code r;
		char name[8];
	} d = { { 0 }, "m" };

	memset(&p, 0, sizeof(p));
	d.r.kind = EXP_JIT_JAVA;
	d.r.name_len = 2;
	d.r.start = 0x1000;
	d.r.size = 0x100;
	d.r.method = 0x100;
	CHECK(exp_take_jit_code(&p, &dcap, &d, sizeof(d), cause, sizeof(cause)) == 0);
	size_t len = inline_rec(buf, (uint32_t[]){ 0x40, 0x80 }, 2);
	CHECK(exp_take_jit_inline(&p, buf, (uint32_t)len, cause, sizeof(cause)) == 0);
	len = inline_rec(buf, (uint32_t[]){ 0x10, 0x60 }, 2);      /* a later record, lower offsets */
	CHECK(exp_take_jit_inline(&p, buf, (uint32_t)len, cause, sizeof(cause)) == 0);
	CHECK(p.jit[0].ninline == 4);
	exp_jit_inlines_sort(&p);
	CHECK(exp_jit_inline_at(&p.jit[0], 0x10, &in) == 2 && in[0].method == 0x10 && in[1].method == 0x100);
	CHECK(exp_jit_inline_at(&p.jit[0], 0x11, &in) == 2 && in[0].method == 0x10 && in[0].line == 7);
	CHECK(exp_jit_inline_at(&p.jit[0], 0x41, &in) == 2 && in[0].method == 0x11);  /* 0x60's */
	CHECK(exp_jit_inline_at(&p.jit[0], 0x30, &in) == 2 && in[0].method == 0x10);  /* 0x40's */
	CHECK(exp_jit_inline_at(&p.jit[0], 0x81, &in) == 0);
	/* Three entries said, two written: refused, naming the count. */
	len = inline_rec(buf, (uint32_t[]){ 0x20, 0x30 }, 2);
	struct exp_jit_inline r;
	memcpy(&r, buf, sizeof(r));
	r.npcs = 3;
	memcpy(buf, &r, sizeof(r));
	CHECK(exp_take_jit_inline(&p, buf, (uint32_t)len, cause, sizeof(cause)) == 1);
	CHECKF(strstr(cause, "3 entries") != NULL, "%s", cause);
	CHECK(p.jit[0].ninline == 4);
	exp_code_free(&p);
}

/* ---- a JVM's samples, by hand -------------------------------------------- */

enum { M_A = 0x100, M_B = 0x200, M_MAIN = 0x300 };
#define INTERP 0x10000
#define CODE_A 0x20000
#define CALL_STUB 0x30000
#define NOWHERE 0x90000

static uint64_t jf(uint64_t method, unsigned bci)
{
	return EXP_JAVA_FRAME | (uint64_t)(bci + EXP_JAVA_BCI_BIAS) << EXP_JAVA_BCI_SHIFT | method;
}

static uint64_t marker(unsigned why)
{
	return EXP_JAVA_FRAME | (uint64_t)why << EXP_JAVA_BCI_SHIFT;
}

static struct exp_experiment x;
static struct exp_proc *jp;

static void add_method(uint64_t id, const char *name, const char *sig, uint32_t line)
{
	struct exp_java_method_ev *e = &jp->jmethods[jp->njmethods++];
	memset(e, 0, sizeof(*e));
	e->method = id;
	e->klass = strdup("LApp;");
	e->name = strdup(name);
	e->sig = strdup(sig);
	e->src = strdup("App.java");
	e->nlines = 2;
	e->lines = malloc(16);
	uint32_t l[] = { 0, line, 8, line + 1 };
	memcpy(e->lines, l, 16);
}

static void add_code(uint16_t kind, uint64_t start, uint64_t method, const char *name)
{
	struct exp_jit_ev *e = &jp->jit[jp->njit];
	memset(e, 0, sizeof(*e));
	e->kind = kind;
	e->order = (uint32_t)jp->njit++;
	e->time_ns = 1;
	e->start = start;
	e->size = 0x1000;
	e->method = method;
	e->name = strdup(name);
	e->lines = malloc(8);
}

/* A sample of `tid` with stack pcs[0..n) (leaf first), weight w. */
static void add_sample(uint32_t tid, const uint64_t *pcs, uint16_t n, uint16_t flags, uint64_t w)
{
	static uint64_t pool[256];
	static size_t used;
	uint32_t id = (uint32_t)jp->nsamples + 1;

	memcpy(pool + used, pcs, 8u * n);
	jp->stacks[id] = (struct exp_stack_ref){ .pcs = pool + used, .n = n, .flags = flags, .depth = n };
	used += n;
	jp->samples[jp->nsamples++] = (struct exp_sample){ .tid = tid, .time_ns = 100, .stack_id = id,
							   .weight_ns = w };
}

static void jvm_setup(void)
{
	memset(&x, 0, sizeof(x));
	x.path = strdup("jvm.exp");
	x.rank = -1;
	x.nprocs = 1;
	x.procs = jp = calloc(1, sizeof(*jp));
	jp->dir = strdup("jvm.exp");
	jp->lineage = strdup("");
	jp->exe = strdup("/usr/bin/java");
	jp->name = strdup("java");
	jp->pid = 7;
	jp->jmethods = calloc(4, sizeof(*jp->jmethods));
	jp->jit = calloc(4, sizeof(*jp->jit));
	jp->samples = calloc(8, sizeof(*jp->samples));
	jp->stacks = calloc(9, sizeof(*jp->stacks));
	jp->nstacks = 9;
	add_method(M_A, "a", "()V", 10);
	add_method(M_B, "b", "(I)J", 20);
	add_method(M_MAIN, "main", "([Ljava/lang/String;)V", 30);   /* sorted by id */
	add_code(EXP_JIT_JVM_STUB, INTERP, 0, "Interpreter");
	add_code(EXP_JIT_JAVA, CODE_A, M_A, "");
	add_code(EXP_JIT_JVM_STUB, CALL_STUB, 0, "call_stub");
	/* 1: b inlined into compiled a, called by interpreted main, entered
	 * through call_stub from somewhere unknown. */
	add_sample(1, (uint64_t[]){ jf(M_B, 9), jf(M_A, 2), jf(M_MAIN, 1), CODE_A + 0x10, INTERP + 0x10,
				    CALL_STUB + 0x10, NOWHERE },
		   7, 0, 600);
	/* 2: the JVM would not walk the stack (GC active). */
	add_sample(1, (uint64_t[]){ marker(2), CODE_A + 0x20 }, 2, 0, 30);
	/* 3: the JVM's own thread, in its generated code. */
	add_sample(2, (uint64_t[]){ CALL_STUB + 0x40, NOWHERE }, 2, 0, 100);
	/* 4: the machine walk broke in a's code: main is placed outermost. */
	add_sample(1, (uint64_t[]){ jf(M_A, 0), jf(M_MAIN, 1), CODE_A + 0x30 }, 3, EXP_STACK_BROKEN, 200);
	/* 5: a Java thread running no Java code. */
	add_sample(3, (uint64_t[]){ marker(0), NOWHERE }, 2, 0, 70);
	/* 6: the JVM would not walk it, and no compiled frame says more. */
	add_sample(1, (uint64_t[]){ marker(4), INTERP + 0x20, CALL_STUB + 0x20, NOWHERE }, 4, 0, 40);
}

static struct model jm;

static void build(enum model_view v)
{
	struct model_options o = { .view = v };
	char err[256];

	model_free(&jm);
	CHECKF(model_build(&jm, &x, 1, &o, err, sizeof(err)) == 0, "%s", err);
}

/* The weight of entries whose frames, root first, are exactly `want`
 * (function names separated by ';'). */
static uint64_t weight_of(const char *want)
{
	uint64_t w = 0;
	char have[2048];

	for (size_t i = 0; i < jm.nentries; i++) {
		const struct model_entry *e = &jm.entries[i];
		have[0] = 0;
		for (uint32_t j = 0; j < e->n; j++) {
			strcat(have, j ? ";" : "");
			strncat(have, jm.funcs[e->funcs[j]].name, sizeof(have) - strlen(have) - 1);
		}
		if (e->n && !strcmp(have, want))
			w += model_entry_value(e, MODEL_CPU);
	}
	return w;
}

static void user_view(void)
{
	build(MODEL_VIEW_USER);
	CHECK(weight_of("App.main(java.lang.String[]);App.a();App.b(int)") == 600);
	/* The JVM gave no stack, the machine frames one compiled method, and
	 * the walk ended there: recovered, cut (model_java.c's recover). */
	CHECK(weight_of("<no Java callstack recorded>") == 40);
	CHECK(weight_of("<Truncated-stack>;App.a()") == 30);
	CHECK(weight_of("<JVM-System>") == 170);
	CHECK(weight_of("App.main(java.lang.String[]);App.a()") == 200);
	/* The overview's counts. */
	CHECK(jm.java.samples[MODEL_JAVA_STACK] == 2 && jm.java.cpu_ns[MODEL_JAVA_STACK] == 800);
	CHECK(jm.java.samples[MODEL_JAVA_NO_STACK + 2] == 0 && jm.java.samples[MODEL_JAVA_RECOVERED + 2] == 1);
	CHECK(jm.java.samples[MODEL_JAVA_NO_STACK + 4] == 1 && jm.java.cpu_ns[MODEL_JAVA_NO_STACK + 4] == 40);
	CHECK(jm.java.samples[MODEL_JAVA_SYSTEM] == 2 && jm.java.cpu_ns[MODEL_JAVA_SYSTEM] == 170);
	/* Lines: a frame's address is its line (bci 9 of b: line 21). */
	for (size_t i = 0; i < jm.nentries; i++)
		if (model_entry_value(&jm.entries[i], MODEL_CPU) == 600)
			CHECK(jm.entries[i].addrs[2] == 21 && jm.entries[i].addrs[1] == 10);
}

static void expert_view(void)
{
	build(MODEL_VIEW_EXPERT);
	CHECK(weight_of("App.main(java.lang.String[]) [interpreted];App.a() [compiled];App.b(int) [inlined]") == 600);
	CHECK(weight_of("App.main(java.lang.String[]);App.a() [compiled]") == 200);
	CHECK(weight_of("<Truncated-stack>;App.a() [compiled]") == 30);
	CHECK(weight_of("<Unknown>;call_stub") == 100);
}

static void machine_view(void)
{
	build(MODEL_VIEW_MACHINE);
	CHECK(weight_of("<Unknown>;call_stub;Interpreter;App.a() [compiled #1]") == 600);
	CHECK(weight_of("App.a() [compiled #1]") == 230);
	CHECK(jm.java.samples[MODEL_JAVA_STACK] == 2);   /* the same counts in every view */
	model_free(&jm);
	exp_experiment_free(&x);
}

int main(void)
{
	RUN(names_as_written);
	RUN(records_checked);
	RUN(inline_records_checked);
	jvm_setup();
	RUN(user_view);
	RUN(expert_view);
	RUN(machine_view);
	TEST_EXIT();
}
