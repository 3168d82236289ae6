/* SPDX-License-Identifier: MIT
 *
 * test_col_runs.c — clock samples written as runs (SAMPLE_RUN, format 4):
 * whatever stacks the handler writes (random changes, pcs far apart, flags,
 * cpus, times that step back) the reader gives back each sample once with
 * its exact stack, and one stack id per distinct stack, checked against a
 * plain list; bytes past a run's `used` (a sample half written when the
 * process was killed) are never read; a corrupt run is one line naming the
 * file, the offset and the sample.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "format/exp_data.h"
#include "format/exp_write_run.h"
#include "testhelp.h"

static char dir[64];

static uint64_t rng = 0x853c49e6748fea9bull;

static uint64_t rnd(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

struct want {
	uint32_t tid, n;
	uint16_t flags, cpu;
	uint64_t weight;
	uint64_t pcs[EXP_MAX_FRAMES];       /* leaf first */
};

#define NSAMPLES 6000
#define NTHREADS 3
static struct want wants[NSAMPLES];

static uint64_t random_pc(void)
{
	switch (rnd() % 8) {
	case 0:
		return rnd();                      /* anything at all */
	case 1:
		return 0x7f0000000000ull + rnd() % 4096;    /* a library */
	default:
		return 0x400000 + rnd() % 64;     /* a few call sites */
	}
}

/* The next stack of a thread: the previous one changed near the leaf (most
 * often), or anywhere, or replaced. */
static void next_stack(struct want *w, const struct want *prev)
{
	uint32_t n = prev ? prev->n : 0, r = (uint32_t)(rnd() % 16);

	if (prev)
		memcpy(w->pcs, prev->pcs, sizeof(w->pcs));
	if (!prev || r == 0) {
		n = 1 + (uint32_t)(rnd() % (r == 0 && rnd() % 4 == 0 ? EXP_MAX_FRAMES : 40));
		for (uint32_t i = 0; i < n; i++)
			w->pcs[i] = random_pc();
	} else if (r < 12) {                       /* pop some, push some, at the leaf */
		uint32_t pop = (uint32_t)(rnd() % (n < 6 ? n : 6)), push = (uint32_t)(rnd() % 6);
		if (n - pop + push == 0 || n - pop + push > EXP_MAX_FRAMES)
			push = pop ? pop : 1;
		memmove(w->pcs + push, w->pcs + pop, (n - pop) * 8);
		for (uint32_t i = 0; i < push; i++)
			w->pcs[i] = random_pc();
		n = n - pop + push;
	} else if (r < 15) {                       /* change one frame anywhere */
		w->pcs[rnd() % n] = random_pc();
	}                                          /* else: the same stack again */
	w->n = n;
	w->flags = rnd() % 10 == 0 ? (uint16_t)(1 + rnd() % 3) : 0;
}

static bool same_stack(const struct want *a, const struct want *b)
{
	return a->n == b->n && a->flags == b->flags && !memcmp(a->pcs, b->pcs, a->n * 8u);
}

static void write_runs(void)
{
	static struct exp_run_writer rw[NTHREADS];
	struct exp_file_writer w;
	struct exp_cursor c[NTHREADS];
	int fd = open(dir, O_RDONLY | O_DIRECTORY);
	const struct want *prev[NTHREADS] = { 0 };

	memset(rw, 0, sizeof(rw));
	memset(c, 0, sizeof(c));
	CHECK(exp_writer_open(&w, fd, "samples.dat", EXP_FILE_SAMPLES, 1) == 0);
	for (uint32_t i = 0; i < NSAMPLES; i++) {
		uint32_t k = (uint32_t)(rnd() % NTHREADS);
		struct want *x = &wants[i];
		next_stack(x, prev[k]);
		x->tid = 100 + k;
		x->cpu = rnd() % 50 == 0 ? (uint16_t)(rnd() % 3) : (prev[k] ? prev[k]->cpu : 0xffff);
		x->weight = rnd() % 8 == 0 ? rnd() : 1000000 + rnd() % 5000;
		/* time identifies the sample: i, with steps back between runs */
		struct exp_run_sample s = { x->tid, x->cpu, x->flags, 1000 + i, x->weight };
		CHECK(exp_run_append_sigsafe(&rw[k], &w, &c[k], &s, x->pcs, x->n) == 0);
		prev[k] = x;
	}
	for (int k = 0; k < NTHREADS; k++)
		exp_cursor_release_sigsafe(&c[k]);
	exp_writer_close(&w);
	close(fd);
}

static void runs_round_trip(void)
{
	struct exp_experiment e;
	struct exp_error err;
	static uint64_t pcs[EXP_MAX_FRAMES];
	static uint32_t id_of[NSAMPLES];
	static uint8_t seen[NSAMPLES];

	write_runs();
	int rc = exp_experiment_load(&e, dir, &err);
	CHECKF(rc == 0, "%s", err.msg);
	if (rc)
		return;
	const struct exp_proc *p = &e.procs[0];
	CHECKF(p->nsamples == NSAMPLES, "%zu samples", p->nsamples);
	bool exact = true;
	for (size_t i = 0; i < p->nsamples && exact; i++) {
		const struct exp_sample *s = &p->samples[i];
		uint64_t at = s->time_ns - 1000;
		uint16_t flags;
		if (at >= NSAMPLES || seen[at]++) {
			exact = false;
			break;
		}
		const struct want *x = &wants[at];
		int n = exp_stack_frames(p, s->stack_id, pcs, EXP_MAX_FRAMES, &flags);
		exact = s->tid == x->tid && s->weight_ns == x->weight && s->cpu == x->cpu &&
			n == (int)x->n && flags == x->flags && !memcmp(pcs, x->pcs, x->n * 8u);
		if (!exact)
			printf("  sample %llu: tid %u/%u weight %llu/%llu cpu %u/%u depth %d/%u flags %u/%u\n",
			       (unsigned long long)at, s->tid, x->tid, (unsigned long long)s->weight_ns,
			       (unsigned long long)x->weight, s->cpu, x->cpu, n, x->n, flags, x->flags);
		id_of[at] = s->stack_id;
	}
	CHECK(exact);
	/* One id per distinct stack: against a plain comparison of all pairs
	 * with the same first frame. */
	bool one_id = true;
	for (uint32_t i = 0; i < NSAMPLES && one_id; i += 7)
		for (uint32_t j = 0; j < NSAMPLES && one_id; j++)
			one_id = same_stack(&wants[i], &wants[j]) == (id_of[i] == id_of[j]);
	CHECK(one_id);
	exp_experiment_free(&e);
}

/* A process killed while it wrote a sample leaves bytes past `used`: the
 * reader stops at `used`. */
static void bytes_past_used_are_ignored(void)
{
	struct exp_experiment e;
	struct exp_error err;
	char path[128];

	snprintf(path, sizeof(path), "%s/samples.dat", dir);
	int fd = open(path, O_RDWR);
	struct stat st;
	CHECK(fd >= 0 && fstat(fd, &st) == 0);
	uint8_t *m = mmap(NULL, (size_t)st.st_size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	CHECK(m != MAP_FAILED);
	size_t poked = 0;
	for (size_t b = 0; m != MAP_FAILED && b * EXP_BLOCK_BYTES < (size_t)st.st_size; b++) {
		size_t pos = b ? b * EXP_BLOCK_BYTES : EXP_HEADER_BYTES;
		uint32_t word;
		memcpy(&word, m + pos, 4);
		if (EXP_REC_TYPE(word) == EXP_REC_MIRROR) {
			pos += sizeof(struct exp_mirror);
			memcpy(&word, m + pos, 4);
		}
		if (EXP_REC_TYPE(word) != EXP_REC_SAMPLE_RUN)
			continue;
		struct exp_sample_run h;
		memcpy(&h, m + pos, sizeof(h));
		if (sizeof(h) + h.used + 8 <= EXP_REC_LEN(word)) {
			memset(m + pos + sizeof(h) + h.used, 0xff, 8);   /* a varint that never ends */
			poked++;
		}
	}
	if (m != MAP_FAILED)
		munmap(m, (size_t)st.st_size);
	close(fd);
	CHECK(poked > 0);
	int rc = exp_experiment_load(&e, dir, &err);
	CHECKF(rc == 0, "%s", err.msg);
	CHECK(rc || e.procs[0].nsamples == NSAMPLES);
	exp_experiment_free(&e);
	unlink(path);
}

/* One run of `len` bytes of samples in a fresh samples.dat; load it. */
static int load_run(const uint8_t *bytes, uint32_t len, uint32_t used, struct exp_error *err)
{
	static uint8_t buf[8192];
	struct exp_file_header h = { .version = EXP_FORMAT_VERSION, .kind = EXP_FILE_SAMPLES,
				     .block_bytes = 4096, .header_bytes = EXP_HEADER_BYTES };
	struct exp_sample_run r = { EXP_REC_WORD(EXP_REC_SAMPLE_RUN, (sizeof(r) + len + 7) & ~7u), 5,
				    1000, used, 0 };
	struct exp_experiment e;
	char path[128];

	memset(buf, 0, sizeof(buf));
	memcpy(h.magic, EXP_MAGIC, 8);
	memcpy(buf, &h, sizeof(h));
	memcpy(buf + 64, &r, sizeof(r));
	memcpy(buf + 64 + sizeof(r), bytes, len);
	snprintf(path, sizeof(path), "%s/samples.dat", dir);
	FILE *f = fopen(path, "w");
	fwrite(buf, 1, 4096, f);
	fclose(f);
	int rc = exp_experiment_load(&e, dir, err);
	/* A corrupt run costs that record: the load goes on, the place is
	 * counted and named. */
	if (rc == 0 && e.procs[0].damage.places) {
		snprintf(err->msg, sizeof(err->msg), "%s", e.procs[0].damage.first);
		rc = -EXP_ECORRUPT;
	}
	exp_experiment_free(&e);
	unlink(path);
	return rc;
}

static void corrupt_runs_are_named(void)
{
	static const struct {
		uint8_t bytes[16];
		uint32_t len, used;
		const char *says;
	} cases[] = {
		/* head push code(pc 0x10 from 0) dtime dweight */
		{ { 0, 1, 0x22, 0, 0 }, 5, 5, NULL },
		{ { 0, 1, 0x22, 0, 0 }, 5, 200, "uses 200 bytes" },
		{ { 0, 1, 0x22, 0, 0, 0x10, 0, 0, 0 }, 9, 9, "drops more frames" },
		{ { 0, 1, 3, 0, 0 }, 5, 5, "beyond the dictionary" },
		{ { 0, 0, 0, 0 }, 4, 4, "empty stack" },
		{ { 0, 0x81, 0x08, 0 }, 4, 4, "deeper than 1024" },
		{ { 0, 1, 0x22, 0 }, 4, 4, "ends inside its times" },
		{ { 0, 1, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x7f }, 12, 12,
		  "ends inside its stack" },
		{ { 4, 1, 0x22, 0, 0, 0xff, 0xff, 0x04 }, 8, 8, "cpu out of range" },
	};
	struct exp_error err;

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		int rc = load_run(cases[i].bytes, cases[i].len, cases[i].used, &err);
		if (!cases[i].says) {
			CHECKF(rc == 0, "case %zu: %s", i, err.msg);
			continue;
		}
		CHECKF(rc == -EXP_ECORRUPT && strstr(err.msg, "samples.dat: at 0x40: ") &&
			       strstr(err.msg, cases[i].says),
		       "case %zu: %d %s", i, rc, rc ? err.msg : "loaded");
	}
}

int main(void)
{
	snprintf(dir, sizeof(dir), "/tmp/tally-unit.XXXXXX");
	if (!mkdtemp(dir))
		return 1;
	char path[128];
	snprintf(path, sizeof(path), "%s/log.txt", dir);
	FILE *log = fopen(path, "w");
	if (!log)
		return 1;
	fputs("pid: 1\n", log);
	fclose(log);
	RUN(runs_round_trip);
	RUN(bytes_past_used_are_ignored);
	RUN(corrupt_runs_are_named);
	char cmd[128];
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	if (system(cmd) != 0)
		return 1;
	TEST_EXIT();
}
