/* SPDX-License-Identifier: MIT
 *
 * test_fuzz_crashers.c — replays every input in tests/fuzz/crashers/ (inputs
 * that once crashed the reader) and tests/fuzz/corpus/ (seeds) through the
 * fuzz harness: each must be read or rejected, never crash.  Run in the
 * plain and the sanitized build.
 */
#include <dirent.h>

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

int main(void)
{
	RUN(crashers_and_corpus_replay);
	TEST_EXIT();
}
