/* SPDX-License-Identifier: MIT
 *
 * test_gprof.c — the gprof call graph (model_gprof.c) on hand-built models
 * and random graphs, checked against brute force: cycles against
 * reachability and a plain recursive depth-first search in gprof's order,
 * propagation against path enumeration, the stack method against a
 * per-stack scan; the trap workload's shape both ways; the listing's lines;
 * and the speed on 10^5 functions and 10^6 arcs.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "model/model_gprof.h"
#include "report/report_gprof.h"
#include "model_fixture.h"
#include "testhelp.h"

static void add_arc(uint32_t caller, uint32_t callee, uint64_t count)
{
	m.arcs = realloc(m.arcs, (m.narcs + 1) * sizeof(*m.arcs));
	m.arcs[m.narcs++] = (struct model_arc){ caller, callee, count, 0, 0 };
}

static const struct model_gprof_arc *arc_of(const struct model_gprof *g, uint32_t a, uint32_t b)
{
	for (size_t i = 0; i < g->narcs; i++)
		if (g->arcs[i].caller == a && g->arcs[i].callee == b)
			return &g->arcs[i];
	return NULL;
}

static bool near(double a, double b)
{
	return fabs(a - b) <= 1e-9 * (fabs(a) + fabs(b)) + 1e-12;
}

static unsigned rnd_state = 12345;

static unsigned rnd(unsigned n)
{
	rnd_state = rnd_state * 1103515245u + 12345u;
	return (rnd_state >> 8) % n;
}

enum { TOTAL, MAIN, F, G };

/* The trap workload: f called 30 times from main with half the time and
 * 3,000,000 times from g with the other half. */
static void trap_model(void)
{
	model_reset();
	add_func("<Total>");
	add_func("main");
	add_func("f");
	add_func("g");
	add_entry((uint32_t[]){ MAIN, F }, 2, 500000000);
	add_entry((uint32_t[]){ MAIN, G, F }, 3, 500000000);
	add_arc(MAIN, F, 30);
	add_arc(MAIN, G, 30);
	add_arc(G, F, 3000000);
}

static void trap_measured(void)
{
	struct model_gprof g;

	trap_model();
	CHECK(model_gprof_from_model(&g, &m, MODEL_CPU, MODEL_GPROF_STACKS) == 0);
	CHECK(g.method == MODEL_GPROF_STACKS && g.has_counts && g.nstacks == 2);
	CHECK(g.nodes[F].self == 1e9 && g.nodes[F].child == 0);
	CHECK(g.nodes[F].ncalls == 3000030 && g.nodes[F].self_calls == 0);
	CHECK(g.nodes[MAIN].self == 0 && g.nodes[MAIN].child == 1e9);
	CHECK(g.nodes[G].child == 5e8);
	const struct model_gprof_arc *mf = arc_of(&g, MAIN, F), *gf = arc_of(&g, G, F);
	const struct model_gprof_arc *mg = arc_of(&g, MAIN, G);
	CHECK(mf && gf && mg);
	CHECKF(mf->self == 5e8 && mf->child == 0, "main->f %g %g", mf->self, mf->child);
	CHECK(gf->self == 5e8 && gf->child == 0);
	CHECK(mg->self == 0 && mg->child == 5e8 && mg->count == 30 && mg->counted);
	CHECK(g.nodes[MAIN].spont_child == 1e9 && g.nodes[MAIN].spont_self == 0);
	CHECK(g.total == 1e9 && g.print_time == 1e9 && g.ncycles == 0);
	/* f and main tie at 1 s: more calls first (gprof's cmp_total) */
	CHECK(g.nodes[F].index == 1 && g.nodes[MAIN].index == 2 && g.nodes[G].index == 3);
	model_gprof_free(&g);
}

static void trap_propagated(void)
{
	struct model_gprof g;

	trap_model();
	CHECK(model_gprof_from_model(&g, &m, MODEL_CPU, MODEL_GPROF_PROPAGATE) == 0);
	CHECK(g.method == MODEL_GPROF_PROPAGATE);
	const struct model_gprof_arc *mf = arc_of(&g, MAIN, F), *gf = arc_of(&g, G, F);
	/* the average-call-time assumption: f's time by call counts */
	CHECKF(near(mf->self, 1e9 * (30.0 / 3000030.0)), "%g", mf->self);
	CHECKF(near(gf->self, 1e9 * (3000000.0 / 3000030.0)), "%g", gf->self);
	CHECK(near(g.nodes[G].child, gf->self) && near(g.nodes[MAIN].child, 1e9));
	/* no arc is measured: nothing comes from the stacks but the leaves */
	CHECK(arc_of(&g, TOTAL, MAIN) == NULL && g.narcs == 3);
	model_gprof_free(&g);
}

static void no_counts(void)
{
	struct model_gprof g;

	trap_model();
	free(m.arcs);
	m.arcs = NULL;
	m.narcs = 0;
	CHECK(model_gprof_from_model(&g, &m, MODEL_CPU, MODEL_GPROF_STACKS) == 0);
	CHECK(!g.has_counts && g.narcs == 3);
	const struct model_gprof_arc *mf = arc_of(&g, MAIN, F);
	CHECK(mf && !mf->counted && mf->count == 0 && mf->self == 5e8);
	CHECK(g.nodes[F].ncalls == 0 && g.nodes[F].self == 1e9);
	model_gprof_free(&g);
}

enum { R_TOP = 1, R_FIB, R_PING, R_PONG, R_LEAF, R_TOP2 };

static void recursion_and_cycles(void)
{
	struct model_gprof g;

	model_reset();
	const char *names[] = { "<Total>", "top", "fib", "ping", "pong", "leaf", "top2" };
	for (size_t i = 0; i < 7; i++)
		add_func(names[i]);
	add_entry((uint32_t[]){ R_TOP, R_FIB, R_FIB, R_FIB }, 4, 100);
	add_entry((uint32_t[]){ R_TOP, R_PING, R_PONG, R_PING, R_LEAF }, 5, 10);
	add_entry((uint32_t[]){ R_TOP, R_PING, R_PONG }, 3, 5);
	add_entry((uint32_t[]){ R_TOP2, R_PONG, R_PING }, 3, 3);
	add_arc(R_TOP, R_FIB, 1);
	add_arc(R_FIB, R_FIB, 99);
	add_arc(R_TOP, R_PING, 7);
	add_arc(R_TOP2, R_PONG, 2);
	add_arc(R_PING, R_PONG, 20);
	add_arc(R_PONG, R_PING, 15);
	add_arc(R_PING, R_LEAF, 4);
	CHECK(model_gprof_from_model(&g, &m, MODEL_CPU, MODEL_GPROF_STACKS) == 0);
	/* n+r: fib 1+99, its self arc carries nothing */
	CHECK(g.nodes[R_FIB].ncalls == 1 && g.nodes[R_FIB].self_calls == 99);
	CHECK(g.nodes[R_FIB].self == 100 && g.nodes[R_FIB].child == 0);
	CHECK(arc_of(&g, R_TOP, R_FIB)->self == 100 && arc_of(&g, R_FIB, R_FIB)->self == 0);
	/* one cycle, ping and pong */
	CHECK(g.ncycles == 1 && g.nodes[R_PING].cycle == 1 && g.nodes[R_PONG].cycle == 1);
	CHECK(g.nodes[R_FIB].cycle == 0 && g.cycles[1].nmembers == 2);
	CHECK(g.cycles[1].ncalls == 9 && g.cycles[1].self_calls == 35);
	CHECK(g.cycles[1].self == 8 && g.cycles[1].child == 10);
	CHECK(g.nodes[R_PING].self == 3 && g.nodes[R_PING].child == 10);
	CHECK(g.nodes[R_PONG].self == 5 && g.nodes[R_PONG].child == 0);
	const struct model_gprof_arc *tp = arc_of(&g, R_TOP, R_PING);
	CHECK(tp->self == 5 && tp->child == 10);
	CHECK(arc_of(&g, R_TOP2, R_PONG)->self == 3);
	CHECK(arc_of(&g, R_PING, R_PONG)->self == 0 && arc_of(&g, R_PONG, R_PING)->child == 0);
	CHECK(arc_of(&g, R_PING, R_LEAF)->self == 10);
	model_gprof_free(&g);
}

/* ---- random graphs against brute force ------------------------------- */

enum { RN = 12 };
static bool reach[RN][RN];
static int disc[RN], disc_counter;
static uint32_t adj_order[RN][RN * RN];    /* children in gprof's order */
static int nadj[RN];

static void ref_dfs(int v)
{
	disc[v] = disc_counter++;
	for (int i = 0; i < nadj[v]; i++)
		if (disc[adj_order[v][i]] < 0)
			ref_dfs((int)adj_order[v][i]);
}

static void cycles_against_reachability(void)
{
	for (int round = 0; round < 300; round++) {
		struct model_gprof g;
		uint32_t n = 1 + rnd(RN);
		unsigned narcs = rnd(3 * n);
		CHECK(model_gprof_init(&g, n, 100) == 0);
		memset(reach, 0, sizeof(reach));
		for (unsigned i = 0; i < narcs; i++) {
			uint32_t a = rnd(n), b = rnd(n);
			model_gprof_arc_add(&g, a, b, 1 + rnd(5), true);
			reach[a][b] = true;
		}
		for (uint32_t v = 0; v < n; v++)
			g.nodes[v].self = rnd(4);
		CHECK(model_gprof_propagate(&g) == 0);
		for (uint32_t k = 0; k < n; k++)
			for (uint32_t i = 0; i < n; i++)
				for (uint32_t j = 0; j < n; j++)
					reach[i][j] |= reach[i][k] && reach[k][j];
		/* members of one cycle iff mutually reachable */
		for (uint32_t a = 0; a < n; a++)
			for (uint32_t b = 0; b < n; b++) {
				bool same = a != b && reach[a][b] && reach[b][a];
				if (a != b)
					CHECKF(same == (g.nodes[a].cycle && g.nodes[a].cycle == g.nodes[b].cycle),
					       "round %d: %u %u", round, a, b);
			}
		/* callees complete first; heads are the first reached by gprof's
		 * search (roots in node order, each node's arcs newest first);
		 * cycles are numbered by their heads' node order */
		for (size_t i = 0; i < g.narcs; i++) {
			const struct model_gprof_arc *a = &g.arcs[i];
			bool same = a->caller == a->callee ||
				    (g.nodes[a->caller].cycle && g.nodes[a->caller].cycle == g.nodes[a->callee].cycle);
			if (!same)
				CHECK(g.nodes[a->caller].top > g.nodes[a->callee].top);
		}
		memset(nadj, 0, sizeof(nadj));
		for (size_t i = g.narcs; i-- > 0;)
			adj_order[g.arcs[i].caller][nadj[g.arcs[i].caller]++] = g.arcs[i].callee;
		for (uint32_t v = 0; v < n; v++)
			disc[v] = -1;
		disc_counter = 0;
		for (uint32_t v = 0; v < n; v++)
			if (disc[v] < 0)
				ref_dfs((int)v);
		uint32_t prev_head = 0;
		for (uint32_t c = 1; c <= g.ncycles; c++) {
			uint32_t head = g.cycles[c].first, k = 0;
			for (uint32_t v = g.cycles[c].first; v != MODEL_GPROF_NONE; v = g.nodes[v].member_next, k++) {
				CHECK(g.nodes[v].cycle == c);
				CHECK(disc[v] >= disc[head]);
			}
			CHECK(k == g.cycles[c].nmembers && k >= 2);
			CHECK(c == 1 || head > prev_head);
			prev_head = head;
		}
		model_gprof_free(&g);
	}
}

/* incl(v) by enumerating every path v -> ... -> w: each path carries w's
 * self time times count/ncalls of each arc on it. */
static double paths_from(const struct model_gprof *g, uint32_t v, const uint64_t *ncalls)
{
	double t = g->nodes[v].self;

	for (size_t i = 0; i < g->narcs; i++) {
		const struct model_gprof_arc *a = &g->arcs[i];
		if (a->caller == v && a->callee != v)
			t += (double)a->count / (double)ncalls[a->callee] * paths_from(g, a->callee, ncalls);
	}
	return t;
}

static void propagation_against_paths(void)
{
	for (int round = 0; round < 200; round++) {
		struct model_gprof g;
		uint32_t n = 1 + rnd(8);
		uint64_t ncalls[8] = { 0 };
		CHECK(model_gprof_init(&g, n, 100) == 0);
		for (unsigned i = 0, k = rnd(3 * n); i < k; i++) {
			uint32_t a = rnd(n), b = rnd(n);
			if (a > b) {
				uint32_t t = a;
				a = b;
				b = t;
			}
			uint64_t c = 1 + rnd(1000);
			model_gprof_arc_add(&g, a, b, c, true);      /* a DAG (plus self arcs) */
			if (a != b)
				ncalls[b] += c;
		}
		for (uint32_t v = 0; v < n; v++)
			g.nodes[v].self = rnd(100) / 7.0;
		CHECK(model_gprof_propagate(&g) == 0);
		for (uint32_t v = 0; v < n; v++) {
			double want = paths_from(&g, v, ncalls);
			const struct model_gprof_node *nd = &g.nodes[v];
			CHECKF(near(nd->prop_self + nd->prop_child, want), "round %d node %u: %g != %g",
			       round, v, nd->prop_self + nd->prop_child, want);
			/* the arcs into v hand out exactly v's time */
			double in = 0;
			for (size_t i = 0; i < g.narcs; i++)
				if (g.arcs[i].callee == v && g.arcs[i].caller != v)
					in += g.arcs[i].self + g.arcs[i].child;
			if (ncalls[v])
				CHECKF(near(in, want), "round %d node %u: arcs %g, time %g", round, v, in, want);
		}
		model_gprof_free(&g);
	}
}

static void stacks_against_scan(void)
{
	for (int round = 0; round < 200; round++) {
		enum { NF = 7 };
		bool r[NF][NF] = { { false } };
		struct model_gprof g;
		model_reset();
		for (int i = 0; i < NF; i++) {
			char name[8];
			snprintf(name, sizeof(name), "f%d", i);
			add_func(name);
		}
		for (unsigned e = 0, ne = 1 + rnd(12); e < ne; e++) {
			uint32_t fr[8], n = 1 + rnd(8);
			for (uint32_t j = 0; j < n; j++)
				fr[j] = 1 + rnd(NF - 1);
			for (uint32_t j = 1; j < n; j++)
				r[fr[j - 1]][fr[j]] = true;
			add_entry(fr, n, 1 + rnd(1000));
		}
		CHECK(model_gprof_from_model(&g, &m, MODEL_CPU, MODEL_GPROF_STACKS) == 0);
		for (int k = 0; k < NF; k++)
			for (int i = 0; i < NF; i++)
				for (int j = 0; j < NF; j++)
					r[i][j] |= r[i][k] && r[k][j];
		/* component of a function: the smallest function it is mutually
		 * reachable with (a cycle), or itself */
		int comp[NF];
		for (int i = 0; i < NF; i++) {
			comp[i] = i;
			for (int j = 0; j < NF; j++)
				if (j != i && r[i][j] && r[j][i] && j < comp[i])
					comp[i] = j;
		}
		for (int f = 1; f < NF; f++) {
			double incl = 0, cyc = 0;
			bool cycle = false;
			for (int j = 1; j < NF; j++)
				cycle |= j != f && comp[j] == comp[f];
			for (size_t i = 0; i < m.nentries; i++) {
				bool has = false, has_c = false;
				for (uint32_t j = 0; j < m.entries[i].n; j++) {
					has |= m.entries[i].funcs[j] == (uint32_t)f;
					has_c |= comp[m.entries[i].funcs[j]] == comp[f];
				}
				incl += has ? (double)model_entry_value(&m.entries[i], MODEL_CPU) : 0;
				cyc += has_c ? (double)model_entry_value(&m.entries[i], MODEL_CPU) : 0;
			}
			const struct model_gprof_node *nd = &g.nodes[f];
			CHECK(cycle == (nd->cycle != 0));
			CHECK(nd->self + nd->child <= g.total);
			if (!cycle)
				CHECKF(nd->self + nd->child == incl, "round %d f%d: %g != %g", round, f,
				       nd->self + nd->child, incl);
			else
				CHECK(g.cycles[nd->cycle].self + g.cycles[nd->cycle].child == cyc);
		}
		/* an arc between components carries the stacks holding it once */
		for (size_t i = 0; i < g.narcs; i++) {
			const struct model_gprof_arc *a = &g.arcs[i];
			double want = 0;
			if (comp[a->caller] == comp[a->callee]) {
				CHECK(a->self == 0 && a->child == 0);
				continue;
			}
			for (size_t e = 0; e < m.nentries; e++) {
				const struct model_entry *en = &m.entries[e];
				for (uint32_t j = 0; j + 1 < en->n; j++)
					if (en->funcs[j] == a->caller && en->funcs[j + 1] == a->callee) {
						want += (double)model_entry_value(en, MODEL_CPU);
						break;
					}
			}
			CHECKF(a->self + a->child == want, "round %d arc %u->%u", round, a->caller, a->callee);
		}
		model_gprof_free(&g);
	}
}

/* ---- the listing ----------------------------------------------------- */

static char *listing(enum report_format fmt, enum model_gprof_method method)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	struct report_opts o = { .fmt = fmt, .metrics = { MODEL_CPU }, .nmetrics = 1 };
	struct report_doc *d = report_doc_new(f, fmt);

	CHECK(report_gprof(d, &m, &o, method) == 0);
	report_doc_end(d);
	fclose(f);
	return buf;
}

static void listing_lines(void)
{
	trap_model();
	char *t = listing(REPORT_TEXT, MODEL_GPROF_STACKS);
	CHECK(strstr(t, "time per arc: measured from 2 sampled call stacks\n"));
	CHECK(strstr(t, "100.00      1.00     1.00  3000030     0.00     0.00  f\n"));
	/* callers by time, ties by count; callees the other way round */
	CHECK(strstr(t, "                0.50    0.00      30/3000030     main [2]\n"
			"                0.50    0.00 3000000/3000030     g [3]\n"
			"[1]    100.0    1.00    0.00 3000030         f [1]\n"));
	CHECK(strstr(t, "[2]    100.0    0.00    1.00                 main [2]\n"
			"                0.50    0.00      30/3000030     f [1]\n"
			"                0.00    0.50      30/30          g [3]\n"));
	CHECK(strstr(t, "                0.00    1.00                     <spontaneous>\n"
			"[2]    100.0    0.00    1.00                 main [2]\n"));
	CHECK(strstr(t, "\f\nIndex by function name\n\n   [1] f                       [3] g\n"));
	free(t);
	t = listing(REPORT_TEXT, MODEL_GPROF_PROPAGATE);
	CHECK(strstr(t, "time per arc: propagated from call counts (gprof's average-call-time assumption)"));
	CHECK(strstr(t, "                0.00    0.00      30/3000030     main ["));
	CHECK(strstr(t, "                1.00    0.00 3000000/3000030     g [3]\n"));
	free(t);
	t = listing(REPORT_JSON, MODEL_GPROF_STACKS);
	CHECK(strstr(t, "\"method\": \"stacks\""));
	CHECK(strstr(t, "{\"caller\": \"main\", \"caller_index\": 2, \"callee\": \"f\", \"callee_index\": 1, "
			"\"count\": 30, \"self_ns\": 500000000, \"children_ns\": 0}"));
	free(t);
	t = listing(REPORT_CSV, MODEL_GPROF_STACKS);
	CHECK(strstr(t, "index,pct_time,self_ns,children_ns,called,self_calls,cycle,name\n"
			"1,100.00,1000000000,0,3000030,0,0,f\n"));
	free(t);
}

/* The process's CPU time: the limit is about the algorithm, and on a shared
 * machine (load 6-13 on 2 cores) wall time is several times longer. */
static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

/* 10^5 functions, 10^6 random arcs: graph, propagation and a listing of
 * 2 * 10^6 arc lines (140 MB).  Linear or n log n throughout: about 2 s on
 * a loaded 2-core machine where plain fprintf of those lines alone takes
 * 1.6 s; the bound catches anything quadratic (which takes hours). */
static void speed(void)
{
	enum { N = 100000, A = 1000000 };
	struct model_gprof g;
	char (*names)[16] = malloc(N * sizeof(*names));
	double t0 = now();

	CHECK(model_gprof_init(&g, N, 100) == 0);
	for (uint32_t v = 0; v < N; v++) {
		snprintf(names[v], sizeof(names[v]), "fn%u", v);
		g.nodes[v].name = g.nodes[v].sort_name = names[v];
		g.nodes[v].self = rnd(50);
		g.total += g.nodes[v].self;
	}
	for (uint32_t i = 0; i < A; i++)
		model_gprof_arc_add(&g, rnd(N), rnd(N), 1 + rnd(100), true);
	double t1 = now();
	CHECK(model_gprof_propagate(&g) == 0);
	double t2 = now();
	FILE *f = fopen("/dev/null", "w");
	struct report_doc *d = report_doc_new(f, REPORT_TEXT);
	report_gprof_listing(d, REPORT_TEXT, &g, true);
	report_doc_end(d);
	fclose(f);
	double dt = now() - t0;
#if defined(__SANITIZE_ADDRESS__)
	double limit = 60.0;
#else
	double limit = 6.0;
#endif
	CHECKF(dt < limit, "%.2f s", dt);
	printf("  10^5 functions, 10^6 arcs: %.2f s (arcs %.2f, propagation %.2f, listing %.2f), "
	       "%u cycles\n", dt, t1 - t0, t2 - t1, now() - t2, g.ncycles);
	model_gprof_free(&g);
	free(names);
}

int main(void)
{
	RUN(trap_measured);
	RUN(trap_propagated);
	RUN(no_counts);
	RUN(recursion_and_cycles);
	RUN(cycles_against_reachability);
	RUN(propagation_against_paths);
	RUN(stacks_against_scan);
	RUN(listing_lines);
	RUN(speed);
	model_free(&m);
	TEST_EXIT();
}
