/* SPDX-License-Identifier: MIT
 *
 * test_model.c — the model's derived views on hand-built entries, checked
 * against brute force: inclusive metrics once per stack under recursion,
 * callers and callees with attributed metrics, the call tree, function
 * lookup by name; and the hash map against a plain array.
 */
#include <stdlib.h>
#include <string.h>

#include "model/model.h"
#include "model/model_map.h"
#include "model_fixture.h"
#include "testhelp.h"

enum { TOTAL, MAIN, FIB, PING, PONG, LEAF, ALT };

static void setup(void)
{
	model_reset();
	const char *names[] = { "<Total>", "main", "fib", "ping", "pong", "leaf(int)", "leaf.part.0" };
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		add_func(names[i]);
	add_entry((uint32_t[]){ MAIN, FIB, FIB, FIB, LEAF }, 5, 100);
	add_entry((uint32_t[]){ MAIN, FIB }, 2, 50);
	add_entry((uint32_t[]){ MAIN, PING, PONG, PING, PONG, LEAF }, 6, 30);
	add_entry((uint32_t[]){ MAIN, LEAF }, 2, 20);
	add_entry((uint32_t[]){ PING, LEAF }, 2, 7);   /* a broken unwind: root ping */
}

static void inclusive_once_per_stack(void)
{
	struct model_func_metrics *fm = calloc(m.nfuncs, sizeof(*fm));

	model_func_metrics(&m, fm);
	CHECK(fm[MODEL_TOTAL].incl[MODEL_CPU] == 207);
	CHECK(fm[MAIN].incl[MODEL_CPU] == 200 && fm[MAIN].excl[MODEL_CPU] == 0);
	CHECK(fm[FIB].incl[MODEL_CPU] == 150 && fm[FIB].excl[MODEL_CPU] == 50);
	CHECK(fm[PING].incl[MODEL_CPU] == 37);
	CHECK(fm[PONG].incl[MODEL_CPU] == 30);
	CHECK(fm[LEAF].excl[MODEL_CPU] == 157 && fm[LEAF].incl[MODEL_CPU] == 157);
	/* Brute force: incl(f) = sum of weights of entries containing f. */
	for (uint32_t f = 1; f < m.nfuncs; f++) {
		uint64_t want = 0;
		for (size_t i = 0; i < m.nentries; i++)
			for (uint32_t j = 0; j < m.entries[i].n; j++)
				if (m.entries[i].funcs[j] == f) {
					want += model_entry_value(&m.entries[i], MODEL_CPU);
					break;
				}
		CHECKF(fm[f].incl[MODEL_CPU] == want, "%s", m.funcs[f].name);
	}
	free(fm);
}

static uint64_t edge(const struct model_edge *e, size_t n, uint32_t f)
{
	for (size_t i = 0; i < n; i++)
		if (e[i].func == f)
			return e[i].v[MODEL_CPU];
	return UINT64_MAX;
}

static void callers_and_callees(void)
{
	struct model_edge *cr, *ce;
	size_t nr, ne;

	CHECK(model_callers_callees(&m, PING, MODEL_CPU, &cr, &nr, &ce, &ne) == 0);
	CHECK(nr == 3 && edge(cr, nr, MAIN) == 30 && edge(cr, nr, PONG) == 30 &&
	      edge(cr, nr, MODEL_TOTAL) == 7);
	CHECK(ne == 2 && edge(ce, ne, PONG) == 30 && edge(ce, ne, LEAF) == 7);
	free(cr);
	free(ce);
	CHECK(model_callers_callees(&m, FIB, MODEL_CPU, &cr, &nr, &ce, &ne) == 0);
	/* Recursive fib: its caller fib and callee fib count each stack once. */
	CHECK(edge(cr, nr, MAIN) == 150 && edge(cr, nr, FIB) == 100);
	CHECK(edge(ce, ne, FIB) == 100 && edge(ce, ne, LEAF) == 100);
	CHECK(cr[0].func == MAIN);           /* sorted, largest first */
	free(cr);
	free(ce);
}

static void call_tree(void)
{
	struct model_node *nodes;
	size_t n;

	CHECK(model_tree_build(&m, MODEL_CPU, false, &nodes, &n) == 0);
	CHECK(nodes[0].incl[MODEL_CPU] == 207);
	/* Every entry becomes one path; node count = distinct prefixes + root. */
	CHECKF(n == 1 + 5 + 5 + 1 + 2, "%zu nodes", n);
	uint32_t c = nodes[0].first_child;
	CHECK(nodes[c].func == MAIN && nodes[c].incl[MODEL_CPU] == 200);
	uint32_t k = nodes[c].first_child;
	CHECK(nodes[k].func == FIB && nodes[k].incl[MODEL_CPU] == 150 && nodes[k].excl[MODEL_CPU] == 50);
	CHECK(nodes[nodes[k].next_sibling].func == PING);
	free(nodes);
}

static void find_by_name(void)
{
	uint32_t ids[4];

	CHECK(model_func_find(&m, "fib", ids, 4) == 1 && ids[0] == FIB);
	CHECK(model_func_find(&m, "leaf(int)", ids, 4) == 1 && ids[0] == LEAF);
	CHECK(model_func_find(&m, "leaf", ids, 4) == 1 && ids[0] == LEAF);
	CHECK(model_func_find(&m, "nosuch", ids, 4) == 0);
	m.funcs[LEAF].name[0] = 'x';          /* only the clone "leaf.part.0" left */
	CHECK(model_func_find(&m, "leaf", ids, 4) == 1 && ids[0] == ALT);
	m.funcs[LEAF].name[0] = 'l';
}

static void map_against_array(void)
{
	struct model_map map = { 0 };
	enum { N = 5000 };
	static uint64_t ref[N];             /* key i+1 -> value, 0 = absent */
	unsigned seed = 1;

	for (int step = 0; step < 200000; step++) {
		seed = seed * 1103515245u + 12345u;
		uint64_t k = (seed >> 8) % N;
		int op = (seed >> 4) % 3;
		if (op == 0) {
			bool ins;
			*model_map_put(&map, k + 1, 0, &ins) = step + 1;
			CHECK(ins == (ref[k] == 0));
			ref[k] = (uint64_t)step + 1;
		} else if (op == 1) {
			CHECK(model_map_del(&map, k + 1) == (ref[k] != 0));
			ref[k] = 0;
		} else {
			uint64_t *v = model_map_get(&map, k + 1);
			CHECK(ref[k] ? v && *v == ref[k] : v == NULL);
		}
	}
	size_t live = 0;
	for (int i = 0; i < N; i++)
		live += ref[i] != 0;
	CHECK(map.live == live);
	model_map_free(&map);
}

/* The heap replay pairs releases with allocations in time order, whatever
 * the file order; what it cannot pair is counted, not dropped silently. */
static void heap_replay_counts_unpaired(void)
{
	struct exp_heap ev[] = {
		{ .tid = 1, .time_ns = 50, .op = EXP_HEAP_FREE, .addr = 0x900 },   /* never allocated */
		{ .tid = 1, .time_ns = 20, .op = EXP_HEAP_MALLOC, .size = 10, .addr = 0x200 },
		{ .tid = 1, .time_ns = 30, .op = EXP_HEAP_MALLOC, .size = 20, .addr = 0x200 }, /* free unseen */
		{ .tid = 1, .time_ns = 40, .op = EXP_HEAP_FREE, .addr = 0x200 },
		{ .tid = 1, .time_ns = 10, .op = EXP_HEAP_MALLOC, .size = 7, .addr = 0x300 },  /* leaked */
	};
	struct exp_proc p = { .dir = "/nonexistent", .lineage = "", .exe = "x", .name = "x",
			      .heap = ev, .nheap = 5 };
	struct exp_experiment e = { .path = "/nonexistent", .procs = &p, .nprocs = 1 };
	struct model_options o = { 0 };
	struct model mm;
	char err[256];

	CHECKF(model_build(&mm, &e, 1, &o, err, sizeof(err)) == 0, "%s", err);
	CHECK(mm.total[MODEL_HEAP_BYTES] == 37 && mm.total[MODEL_HEAP_COUNT] == 3);
	CHECK(mm.total[MODEL_HEAP_LEAK] == 7);
	CHECKF(mm.heap_unpaired.frees == 1 && mm.heap_unpaired.reuses == 1, "%llu frees, %llu reuses",
	       (unsigned long long)mm.heap_unpaired.frees, (unsigned long long)mm.heap_unpaired.reuses);
	CHECK(mm.heap_peak.bytes == 27 && mm.heap_peak.time_ns == 30);
	model_free(&mm);
}

int main(void)
{
	setup();
	RUN(inclusive_once_per_stack);
	RUN(callers_and_callees);
	RUN(call_tree);
	RUN(find_by_name);
	RUN(map_against_array);
	RUN(heap_replay_counts_unpaired);
	model_free(&m);
	TEST_EXIT();
}
