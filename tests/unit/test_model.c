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
	const struct exp_proc *pp = &p;
	struct crit_wait *w = NULL;
	size_t n = 0;

	CHECK(model_critical_waits(&pp, 1, NULL, &w, &n) == 0);
	CHECKF(n == 2, "%zu waits", n);
	/* by (tid, time): tid 1's read ending at 120, its barrier wait at 500 */
	CHECKF(n > 0 && w[0].tid == 1 && w[0].time_ns == 120 && w[0].waker_tid == 2 && w[0].wake_ns == 110,
	       "read: waker %u at %llu", n ? w[0].waker_tid : 0, n ? (unsigned long long)w[0].wake_ns : 0);
	CHECKF(n > 1 && w[1].time_ns == 500 && w[1].waker_tid == 2 && w[1].wake_ns == 480, "barrier: waker %u",
	       n > 1 ? w[1].waker_tid : 0);
	free(w);
}

/* Waits in poll and epoll (FD_WAIT, FD_WATCH): a poll goes to the latest
 * overlapping write into any of its descriptors' channels; an epoll wait
 * to one into its interest list then (a descriptor deleted, or renamed
 * since it was added, is no longer in it, unless named the same again); a
 * wait no write overlapped (a timeout) is a wait with no waker. */
static void fd_waits_follow_their_descriptors(void)
{
	enum { P = 0x3001, Q = 0x5001, R = 0x7001 };    /* three pipes */
	struct exp_io io[] = {
		{ .tid = 2, .time_ns = 110, .op = EXP_IO_WRITE, .fd = 11, .dur_ns = 5 },  /* into P */
		{ .tid = 2, .time_ns = 130, .op = EXP_IO_WRITE, .fd = 13, .dur_ns = 5 },  /* into R */
		{ .tid = 3, .time_ns = 420, .op = EXP_IO_WRITE, .fd = 12, .dur_ns = 5 },  /* into Q */
		{ .tid = 3, .time_ns = 440, .op = EXP_IO_WRITE, .fd = 11, .dur_ns = 5 },  /* into P */
	};
	struct exp_fd_flow flows[] = {
		{ .fd = 7, .time_ns = 20, .kind = EXP_FLOW_PIPE, .rx = P, .tx = P },
		{ .fd = 8, .time_ns = 20, .kind = EXP_FLOW_PIPE, .rx = Q, .tx = Q },
		{ .fd = 9, .time_ns = 20, .kind = EXP_FLOW_PIPE, .rx = R, .tx = R },
		{ .fd = 11, .time_ns = 20, .kind = EXP_FLOW_PIPE, .rx = P, .tx = P },
		{ .fd = 12, .time_ns = 20, .kind = EXP_FLOW_PIPE, .rx = Q, .tx = Q },
		{ .fd = 13, .time_ns = 20, .kind = EXP_FLOW_PIPE, .rx = R, .tx = R },
	};
	struct exp_fd_ev fds[] = {
		{ .fd = 7, .time_ns = 1, .name = "pipe:[7]" },
		{ .fd = 8, .time_ns = 1, .name = "pipe:[8]" },
		{ .fd = 9, .time_ns = 1, .name = "pipe:[9]" },
		{ .fd = 8, .time_ns = 300, .name = "/tmp/file" },   /* closed, reopened */
		{ .fd = 8, .time_ns = 301, .name = "pipe:[18]" },   /* another pipe, not added */
		{ .fd = 9, .time_ns = 350, .name = "pipe:[9]" },    /* named again by another thread */
	};
	struct exp_fd_watch watches[] = {
		{ .time_ns = 30, .epfd = 20, .fd = 7, .op = 1, .events = 1 },
		{ .time_ns = 30, .epfd = 20, .fd = 8, .op = 1, .events = 1 },
		{ .time_ns = 30, .epfd = 20, .fd = 9, .op = 1, .events = 1 },
		{ .time_ns = 200, .epfd = 20, .fd = 7, .op = 2 },
	};
	int32_t wait_fds[] = { 9, 7, 20, 20 };
	struct exp_fd_wait_ev waits[] = {
		{ .tid = 1, .stack_id = 5, .time_ns = 100, .dur_ns = 40, .nfds = 2, .first = 0 },  /* poll 9, 7 */
		{ .tid = 1, .stack_id = 6, .time_ns = 400, .dur_ns = 50, .flags = EXP_WAIT_EPOLL, .nfds = 1,
		  .first = 2 },                                   /* epoll: 9 only (7 deleted, 8 renamed) */
		{ .tid = 1, .stack_id = 6, .time_ns = 600, .dur_ns = 50, .flags = EXP_WAIT_EPOLL, .nfds = 1,
		  .first = 3 },                                   /* a timeout */
	};
	struct exp_proc p = { .io = io, .nio = 4, .flows = flows, .nflows = 6, .fds = fds, .nfds = 6,
			      .fdwaits = waits, .nfdwaits = 3, .wait_fds = wait_fds, .nwait_fds = 4,
			      .watches = watches, .nwatches = 4 };
	const struct exp_proc *pp = &p;
	struct crit_wait *w = NULL;
	size_t n = 0;

	CHECK(model_critical_waits(&pp, 1, NULL, &w, &n) == 0);
	CHECKF(n == 3, "%zu waits", n);
	/* the poll: the write into R (fd 9) at 130-135 is the latest */
	CHECKF(n > 0 && w[0].time_ns == 140 && w[0].req_ns == 100 && w[0].waker_tid == 2 && w[0].wake_ns == 135 &&
	       w[0].stack_id == 5, "poll: waker %u at %llu", n ? w[0].waker_tid : 0,
	       n ? (unsigned long long)w[0].wake_ns : 0);
	/* the epoll wait: neither P (deleted) nor Q (renamed since added) */
	CHECKF(n > 1 && w[1].time_ns == 450 && w[1].waker_tid == 0, "epoll: waker %u", n > 1 ? w[1].waker_tid : 0);
	CHECKF(n > 2 && w[2].time_ns == 650 && w[2].waker_tid == 0 && w[2].req_ns == 600, "timeout: waker %u",
	       n > 2 ? w[2].waker_tid : 0);
	free(w);
	/* with fd 9's channel written into during the epoll wait, that is its
	 * waker (fd 9 named again with the same name is the same descriptor) */
	io[2].fd = 13;
	CHECK(model_critical_waits(&pp, 1, NULL, &w, &n) == 0);
	CHECKF(n > 1 && w[1].waker_tid == 3 && w[1].wake_ns == 425, "epoll: waker %u at %llu",
	       n > 1 ? w[1].waker_tid : 0, n > 1 ? (unsigned long long)w[1].wake_ns : 0);
	free(w);
}

/* The waits of two processes of one experiment: the parent's read of a
 * pipe is woken by the child's write into it (one channel in both), and
 * its wait for the child that it reaped by the child's end. */
static void waits_cross_processes(void)
{
	struct exp_io pio[] = { { .tid = 10, .time_ns = 100, .op = EXP_IO_READ, .fd = 3, .bytes = 1, .dur_ns = 50 } };
	struct exp_io cio[] = { { .tid = 20, .time_ns = 130, .op = EXP_IO_WRITE, .fd = 4, .bytes = 1, .dur_ns = 5 } };
	struct exp_fd_flow pflow[] = { { .tid = 10, .time_ns = 100, .fd = 3, .kind = EXP_FLOW_PIPE, .rx = 0x77, .tx = 0x77 } };
	struct exp_fd_flow cflow[] = { { .tid = 20, .time_ns = 130, .fd = 4, .kind = EXP_FLOW_PIPE, .rx = 0x77, .tx = 0x77 } };
	struct exp_fd_ev pfds[] = { { .fd = 3, .time_ns = 1, .name = "pipe:[9]" } };
	struct exp_fd_ev cfds[] = { { .fd = 4, .time_ns = 1, .name = "pipe:[9]" } };
	struct exp_sync psync[] = { { .tid = 10, .time_ns = 900, .op = EXP_SYNC_CHILD, .wait_ns = 300, .object = 20 } };
	struct exp_thread_ev pth[] = { { .tid = 10, .start_ns = 1, .end_ns = 1000 } };
	struct exp_thread_ev cth[] = { { .tid = 20, .start_ns = 60, .end_ns = 800 } };
	struct exp_proc parent = { .pid = 10, .lineage = "", .io = pio, .nio = 1, .flows = pflow, .nflows = 1,
				   .fds = pfds, .nfds = 1, .sync = psync, .nsync = 1, .threads = pth, .nthreads = 1 };
	struct exp_proc child = { .pid = 20, .ppid = 10, .lineage = "_f1", .start_ns = 50, .end_ns = 800,
				  .io = cio, .nio = 1, .flows = cflow, .nflows = 1, .fds = cfds, .nfds = 1,
				  .threads = cth, .nthreads = 1 };
	const struct exp_proc *procs[] = { &parent, &child };
	struct crit_wait *w = NULL;
	size_t n = 0;

	CHECK(model_critical_waits(procs, 2, NULL, &w, &n) == 0);
	CHECKF(n == 2, "%zu waits", n);
	CHECKF(n > 0 && w[0].proc == 0 && w[0].time_ns == 150 && w[0].waker_tid == 20 && w[0].waker_proc == 1 &&
	       w[0].wake_ns == 135, "read: waker %u of process %u at %llu", n ? w[0].waker_tid : 0,
	       n ? w[0].waker_proc : 0, n ? (unsigned long long)w[0].wake_ns : 0);
	CHECKF(n > 1 && w[1].proc == 0 && w[1].time_ns == 900 && w[1].waker_tid == 20 && w[1].waker_proc == 1 &&
	       w[1].wake_ns == 800, "child: waker %u of process %u at %llu", n > 1 ? w[1].waker_tid : 0,
	       n > 1 ? w[1].waker_proc : 0, n > 1 ? (unsigned long long)w[1].wake_ns : 0);
	free(w);
}

/* Joins (model_critical_waits.c): one begun after its thread's END, in
 * tally's end of it (before its THREAD_SCHED), is woken by that thread at
 * its END; one begun after that read aside found no waker; one spanning
 * two ends, by the later.  Many lives: the search is by binary search over
 * their ends.  On the build before, the first had no waker ("join: no
 * thread ended within it"). */
static void joins_in_tally_end_follow(void)
{
	enum { N = 1000 };
	struct exp_thread_ev *th = calloc(N, sizeof(*th));
	struct exp_sync sync[] = {
		{ .tid = 1, .time_ns = 5400, .op = EXP_SYNC_JOIN, .wait_ns = 300 },   /* 5100: in 7's end */
		{ .tid = 1, .time_ns = 8000, .op = EXP_SYNC_JOIN, .wait_ns = 500 },   /* 7500: after 8's read */
		{ .tid = 1, .time_ns = 9900, .op = EXP_SYNC_JOIN, .wait_ns = 900 },   /* 9000: 9 and 10 end */
	};
	if (!th)
		return;
	th[0] = (struct exp_thread_ev){ .tid = 1, .start_ns = 1, .end_ns = 20000 };
	th[1] = (struct exp_thread_ev){ .tid = 7, .start_ns = 100, .end_ns = 5000, .has_sched = true,
					.sched_ns = 5250 };
	th[2] = (struct exp_thread_ev){ .tid = 8, .start_ns = 100, .end_ns = 7000, .has_sched = true,
					.sched_ns = 7200 };
	th[3] = (struct exp_thread_ev){ .tid = 9, .start_ns = 100, .end_ns = 9200 };
	th[4] = (struct exp_thread_ev){ .tid = 10, .start_ns = 100, .end_ns = 9600 };
	for (uint32_t i = 5; i < N; i++)        /* short lives long before */
		th[i] = (struct exp_thread_ev){ .tid = 100 + i, .start_ns = 10 + i, .end_ns = 20 + i };
	struct exp_proc p = { .sync = sync, .nsync = 3, .threads = th, .nthreads = N };
	const struct exp_proc *pp = &p;
	struct crit_wait *w = NULL;
	size_t n = 0;

	CHECK(model_critical_waits(&pp, 1, NULL, &w, &n) == 0);
	CHECKF(n == 3, "%zu waits", n);
	CHECKF(n > 0 && w[0].waker_tid == 7 && w[0].wake_ns == 5000, "late join: waker %u at %llu",
	       n ? w[0].waker_tid : 0, n ? (unsigned long long)w[0].wake_ns : 0);
	CHECKF(n > 1 && w[1].waker_tid == 0, "join after tally's end: waker %u", n > 1 ? w[1].waker_tid : 0);
	CHECKF(n > 2 && w[2].waker_tid == 10 && w[2].wake_ns == 9600, "join: waker %u", n > 2 ? w[2].waker_tid : 0);
	free(w);
	free(th);
}

/* A short thread's stand-in on the critical path without --states: its
 * CPU less the collector's before its end; tally's end of the thread,
 * after THREAD_END (a schedstat read by a helper has some of it), is not
 * taken off (before: 0.70 ms for 0.80 ms of the program's). */
static void sched_busy_leaves_the_end_out(void)
{
	struct exp_thread_ev th = { .end_ns = 5000000, .cpu_ns = 900000, .sched_cpu_ns = 1000000,
				    .has_sched = true, .collector_ns = 300000, .collector_after_end_ns = 200000 };

	CHECK(model_critical_sched_busy(&th) == 800000);
	th.run_delay_ns = 1000000;         /* its wait spread with its CPU */
	CHECK(model_critical_sched_busy(&th) == 800000 + 800000);
	th = (struct exp_thread_ev){ .sched_cpu_ns = 1000000, .has_sched = true, .collector_ns = 300000 };
	CHECK(model_critical_sched_busy(&th) == 700000);   /* no END: its schedstat CPU */
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
	RUN(waits_cross_processes);
	RUN(joins_in_tally_end_follow);
	RUN(fd_waits_follow_their_descriptors);
	RUN(sched_busy_leaves_the_end_out);
	model_free(&m);
	TEST_EXIT();
}
