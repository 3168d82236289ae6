/* SPDX-License-Identifier: MIT
 *
 * col_java.c — the Java part of a JVM thread's clock sample (see col_java.h).
 *
 * The JVMTI agent (src/jvmti/) hands over the JVM's AsyncGetCallTrace when
 * the VM is initialized, and each Java thread's JNIEnv when it starts.  In
 * the signal handler, a thread with a JNIEnv gets its Java frames from
 * AsyncGetCallTrace (made for exactly this: called from a signal handler on
 * the interrupted thread, with its ucontext); each frame is a jmethodID and
 * a bytecode index, stored as one 64-bit Java frame (exp_records.h).  When
 * the JVM cannot walk the stack, the sample gets a marker saying why, so
 * the analyzer can count `<no Java callstack recorded>`.
 *
 * The JNIEnv is kept from the agent's ThreadStart event rather than asked
 * of the JVM in the handler: GetEnv reads the JVM's thread-local storage,
 * which is not safe in a signal handler since JDK 9 (JDK-8132510).
 *
 * When the JVM gives up, the interpreter frames of the machine stack
 * still name their methods (col_java_interp_frames_sigsafe): Java frames
 * after the marker.
 *
 * Methods seen in samples go into an insert-only table (2^18 slots, mapped
 * and populated when Java starts: no allocation, no page fault in the
 * handler); the agent's own thread names each new one once (a JAVA_METHOD
 * record) and marks it.  Lock-free: a slot is claimed by compare-and-swap.
 * Sigsafe file.
 */
#include <stdatomic.h>
#include <string.h>
#include <sys/mman.h>

#include "collector/col_java.h"
#include "collector/col_sys.h"

/* AsyncGetCallTrace's interface (the JVM's forte.cpp; stable since JDK 1.4). */
struct asgct_frame {
	int32_t lineno;            /* bytecode index; -3 a native method */
	void *method_id;           /* jmethodID */
};
struct asgct_trace {
	void *env;                 /* the thread's JNIEnv */
	int32_t num_frames;        /* frames filled; <= 0: why none (exp_java_none) */
	struct asgct_frame *frames;
};
typedef void (*asgct_fn)(struct asgct_trace *trace, int32_t depth, void *ucontext);

#define SEEN_SLOTS (1u << 18)
#define SEEN_PROBES 64
#define SEEN_NAMED (1ull << 63)   /* the method was named */

static _Atomic(asgct_fn) asgct;
/* Where a thread's last Java frame is kept, from its JNIEnv (col_java_anchor):
 * the JavaThread is env - env_off; its anchor's last Java sp and pc are at
 * these offsets in it.  0: unknown. */
static _Atomic int64_t env_off;
static _Atomic uint64_t anchor_sp_off, anchor_pc_off;
static _Atomic uint64_t *seen;    /* jmethodIDs, | SEEN_NAMED once named */
static _Atomic uint64_t added, named;   /* methods put in `seen`, and named */
/* Interpreted frames: the interpreter's code, and Method* -> jmethodID
 * ([2 i]: the Method*, [2 i + 1]: its id; insert-only, a slot claimed by
 * compare-and-swap of its Method*, its id stored after). */
#define MPTR_SLOTS (1u << 17)
static _Atomic uint64_t interp_lo, interp_hi;
/* ... and where an interpreted frame's bytecode index is (0: unknown) */
static _Atomic uint64_t cm_offset, cm_size, cm_code_size;
static _Atomic(_Atomic uint64_t *) mptrs;

int col_java_prepare(void)
{
	static atomic_flag making = ATOMIC_FLAG_INIT;

	while (!atomic_load(&seen)) {
		if (atomic_flag_test_and_set(&making))
			continue;          /* another thread is making it */
		void *m = col_sys_mmap(NULL, SEEN_SLOTS * sizeof(uint64_t), PROT_READ | PROT_WRITE,
				       MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
		if (m != MAP_FAILED)
			atomic_store(&seen, m);
		atomic_flag_clear(&making);
		if (m == MAP_FAILED)
			return -1;
	}
	return 0;
}

int col_java_start(void *fn)
{
	if (col_java_prepare() != 0)
		return -1;
	atomic_store(&asgct, (asgct_fn)fn);
	return 0;
}

void col_java_anchor(int64_t env_offset, uint64_t sp_offset, uint64_t pc_offset)
{
	atomic_store(&anchor_sp_off, sp_offset);
	atomic_store(&anchor_pc_off, pc_offset);
	atomic_store(&env_off, env_offset);
}

/* AsyncGetCallTrace gives up on a thread in the JVM or in native code whose
 * last Java frame has its sp but not yet its pc (the JVM fills the pc in
 * lazily, at safepoints): the pc is the return address just below that sp,
 * on this very thread's stack.  Put it there for a second call, and take it
 * away again (async-profiler does the same). */
static void retry_with_anchor_sigsafe(struct col_thread *t, asgct_fn fn, struct asgct_trace *trace,
				      int32_t depth, void *uc)
{
	int64_t off = atomic_load_explicit(&env_off, memory_order_acquire);
	uint64_t sp_off = atomic_load_explicit(&anchor_sp_off, memory_order_relaxed);
	uint64_t pc_off = atomic_load_explicit(&anchor_pc_off, memory_order_relaxed);

	if (!off || !sp_off || !pc_off)
		return;
	char *thread = (char *)trace->env - off;
	uint64_t *sp = *(uint64_t *volatile *)(void *)(thread + sp_off);
	volatile uint64_t *pc = (volatile uint64_t *)(void *)(thread + pc_off);
	uint64_t at = (uint64_t)(uintptr_t)sp;
	if (!sp || *pc || at - 8 < t->unwind.stack_lo || at > t->unwind.stack_hi)
		return;
	*pc = sp[-1];
	fn(trace, depth, uc);
	*pc = 0;
}

void col_java_thread(struct col_thread *t, void *env)
{
	if (t)
		atomic_store_explicit(&t->java_env, env, memory_order_release);
}

static uint32_t slot_of(uint64_t method)
{
	uint64_t h = method * 0x9e3779b97f4a7c15ull;
	return (uint32_t)(h >> 46) & (SEEN_SLOTS - 1);
}

static void seen_add_sigsafe(_Atomic uint64_t *table, uint64_t method)
{
	uint32_t at = slot_of(method);

	for (int probe = 0; probe < SEEN_PROBES; probe++, at = (at + 1) & (SEEN_SLOTS - 1)) {
		uint64_t v = atomic_load_explicit(&table[at], memory_order_relaxed);
		if (v == 0 && atomic_compare_exchange_strong(&table[at], &v, method)) {
			atomic_fetch_add_explicit(&added, 1, memory_order_release);
			return;
		}
		if ((v & ~SEEN_NAMED) == method)
			return;
	}
	col_count_sigsafe(EXP_CTR_JAVA_UNNAMED, 1);    /* the table is full there */
}

void col_java_seen_sigsafe(const uint64_t *frames, int n)
{
	_Atomic uint64_t *table = atomic_load_explicit(&seen, memory_order_acquire);

	for (int i = 0; table && i < n; i++) {
		uint64_t m = EXP_JAVA_METHOD_OF(frames[i]);
		/* Consecutive frames of one method (recursion) are looked up once. */
		if (EXP_JAVA_IS_FRAME(frames[i]) && m && (i == 0 || m != EXP_JAVA_METHOD_OF(frames[i - 1])))
			seen_add_sigsafe(table, m);
	}
}

void col_java_interpreter(uint64_t lo, uint64_t hi)
{
	atomic_store(&interp_lo, 0);
	atomic_store(&interp_hi, hi);
	atomic_store(&interp_lo, lo);
}

bool col_java_has_interpreter_sigsafe(void)
{
	return atomic_load_explicit(&interp_lo, memory_order_acquire) != 0 &&
	       atomic_load_explicit(&mptrs, memory_order_acquire) != NULL;
}

void col_java_method_ptr(uint64_t method_ptr, uint64_t method_id)
{
	static atomic_flag making = ATOMIC_FLAG_INIT;
	_Atomic uint64_t *table;

	if (!method_ptr || !method_id)
		return;
	while (!(table = atomic_load(&mptrs))) {
		if (atomic_flag_test_and_set(&making))
			continue;
		void *m = col_sys_mmap(NULL, 2 * MPTR_SLOTS * sizeof(uint64_t), PROT_READ | PROT_WRITE,
				       MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
		if (m != MAP_FAILED)
			atomic_store(&mptrs, m);
		atomic_flag_clear(&making);
		if (m == MAP_FAILED)
			return;
	}
	uint32_t at = slot_of(method_ptr) & (MPTR_SLOTS - 1);
	for (int probe = 0; probe < SEEN_PROBES; probe++, at = (at + 1) & (MPTR_SLOTS - 1)) {
		uint64_t v = 0;
		if (atomic_compare_exchange_strong(&table[2 * at], &v, method_ptr) || v == method_ptr) {
			atomic_store_explicit(&table[2 * at + 1], method_id, memory_order_release);
			return;
		}
	}
}

/* The jmethodID of Method* `p`, or 0. */
static uint64_t method_id_of_sigsafe(uint64_t p)
{
	_Atomic uint64_t *table = atomic_load_explicit(&mptrs, memory_order_acquire);
	uint32_t at = slot_of(p) & (MPTR_SLOTS - 1);

	for (int probe = 0; table && p && probe < SEEN_PROBES; probe++, at = (at + 1) & (MPTR_SLOTS - 1)) {
		uint64_t v = atomic_load_explicit(&table[2 * at], memory_order_relaxed);
		if (v == p)
			return atomic_load_explicit(&table[2 * at + 1], memory_order_acquire);
		if (!v)
			return 0;
	}
	return 0;
}

void col_java_interp_layout(uint64_t const_method_offset, uint64_t const_method_size,
			    uint64_t code_size_offset)
{
	atomic_store(&cm_size, const_method_size);
	atomic_store(&cm_code_size, code_size_offset);
	atomic_store(&cm_offset, const_method_offset);     /* last: the others are set */
}

/* HotSpot x86-64 (frame_x86.hpp): interpreter_frame_method_offset = -3
 * words from the frame pointer, which is the CFA less 16, and
 * interpreter_frame_bcp_offset = -8 (the agent checked the layout). */
#define INTERP_METHOD_FROM_CFA (16 + 3 * 8)
#define INTERP_BCP_FROM_CFA (16 + 8 * 8)

/* The bytecode index field (EXP_JAVA_BCI_*) of the interpreted frame of
 * Method* `method` whose CFA is `cfa`: the frame's bytecode pointer, saved
 * there when the frame made a call, less the start of its method's
 * bytecodes.  A caller's frame only: the leaf keeps its pointer in a
 * register.  Method* is a known method's (the table), so its ConstMethod
 * is readable. */
static unsigned interp_bci_sigsafe(const struct col_thread *t, uint64_t method, uint64_t cfa)
{
	uint64_t off = atomic_load_explicit(&cm_offset, memory_order_acquire);
	uint64_t at = cfa - INTERP_BCP_FROM_CFA;

	if (!off || cfa < INTERP_BCP_FROM_CFA || at < t->unwind.stack_lo || at + 8 > t->unwind.stack_hi)
		return EXP_JAVA_BCI_NONE;
	uint64_t cm = *(const volatile uint64_t *)(uintptr_t)(method + off);
	if (!cm)
		return EXP_JAVA_BCI_NONE;
	uint64_t codes = cm + atomic_load_explicit(&cm_size, memory_order_relaxed);
	uint16_t n = *(const volatile uint16_t *)(uintptr_t)(cm + atomic_load_explicit(&cm_code_size, memory_order_relaxed));
	uint64_t bcp = *(const volatile uint64_t *)(uintptr_t)at;
	if (bcp < codes || bcp >= codes + n || bcp - codes + EXP_JAVA_BCI_BIAS > 0xffff)
		return EXP_JAVA_BCI_NONE;
	return (unsigned)(bcp - codes) + EXP_JAVA_BCI_BIAS;
}

int col_java_interp_frames_sigsafe(struct col_thread *t, const uint64_t *pcs, const uint64_t *cfa,
				   int n, uint64_t *out, int room)
{
	uint64_t lo = atomic_load_explicit(&interp_lo, memory_order_acquire);
	uint64_t hi = atomic_load_explicit(&interp_hi, memory_order_relaxed);
	int k = 0;

	for (int i = 0; lo && i < n && k < room; i++) {
		uint64_t pc = i ? pcs[i] - 1 : pcs[i];     /* a return address: its call */
		if (pc < lo || pc >= hi)
			continue;
		/* an interpreter frame not named ends the list: the analyzer
		 * gives the list's methods to the interpreter frames in order */
		uint64_t at = cfa[i] - INTERP_METHOD_FROM_CFA;
		if (!cfa[i] || cfa[i] < INTERP_METHOD_FROM_CFA || at < t->unwind.stack_lo ||
		    at + 8 > t->unwind.stack_hi)
			break;
		uint64_t method = *(const volatile uint64_t *)(uintptr_t)at;
		uint64_t id = method_id_of_sigsafe(method);
		if (!id || id > EXP_JAVA_METHOD_MASK)
			break;
		unsigned field = i ? interp_bci_sigsafe(t, method, cfa[i]) : EXP_JAVA_BCI_NONE;
		out[k++] = EXP_JAVA_FRAME | (uint64_t)field << EXP_JAVA_BCI_SHIFT | id;
	}
	col_java_seen_sigsafe(out, k);
	return k;
}

static uint64_t marker(unsigned why)
{
	return EXP_JAVA_FRAME | (uint64_t)why << EXP_JAVA_BCI_SHIFT;
}

int col_java_frames_sigsafe(struct col_thread *t, void *uc, uint64_t *out, int room,
			    int *truncated)
{
	asgct_fn fn = atomic_load_explicit(&asgct, memory_order_acquire);
	void *env = atomic_load_explicit(&t->java_env, memory_order_acquire);

	*truncated = 0;
	if (!fn || !env || room < 1)
		return 0;
	struct asgct_frame *frames = (struct asgct_frame *)t->java_scratch;
	int depth = COL_JAVA_MAX_FRAMES < room ? COL_JAVA_MAX_FRAMES : room;
	/* One frame more than room: a deeper stack is truncated, not full. */
	int ask = depth < COL_JAVA_MAX_FRAMES ? depth + 1 : depth;
	struct asgct_trace trace = { env, 0, frames };
	fn(&trace, ask, uc);
	if (trace.num_frames == -3)            /* unknown frame outside Java */
		retry_with_anchor_sigsafe(t, fn, &trace, ask, uc);
	if (trace.num_frames <= 0) {
		unsigned why = (unsigned)-trace.num_frames;
		out[0] = marker(why > EXP_JAVA_NO_WALK_MAX ? EXP_JAVA_NO_WALK_MAX : why);
		return 1;
	}
	int n = trace.num_frames;
	if (n > depth) {
		n = depth;
		*truncated = 1;
	}
	int k = 0;
	for (int i = 0; i < n; i++) {
		uint64_t m = (uint64_t)(uintptr_t)frames[i].method_id;
		int32_t line = frames[i].lineno;
		if (!m || m > EXP_JAVA_METHOD_MASK) {
			col_count_sigsafe(EXP_CTR_JAVA_LOST, 1);
			continue;
		}
		uint64_t field = line == -3 ? EXP_JAVA_BCI_NATIVE
				 : line < 0 ? EXP_JAVA_BCI_NONE
				 : (uint64_t)line + EXP_JAVA_BCI_BIAS > 0xffff ? 0xffff
				 : (uint64_t)line + EXP_JAVA_BCI_BIAS;
		out[k++] = EXP_JAVA_FRAME | field << EXP_JAVA_BCI_SHIFT | m;
	}
	if (k == 0) {
		out[0] = marker(EXP_JAVA_NO_ROOM);
		return 1;
	}
	col_java_seen_sigsafe(out, k);
	return k;
}

uint64_t col_java_unnamed(size_t *pos)
{
	_Atomic uint64_t *table = atomic_load(&seen);

	/* Nothing new since everything was named: no scan of the table. */
	if (*pos == 0 && atomic_load_explicit(&added, memory_order_acquire) == atomic_load(&named))
		return 0;
	for (; table && *pos < SEEN_SLOTS; (*pos)++) {
		uint64_t v = atomic_load_explicit(&table[*pos], memory_order_relaxed);
		if (v && !(v & SEEN_NAMED))
			return v;
	}
	return 0;
}

void col_java_named(uint64_t method)
{
	_Atomic uint64_t *table = atomic_load(&seen);
	uint32_t at = slot_of(method);

	for (int probe = 0; table && probe < SEEN_PROBES; probe++, at = (at + 1) & (SEEN_SLOTS - 1)) {
		uint64_t v = method;
		if (atomic_compare_exchange_strong(&table[at], &v, method | SEEN_NAMED)) {
			atomic_fetch_add(&named, 1);
			return;
		}
	}
}
