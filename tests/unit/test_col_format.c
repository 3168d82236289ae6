/* SPDX-License-Identifier: MIT
 *
 * test_col_format.c — the experiment format: what the writer appends (one
 * thread or several, small and large records, across block boundaries and
 * through staging windows) the reader reads back exactly once; a window
 * caught in the middle of its copy loses and doubles nothing; a reserved but
 * unpublished record is invisible; a corrupt record or header costs only
 * itself or its block, counted with the file and the offset.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "format/exp_data.h"
#include "format/exp_read.h"
#include "format/exp_write.h"
#include "testhelp.h"

static char dir[64];

static void make_dir(void)
{
	snprintf(dir, sizeof(dir), "/tmp/tally-unit.XXXXXX");
	if (!mkdtemp(dir))
		abort();
}

static int dirfd_of(void)
{
	return open(dir, O_RDONLY | O_DIRECTORY);
}

static void sample_rec(struct exp_sample *s, uint32_t tid, uint64_t i)
{
	memset(s, 0, sizeof(*s));
	s->tid = tid;
	s->time_ns = i;
	s->stack_id = (uint32_t)(i % 7 + 1);
	s->weight_ns = i * 3;
}

/* Read `path` back: how many records of thread `tid`, numbered 0..n-1, came
 * back exactly once with their payload intact (0 if any came twice, was
 * unknown or corrupt). */
static uint64_t read_back(const char *path, uint32_t tid, uint64_t n)
{
	struct exp_file f;
	struct exp_rec r;
	struct exp_error err;
	uint8_t *seen = calloc(n, 1);
	uint64_t got = 0;
	bool bad = false;

	if (!seen || exp_file_open(&f, path, EXP_FILE_SAMPLES, &err) != 0) {
		free(seen);
		return 0;
	}
	while (exp_file_next(&f, &r, &err) == 1) {
		struct exp_sample s;
		memcpy(&s, r.p, sizeof(s));
		if (s.tid != tid)
			continue;
		if (s.time_ns >= n || seen[s.time_ns]++ || s.weight_ns != s.time_ns * 3)
			bad = true;
		got++;
	}
	exp_file_close(&f);
	free(seen);
	return bad ? 0 : got;
}

static void roundtrip_one_thread(void)
{
	struct exp_file_writer w;
	struct exp_cursor c = { 0 };
	int fd = dirfd_of();
	const uint64_t n = 20000;            /* many blocks */

	CHECK(exp_writer_open(&w, fd, "samples.dat", EXP_FILE_SAMPLES, 42) == 0);
	for (uint64_t i = 0; i < n; i++) {
		struct exp_sample s;
		sample_rec(&s, 7, i);
		CHECK(exp_record_append_sigsafe(&w, &c, EXP_REC_SAMPLE, &s, sizeof(s)) == 0);
	}
	exp_cursor_release_sigsafe(&c);
	exp_writer_close(&w);
	close(fd);

	char path[128];
	snprintf(path, sizeof(path), "%s/samples.dat", dir);
	struct exp_file f;
	struct exp_error err;
	CHECK(exp_file_open(&f, path, EXP_FILE_SAMPLES, &err) == 0);
	CHECK(f.hdr.pid == 42);
	exp_file_close(&f);
	/* A busy cursor's last window sits before the copies of earlier ones:
	 * records come back each once, not in order. */
	uint64_t got = read_back(path, 7, n);
	CHECKF(got == n, "%llu of %llu records, each once", (unsigned long long)got,
	       (unsigned long long)n);
	unlink(path);
}

struct writer_arg {
	struct exp_file_writer *w;
	uint32_t tid;
};

static void *writer_thread(void *p)
{
	struct writer_arg *a = p;
	struct exp_cursor c = { 0 };

	for (uint64_t i = 0; i < 50000; i++) {
		struct exp_sample s;
		sample_rec(&s, a->tid, i);
		if (exp_record_append_sigsafe(a->w, &c, EXP_REC_SAMPLE, &s, sizeof(s)))
			break;
	}
	exp_cursor_release_sigsafe(&c);
	return NULL;
}

static void roundtrip_four_threads(void)
{
	struct exp_file_writer w;
	pthread_t th[4];
	struct writer_arg args[4];
	int fd = dirfd_of();

	CHECK(exp_writer_open(&w, fd, "mt.dat", EXP_FILE_SAMPLES, 1) == 0);
	for (int i = 0; i < 4; i++) {
		args[i] = (struct writer_arg){ &w, (uint32_t)i + 1 };
		pthread_create(&th[i], NULL, writer_thread, &args[i]);
	}
	for (int i = 0; i < 4; i++)
		pthread_join(th[i], NULL);
	exp_writer_close(&w);
	close(fd);

	char path[128];
	snprintf(path, sizeof(path), "%s/mt.dat", dir);
	for (uint32_t i = 1; i <= 4; i++) {
		uint64_t got = read_back(path, i, 50000);
		CHECKF(got == 50000, "thread %u: %llu records, each once", i, (unsigned long long)got);
	}
	unlink(path);
}

/* Append sample `i` of thread 3 as a record of `len` bytes (>= 32: the
 * rest zero), so that records of any size can fill the blocks. */
static int append_padded(struct exp_file_writer *w, struct exp_cursor *c, uint32_t len, uint64_t i)
{
	uint8_t rec[64] = { 0 };
	struct exp_sample s;

	sample_rec(&s, 3, i);
	memcpy(rec, &s, sizeof(s));
	return exp_record_append_sigsafe(w, c, EXP_REC_SAMPLE, rec, len);
}

/* A process killed while copying a full staging window out: the copy is
 * half done (or done, but the window not yet emptied).  Every record is
 * still read exactly once, from the window.  Records of `len` bytes: 48
 * fill a window block exactly (16 + 341 x 48), 32 do not. */
static void killed_mid_copy_of(uint32_t len)
{
	struct exp_file_writer w;
	struct exp_cursor c = { 0 };
	int fd = dirfd_of();
	uint64_t n = 0;

	CHECK(exp_writer_open(&w, fd, "kill.dat", EXP_FILE_SAMPLES, 1) == 0);
	/* Write until the cursor is in a window, and the window is full. */
	for (;; n++) {
		if (c.dest && c.used + len > c.size)
			break;
		CHECK(append_padded(&w, &c, len, n) == 0);
	}
	CHECK(c.dest != 0);
	/* Every block of the window still starts with its MIRROR record. */
	for (uint32_t b = 0; b < c.size / w.block_bytes; b++)
		CHECKF(EXP_REC_TYPE(*(uint32_t *)(c.block + (size_t)b * w.block_bytes)) == EXP_REC_MIRROR,
		       "window block %u", b);
	char path[128];
	snprintf(path, sizeof(path), "%s/kill.dat", dir);
	/* Half the copy made, as a SIGKILL during pwrite would leave it; then
	 * all of it, as a SIGKILL before the window is emptied would. */
	off_t dest = (off_t)(c.dest * w.block_bytes);
	CHECK(pwrite(w.fd, c.block, c.size / 2 + 100, dest) == (ssize_t)(c.size / 2 + 100));
	uint64_t got = read_back(path, 3, n);
	CHECKF(got == n, "half copied: %llu of %llu records, each once", (unsigned long long)got,
	       (unsigned long long)n);
	CHECK(pwrite(w.fd, c.block, c.size, dest) == (ssize_t)c.size);
	got = read_back(path, 3, n);
	CHECKF(got == n, "copied: %llu of %llu records, each once", (unsigned long long)got,
	       (unsigned long long)n);
	/* And the writer going on from there: the copy is redone, the window
	 * emptied and refilled. */
	for (uint64_t i = n; i < n + 100; i++)
		CHECK(append_padded(&w, &c, len, i) == 0);
	got = read_back(path, 3, n + 100);
	CHECKF(got == n + 100, "after: %llu of %llu records, each once", (unsigned long long)got,
	       (unsigned long long)(n + 100));
	exp_cursor_release_sigsafe(&c);
	exp_writer_close(&w);
	close(fd);
	unlink(path);
}

static void killed_mid_copy(void)
{
	killed_mid_copy_of(32);
}

static void killed_mid_copy_blocks_filled_exactly(void)
{
	killed_mid_copy_of(48);
}

static void large_record_and_unpublished(void)
{
	struct exp_file_writer w;
	struct exp_cursor c = { 0 };
	int fd = dirfd_of();
	size_t mapped;
	const uint32_t nslots = 1024;           /* 32 KiB + header: three blocks */
	uint32_t len = (uint32_t)(sizeof(struct exp_arc_table) + nslots * sizeof(struct exp_arc));

	CHECK(exp_writer_open(&w, fd, "arcs.dat", EXP_FILE_ARCS, 1) == 0);
	struct exp_arc_table *t = exp_large_reserve_sigsafe(&w, len, &mapped);
	CHECK(t != NULL);
	if (!t)
		return;
	t->tid = 9;
	t->nslots = nslots;
	t->slots[5] = (struct exp_arc){ 0x1000, 0x2000, 77, 0 };
	exp_record_publish_sigsafe(t, EXP_REC_ARC_TABLE, len);
	/* A small record after it, and one reserved but never published. */
	struct exp_sample s;
	sample_rec(&s, 1, 1);
	void *hidden = exp_record_reserve_sigsafe(&w, &c, sizeof(s));
	CHECK(hidden != NULL);
	exp_large_release_sigsafe(t, mapped);
	exp_cursor_release_sigsafe(&c);
	exp_writer_close(&w);
	close(fd);

	struct exp_experiment e;
	struct exp_error err;
	FILE *log;
	char path[128];
	snprintf(path, sizeof(path), "%s/log.txt", dir);
	log = fopen(path, "w");
	fputs("pid: 5\n", log);
	fclose(log);
	CHECKF(exp_experiment_load(&e, dir, &err) == 0, "%s", err.msg);
	CHECK(e.nprocs == 1 && e.procs[0].narcs == 1);
	if (e.procs[0].narcs == 1)
		CHECK(e.procs[0].arcs[0].count == 77 && e.procs[0].arcs[0].selfpc == 0x2000);
	CHECK(e.procs[0].pid == 5);
	exp_experiment_free(&e);
	snprintf(path, sizeof(path), "%s/arcs.dat", dir);
	unlink(path);
}

/* Write `len` bytes as file `name` of a fresh experiment and load it: its
 * return, the founder's damage and samples in *d and *nsamples. */
static int load_bytes(const char *name, const void *data, size_t len, struct exp_damage *d,
		      size_t *nsamples)
{
	char path[256];
	struct exp_experiment e;
	struct exp_error err;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	FILE *f = fopen(path, "w");
	fwrite(data, 1, len, f);
	fclose(f);
	int rc = exp_experiment_load(&e, dir, &err);
	memset(d, 0, sizeof(*d));
	*nsamples = 0;
	if (rc == 0) {
		*d = e.procs[0].damage;
		*nsamples = e.procs[0].nsamples;
	} else {
		snprintf(d->first, sizeof(d->first), "load failed: %s", err.msg);
	}
	exp_experiment_free(&e);
	unlink(path);
	return rc;
}

static void header(uint8_t *buf, uint32_t kind)
{
	struct exp_file_header h;

	memset(&h, 0, sizeof(h));
	memcpy(h.magic, EXP_MAGIC, 8);
	h.version = EXP_FORMAT_VERSION;
	h.kind = kind;
	h.block_bytes = 4096;
	h.header_bytes = EXP_HEADER_BYTES;
	memcpy(buf, &h, sizeof(h));
}

/* Put a good sample at `off` of buf. */
static void good_sample(uint8_t *buf, size_t off)
{
	struct exp_sample s;

	sample_rec(&s, 1, 1);
	s.word = EXP_REC_WORD(EXP_REC_SAMPLE, sizeof(s));
	memcpy(buf + off, &s, sizeof(s));
}

/* One corrupt place: the load succeeds, the place is counted once with the
 * file, the offset and the cause, and `want` samples are read. */
#define DAMAGED(name, len, want, what)                                                   \
	do {                                                                             \
		int rc_ = load_bytes(name, buf, len, &d, &n);                            \
		CHECKF(rc_ == 0 && d.places == 1 && strstr(d.first, what) && n == (want), \
		       "rc %d, %llu places, %zu samples: %s", rc_,                       \
		       (unsigned long long)d.places, n, d.first);                        \
	} while (0)

static void corrupt_places_cost_only_themselves(void)
{
	static uint8_t buf[8192];
	struct exp_damage d;
	size_t n;
	uint32_t word;

	/* A file whose header is wrong is lost, not the experiment. */
	memset(buf, 0, sizeof(buf));
	memcpy(buf, "NOTTALLY", 8);
	DAMAGED("samples.dat", 64, 0, "samples.dat: at 0x0: not a tally");
	DAMAGED("stacks.dat", 10, 0, "shorter");

	/* A bad record costs itself when the rest of its block reads as records
	 * from the next 8-byte boundary on, else the rest of its block; the
	 * sample in the next block is read. */
	header(buf, EXP_FILE_SAMPLES);
	good_sample(buf, 4096);
	good_sample(buf, 96);
	word = EXP_REC_WORD(EXP_REC_SAMPLE, 36);          /* not a multiple of 8 */
	memcpy(buf + 64, &word, 4);
	DAMAGED("samples.dat", 8192, 2, "samples.dat: at 0x40: record length 36");
	CHECKF(d.bytes == 32, "%llu bytes", (unsigned long long)d.bytes);
	memset(buf + 128, 0xff, 8);                        /* garbage after it: up to the zeros */
	DAMAGED("samples.dat", 8192, 1, "samples.dat: at 0x40: record length 36");
	CHECKF(d.bytes == 136 - 64, "%llu bytes", (unsigned long long)d.bytes);
	memset(buf + 4088, 0xff, 8);                       /* garbage to the end: the block */
	DAMAGED("samples.dat", 8192, 1, "samples.dat: at 0x40: record length 36");
	CHECKF(d.bytes == 4096 - 64, "%llu bytes", (unsigned long long)d.bytes);
	memset(buf + 4088, 0, 8);
	memset(buf + 96, 0, 40);

	word = EXP_REC_WORD(EXP_REC_SAMPLE, 4096);        /* crosses the block end */
	memcpy(buf + 64, &word, 4);
	DAMAGED("samples.dat", 8192, 1, "crosses its block end");

	word = EXP_REC_WORD(EXP_REC_SAMPLE, 40);          /* a sample is 32 bytes */
	memcpy(buf + 64, &word, 4);
	DAMAGED("samples.dat", 8192, 1, "sample record (type 1) has length 40, expected 32");

	word = EXP_REC_WORD(EXP_REC_SAMPLE, 32);          /* file ends mid-record */
	memcpy(buf + 64, &word, 4);
	DAMAGED("samples.dat", 80, 0, "past the end of the file");

	/* A record of the wrong kind, or with wrong fields, costs itself. */
	header(buf, EXP_FILE_STACKS);
	memset(buf + 64, 0, 64);
	struct exp_stack st = { EXP_REC_WORD(EXP_REC_STACK, 16), 1, 5000, 0, 0 };
	memcpy(buf + 64, &st, sizeof(st));
	DAMAGED("stacks.dat", 4096, 0, "stack depth 5000");
	CHECK(d.bytes == 16);

	header(buf, EXP_FILE_SAMPLES);                     /* a THREAD_END in samples.dat */
	memset(buf + 64, 0, 64);
	word = EXP_REC_WORD(EXP_REC_THREAD_END, 32);
	memcpy(buf + 64, &word, 4);
	good_sample(buf, 96);
	DAMAGED("samples.dat", 4096, 1, "does not belong");

	header(buf, EXP_FILE_SAMPLES);                     /* unknown type: skipped, no damage */
	memset(buf + 64, 0, 64);
	word = EXP_REC_WORD(200, 16);
	memcpy(buf + 64, &word, 4);
	good_sample(buf, 80);
	CHECK(load_bytes("samples.dat", buf, 4096, &d, &n) == 0 && d.places == 0 && n == 1);
}

static void missing_stacks_are_counted(void)
{
	static uint8_t buf[4096];
	struct exp_experiment e;
	struct exp_error err;
	struct exp_sample s;
	char path[128];

	header(buf, EXP_FILE_SAMPLES);
	memset(buf + 64, 0, sizeof(buf) - 64);
	sample_rec(&s, 1, 1);
	s.word = EXP_REC_WORD(EXP_REC_SAMPLE, 32);
	s.stack_id = 99;
	memcpy(buf + 64, &s, sizeof(s));
	snprintf(path, sizeof(path), "%s/samples.dat", dir);
	FILE *f = fopen(path, "w");
	fwrite(buf, 1, sizeof(buf), f);
	fclose(f);
	CHECKF(exp_experiment_load(&e, dir, &err) == 0, "%s", err.msg);
	CHECK(e.procs[0].nsamples == 1 && e.procs[0].missing_stacks == 1);
	exp_experiment_free(&e);
	unlink(path);
}

/* A thread's end, its schedstat (THREAD_SCHED) and its context switches
 * (THREAD_SWITCHES), written by the collector's writer, come back on its
 * exp_thread_ev. */
static void thread_sched_roundtrip(void)
{
	struct exp_file_writer w;
	struct exp_cursor c = { 0 };
	int fd = dirfd_of();
	struct exp_thread_start ts = { 0, 9, 1000, 0, 0, 0, "main" };
	struct exp_thread_end te = { 0, 9, 90001000, 70000000, 70 };
	struct exp_thread_sched sc = { 0, 9, 90002000, 70100000, 12000000, 33 };
	struct exp_thread_switches sw = { 0, 9, 90000500, 4, 7, 250000 };
	struct exp_experiment e;
	struct exp_error err;
	char path[128];

	CHECK(exp_writer_open(&w, fd, "threads.dat", EXP_FILE_THREADS, 42) == 0);
	CHECK(exp_record_append_sigsafe(&w, &c, EXP_REC_THREAD_START, &ts, sizeof(ts)) == 0);
	CHECK(exp_record_append_sigsafe(&w, &c, EXP_REC_THREAD_END, &te, sizeof(te)) == 0);
	CHECK(exp_record_append_sigsafe(&w, &c, EXP_REC_THREAD_SCHED, &sc, sizeof(sc)) == 0);
	CHECK(exp_record_append_sigsafe(&w, &c, EXP_REC_THREAD_SWITCHES, &sw, sizeof(sw)) == 0);
	exp_cursor_release_sigsafe(&c);
	exp_writer_close(&w);
	close(fd);
	CHECKF(exp_experiment_load(&e, dir, &err) == 0, "%s", err.msg);
	const struct exp_thread_ev *t = e.nprocs && e.procs[0].nthreads == 1 ? &e.procs[0].threads[0] : NULL;
	CHECK(t && t->has_sched && t->sched_cpu_ns == 70100000 && t->run_delay_ns == 12000000 &&
	      t->cpu_ns == 70000000 && t->end_ns == 90001000);
	CHECK(t && t->has_switches && t->voluntary_switches == 4 && t->involuntary_switches == 7 &&
	      t->start_wait_ns == 250000);
	CHECK(e.nprocs && e.procs[0].damage.places == 0);
	exp_experiment_free(&e);
	snprintf(path, sizeof(path), "%s/threads.dat", dir);
	unlink(path);
}

/* The size limit's reserve: claims stop short of the limit less the
 * reserve (the writer then full, over budget); a `reserved` cursor still
 * claims, one block at a time, up to the limit itself, and no further. */
static void limit_reserve_only_for_reserved(void)
{
	struct exp_file_writer w;
	struct exp_cursor c = { 0 }, ends = { 0 };
	_Atomic uint64_t used = 0;
	int fd = dirfd_of();
	const uint32_t bs = EXP_BLOCK_BYTES;
	struct exp_thread_end te = { 0, 9, 90001000, 70000000, 70 };
	uint64_t n = 0;

	CHECK(exp_writer_open(&w, fd, "threads.dat", EXP_FILE_THREADS, 42) == 0);
	w.budget_used = &used;
	w.budget_limit = 8ull * bs;
	w.budget_reserve = 2ull * bs;
	while (n < 100000 && exp_record_append_sigsafe(&w, &c, EXP_REC_THREAD_END, &te, sizeof(te)) == 0)
		n++;
	CHECKF(atomic_load(&used) <= 6ull * bs && atomic_load(&w.over_budget) && atomic_load(&w.full),
	       "%llu bytes claimed without the reserve, limit less reserve %u", (unsigned long long)atomic_load(&used),
	       6 * bs);
	/* Not reserved: nothing more, on either cursor. */
	CHECK(exp_record_append_sigsafe(&w, &ends, EXP_REC_THREAD_END, &te, sizeof(te)) != 0);
	ends.reserved = true;
	uint64_t m = 0;
	while (m < 100000 && exp_record_append_sigsafe(&w, &ends, EXP_REC_THREAD_END, &te, sizeof(te)) == 0)
		m++;
	CHECKF(m > 0 && atomic_load(&used) <= 8ull * bs && atomic_load(&used) > 6ull * bs,
	       "%llu reserved records, %llu bytes claimed of %u", (unsigned long long)m,
	       (unsigned long long)atomic_load(&used), 8 * bs);
	exp_cursor_release_sigsafe(&c);
	exp_cursor_release_sigsafe(&ends);
	exp_writer_close(&w);
	close(fd);
	char path[128];
	snprintf(path, sizeof(path), "%s/threads.dat", dir);
	unlink(path);
}

/* Opened for each use (open_fd), first claims under a size limit: spares
 * are made only as the limit has room for, so that as many threads get a
 * block as the limit holds blocks (spares never stop the file early).  The build before counted each
 * claim's spares at once (1 + up to 16 blocks): 7 of 10 first claims fit,
 * and the file stopped with 3 blocks of the limit unused. */
static int spare_dirfd = -1;

static int open_spares_file(struct exp_file_writer *w)
{
	(void)w;
	int fd = openat(spare_dirfd, "spares.dat", O_RDWR | O_CLOEXEC);
	return fd < 0 ? -errno : fd;
}

static void spares_counted_when_taken(void)
{
	struct exp_file_writer w;
	struct exp_cursor c[24];
	_Atomic uint64_t used = 0;
	const uint32_t bs = EXP_BLOCK_BYTES;
	struct exp_thread_end te = { 0, 9, 90001000, 70000000, 70 };
	int got = 0;

	memset(c, 0, sizeof(c));
	spare_dirfd = dirfd_of();
	CHECK(exp_writer_open(&w, spare_dirfd, "spares.dat", EXP_FILE_THREADS, 42) == 0);
	close(w.fd);
	w.fd = -1;
	w.open_fd = open_spares_file;
	w.budget_used = &used;
	w.budget_limit = 10ull * bs;
	w.budget_reserve = 0;
	for (int i = 0; i < 24; i++)
		got += exp_record_append_sigsafe(&w, &c[i], EXP_REC_THREAD_END, &te, sizeof(te)) == 0;
	CHECKF(got == 10 && atomic_load(&used) == 10ull * bs, "%d first claims of 24 got a block, %llu bytes counted "
	       "(a limit of %u blocks)", got, (unsigned long long)atomic_load(&used), 10);
	for (int i = 0; i < 24; i++)
		exp_cursor_release_sigsafe(&c[i]);
	exp_writer_drop_spares(&w);
	exp_writer_close(&w);
	close(spare_dirfd);
	char path[128];
	snprintf(path, sizeof(path), "%s/spares.dat", dir);
	unlink(path);
}

/* Spares count when they are made: the limit bounds what is on disk,
 * taken or not, and those no thread took are punched out and given back
 * at the end (exp_writer_free_spares).  4 first claims make 7 blocks (1,
 * 1 + a spare, the spare, 1 + 3 spares): 7 counted, the file 7 blocks
 * long; freed, 4 counted and 3 blocks fewer on disk.  The build before
 * counted 4 with 7 on disk: other cursors could then fill the limit while
 * the untaken spares stayed on disk beyond it. */
static void spares_bound_the_disk_until_freed(void)
{
	struct exp_file_writer w;
	struct exp_cursor c[4];
	_Atomic uint64_t used = 0;
	const uint32_t bs = EXP_BLOCK_BYTES;
	struct exp_thread_end te = { 0, 9, 90001000, 70000000, 70 };
	struct stat st;

	memset(c, 0, sizeof(c));
	spare_dirfd = dirfd_of();
	CHECK(exp_writer_open(&w, spare_dirfd, "spares.dat", EXP_FILE_THREADS, 42) == 0);
	close(w.fd);
	w.fd = -1;
	w.open_fd = open_spares_file;
	w.budget_used = &used;
	w.budget_limit = 100ull * bs;
	w.budget_reserve = 0;
	for (int i = 0; i < 4; i++)
		CHECK(exp_record_append_sigsafe(&w, &c[i], EXP_REC_THREAD_END, &te, sizeof(te)) == 0);
	CHECK(fstatat(spare_dirfd, "spares.dat", &st, 0) == 0);
	CHECKF(atomic_load(&used) == (uint64_t)st.st_size && st.st_size == 7ll * bs,
	       "%llu bytes counted, the file %lld bytes (blocks of %u)", (unsigned long long)atomic_load(&used),
	       (long long)st.st_size, bs);
	blkcnt_t before = st.st_blocks;
	exp_writer_free_spares(&w);
	CHECK(fstatat(spare_dirfd, "spares.dat", &st, 0) == 0);
	if (atomic_load(&used) == 7ull * bs) {
		CHECK(st.st_blocks == before);        /* not punched: still counted */
	} else {
		CHECKF(atomic_load(&used) == 4ull * bs, "%llu bytes counted after the free",
		       (unsigned long long)atomic_load(&used));
		/* Blocks 4 to 6, the last claim's spares, hold no data now (the
		 * file system may keep a page for its own map of the holes). */
		int fd = openat(spare_dirfd, "spares.dat", O_RDONLY | O_CLOEXEC);
		CHECK(fd >= 0);
		off_t data = lseek(fd, 4ll * bs, SEEK_DATA);
		CHECKF(data < 0 && errno == ENXIO, "data at %lld, past the taken blocks (blocks of %u)",
		       (long long)data, bs);
		CHECKF(st.st_blocks < before, "%lld bytes on disk before the free, %lld after",
		       (long long)before * 512, (long long)st.st_blocks * 512);
		close(fd);
	}
	for (int i = 0; i < 4; i++)
		exp_cursor_release_sigsafe(&c[i]);
	exp_writer_close(&w);
	close(spare_dirfd);
	char path[128];
	snprintf(path, sizeof(path), "%s/spares.dat", dir);
	unlink(path);
}

/* exp_writer_open reads nothing of what the writer held: an uninitialized
 * writer (on the stack) whose spare slots hold stale addresses unmaps
 * nothing (it unmapped them as spares: a page of a thread's stack, found
 * as roundtrip_four_threads' stack-overflow, 1 run in 30 under ASan).  A
 * fork child's spares are dropped by exp_writer_drop_spares. */
static void open_unmaps_no_stale_spare(void)
{
	struct exp_file_writer w;
	const size_t len = EXP_BLOCK_BYTES;
	char *page = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	CHECK(page != MAP_FAILED);
	memset(&w, 0, sizeof(w));
	for (int i = 0; i < EXP_SPARE_BLOCKS; i++)
		atomic_store(&w.spare[i], (uintptr_t)page);
	int fd = dirfd_of();
	CHECK(exp_writer_open(&w, fd, "stale.dat", EXP_FILE_SAMPLES, 1) == 0);
	unsigned char v;
	CHECKF(mincore(page, 4096, &v) == 0, "a stale spare's page still mapped after the open");
	for (int i = 0; i < EXP_SPARE_BLOCKS; i++)
		CHECK(atomic_load(&w.spare[i]) == 0);
	exp_writer_close(&w);
	close(fd);

	/* Dropped on purpose: unmapped once, the slots emptied. */
	memset(&w, 0, sizeof(w));
	w.block_bytes = (uint32_t)len;
	atomic_store(&w.spare[3], (uintptr_t)page);
	exp_writer_drop_spares(&w);
	CHECK(atomic_load(&w.spare[3]) == 0);
	CHECKF(mincore(page, 4096, &v) != 0 && errno == ENOMEM, "a dropped spare unmapped");
	char path[128];
	snprintf(path, sizeof(path), "%s/stale.dat", dir);
	unlink(path);
}

int main(void)
{
	make_dir();
	RUN(roundtrip_one_thread);
	RUN(roundtrip_four_threads);
	RUN(open_unmaps_no_stale_spare);
	RUN(spares_counted_when_taken);
	RUN(spares_bound_the_disk_until_freed);
	RUN(killed_mid_copy);
	RUN(killed_mid_copy_blocks_filled_exactly);
	RUN(large_record_and_unpublished);
	RUN(corrupt_places_cost_only_themselves);
	RUN(missing_stacks_are_counted);
	RUN(thread_sched_roundtrip);
	RUN(limit_reserve_only_for_reserved);
	char cmd[128];
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	if (system(cmd) != 0)
		return 1;
	TEST_EXIT();
}
