/* SPDX-License-Identifier: MIT
 *
 * harness.c — see harness.h.  Included by the fuzz target and by
 * the crasher replay test, so both run exactly the same code.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "format/exp_data.h"
#include "model/model.h"
#include "report/report.h"
#include "harness.h"

static const char *const fuzz_files[] = {
	"samples.dat", "stacks.dat", "maps.dat", "threads.dat", "heap.dat",
	"sync.dat", "io.dat", "arcs.dat", "counters.dat", "log.txt",
};

int fuzz_one(const uint8_t *data, size_t size)
{
	static char dir[64];
	char path[128];
	struct exp_experiment e;
	struct exp_error err;
	int rc = 1;

	if (!dir[0]) {
		snprintf(dir, sizeof(dir), "/tmp/tally-fuzz.%d", (int)getpid());
		mkdir(dir, 0700);
	}
	for (size_t i = 0; i < sizeof(fuzz_files) / sizeof(fuzz_files[0]); i++) {
		snprintf(path, sizeof(path), "%s/%s", dir, fuzz_files[i]);
		unlink(path);
	}
	size_t which = size ? data[0] % (sizeof(fuzz_files) / sizeof(fuzz_files[0])) : 0;
	snprintf(path, sizeof(path), "%s/log.txt", dir);
	FILE *f = fopen(path, "w");
	if (!f)
		return 1;
	fputs("pid: 1\nstart.mono_ns: 0\n", f);
	fclose(f);
	snprintf(path, sizeof(path), "%s/%s", dir, fuzz_files[which]);
	f = fopen(path, which == 9 ? "a" : "w");
	if (!f)
		return 1;
	if (size > 1)
		fwrite(data + 1, 1, size - 1, f);
	fclose(f);

	if (exp_experiment_load(&e, dir, &err) == 0) {
		rc = 0;
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
				report_doc_end(d);
				report_collapsed(null, &m, MODEL_CPU);
				fclose(null);
			}
			model_free(&m);
		}
	} else if (!strchr(err.msg, ':')) {
		abort();        /* every error names its file */
	}
	exp_experiment_free(&e);
	return rc;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	fuzz_one(data, size);
	return 0;
}
