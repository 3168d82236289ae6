/* SPDX-License-Identifier: MIT
 *
 * test_fuzz_crashers.c — replays every input in tests/fuzz/crashers/ (inputs
 * that once crashed the reader) and tests/fuzz/corpus/ (seeds) through the
 * fuzz harness: each must be read or rejected, never crash.  Run in the
 * plain and the sanitized build.  The corpus's process files (seed-proc*,
 * a descendant's _f1.proc): the sound one reads whole, and each damaged one
 * is said in one line that names it.
 */
#include <dirent.h>
#include <string.h>

#include "../fuzz/harness.c"
#include "testhelp.h"

static int replayed;

static void replay_dir(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *de;

	if (!d)
		return;
	while ((de = readdir(d))) {
		char path[512];
		if (de->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
		FILE *f = fopen(path, "rb");
		if (!f)
			continue;
		static uint8_t buf[1 << 20];
		size_t n = fread(buf, 1, sizeof(buf), f);
		fclose(f);
		fuzz_one(buf, n);
		replayed++;
	}
	closedir(d);
}

static void crashers_and_corpus_replay(void)
{
	replay_dir("tests/fuzz/crashers");
	replay_dir("tests/fuzz/corpus");
	CHECKF(replayed > 0, "no inputs found (run from the project root)");
}

/* What the reader said of the input in `path` (one line), or "" if it read
 * it whole; *nprocs: the processes loaded. */
static void said_of(const char *path, char *said, size_t len, size_t *nprocs)
{
	static uint8_t buf[1 << 16];
	FILE *f = fopen(path, "rb");
	size_t n = f ? fread(buf, 1, sizeof(buf), f) : 0;
	struct exp_experiment e;
	struct exp_error err;
	struct exp_damage damage;

	if (f)
		fclose(f);
	said[0] = 0;
	*nprocs = 0;
	const char *dir = fuzz_place(buf, n);
	if (!dir || exp_experiment_load(&e, dir, &err) != 0) {
		snprintf(said, len, "%s", dir ? err.msg : "no directory");
		return;
	}
	*nprocs = e.nprocs;
	exp_experiment_damage(&e, &damage);
	if (damage.places)
		snprintf(said, len, "%s", damage.first);
	else if (e.lost_procs)
		snprintf(said, len, "%s", e.lost_why ? e.lost_why : "a process lost, unsaid");
	exp_experiment_free(&e);
}

static void proc_seeds_said_in_one_line(void)
{
	DIR *d = opendir("tests/fuzz/corpus");
	struct dirent *de;
	int bad = 0;

	CHECKF(d != NULL, "no corpus (run from the project root)");
	while (d && (de = readdir(d))) {
		char path[512], said[1024];
		size_t nprocs;
		if (strncmp(de->d_name, "seed-proc", 9))
			continue;
		snprintf(path, sizeof(path), "tests/fuzz/corpus/%s", de->d_name);
		said_of(path, said, sizeof(said), &nprocs);
		if (!strcmp(de->d_name, "seed-proc.dat")) {
			CHECKF(!said[0] && nprocs == 2, "%s: %s (%zu processes)", de->d_name, said, nprocs);
			continue;
		}
		bad++;
		CHECKF(said[0] && strstr(said, "_f1.proc") && !strchr(said, '\n'),
		       "%s: said \"%s\"", de->d_name, said);
		printf("  %s: %s\n", de->d_name, said);
	}
	if (d)
		closedir(d);
	CHECKF(bad >= 5, "%d damaged process files in the corpus", bad);
}

int main(void)
{
	RUN(crashers_and_corpus_replay);
	RUN(proc_seeds_said_in_one_line);
	TEST_EXIT();
}
