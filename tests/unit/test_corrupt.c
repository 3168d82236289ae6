/* SPDX-License-Identifier: MIT
 *
 * test_corrupt.c — one corrupt byte costs at most the block that holds it,
 * and never silently (the rule tests/fuzz/flip.c checks).
 *
 * tests/data/every.exp is a real recorded experiment with every record type
 * the collector writes (tests/data/every.c, make-every.sh; MPI's have their
 * own tests); the MIRROR of a staging block comes from
 * tests/fuzz/corpus/seed-heap-mirror.dat (compaction leaves none), and the
 * SAMPLE and STACK records older writers wrote are covered by
 * test_col_format's hand-made files.  For
 * each record type, two records are picked (the first of a block, and one
 * inside a block), and each of their first 48 bytes is changed in three
 * ways (all bits, the lowest, the highest); every fifth time the model and
 * reports are built too.  Run from the project root.
 */
#include "../fuzz/flip.c"
#include "symbols/sym.h"
#include "testhelp.h"

static long flips;

/* Flip the picked records of every type in experiment `from`; returns the
 * types covered (a bit per type). */
static uint64_t flip_every_type(const char *from)
{
	struct flip_exp x;
	char why[1024];
	uint64_t covered = 0;

	if (flip_setup(&x, from, why, sizeof(why)) != 0) {
		CHECKF(0, "%s", why);
		flip_free(&x);
		return 0;
	}
	for (uint32_t type = 1; type < 64; type++) {
		size_t pick[2] = { SIZE_MAX, SIZE_MAX }, n = 0;
		for (size_t k = 0; k < x.nrecs; k++) {
			const struct flip_rec *r = &x.recs[k];
			size_t at = r->offset % x.block[r->file];
			if (r->type != type)
				continue;
			if (pick[0] == SIZE_MAX && (at == 0 || at == EXP_HEADER_BYTES))
				pick[0] = k;            /* the first of its block */
			if (n++ == 0 || (n == 5 && at))
				pick[1] = k;            /* one inside a block */
		}
		if (!n)
			continue;
		covered |= 1ull << type;
		for (int p = 0; p < 2; p++) {
			if (pick[p] == SIZE_MAX || (p == 1 && pick[1] == pick[0]))
				continue;
			const struct flip_rec *r = &x.recs[pick[p]];
			static const uint8_t masks[] = { 0xff, 0x01, 0x80 };
			for (uint32_t at = 0; at < r->len && at < 48; at++)
				for (int m = 0; m < 3; m++) {
					if (flip_check(&x, r->file, r->offset + at, masks[m], ++flips % 5 == 0,
						       why, sizeof(why)))
						CHECKF(0, "%s: record type %u at 0x%zx, byte %u ^ 0x%02x: %s",
						       exp_dir_file((size_t)r->file), type, r->offset, at,
						       masks[m], why);
				}
		}
	}
	flip_free(&x);
	return covered;
}

static void one_byte_costs_at_most_its_block(void)
{
	uint64_t covered = flip_every_type("tests/data/every.exp");

	/* The staging-block MIRROR: the corpus seed (its first byte picks the
	 * file in fuzz_experiment; the rest is a heap.dat). */
	char mirror[] = "/tmp/tally-mirror.XXXXXX", path[512];
	static uint8_t buf[1 << 16];
	FILE *f = fopen("tests/fuzz/corpus/seed-heap-mirror.dat", "rb");
	CHECKF(f != NULL, "the corpus seed (run from the project root)");
	if (f && mkdtemp(mirror)) {
		size_t n = fread(buf, 1, sizeof(buf), f);
		snprintf(path, sizeof(path), "%s/%s", mirror, exp_file_name(EXP_FILE_HEAP));
		FILE *h = fopen(path, "wb");
		fwrite(buf + 1, 1, n - 1, h);
		fclose(h);
		snprintf(path, sizeof(path), "%s/%s", mirror, EXP_LOG_NAME);
		h = fopen(path, "w");
		fputs("pid: 1\n", h);
		fclose(h);
		covered |= flip_every_type(mirror);
		snprintf(path, sizeof(path), "rm -rf %s", mirror);
		if (system(path) != 0)
			abort();
	}
	if (f)
		fclose(f);
	static const uint32_t want[] = { EXP_REC_SAMPLE_RUN, EXP_REC_STACK_NODE, EXP_REC_MAP,
					 EXP_REC_UNMAP, EXP_REC_THREAD_START, EXP_REC_THREAD_END,
					 EXP_REC_THREAD_COST, EXP_REC_HEAP, EXP_REC_HEAP_FREE,
					 EXP_REC_SYNC, EXP_REC_IO, EXP_REC_FD_NAME, EXP_REC_ARC_TABLE,
					 EXP_REC_MIRROR };
	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++)
		CHECKF(covered & (1ull << want[i]), "no record of type %u in the test data", want[i]);
	printf("  %ld flips\n", flips);
}

/* The recorded paths are not this machine's: symbols do not matter here. */
static void quiet(const char *msg)
{
	(void)msg;
}

int main(void)
{
	sym_set_warning_handler(quiet);
	RUN(one_byte_costs_at_most_its_block);
	TEST_EXIT();
}
