/* SPDX-License-Identifier: MIT
 *
 * calls.c — the call-heavy benchmark workload: many small functions, deep-ish
 * call chains, built -O2 without frame pointers (the profiler must unwind
 * with the CFI), so the cost of each sample's unwind shows.
 *
 * Three kinds of work, alternating:
 *   - a tree-walking interpreter: random expression trees 12-22 levels deep,
 *     evaluated by one small function per node kind (eval -> ev_add -> eval
 *     -> ev_mul ...), so stacks are up to ~50 frames of the interpreter;
 *   - a chain of 16 distinct small functions, each calling the next through
 *     a function pointer table and mixing the result;
 *   - mutually recursive even/odd-style functions (fib-shaped).
 * No call is a tail call: every caller combines its callee's result.
 * It prints a checksum of all results.  With THREADS > 1, every thread does
 * the same work (the trees are shared, read-only).
 *
 * usage: calls [UNITS [THREADS]]   (UNITS may be fractional; 1 unit ~ 0.1 s)
 *        calls -t SECONDS [THREADS]
 * -t: work until the process has used SECONDS of CPU time (as in cpu.c); the
 * checksum then depends on how much work was done, which is printed too.
 */
#include "workload.h"

#define NOINLINE __attribute__((noinline))

/* ---- the interpreter ------------------------------------------------- */

enum kind { K_CONST, K_VAR, K_ADD, K_SUB, K_MUL, K_XOR, K_SHR, K_NEG, K_COND, K_MAX };

struct node {
	enum kind kind;
	uint64_t value;
	struct node *a, *b, *c;
};

static uint64_t rng = 88172645463325252ull;

static uint64_t next_rand(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

#define POOL (1 << 18)
static struct node pool[POOL];
static int pool_used;

static struct node *build(int depth)
{
	if (pool_used == POOL)
		abort();
	struct node *n = &pool[pool_used++];
	uint64_t r = next_rand();

	if (depth <= 0 || (depth < 6 && r % 5 == 0)) {
		n->kind = r & 8 ? K_VAR : K_CONST;
		n->value = r >> 20;
		return n;
	}
	n->kind = (enum kind)(K_ADD + (r >> 8) % (K_MAX - K_ADD));
	/* One deep child, one shallow: trees are deep but not huge. */
	int deep = (r >> 16) & 1;
	n->a = build(deep ? depth - 1 : depth / 4);
	n->b = build(deep ? depth / 4 : depth - 1);
	n->c = n->kind == K_COND ? build(depth / 5) : NULL;
	return n;
}

static uint64_t eval(const struct node *n, uint64_t x);

NOINLINE static uint64_t ev_add(const struct node *n, uint64_t x)
{
	return eval(n->a, x) + eval(n->b, x);
}

NOINLINE static uint64_t ev_sub(const struct node *n, uint64_t x)
{
	return eval(n->a, x) - eval(n->b, x + 1);
}

NOINLINE static uint64_t ev_mul(const struct node *n, uint64_t x)
{
	return eval(n->a, x) * (eval(n->b, x) | 1);
}

NOINLINE static uint64_t ev_xor(const struct node *n, uint64_t x)
{
	return eval(n->a, x ^ 0x55) ^ eval(n->b, x);
}

NOINLINE static uint64_t ev_shr(const struct node *n, uint64_t x)
{
	return eval(n->a, x) >> (eval(n->b, x) & 7);
}

NOINLINE static uint64_t ev_neg(const struct node *n, uint64_t x)
{
	return ~eval(n->a, x) + eval(n->b, x >> 1);
}

NOINLINE static uint64_t ev_cond(const struct node *n, uint64_t x)
{
	uint64_t c = eval(n->c, x);
	return (c & 1 ? eval(n->a, x) : eval(n->b, x)) + c;
}

NOINLINE static uint64_t eval(const struct node *n, uint64_t x)
{
	switch (n->kind) {
	case K_CONST: return n->value;
	case K_VAR: return x + n->value;
	case K_ADD: return ev_add(n, x) + 1;
	case K_SUB: return ev_sub(n, x) + 3;
	case K_MUL: return ev_mul(n, x) + 5;
	case K_XOR: return ev_xor(n, x) + 7;
	case K_SHR: return ev_shr(n, x) + 11;
	case K_NEG: return ev_neg(n, x) + 13;
	case K_COND: return ev_cond(n, x) + 17;
	default: abort();
	}
}

/* ---- a chain of small functions ------------------------------------------ */

typedef uint64_t (*link_fn)(uint64_t, int);
static link_fn chain[16];

#define LINK(i)                                                               \
	NOINLINE static uint64_t link##i(uint64_t v, int k)                   \
	{                                                                     \
		v = v * 0x9e3779b97f4a7c15ull + (i);                          \
		if (k > 0)                                                    \
			v ^= chain[(i + 1 + (v & 1)) & 15](v >> 3, k - 1) + (i); \
		return v;                                                     \
	}
LINK(0) LINK(1) LINK(2) LINK(3) LINK(4) LINK(5) LINK(6) LINK(7)
LINK(8) LINK(9) LINK(10) LINK(11) LINK(12) LINK(13) LINK(14) LINK(15)

/* ---- mutual recursion ---------------------------------------------------- */

NOINLINE static uint64_t rec_b(int n);

NOINLINE static uint64_t rec_a(int n)
{
	return n < 2 ? (uint64_t)n + 1 : rec_b(n - 1) + rec_a(n - 2) * 3;
}

NOINLINE static uint64_t rec_b(int n)
{
	return n < 2 ? (uint64_t)n + 2 : rec_a(n - 1) ^ (rec_b(n - 2) + 1);
}

/* ---- driver ------------------------------------------------------------- */

NOINLINE static uint64_t interpret(struct node **trees, int ntrees, int reps)
{
	uint64_t h = 0;

	for (int r = 0; r < reps; r++)
		for (int t = 0; t < ntrees; t++)
			h = h * 31 + eval(trees[t], (uint64_t)r);
	return h;
}

NOINLINE static uint64_t run_chain(int reps)
{
	uint64_t h = 0;

	for (int r = 0; r < reps; r++)
		h += chain[r & 15]((uint64_t)r, 24);
	return h;
}

static struct node *trees[64];

static void *worker(void *arg)
{
	struct job *j = arg;
	uint64_t sum = 0;
	long steps = (long)(units * 52), s;

	for (s = 0; keep_working(s, steps); s++) {
		sum ^= interpret(trees, 64, 40);
		sum += run_chain(4000);
		sum = sum * 7 + rec_a(20);
	}
	j->sum = sum;
	j->rounds = s;
	return NULL;
}

int main(int argc, char **argv)
{
	int nthreads = workload_args(argc, argv, "calls");
	link_fn init[16] = { link0, link1, link2, link3, link4, link5, link6, link7,
			     link8, link9, link10, link11, link12, link13, link14, link15 };

	if (!nthreads)
		return 64;
	for (int i = 0; i < 16; i++)
		chain[i] = init[i];
	for (int i = 0; i < 64; i++)
		trees[i] = build(12 + i % 11);
	struct job all = run_workers(worker, nthreads);
	if (cpu_limit > 0)
		printf("calls checksum %016llx cpu-seconds %g threads %d steps %ld nodes %d\n",
		       (unsigned long long)all.sum, cpu_limit, nthreads, all.rounds, pool_used);
	else
		printf("calls checksum %016llx units %g threads %d nodes %d\n",
		       (unsigned long long)all.sum, units, nthreads, pool_used);
	return 0;
}
