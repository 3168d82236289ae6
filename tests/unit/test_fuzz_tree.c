/* SPDX-License-Identifier: MIT
 *
 * test_fuzz_tree.c — whole experiment directories with sub-experiments,
 * broken every way harness_tree.h can: each file of each process missing,
 * cut to nothing, a little and its half, swapped with files of its own and
 * the other processes, every process's files gone;
 * then random sequences of up to 16 operations; then the crashers the
 * fuzzer kept (tests/fuzz/crashers/tree-*).  Never a crash nor a hang, every
 * error names its file; and an experiment whose damage is confined to one
 * descendant still loads (the rest is reported); so does one whose files
 * cannot be read at all in one process.  Run from the project
 * root, in the plain and the sanitized build.
 */
#include <dirent.h>

#include "../fuzz/harness_tree.c"
#include "testhelp.h"

/* One operation; returns fuzz_tree_one's result. */
static int one(uint8_t what, uint8_t proc, uint8_t file, uint8_t arg)
{
	const uint8_t op[4] = { what, proc, file, arg };
	return fuzz_tree_one(op, sizeof(op));
}

static void pristine_tree_loads(void)
{
	CHECK(fuzz_tree_one(NULL, 0) == 0);
	CHECKF(nprocs == 4, "%zu processes in %s", nprocs, TREE_SOURCE);
}

/* The founder is procs[0]; a descendant's damage must not cost the rest. */
static void every_file_missing_or_cut(void)
{
	for (uint8_t p = 0; p < nprocs; p++)
		for (uint8_t f = 0; f < procs[p].nfiles; f++) {
			int rc = one(0, p, f, 0);
			CHECKF(p == 0 || rc == 0, "%s/%s missing: not loaded", procs[p].dir, procs[p].files[f].name);
			static const uint8_t cuts[] = { 0, 1, 8, 128 };
			for (size_t k = 0; k < sizeof(cuts); k++) {
				rc = one(1, p, f, cuts[k]);
				CHECKF(p == 0 || rc == 0, "%s/%s cut to %u/256: not loaded", procs[p].dir,
				       procs[p].files[f].name, cuts[k]);
			}
		}
}

/* A file that cannot be read at all (a directory, or a FIFO: opening it
 * must not block) costs its process, never the experiment; the founder's
 * too: the descendants are still read. */
static void every_file_unreadable(void)
{
	for (uint8_t p = 0; p < nprocs; p++)
		for (uint8_t f = 0; f < procs[p].nfiles; f++)
			for (uint8_t fifo = 0; fifo < 2; fifo++)
				CHECKF(one(5, p, f, fifo) == 0, "%s/%s a %s: not loaded", procs[p].dir,
				       procs[p].files[f].name, fifo ? "FIFO" : "directory");
}

static void every_swap(void)
{
	for (uint8_t p = 0; p < nprocs; p++)
		for (uint8_t f = 0; f < procs[p].nfiles; f++)
			for (unsigned arg = 0; arg < 256; arg += 13)
				one(2, p, f, (uint8_t)arg);
}

static void whole_process_gone(void)
{
	for (uint8_t p = 1; p < nprocs; p++)
		CHECKF(one(4, p, 0, 0) == 0, "%s without its files: not loaded", procs[p].dir);
	one(4, 0, 0, 0);
}

static void random_sequences(void)
{
	uint64_t x = 0x9e3779b97f4a7c15ull;
	uint8_t buf[64];

	for (int i = 0; i < 200; i++) {
		size_t n = 4 + (size_t)(i % 16) * 4;
		for (size_t k = 0; k < n; k++) {
			x ^= x << 13, x ^= x >> 7, x ^= x << 17;
			buf[k] = (uint8_t)x;
		}
		fuzz_tree_one(buf, n);
	}
}

static void crashers_replay(void)
{
	DIR *d = opendir("tests/fuzz/crashers");
	struct dirent *de;

	while (d && (de = readdir(d))) {
		char path[512];
		if (strncmp(de->d_name, "tree-", 5))
			continue;
		snprintf(path, sizeof(path), "tests/fuzz/crashers/%s", de->d_name);
		size_t size;
		uint8_t *data = slurp(path, &size);
		if (data)
			fuzz_tree_one(data, size);
		free(data);
	}
	if (d)
		closedir(d);
}

int main(void)
{
	RUN(pristine_tree_loads);
	RUN(every_file_missing_or_cut);
	RUN(every_file_unreadable);
	RUN(every_swap);
	RUN(whole_process_gone);
	RUN(random_sequences);
	RUN(crashers_replay);
	TEST_EXIT();
}
