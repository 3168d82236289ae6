/* SPDX-License-Identifier: MIT
 *
 * test_col_unwind.c — the collector's unwinder, live: through libc's qsort
 * (no frame pointers, CFI only), out of a signal handler through the
 * kernel's signal frame, out of a lazy PLT entry (whose CFA is a DWARF
 * expression on rip), through generated code that has no CFI (the
 * frame-pointer fallback), with a depth limit (truncation), and as the
 * outside mode runs it: from a copy of the stack, each object's bytes
 * read elsewhere (col_object.mem_delta).
 *
 * The collector must be active to have published its view of the loaded
 * objects, so the test re-executes itself with TALLY_EXP set to a scratch
 * experiment directory.
 */
#include <dlfcn.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "collector/col_objset.h"
#include "collector/col_unwind.h"
#include "testhelp.h"

#define NOIPA __attribute__((noinline, noipa))
#define MAXF 256

static struct col_unwind_ctx ctx;
static uint64_t pcs[MAXF];
static int npcs, truncated, broken;

static void set_stack_bounds(void)
{
	pthread_attr_t a;
	void *addr;
	size_t size;

	pthread_getattr_np(pthread_self(), &a);
	pthread_attr_getstack(&a, &addr, &size);
	ctx.stack_lo = (uint64_t)(uintptr_t)addr;
	ctx.stack_hi = ctx.stack_lo + size;
	pthread_attr_destroy(&a);
}

NOIPA static void unwind_here(int max)
{
	struct col_regs regs;

	col_regs_capture(&regs);
	npcs = col_unwind_sigsafe(&ctx, &regs, pcs, max, &truncated, &broken);
}

/* Is some pc a return address within the first `span` bytes of fn? */
static bool returns_into(void *fn, uint64_t span)
{
	for (int i = 1; i < npcs; i++)
		if (pcs[i] - (uint64_t)(uintptr_t)fn < span)
			return true;
	return false;
}

/* ---- through libc ------------------------------------------------------- */

static int captured;

static int compare(const void *a, const void *b)
{
	if (!captured++)
		unwind_here(MAXF);
	return *(const int *)a - *(const int *)b;
}

NOIPA static void sort_caller(void)
{
	int v[64];
	for (int i = 0; i < 64; i++)
		v[i] = (i * 37) % 64;
	qsort(v, 64, sizeof(v[0]), compare);
}

static void through_libc_qsort(void)
{
	captured = 0;
	sort_caller();
	CHECKF(npcs > 4, "%d frames", npcs);
	CHECK(returns_into((void *)sort_caller, 1500));
	CHECK(returns_into((void *)through_libc_qsort, 1500));
	CHECK(!truncated && !broken);
	/* Some frame is inside libc (qsort's own frames). */
	const struct col_object_set *set = col_objects_current_sigsafe();
	const struct col_object *self_exe = col_objects_find_sigsafe(set, (uint64_t)(uintptr_t)sort_caller);
	int foreign = 0;
	for (int i = 1; i < npcs; i++)
		if (col_objects_find_sigsafe(set, pcs[i] - 1) != self_exe)
			foreign++;
	CHECKF(foreign >= 2, "%d frames outside the test binary", foreign);
}

/* ---- a .debug_frame copy refilled for another object ---------------------- */

/* A handler holding an older snapshot names an object whose .debug_frame
 * copy (cfi2) was refilled for another object since: the range's first
 * word, its fill's number, is no longer the object's, and the unwinder
 * takes no row from that object.  Here libc's object is given a second
 * range whose word is first its own number (the walk goes through qsort),
 * then another (a refill: libc's CFI is not read, and no walk through
 * qsort, which keeps no frame pointer, reaches sort_caller). */
static void a_refilled_copy_is_not_read(void)
{
	const struct col_object_set *set = col_objects_current_sigsafe();
	/* By dlsym: taking qsort's address would bind sort_caller's call
	 * past its lazy PLT entry, which out_of_a_plt_entry needs. */
	void *q = dlsym(RTLD_DEFAULT, "qsort");
	const struct col_object *libc = set && q ? col_objects_find_sigsafe(set, (uint64_t)(uintptr_t)q) : NULL;
	if (!libc || !libc->fde_table || libc->cfi2_lo)
		SKIP("libc's qsort has no CFI of its own here");
	/* Under AddressSanitizer qsort is its interceptor, which keeps frame
	 * pointers: the walk through it needs no CFI, and the check's premise
	 * (no walk without libc's rows) does not hold. */
	Dl_info where;
	if (!dladdr(q, &where) || !where.dli_fname || !strstr(where.dli_fname, "libc.so"))
		SKIP("qsort is not libc's here (a sanitizer's interceptor?)");
	size_t bytes = sizeof(*set) + set->n * sizeof(set->obj[0]);
	struct col_object_set *s = malloc(bytes), *t = malloc(bytes);
	static uint64_t range[2];
	CHECK(s && t);
	memcpy(s, set, bytes);
	struct col_object *o = &s->obj[libc - set->obj];
	o->cfi2_lo = (uint64_t)(uintptr_t)range;
	o->cfi2_hi = o->cfi2_lo + sizeof(range);
	o->cfi2_fill = 5;
	range[0] = 5;
	s->generation = set->generation + 1000;
	memcpy(t, s, bytes);
	t->generation = s->generation + 1;      /* no rule cached from the first walk */

	col_objects_publish(s);
	captured = 0;
	sort_caller();
	int before = npcs;
	bool through = returns_into((void *)sort_caller, 1500) && !broken;
	range[0] = 6;                          /* refilled for another object */
	col_objects_publish(t);
	captured = 0;
	sort_caller();
	bool still = returns_into((void *)sort_caller, 1500) && !broken;
	col_objects_publish(set);
	free(s);
	free(t);
	CHECKF(through, "%d frames with the object's own fill", before);
	CHECKF(!still, "%d frames through qsort after the refill (libc's rows read from a range refilled)", npcs);
}

/* ---- out of a PLT entry -------------------------------------------------- */

/* The lazy PLT entry sort_caller calls qsort through: `jmp *GOT(%rip)` at
 * +0, `push $index` at +6, `jmp .plt` at +11.  0 if not found. */
extern char __executable_start[], etext[];    /* GNU ld: the text's bounds */

static uint64_t qsort_plt_entry(void)
{
	const uint8_t *f = (const uint8_t *)(uintptr_t)sort_caller;

	for (int i = 0; i < 1024; i++) {          /* sanitizers make it long */
		if (f[i] != 0xe8)
			continue;
		int32_t rel;
		memcpy(&rel, f + i + 1, 4);
		const uint8_t *t = f + i + 5 + rel;
		/* an 0xe8 inside another instruction points anywhere */
		if ((const char *)t < __executable_start || (const char *)t + 16 > etext)
			continue;
		if (t[0] == 0xff && t[1] == 0x25 && t[6] == 0x68 && t[11] == 0xe9)
			return (uint64_t)(uintptr_t)t;
	}
	return 0;
}

/* Interrupted at `at` in the entry, with the stack `stack`: the caller's
 * return address, or 0 if the entry's frame could not be unwound.  (The
 * caller's own frame is not: `stack` is not its stack.) */
static uint64_t unwind_from_plt(uint64_t at, uint64_t *stack)
{
	struct col_regs regs;

	col_regs_capture(&regs);
	regs.r[UW_RIP] = at;
	regs.r[UW_RSP] = (uint64_t)(uintptr_t)stack;
	npcs = col_unwind_sigsafe(&ctx, &regs, pcs, 2, &truncated, &broken);
	return npcs == 2 ? pcs[1] : 0;
}

static void out_of_a_plt_entry(void)
{
	uint64_t entry = qsort_plt_entry();
	uint64_t ra = (uint64_t)(uintptr_t)sort_caller + 16;
	uint64_t stack[4] = { ra, 0, 0, 0 };

	CHECKF(entry != 0, "no lazy PLT entry found for qsort");
	if (!entry)
		return;
	CHECK(unwind_from_plt(entry, stack) == ra);            /* CFA = rsp + 8 */
	CHECK(unwind_from_plt(entry + 6, stack) == ra);
	stack[0] = 42;                                          /* the pushed index */
	stack[1] = ra;
	CHECK(unwind_from_plt(entry + 11, stack) == ra);       /* CFA = rsp + 16 */
}

/* ---- out of a signal handler ------------------------------------------- */

static uint64_t from_uc[MAXF], from_handler[MAXF];
static int n_uc, n_handler, uc_broken, handler_broken;

static void on_usr1(int sig, siginfo_t *si, void *uc)
{
	struct col_regs regs;
	int t;

	(void)sig, (void)si;
	col_regs_from_ucontext(uc, &regs);
	n_uc = col_unwind_sigsafe(&ctx, &regs, from_uc, MAXF, &t, &uc_broken);
	col_regs_capture(&regs);
	n_handler = col_unwind_sigsafe(&ctx, &regs, from_handler, MAXF, &t, &handler_broken);
}

NOIPA static void victim(void)
{
	raise(SIGUSR1);
	__asm__ volatile("" ::: "memory");
}

static bool has_retaddr(const uint64_t *v, int n, void *fn, uint64_t span)
{
	for (int i = 1; i < n; i++)
		if (v[i] - (uint64_t)(uintptr_t)fn < span)
			return true;
	return false;
}

static void through_signal_frame(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = on_usr1;
	sa.sa_flags = SA_SIGINFO;
	sigaction(SIGUSR1, &sa, NULL);
	victim();
	CHECK(!uc_broken && !handler_broken);
	/* From the ucontext: raise's frames, then victim's caller. */
	CHECKF(has_retaddr(from_uc, n_uc, (void *)through_signal_frame, 2000), "%d frames", n_uc);
	/* From inside the handler: across __restore_rt, victim, its caller. */
	CHECKF(has_retaddr(from_handler, n_handler, (void *)victim, 500), "%d frames", n_handler);
	CHECK(has_retaddr(from_handler, n_handler, (void *)through_signal_frame, 2000));
	CHECK(n_handler > n_uc);
}

/* ---- code without CFI: the frame-pointer fallback ----------------------- */

static void (*jit)(void (*)(void));

static void jit_callback(void)
{
	unwind_here(MAXF);
}

NOIPA static void call_jit(void)
{
	jit(jit_callback);
	__asm__ volatile("" ::: "memory");
}

static void through_code_without_cfi(void)
{
	/* push %rbp; mov %rsp,%rbp; call *%rdi; pop %rbp; ret */
	static const uint8_t code[] = { 0x55, 0x48, 0x89, 0xe5, 0xff, 0xd7, 0x5d, 0xc3 };
	void *page = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (page == MAP_FAILED)
		SKIP("no anonymous memory");
	memcpy(page, code, sizeof(code));
	if (mprotect(page, 4096, PROT_READ | PROT_EXEC) != 0)
		SKIP("no executable anonymous memory here");
	jit = (void (*)(void (*)(void)))page;
	call_jit();
	CHECK(has_retaddr(pcs, npcs, page, sizeof(code)));       /* the JIT frame */
	CHECKF(returns_into((void *)call_jit, 1000), "%d frames", npcs);  /* and past it */
	CHECK(returns_into((void *)through_code_without_cfi, 2000));
	munmap(page, 4096);
}

/* ---- truncation ---------------------------------------------------------- */

NOIPA static int recurse(int n)
{
	volatile int pad = n;
	if (n == 0) {
		unwind_here(50);
		return 0;
	}
	return recurse(n - 1) + pad;
}

static void truncated_at_limit(void)
{
	recurse(100);
	CHECK(npcs == 50);
	CHECK(truncated && !broken);
}

/* ---- a copied stack, objects read elsewhere (the outside mode) ---------- */

/* tally record unwinds a sample from the registers and a copy of the stack
 * the kernel made, with each object's bytes loaded at another address
 * (col_object.mem_delta): the same walk must give the same frames. */
static struct col_regs copy_regs;
static uint8_t copy_stack[65536];
static uint64_t copy_len, live[MAXF];
static int n_live;

/* Live memory, redzones and all, as the kernel copies a stack or the
 * outside mode reads an object (not through memcpy, whose ASan interceptor
 * refuses the redzones between a stack's or an object's variables). */
__attribute__((no_sanitize_address)) static void copy_raw(uint8_t *to, uint64_t from, uint64_t len)
{
	const volatile uint8_t *p = (const volatile uint8_t *)(uintptr_t)from;

	for (uint64_t i = 0; i < len; i++)
		to[i] = p[i];
}

static int compare_copy(const void *a, const void *b)
{
	if (!captured++) {
		struct col_regs regs;
		col_regs_capture(&regs);
		copy_regs = regs;
		uint64_t sp = regs.r[UW_RSP];
		copy_len = ctx.stack_hi - sp < sizeof(copy_stack) ? ctx.stack_hi - sp : sizeof(copy_stack);
		copy_raw(copy_stack, sp, copy_len);
		n_live = col_unwind_sigsafe(&ctx, &regs, live, MAXF, &truncated, &broken);
	}
	return *(const int *)a - *(const int *)b;
}

NOIPA static void sort_for_copy(void)
{
	int v[64];
	for (int i = 0; i < 64; i++)
		v[i] = (i * 37) % 64;
	qsort(v, 64, sizeof(v[0]), compare_copy);
}

/* The walks from the copy, with the rule cache `big` (NULL: the state's
 * own entries); before the walk over wiped copies, the cache's epoch is
 * set to `epoch` if not 0 (the next object set wraps it). */
static void walk_copies(struct col_unwind_rule *big, uint32_t epoch)
{
	const struct col_object_set *set = col_objects_current_sigsafe();
	captured = 0;
	sort_for_copy();
	CHECKF(n_live > 4 && !broken, "%d frames live", n_live);
	/* Every object's text and CFI copied to a buffer of its own. */
	struct col_object_set *moved = calloc(1, sizeof(*moved) + set->n * sizeof(set->obj[0]));
	void **bufs = calloc(set->n, sizeof(*bufs));
	*moved = *set;
	moved->generation = set->generation + 1000000;
	for (uint32_t i = 0; i < set->n; i++) {
		struct col_object o = set->obj[i];
		uint64_t lo = o.text_lo, hi = o.text_hi;
		if (o.fde_table) {
			lo = o.ro_lo < lo ? o.ro_lo : lo;
			hi = o.ro_hi > hi ? o.ro_hi : hi;
		}
		uint8_t *b = bufs[i] = calloc(1, hi - lo);
		copy_raw(b + (o.text_lo - lo), o.text_lo, o.text_hi - o.text_lo);
		if (o.fde_table)
			copy_raw(b + (o.ro_lo - lo), o.ro_lo, o.ro_hi - o.ro_lo);
		o.mem_delta = (int64_t)((uint64_t)(uintptr_t)b - lo);
		if (o.fde_table) {
			o.eh_hdr += o.mem_delta;
			o.fde_table += o.mem_delta;
		}
		moved->obj[i] = o;
	}
	col_objects_publish(moved);
	static struct col_unwind_ctx far;
	memset(&far, 0, sizeof(far));
	far.big = big;
	far.stack_lo = copy_regs.r[UW_RSP];
	far.stack_hi = far.stack_lo + copy_len;
	far.stack_copy = copy_stack;
	struct col_regs regs = copy_regs;
	uint64_t got[MAXF];
	int t2, b2;
	int n = col_unwind_sigsafe(&far, &regs, got, MAXF, &t2, &b2);
	col_objects_publish(set);
	CHECKF(n == n_live, "%d frames from the copy, %d live", n, n_live);
	CHECK(!b2 && !t2);
	CHECK(n > 0 && memcmp(got, live, (size_t)n * 8) == 0);
	/* A copy that ends inside the stack: the walk says where it ran out. */
	uint32_t short_copy = 0;
	far.stack_hi = far.stack_lo + 256;
	far.copy_short = &short_copy;
	regs = copy_regs;
	col_objects_publish(moved);
	n = col_unwind_sigsafe(&far, &regs, got, MAXF, &t2, &b2);
	col_objects_publish(set);
	CHECKF(n < n_live && b2 && short_copy, "%d frames, broken %d, short %u", n, b2, short_copy);
	/* It read the copies, not the objects themselves: with the copies
	 * wiped, the same walk finds no CFI and goes elsewhere. */
	for (uint32_t i = 0; i < set->n; i++) {
		const struct col_object *o = &moved->obj[i];
		uint64_t lo = o->text_lo, hi = o->text_hi;
		if (o->fde_table) {
			lo = o->ro_lo < lo ? o->ro_lo : lo;
			hi = o->ro_hi > hi ? o->ro_hi : hi;
		}
		memset(bufs[i], 0, hi - lo);
	}
	regs = copy_regs;
	far.stack_hi = far.stack_lo + copy_len;
	far.copy_short = NULL;
	uint32_t rules = col_unwind_cached_rules(&far);
	CHECKF(rules > 0, "no rule cached by the walks from the good copies");
	if (epoch)
		far.epoch = epoch;
	moved->generation++;           /* no rule cached from the good copies */
	col_objects_publish(moved);
	n = col_unwind_sigsafe(&far, &regs, got, MAXF, &t2, &b2);
	col_objects_publish(set);
	CHECKF(n != n_live || b2 || memcmp(got, live, (size_t)n * 8) != 0,
	       "the walk over wiped copies gave the live stack: %u rules of the last object set used", rules);
	for (uint32_t i = 0; i < set->n; i++)
		free(bufs[i]);
	free(bufs);
	free(moved);           /* no longer published */
}

static void from_a_copy_elsewhere(void)
{
	walk_copies(NULL, 0);
}

/* The same with a grown cache (COL_UNWIND_BIG rules, as col_unwind.c maps
 * after many misses of traced walks): a new object set empties it too, by
 * a new epoch, and by a wipe when the epoch wraps to one its rules hold. */
static void a_grown_cache_is_emptied_by_a_new_object_set(void)
{
	struct col_unwind_rule *big = calloc(COL_UNWIND_BIG, sizeof(*big));

	CHECK(big);
	walk_copies(big, 0);
	memset(big, 0, COL_UNWIND_BIG * sizeof(*big));
	walk_copies(big, UINT32_MAX);  /* the rules are of epoch 1: the next wraps to it */
	free(big);
}

/* ---- find_fp: rbp found on the stack, and a stale record refused ------- */

/* As a blocked thread is seen from /proc (col_attach.c): rsp and rip only,
 * at a call in `in_fp` (frame pointers, its CFA rbp-based, a buffer of
 * locals), called from `no_fp` (no frame pointer: its CFA rsp-based).  The
 * stack's bytes are copied; the walk (ctx.find_fp) finds in_fp's frame
 * record on it.  A stale record planted in the buffer below the real one
 * (a saved rbp above it, and a return address after an indirect call in
 * `stale_caller`, whose frame the image does not hold): the call's check
 * cannot refuse it (the call is indirect, its caller keeps no frame
 * pointer), so the lowest candidate used to be taken, naming
 * stale_caller as in_fp's caller; the chain past it returns nowhere. */
static uint64_t fp_leaf_ra, fp_leaf_cfa, fp_real_ra, fp_buf, fp_rbp, fp_stale_ra;
static uint8_t fp_copy[16384];
static uint64_t fp_copy_len;

#define OMIT_FP __attribute__((noinline, noipa, optimize("omit-frame-pointer")))
#define KEEP_FP __attribute__((noinline, noipa, optimize("no-omit-frame-pointer")))

KEEP_FP static void fp_leaf(volatile char *buf)
{
	fp_leaf_ra = (uint64_t)(uintptr_t)__builtin_return_address(0);
	fp_leaf_cfa = (uint64_t)(uintptr_t)__builtin_frame_address(0) + 16;
	fp_copy_len = ctx.stack_hi - fp_leaf_cfa < sizeof(fp_copy) ? ctx.stack_hi - fp_leaf_cfa : sizeof(fp_copy);
	copy_raw(fp_copy, fp_leaf_cfa, fp_copy_len);
	buf[0] = 1;
}

KEEP_FP static void in_fp(void)
{
	volatile char buf[512];

	memset((char *)buf, 0, sizeof(buf));
	fp_real_ra = (uint64_t)(uintptr_t)__builtin_return_address(0);
	fp_rbp = (uint64_t)(uintptr_t)__builtin_frame_address(0);
	fp_buf = (uint64_t)(uintptr_t)buf;
	fp_leaf(buf);
	buf[1] = 2;
}

OMIT_FP static int no_fp(int n)
{
	in_fp();
	return n + 1;                 /* no tail call */
}

KEEP_FP static void grab_ra(void)
{
	fp_stale_ra = (uint64_t)(uintptr_t)__builtin_return_address(0);
}

static void (*volatile grab_ptr)(void) = grab_ra;

OMIT_FP static int stale_caller(int n)
{
	grab_ptr();                   /* call *: indirect */
	return n + 1;
}

/* Walk the copy from in_fp's call of fp_leaf, rbp unknown: frames in *n. */
static void walk_copy(uint64_t *got, int *n)
{
	static struct col_unwind_ctx far;
	struct col_regs regs;
	int t = 0, b = 0;

	memset(&far, 0, sizeof(far));
	far.stack_lo = fp_leaf_cfa;
	far.stack_hi = fp_leaf_cfa + fp_copy_len;
	far.stack_copy = fp_copy;
	far.find_fp = true;
	memset(&regs, 0, sizeof(regs));
	regs.r[UW_RSP] = fp_leaf_cfa;
	regs.r[UW_RIP] = fp_leaf_ra;
	regs.valid = (1u << UW_RSP) | (1u << UW_RIP);
	*n = col_unwind_sigsafe(&far, &regs, got, MAXF, &t, &b);
}

static void find_fp_refuses_a_stale_record(void)
{
	uint64_t got[MAXF];
	int n;

	CHECK(stale_caller(1) == 2 && no_fp(1) == 2);
	const uint8_t *q = (const uint8_t *)(uintptr_t)fp_stale_ra;
	CHECKF(q[-2] == 0xff || q[-3] == 0xff || q[-6] == 0xff, "the stale call is indirect");
	walk_copy(got, &n);
	CHECKF(n >= 3 && got[0] == fp_leaf_ra && got[1] == fp_real_ra, "%d frames, the second %#llx, in_fp's %#llx",
	       n, n > 1 ? (unsigned long long)got[1] : 0ull, (unsigned long long)fp_real_ra);
	/* The stale record, at the lowest 8-byte place of the buffer. */
	uint64_t p = (fp_buf + 7) & ~7ull;
	if (p < fp_leaf_cfa || p + 64 >= fp_rbp)
		SKIP("in_fp's buffer is not between its callee's frame and its own record (a sanitizer's fake stack?)");
	uint64_t above = p + 64;
	memcpy(fp_copy + (p - fp_leaf_cfa), &above, 8);
	memcpy(fp_copy + (p + 8 - fp_leaf_cfa), &fp_stale_ra, 8);
	walk_copy(got, &n);
	CHECKF(n >= 3 && got[1] == fp_real_ra, "%d frames, the second %#llx (stale %#llx), in_fp's %#llx", n,
	       n > 1 ? (unsigned long long)got[1] : 0ull, (unsigned long long)fp_stale_ra,
	       (unsigned long long)fp_real_ra);
}

int main(int argc, char **argv)
{
	if (!getenv("TALLY_EXP")) {
		char dir[] = "/tmp/tally-unwind.XXXXXX";
		if (!mkdtemp(dir))
			return 1;
		setenv("TALLY_EXP", dir, 1);
		setenv("TALLY_OPTIONS", "hz=0", 1);
		execv("/proc/self/exe", argv);
		return 1;
	}
	(void)argc;
	set_stack_bounds();
	RUN(through_libc_qsort);
	RUN(a_refilled_copy_is_not_read);
	RUN(through_signal_frame);
	RUN(out_of_a_plt_entry);
	RUN(through_code_without_cfi);
	RUN(truncated_at_limit);
	RUN(from_a_copy_elsewhere);
	RUN(a_grown_cache_is_emptied_by_a_new_object_set);
	RUN(find_fp_refuses_a_stale_record);
	char cmd[128];
	snprintf(cmd, sizeof(cmd), "rm -rf %s", getenv("TALLY_EXP"));
	if (system(cmd) != 0)
		return 1;
	TEST_EXIT();
}
