/* SPDX-License-Identifier: MIT
 *
 * harness.c — see harness.h.  Included by the fuzz target and by
 * the crasher replay test, so both run exactly the same code.
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
#include "harness.h"

/* Which file of the experiment the input becomes: exp_dir_file(i), i from
 * the first byte: '0'..'9' are 0..9, 'a'..'z' 10..35 (the corpus and the
 * crashers start with such a byte, so they keep their file as kinds are
 * added), any other byte modulo the number of files. */
static size_t pick_file(uint8_t b)
{
	size_t n = 0;

	while (exp_dir_file(n))
		n++;
	size_t i = b >= '0' && b <= '9' ? (size_t)(b - '0') : b >= 'a' && b <= 'z' ? (size_t)(b - 'a') + 10 : b;
	return i < n ? i : i % n;
}

/* The one place a descendant's process file goes (FUZZ_PROC_BYTE). */
#define PROC_NAME "_f1" EXP_PROC_SUFFIX

const char *fuzz_place(const uint8_t *data, size_t size)
{
	static char dir[64];
	char path[128];

	if (!dir[0]) {
		snprintf(dir, sizeof(dir), "/tmp/tally-fuzz.%d", (int)getpid());
		mkdir(dir, 0700);
	}
	const char *name;
	for (size_t i = 0; (name = exp_dir_file(i)); i++) {
		snprintf(path, sizeof(path), "%s/%s", dir, name);
		unlink(path);
	}
	snprintf(path, sizeof(path), "%s/%s", dir, PROC_NAME);
	unlink(path);
	bool proc = size && data[0] == FUZZ_PROC_BYTE;
	const char *which = proc ? PROC_NAME : exp_dir_file(size ? pick_file(data[0]) : 0);
	snprintf(path, sizeof(path), "%s/%s", dir, EXP_LOG_NAME);
	FILE *f = fopen(path, "w");
	if (!f)
		return NULL;
	fputs("pid: 1\nstart.mono_ns: 0\n", f);
	fclose(f);
	snprintf(path, sizeof(path), "%s/%s", dir, which);
	f = fopen(path, strcmp(which, EXP_LOG_NAME) ? "w" : "a");
	if (!f)
		return NULL;
	if (size > 1)
		fwrite(data + 1, 1, size - 1, f);
	fclose(f);
	return dir;
}

int fuzz_one(const uint8_t *data, size_t size)
{
	struct exp_experiment e;
	struct exp_error err;
	struct exp_damage damage;
	int rc = 1;
	const char *dir = fuzz_place(data, size);

	if (!dir)
		return 1;
	if (exp_experiment_load(&e, dir, &err) == 0) {
		rc = 0;
		/* What could not be read is said in one line naming its file. */
		exp_experiment_damage(&e, &damage);
		if (damage.places && (!strchr(damage.first, ':') || strchr(damage.first, '\n')))
			abort();
		if (e.procs[0].nmaps == 0) {
			struct model m;
			char msg[256];
			if (model_build(&m, &e, 1, &(struct model_options){ 0 }, msg, sizeof(msg)) == 0) {
				FILE *null = fopen("/dev/null", "w");
				struct report_opts o = { .fmt = REPORT_JSON, .nmetrics = 1 };
				struct report_doc *d = report_doc_new(null, REPORT_JSON);
				report_overview(d, &m, &e, 1);
				report_functions(d, &m, &o);
				report_tree(d, &m, &o);
				report_states(d, &m);
				report_counters(d, &m, &o);
				report_data_objects(d, &m, &o);
				report_doc_end(d);
				report_collapsed(null, &m, MODEL_CPU);
				fclose(null);
			}
			model_free(&m);
		}
	} else if (!strchr(err.msg, ':') || strchr(err.msg, '\n')) {
		abort();        /* every error names its file, in one line */
	}
	exp_experiment_free(&e);
	return rc;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	fuzz_one(data, size);
	return 0;
}
