/* SPDX-License-Identifier: MIT
 *
 * test_col_compact.c — write -> compact -> read: files written by the
 * collector's writer (several cursors, direct runs and staging windows,
 * records of several sizes, an unknown record type, large arc tables) come
 * back from exp_file_compact with the same records in the same order, packed
 * exactly as the block rules say, without MIRROR records, arc tables cut to
 * their used slots, a small file over itself and a larger one beside it; a
 * big file is only trimmed; a corrupt one is left alone.
 * (Linked with the collector's objects for the writer: hence test_col_.)
 */
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "format/exp_compact.h"
#include "format/exp_read.h"
#include "format/exp_write.h"
#include "testhelp.h"

static char dir[64];

/* Every record of `path` in reading order, concatenated; *n records. */
static uint8_t *records_of(const char *path, size_t *bytes, size_t *n, struct exp_file_header *h)
{
	struct exp_file f;
	struct exp_rec r;
	struct exp_error err;
	uint8_t *all = NULL;
	size_t used = 0, cap = 0;

	*n = 0;
	if (exp_file_open(&f, path, 0, &err) != 0)
		return NULL;
	*h = f.hdr;
	while (exp_file_next(&f, &r, &err) == 1) {
		if (used + r.len > cap) {       /* doubling: ASan's realloc always copies */
			cap = (used + r.len) * 2;
			uint8_t *q = realloc(all, cap);
			if (!q)
				abort();
			all = q;
		}
		memcpy(all + used, r.p, r.len);
		used += r.len;
		(*n)++;
	}
	exp_file_close(&f);
	*bytes = used;
	return all;
}

static size_t file_size(const char *path)
{
	struct stat st;
	return stat(path, &st) == 0 ? (size_t)st.st_size : 0;
}

/* Record i of cursor k: a sample of 32..64 bytes, or every 97th an
 * unknown type the compactor must keep as it is. */
static int append(struct exp_file_writer *w, struct exp_cursor *c, uint32_t k, uint64_t i,
		  uint32_t *len_out)
{
	uint8_t rec[64] = { 0 };
	struct exp_sample s = { .tid = k, .time_ns = i, .stack_id = (uint32_t)i % 5 + 1 };
	uint32_t len = 32 + 8 * (uint32_t)((i + k) % 5);
	uint32_t type = i % 97 == 3 ? 200 : EXP_REC_SAMPLE;

	memcpy(rec, &s, sizeof(s));
	memset(rec + sizeof(s), 0xa0 + (int)k, len - sizeof(s));
	*len_out = len;
	return exp_record_append_sigsafe(w, c, type, rec, len);
}

/* Where the records of these lengths end when packed from the header on. */
static size_t packed_size(const uint32_t *lens, size_t n, size_t bs)
{
	size_t pos = EXP_HEADER_BYTES;

	for (size_t i = 0; i < n; i++) {
		size_t in_block = pos % bs;
		if (in_block && lens[i] > bs - in_block)
			pos += bs - in_block;
		pos += lens[i];
	}
	return pos;
}

static size_t file_size_fd(int fd)
{
	struct stat st;
	return fstat(fd, &st) == 0 ? (size_t)st.st_size : 0;
}

static uint64_t inode_of(const char *path)
{
	struct stat st;
	return stat(path, &st) == 0 ? (uint64_t)st.st_ino : 0;
}

/* `per` records from each of 3 busy cursors and 10 from a quiet one. */
static void pack_densely(uint64_t per)
{
	struct exp_file_writer w;
	struct exp_cursor c[4] = { { 0 } };
	int fd = open(dir, O_RDONLY | O_DIRECTORY);
	char path[128];

	CHECK(exp_writer_open(&w, fd, "samples.dat", EXP_FILE_SAMPLES, 1) == 0);
	for (uint64_t i = 0; i < per; i++) {
		uint32_t len;
		for (uint32_t k = 0; k < 3; k++)
			CHECK(append(&w, &c[k], k + 1, i, &len) == 0);
		if (i < 10)                     /* a quiet thread: one block, mostly empty */
			CHECK(append(&w, &c[3], 4, i, &len) == 0);
	}
	for (int k = 0; k < 4; k++)
		exp_cursor_release_sigsafe(&c[k]);
	exp_writer_close(&w);
	close(fd);

	snprintf(path, sizeof(path), "%s/samples.dat", dir);
	struct exp_file_header h0, h1;
	size_t b0, b1, n0, n1, size0 = file_size(path);
	uint8_t *before = records_of(path, &b0, &n0, &h0);
	uint64_t ino0 = inode_of(path);
	struct exp_error err;
	int rc = exp_file_compact(path, &err);
	CHECKF(rc == 0, "%d %s", rc, err.msg);
	/* A small file is rewritten over itself, a larger one beside it. */
	bool small = size0 <= EXP_COMPACT_IN_PLACE_MAX;
	CHECKF((inode_of(path) == ino0) == small, "%zu bytes: compacted %s", size0,
	       inode_of(path) == ino0 ? "in place" : "beside");
	uint8_t *after = records_of(path, &b1, &n1, &h1);

	CHECKF(n0 == 3 * per + 10 && n1 == n0, "%zu records before, %zu after", n0, n1);
	CHECK(b0 == b1 && before && after && memcmp(before, after, b0) == 0);
	CHECK(memcmp(&h0, &h1, sizeof(h0)) == 0);
	/* Exactly as packed by the rules, and smaller than the original. */
	uint32_t *lens = calloc(n1, sizeof(*lens));
	for (size_t i = 0, off = 0; lens && i < n1; i++) {
		uint32_t word;
		memcpy(&word, after + off, 4);
		lens[i] = EXP_REC_LEN(word);
		off += lens[i];
	}
	size_t want = lens ? packed_size(lens, n1, h1.block_bytes) : 0;
	CHECKF(file_size(path) == want && want < size0, "compacted %zu bytes, packed %zu, was %zu",
	       file_size(path), want, size0);
	/* No block starts with a MIRROR record any more. */
	int mfd = open(path, O_RDONLY);
	for (size_t off = h1.block_bytes; off < want; off += h1.block_bytes) {
		uint32_t word = 0;
		CHECK(pread(mfd, &word, 4, (off_t)off) == 4);
		CHECKF(EXP_REC_TYPE(word) != EXP_REC_MIRROR, "MIRROR at 0x%zx", off);
	}
	close(mfd);
	/* Compacting again changes nothing. */
	CHECK(exp_file_compact(path, &err) == 0 && file_size(path) == want);
	CHECK(access(path, F_OK) == 0);
	snprintf(path, sizeof(path), "%s/samples.dat.compact", dir);
	CHECK(access(path, F_OK) != 0);
	free(lens);
	free(before);
	free(after);
}

static void samples_pack_densely(void)
{
	pack_densely(6000);     /* ~13 blocks a cursor: runs, then windows; > 1 MiB */
}

static void small_file_packs_in_place(void)
{
	pack_densely(1000);     /* a few blocks a cursor: under EXP_COMPACT_IN_PLACE_MAX */
}

/* A file of one block (a short process's threads.dat) is left as it is:
 * same inode, same size, same records; one of two blocks is compacted. */
static void one_block_left_alone(void)
{
	for (int nblocks = 1; nblocks <= 2; nblocks++) {
		struct exp_file_writer w;
		struct exp_cursor c = { 0 };
		int fd = open(dir, O_RDONLY | O_DIRECTORY);
		char path[128];
		uint32_t len, per_block = 0;
		uint64_t i = 0;

		CHECK(exp_writer_open(&w, fd, "threads.dat", EXP_FILE_THREADS, 1) == 0);
		/* Records until the cursor's blocks hold nblocks of them. */
		for (; i < 10 || (nblocks == 2 && file_size_fd(w.fd) < 2 * (size_t)w.block_bytes); i++)
			CHECK(append(&w, &c, 1, i, &len) == 0);
		per_block = w.block_bytes;
		exp_cursor_release_sigsafe(&c);
		exp_writer_close(&w);
		close(fd);
		snprintf(path, sizeof(path), "%s/threads.dat", dir);
		struct exp_file_header h0, h1;
		size_t b0, b1, n0, n1, size0 = file_size(path);
		uint8_t *before = records_of(path, &b0, &n0, &h0);
		uint64_t ino0 = inode_of(path);
		struct exp_error err;
		CHECKF(exp_file_compact(path, &err) == 0, "%s", err.msg);
		uint8_t *after = records_of(path, &b1, &n1, &h1);
		CHECKF(n0 == i && n1 == n0 && b0 == b1 && before && after && memcmp(before, after, b0) == 0,
		       "%zu records before, %zu after", n0, n1);
		CHECK(inode_of(path) == ino0);
		if (nblocks == 1)
			CHECKF(size0 == per_block && file_size(path) == size0, "one block: %zu -> %zu bytes", size0,
			       file_size(path));
		else
			CHECKF(size0 > per_block && file_size(path) < size0, "two blocks: %zu -> %zu bytes", size0,
			       file_size(path));
		free(before);
		free(after);
		unlink(path);
	}
}

/* A large arc table of `nslots` with arcs in `used` slots, published. */
static void arc_table(struct exp_file_writer *w, uint32_t tid, uint32_t nslots,
		      const uint32_t *used, size_t nused)
{
	uint32_t len = (uint32_t)(sizeof(struct exp_arc_table) + nslots * sizeof(struct exp_arc));
	size_t mapped;
	struct exp_arc_table *t = exp_large_reserve_sigsafe(w, len, &mapped);

	CHECK(t != NULL);
	if (!t)
		return;
	t->tid = tid;
	t->nslots = nslots;
	t->flags = EXP_ARCS_MCOUNT;
	for (size_t i = 0; i < nused; i++)
		t->slots[used[i]] = (struct exp_arc){ 0x1000 + used[i], 0x2000 + tid, used[i] + 1, 0 };
	exp_record_publish_sigsafe(t, EXP_REC_ARC_TABLE, len);
	exp_large_release_sigsafe(t, mapped);
}

static void arc_tables_shrink(void)
{
	struct exp_file_writer w;
	int fd = open(dir, O_RDONLY | O_DIRECTORY);
	static const uint32_t a[] = { 5, 700, 1000 }, b[] = { 1, 63 };
	char path[128];

	CHECK(exp_writer_open(&w, fd, "arcs.dat", EXP_FILE_ARCS, 1) == 0);
	arc_table(&w, 7, 1024, a, 3);        /* 32 KiB: spans blocks */
	arc_table(&w, 8, 64, b, 2);
	exp_writer_close(&w);
	close(fd);
	snprintf(path, sizeof(path), "%s/arcs.dat", dir);
	struct exp_error err;
	CHECKF(exp_file_compact(path, &err) == 0, "%s", err.msg);

	struct exp_file f;
	struct exp_rec r;
	uint32_t tables = 0, arcs = 0;
	CHECK(exp_file_open(&f, path, EXP_FILE_ARCS, &err) == 0);
	while (exp_file_next(&f, &r, &err) == 1) {
		struct exp_arc_table t;
		memcpy(&t, r.p, sizeof(t));
		CHECK(r.type == EXP_REC_ARC_TABLE && t.flags == EXP_ARCS_MCOUNT);
		CHECKF(t.nslots == (t.tid == 7 ? 4u : 2u), "table of thread %u: %u slots", t.tid, t.nslots);
		CHECK(r.len == sizeof(t) + t.nslots * sizeof(struct exp_arc));
		tables++;
		for (uint32_t i = 0; i < t.nslots; i++) {
			struct exp_arc s;
			memcpy(&s, (const char *)r.p + sizeof(t) + i * sizeof(s), sizeof(s));
			if (!s.frompc)
				continue;
			CHECK(s.selfpc == 0x2000 + t.tid && s.count == s.frompc - 0x1000 + 1);
			arcs++;
		}
	}
	CHECK(tables == 2 && arcs == 5);
	/* Both fit in the first block now: header, 4 slots, 2 slots. */
	CHECKF(f.size == EXP_HEADER_BYTES + 2 * sizeof(struct exp_arc_table) +
				 6 * sizeof(struct exp_arc), "%zu bytes", f.size);
	exp_file_close(&f);
}

static void big_file_only_trimmed(void)
{
	struct exp_file_writer w;
	struct exp_cursor c = { 0 };
	int fd = open(dir, O_RDONLY | O_DIRECTORY);
	char path[128];
	uint32_t len;

	CHECK(exp_writer_open(&w, fd, "heap.dat", EXP_FILE_SAMPLES, 1) == 0);
	for (uint64_t i = 0; i < 100; i++)
		CHECK(append(&w, &c, 1, i, &len) == 0);
	exp_cursor_release_sigsafe(&c);
	exp_writer_close(&w);
	close(fd);
	snprintf(path, sizeof(path), "%s/heap.dat", dir);
	struct exp_file_header h;
	size_t b0, b1, n0, n1;
	uint8_t *before = records_of(path, &b0, &n0, &h);
	CHECK(truncate(path, EXP_COMPACT_REWRITE_MAX + 12345) == 0);   /* zeros after */
	struct exp_error err;
	CHECKF(exp_file_compact(path, &err) == 0, "%s", err.msg);
	uint8_t *after = records_of(path, &b1, &n1, &h);
	CHECK(n0 == 100 && n1 == 100 && b0 == b1 && before && after && !memcmp(before, after, b0));
	/* The last record ends the file. */
	CHECKF(file_size(path) == EXP_HEADER_BYTES + b0, "%zu bytes, records end at %zu",
	       file_size(path), EXP_HEADER_BYTES + b0);
	free(before);
	free(after);
}

static void corrupt_file_left_alone(void)
{
	static uint8_t buf[8192];
	struct exp_file_header h = { .version = EXP_FORMAT_VERSION, .kind = EXP_FILE_SAMPLES,
				     .block_bytes = 4096, .header_bytes = EXP_HEADER_BYTES };
	uint32_t word = EXP_REC_WORD(EXP_REC_SAMPLE, 36);       /* not a multiple of 8 */
	char path[128];
	struct exp_error err;

	memcpy(h.magic, EXP_MAGIC, 8);
	memcpy(buf, &h, sizeof(h));
	memcpy(buf + 64, &word, 4);
	snprintf(path, sizeof(path), "%s/sync.dat", dir);
	FILE *f = fopen(path, "w");
	fwrite(buf, 1, sizeof(buf), f);
	fclose(f);
	CHECK(exp_file_compact(path, &err) == 1);
	CHECK(file_size(path) == sizeof(buf));
	memcpy(buf, "NOTTALLY", 8);
	f = fopen(path, "w");
	fwrite(buf, 1, sizeof(buf), f);
	fclose(f);
	CHECK(exp_file_compact(path, &err) == 1);
	CHECK(file_size(path) == sizeof(buf));
	snprintf(path, sizeof(path), "%s/nosuch.dat", dir);
	CHECK(exp_file_compact(path, &err) == -ENOENT);
}

int main(void)
{
	snprintf(dir, sizeof(dir), "/tmp/tally-unit.XXXXXX");
	if (!mkdtemp(dir))
		return 1;
	RUN(samples_pack_densely);
	RUN(small_file_packs_in_place);
	RUN(one_block_left_alone);
	RUN(arc_tables_shrink);
	RUN(big_file_only_trimmed);
	RUN(corrupt_file_left_alone);
	char cmd[128];
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	if (system(cmd) != 0)
		return 1;
	TEST_EXIT();
}
