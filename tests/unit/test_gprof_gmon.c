/* SPDX-License-Identifier: MIT
 *
 * test_gprof_gmon.c — the gmon.out reader (gmon_read.c) and the graph of a
 * gmon profile (model_gprof_from_gmon): records parsed to the byte, files
 * summed as gprof -s sums them, one-line errors with file and offset for
 * histograms that disagree, every truncation and 20,000 random mutations
 * read or rejected without a crash (run under ASan by make check), and
 * histogram bins and arcs credited to the functions of this very binary.
 */
#include <stdlib.h>
#include <string.h>

#include "format/gmon_read.h"
#include "model/model_gprof.h"
#include "symbols/sym.h"
#include "testhelp.h"

struct buf {
	uint8_t *p;
	size_t len;
};

static void put(struct buf *b, uint64_t v, int n)
{
	b->p = realloc(b->p, b->len + (size_t)n);
	for (int i = 0; i < n; i++)
		b->p[b->len++] = (uint8_t)(v >> (8 * i));
}

static void header(struct buf *b)
{
	put(b, 0x6e6f6d67, 4);           /* "gmon" */
	put(b, 1, 4);
	put(b, 0, 4);
	put(b, 0, 4);
	put(b, 0, 4);
}

/* A histogram of [low, low + 2 * nbins): one 2-byte unit per bin. */
static void hist(struct buf *b, uint64_t low, uint32_t nbins, uint32_t rate,
		 const uint16_t *bins)
{
	put(b, GMON_TAG_TIME_HIST, 1);
	put(b, low, 8);
	put(b, low + 2 * (uint64_t)nbins, 8);
	put(b, nbins, 4);
	put(b, rate, 4);
	const char dim[16] = "seconds";
	for (int i = 0; i < 15; i++)
		put(b, (uint8_t)dim[i], 1);
	put(b, 's', 1);
	for (uint32_t i = 0; i < nbins; i++)
		put(b, bins ? bins[i] : 0, 2);
}

static void arc(struct buf *b, uint64_t from, uint64_t self, uint32_t count)
{
	put(b, GMON_TAG_CG_ARC, 1);
	put(b, from, 8);
	put(b, self, 8);
	put(b, count, 4);
}

/* The sample profile: a histogram, two arcs, two basic-block counts.
 * Records start at 20 (hist), 20 + 41 + 2 * 8 = 77 and 98 (arcs), 119 (bb). */
static struct buf sample(void)
{
	struct buf b = { 0 };
	uint16_t bins[8] = { 0, 0, 0, 5, 0, 0, 0, 7 };

	header(&b);
	hist(&b, 0x1000, 8, 100, bins);
	arc(&b, 0x1004, 0x100a, 3);
	arc(&b, 0x1008, 0x100a, 4000000000u);
	put(&b, GMON_TAG_BB_COUNT, 1);
	put(&b, 2, 4);
	put(&b, 0x1002, 8);
	put(&b, 11, 8);
	put(&b, 0x1006, 8);
	put(&b, 12, 8);
	return b;
}

static void parse_and_sum(void)
{
	struct buf b = sample();
	struct gmon_profile p = { 0 };
	char err[512];

	CHECK(b.len == 20 + 41 + 16 + 2 * 21 + 5 + 32);
	CHECK(gmon_profile_add(&p, "one", b.p, b.len, err, sizeof(err)) == 0);
	CHECK(p.nfiles == 1 && p.nhists == 1 && p.narcs == 2 && p.nbbs == 2);
	CHECK(p.hists[0].low_pc == 0x1000 && p.hists[0].high_pc == 0x1010);
	CHECK(p.hists[0].nbins == 8 && p.hists[0].rate_hz == 100);
	CHECK(!strcmp(p.hists[0].dimen, "seconds") && p.hists[0].dimen_abbrev == 's');
	CHECK(p.hists[0].bins[3] == 5 && p.hists[0].bins[7] == 7 && p.samples == 12);
	CHECK(p.arcs[0].from_pc == 0x1004 && p.arcs[0].self_pc == 0x100a && p.arcs[0].count == 3);
	CHECK(p.arcs[1].count == 4000000000u);
	CHECK(p.bbs[1].addr == 0x1006 && p.bbs[1].count == 12);
	/* a second run of the same program: bins add up, arcs are appended */
	CHECK(gmon_profile_add(&p, "two", b.p, b.len, err, sizeof(err)) == 0);
	CHECK(p.nfiles == 2 && p.nhists == 1 && p.narcs == 4 && p.samples == 24);
	CHECK(p.hists[0].bins[3] == 10 && p.hists[0].bins[7] == 14);
	CHECK(!strcmp(p.first, "one"));
	gmon_profile_free(&p);
	free(b.p);
}

static void disagreeing_histograms(void)
{
	struct buf a = sample(), b = { 0 }, c = { 0 }, d = { 0 };
	struct gmon_profile p = { 0 };
	char err[512];

	CHECK(gmon_profile_add(&p, "a.out", a.p, a.len, err, sizeof(err)) == 0);
	header(&b);
	hist(&b, 0x1000, 8, 1000, NULL);           /* another rate */
	CHECK(gmon_profile_add(&p, "fast.out", b.p, b.len, err, sizeof(err)) == -1);
	CHECKF(strstr(err, "fast.out: offset 0x14: histogram at 1000 Hz") && strstr(err, "a.out"),
	       "%s", err);
	header(&c);
	hist(&c, 0x1008, 8, 100, NULL);            /* overlapping range */
	CHECK(gmon_profile_add(&p, "other.out", c.p, c.len, err, sizeof(err)) == -1);
	CHECKF(strstr(err, "other.out: offset 0x14: histogram of 0x1008-0x1018 overlaps"), "%s", err);
	header(&d);
	put(&d, 9, 1);                              /* unknown tag */
	CHECK(gmon_profile_add(&p, "d", d.p, d.len, err, sizeof(err)) == -1);
	CHECKF(!strcmp(err, "d: offset 0x14: unknown record tag 9"), "%s", err);
	CHECK(gmon_profile_add(&p, "e", (const uint8_t *)"gmoo", 4, err, sizeof(err)) == -1);
	CHECK(strstr(err, "e: offset 0x0: not a gmon.out file"));
	CHECK(gmon_profile_read(&p, "/nonexistent/gmon.out", err, sizeof(err)) == -1);
	CHECK(strstr(err, "/nonexistent/gmon.out: No such file"));
	gmon_profile_free(&p);
	free(a.p);
	free(b.p);
	free(c.p);
	free(d.p);
}

/* Every prefix of the file: whole records read, anything else rejected
 * with the offset of the cut record. */
static void every_truncation(void)
{
	struct buf b = sample();
	const size_t ends[] = { 20, 77, 98, 119, b.len };
	char err[512];

	for (size_t len = 0; len <= b.len; len++) {
		struct gmon_profile p = { 0 };
		uint8_t *copy = malloc(len ? len : 1);     /* exact size: ASan sees overreads */
		bool whole = false;
		memcpy(copy, b.p, len);
		for (size_t i = 0; i < sizeof(ends) / sizeof(ends[0]); i++)
			whole |= len == ends[i];
		err[0] = 0;
		int rc = gmon_profile_add(&p, "cut", copy, len, err, sizeof(err));
		CHECKF(rc == (whole ? 0 : -1), "length %zu: rc %d (%s)", len, rc, err);
		if (rc)
			CHECKF(!strncmp(err, "cut: offset 0x", 14) && !strchr(err, '\n'), "%s", err);
		gmon_profile_free(&p);
		free(copy);
	}
	free(b.p);
}

static void random_mutations(void)
{
	struct buf b = sample();
	unsigned seed = 7;
	int rejected = 0;

	for (int round = 0; round < 20000; round++) {
		uint8_t *m = malloc(b.len);
		size_t len = b.len;
		struct gmon_profile p = { 0 };
		char err[512] = "";
		memcpy(m, b.p, b.len);
		for (int k = 0, nk = 1 + round % 4; k < nk; k++) {
			seed = seed * 1103515245u + 12345u;
			size_t at = (seed >> 8) % len;
			switch ((seed >> 4) % 4) {
			case 0: m[at] ^= (uint8_t)(1u << (seed >> 20) % 8); break;
			case 1: m[at] = (uint8_t)(seed >> 16); break;
			case 2: m[at] = 0xff; break;
			default: len = at + 1; break;
			}
		}
		if (gmon_profile_add(&p, "mutant", m, len, err, sizeof(err))) {
			rejected++;
			CHECKF(!strncmp(err, "mutant: offset 0x", 17), "%s", err);
		}
		gmon_profile_free(&p);
		free(m);
	}
	CHECK(rejected > 1000 && rejected < 20000);
	free(b.p);
}

/* Two functions of this test, whose link-time addresses the symbolizer
 * gives: a histogram sample and an arc land in them. */
__attribute__((noinline, used)) int gp_target_callee(int x);
__attribute__((noinline, used)) int gp_target_caller(int x);
__attribute__((noinline, used)) int gp_target_callee(int x)
{
	__asm__ volatile("" : "+r"(x));
	return x * 3 + 1;
}
__attribute__((noinline, used)) int gp_target_caller(int x)
{
	__asm__ volatile("" : "+r"(x));
	return gp_target_callee(x) + gp_target_callee(x + 1);
}

static const struct sym_func *find(struct sym_object *o, const char *name)
{
	const struct sym_func *f;
	size_t n = sym_object_functions(o, &f);

	for (size_t i = 0; i < n; i++)
		if (!strcmp(f[i].name, name))
			return &f[i];
	return NULL;
}

static void graph_of_this_binary(void)
{
	char err[512];
	struct sym_object *o = sym_object_get("/proc/self/exe", NULL, 0, NULL, err, sizeof(err));
	const struct sym_func *callee, *caller;
	struct gmon_profile p = { 0 };
	struct model_gprof g;
	struct model_gprof_gmon_stats st;
	struct buf b = { 0 };

	if (!o)
		SKIP("cannot read /proc/self/exe");
	callee = find(o, "gp_target_callee");
	caller = find(o, "gp_target_caller");
	CHECK(callee && caller && callee->size >= 5 && caller->size >= 8);
	if (!callee || !caller)
		return;
	uint64_t low = callee->start & ~(uint64_t)1;
	uint16_t bins[4] = { 0, 9, 0, 0 };          /* bin 1: [low + 2, low + 4), inside */
	header(&b);
	hist(&b, low, 4, 100, bins);
	arc(&b, caller->start + 6, callee->start + 3, 42);
	arc(&b, 0x10, callee->start + 3, 1);        /* a call site outside every function */
	CHECK(gmon_profile_add(&p, "self.out", b.p, b.len, err, sizeof(err)) == 0);
	CHECK(model_gprof_from_gmon(&g, &p, o, &st, err, sizeof(err)) == 0);
	const struct model_gprof_node *ne = &g.nodes[callee->id], *nr = &g.nodes[caller->id];
	CHECKF(ne->self == 9.0, "%g", ne->self);
	CHECK(g.total == 9.0 && g.units_per_sec == 100 && g.bin_bytes == 2);
	CHECK(ne->ncalls == 43 && st.unknown_arcs == 1 && st.outside_samples == 0);
	const struct sym_func *funcs;
	size_t nf = sym_object_functions(o, &funcs);
	CHECK(!strcmp(g.nodes[nf].name, "<Unknown>"));
	/* gprof's table holds data_start (weak, in .data): a node of its own,
	 * numbered though it has nothing, after the called ones. */
	bool ghost = false;
	for (uint32_t v = (uint32_t)nf + 1; v < g.nnodes; v++)
		if (!strcmp(g.nodes[v].name, "data_start"))
			ghost = g.nodes[v].numbered && g.nodes[v].index > ne->index && g.nodes[v].ncalls == 0;
	CHECK(ghost);
	/* caller's share: 42 of 43 calls */
	CHECK(nr->child == 9.0 * (42.0 / 43.0) && nr->prop_child == nr->child);
	CHECK(g.method == MODEL_GPROF_PROPAGATE && g.has_counts);
	model_gprof_free(&g);
	gmon_profile_free(&p);
	free(b.p);
	sym_objects_free();
	CHECK(gp_target_caller(1) == 11);
}

int main(void)
{
	RUN(parse_and_sum);
	RUN(disagreeing_histograms);
	RUN(every_truncation);
	RUN(random_mutations);
	RUN(graph_of_this_binary);
	TEST_EXIT();
}
