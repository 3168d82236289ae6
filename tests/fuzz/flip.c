/* SPDX-License-Identifier: MIT
 *
 * flip.c — see flip.h.  Included (not linked) by fuzz_flip.c and
 * tests/unit/test_corrupt.c, like harness.c.
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "format/exp_data.h"
#include "format/exp_launch.h"
#include "model/model.h"
#include "report/report.h"
#include "flip.h"

static int flip_read(const char *path, uint8_t **data, size_t *size)
{
	FILE *f = fopen(path, "rb");

	if (!f)
		return -1;
	fseek(f, 0, SEEK_END);
	*size = (size_t)ftell(f);
	rewind(f);
	*data = malloc(*size ? *size : 1);
	if (!*data || fread(*data, 1, *size, f) != *size) {
		fclose(f);
		return -1;
	}
	fclose(f);
	return 0;
}

static void flip_put(const struct flip_exp *x, int i)
{
	char path[512];

	snprintf(path, sizeof(path), "%s/%s", x->dir, exp_dir_file((size_t)i));
	FILE *f = fopen(path, "wb");
	if (!f || fwrite(x->data[i], 1, x->size[i], f) != x->size[i] || fclose(f))
		abort();
}

static void flip_push(struct flip_exp *x, struct flip_rec r)
{
	if (x->nrecs == x->cap) {
		x->cap = x->cap ? 2 * x->cap : 256;
		x->recs = realloc(x->recs, x->cap * sizeof(*x->recs));
		if (!x->recs)
			abort();
	}
	x->recs[x->nrecs++] = r;
}

/* The records of file i, MIRRORs included. */
static void flip_list(struct flip_exp *x, int i, const char *path)
{
	struct exp_file f;
	struct exp_error err;
	struct exp_rec r;

	if (exp_file_open(&f, path, 0, &err) != 0)
		return;
	x->kind[i] = f.hdr.kind;
	x->block[i] = f.hdr.block_bytes;
	while (exp_file_next(&f, &r, &err) == 1)
		flip_push(x, (struct flip_rec){ i, r.type, r.len, r.offset });
	for (size_t b = 1; b * f.hdr.block_bytes + 16 <= f.size; b++) {
		uint32_t word;
		memcpy(&word, f.data + b * f.hdr.block_bytes, 4);
		if (EXP_REC_TYPE(word) == EXP_REC_MIRROR)
			flip_push(x, (struct flip_rec){ i, EXP_REC_MIRROR, 16, b * f.hdr.block_bytes });
	}
	exp_file_close(&f);
}

/* Load the scratch copy: records read by kind, damage, unknown records;
 * optionally the model and reports.  0, or -1 with `why`. */
static int flip_load(struct flip_exp *x, uint64_t *counts, uint64_t *places, int build, char *why,
		     size_t len)
{
	struct exp_experiment e;
	struct exp_error err;

	if (exp_experiment_load(&e, x->dir, &err) != 0) {
		snprintf(why, len, "the experiment did not load: %s", err.msg);
		exp_experiment_free(&e);
		return -1;
	}
	memset(counts, 0, 64 * sizeof(*counts));
	memcpy(counts, e.procs[0].records, sizeof(e.procs[0].records));
	*places = e.procs[0].damage.places + e.procs[0].unknown_records;
	int rc = 0;
	if (build) {
		struct model m;
		char msg[256];
		struct model_options o = { 0 };
		if (model_build(&m, &e, 1, &o, msg, sizeof(msg)) != 0) {
			snprintf(why, len, "no model: %s", msg);
			rc = -1;
		} else {
			FILE *null = fopen("/dev/null", "w");
			struct report_opts ro = { .fmt = REPORT_JSON, .metrics = { MODEL_CPU }, .nmetrics = 1 };
			struct report_doc *d = report_doc_new(null, REPORT_JSON);
			report_overview(d, &m, &e, 1);
			report_functions(d, &m, &ro);
			report_tree(d, &m, &ro);
			report_leaks(d, &m, &ro);
			report_doc_end(d);
			report_collapsed(null, &m, MODEL_CPU);
			fclose(null);
		}
		model_free(&m);
	}
	exp_experiment_free(&e);
	return rc;
}

int flip_setup(struct flip_exp *x, const char *from, char *why, size_t len)
{
	const char *name;
	uint64_t places;

	memset(x, 0, sizeof(*x));
	snprintf(x->dir, sizeof(x->dir), "/tmp/tally-flip.XXXXXX");
	if (!mkdtemp(x->dir)) {
		snprintf(why, len, "mkdtemp: failed");
		return -1;
	}
	for (int i = 0; (name = exp_dir_file((size_t)i)) && i < 16; i++) {
		char path[512];
		snprintf(path, sizeof(path), "%s/%s", from, name);
		if (flip_read(path, &x->data[i], &x->size[i]) != 0)
			continue;
		flip_put(x, i);
		snprintf(path, sizeof(path), "%s/%s", x->dir, name);
		if (strcmp(name, EXP_LOG_NAME) && strcmp(name, EXP_COUNTERS_NAME))
			flip_list(x, i, path);
	}
	if (flip_load(x, x->base, &places, 1, why, len) != 0)
		return -1;
	if (places) {
		snprintf(why, len, "%s is damaged before any flip", from);
		return -1;
	}
	return 0;
}

int flip_check(struct flip_exp *x, int file, size_t offset, uint8_t mask, int build, char *why,
	       size_t len)
{
	uint64_t counts[64], places, most = 0;
	uint32_t kind = x->kind[file];
	size_t bs = x->block[file] ? x->block[file] : 1;
	int bad = 0;

	if (file < 0 || file >= 16 || !x->data[file] || offset >= x->size[file])
		return 0;
	/* A record's byte costs at most its block; a header's, the file. */
	for (size_t k = 0; k < x->nrecs; k++)
		if (x->recs[k].file == file &&
		    (offset < EXP_HEADER_BYTES || x->recs[k].offset / bs == offset / bs))
			most++;
	x->data[file][offset] ^= mask;
	flip_put(x, file);
	if (flip_load(x, counts, &places, build, why, len) != 0) {
		bad = 1;
	} else if (kind) {
		for (uint32_t kd = 1; kd < EXP_FILE_COUNT_ && !bad; kd++) {
			if (kd != kind && counts[kd] != x->base[kd]) {
				snprintf(why, len, "file kind %u read %llu records, not %llu", kd,
					 (unsigned long long)counts[kd], (unsigned long long)x->base[kd]);
				bad = 1;
			} else if (kd == kind && (counts[kd] > x->base[kd] || counts[kd] + most < x->base[kd])) {
				snprintf(why, len, "%llu of %llu records read, the block held %llu",
					 (unsigned long long)counts[kd], (unsigned long long)x->base[kd],
					 (unsigned long long)most);
				bad = 1;
			} else if (kd == kind && counts[kd] < x->base[kd] && !places) {
				snprintf(why, len, "%llu records lost silently",
					 (unsigned long long)(x->base[kd] - counts[kd]));
				bad = 1;
			}
		}
	}
	x->data[file][offset] ^= mask;
	flip_put(x, file);
	return bad;
}

void flip_free(struct flip_exp *x)
{
	char cmd[128];

	for (int i = 0; i < 16; i++)
		free(x->data[i]);
	free(x->recs);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", x->dir);
	if (x->dir[0] && system(cmd) != 0)
		fprintf(stderr, "flip: could not remove %s\n", x->dir);
	memset(x, 0, sizeof(*x));
}
