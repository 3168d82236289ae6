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
#include "model/model_build_int.h"
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

/* The waits the critical path crosses, each with its waker
 * (model_critical_waits.c): a read is woken by a write into the channel it
 * reads from (FD_FLOW: its rx is the writer's tx), not by a write out of
 * its own descriptor (a socket's other direction), and a flow older than
 * the descriptor's name is a closed descriptor's; a barrier wait by its
 * SYNC_WAKE. */
static void channel_waits_follow_flows(void)
{
	enum { X = 0x1001, Y = 0x2001 };        /* the two directions of one socket pair */
	struct exp_io io[] = {
		{ .tid = 1, .time_ns = 50, .op = EXP_IO_READ, .fd = 4, .dur_ns = 70 },    /* socket end A */
		{ .tid = 3, .time_ns = 60, .op = EXP_IO_WRITE, .fd = 4, .dur_ns = 10 },   /* A -> B: not for 1 */
		{ .tid = 2, .time_ns = 100, .op = EXP_IO_WRITE, .fd = 5, .dur_ns = 10 },  /* B -> A */
		{ .tid = 1, .time_ns = 300, .op = EXP_IO_READ, .fd = 6, .dur_ns = 20 },   /* a file now */
		{ .tid = 2, .time_ns = 305, .op = EXP_IO_WRITE, .fd = 5, .dur_ns = 5 },
	};
	struct exp_fd_flow flows[] = {
		{ .fd = 4, .time_ns = 50, .kind = EXP_FLOW_UNIX, .rx = X, .tx = Y },
		{ .fd = 5, .time_ns = 100, .kind = EXP_FLOW_UNIX, .rx = Y, .tx = X },
		{ .fd = 6, .time_ns = 10, .kind = EXP_FLOW_PIPE, .rx = X, .tx = X },
	};
	struct exp_fd_ev fds[] = {
		{ .fd = 4, .time_ns = 1, .name = "socket:[11]" },
		{ .fd = 5, .time_ns = 1, .name = "socket:[12]" },
		{ .fd = 6, .time_ns = 200, .name = "/tmp/file" },
	};
	struct exp_sync sync[] = {
		{ .tid = 1, .time_ns = 500, .op = EXP_SYNC_BARRIER, .wait_ns = 100, .object = 0x77 },
	};
	struct exp_sync_wake wakes[] = {
		{ .tid = 1, .time_ns = 500, .object = 0x77, .waker_tid = 2, .wake_ns = 480 },
	};
	struct exp_proc p = { .io = io, .nio = 5, .flows = flows, .nflows = 3, .fds = fds, .nfds = 3,
			      .sync = sync, .nsync = 1, .wakes = wakes, .nwakes = 1 };
	struct crit_wait *w = NULL;
	size_t n = 0;

	CHECK(model_critical_waits(&p, &w, &n) == 0);
	CHECKF(n == 2, "%zu waits", n);
	/* by (tid, time): tid 1's read ending at 120, its barrier wait at 500 */
	CHECKF(n > 0 && w[0].tid == 1 && w[0].time_ns == 120 && w[0].waker_tid == 2 && w[0].wake_ns == 110,
	       "read: waker %u at %llu", n ? w[0].waker_tid : 0, n ? (unsigned long long)w[0].wake_ns : 0);
	CHECKF(n > 1 && w[1].time_ns == 500 && w[1].waker_tid == 2 && w[1].wake_ns == 480, "barrier: waker %u",
	       n > 1 ? w[1].waker_tid : 0);
	free(w);
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
	RUN(channel_waits_follow_flows);
	model_free(&m);
	TEST_EXIT();
}
