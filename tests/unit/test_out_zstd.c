/* SPDX-License-Identifier: MIT
 *
 * test_out_zstd.c — a missing libzstd (src/outside/out_zstd.c) is said
 * once, in one line, at the first compressed section that needs it, and
 * the section is not read (before: nothing was said).  TALLY_ZSTD_LIB
 * names a library that is not there.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "outside/out_zstd.h"
#include "testhelp.h"

static void missing_library_said_once(void)
{
	char path[] = "/tmp/tally-test-zstd.XXXXXX", line[512];
	uint8_t in[16] = { 0x28, 0xb5, 0x2f, 0xfd }, out[8];
	int fd = mkstemp(path), saved = dup(2);

	CHECK(fd >= 0 && saved >= 0);
	if (fd < 0 || saved < 0)
		return;
	setenv("TALLY_ZSTD_LIB", "/nonexistent/libzstd.so.1", 1);
	fflush(stderr);
	dup2(fd, 2);
	bool first = out_zstd_decompress(out, sizeof(out), in, sizeof(in));
	bool second = out_zstd_decompress(out, sizeof(out), in, sizeof(in));
	fflush(stderr);
	dup2(saved, 2);
	close(saved);
	CHECK(!first && !second);
	FILE *f = fopen(path, "r");
	int lines = 0, said = 0;
	while (f && fgets(line, sizeof(line), f)) {
		lines++;
		said += strstr(line, "zstd-compressed .debug_frame sections are not read") &&
			strstr(line, "/nonexistent/libzstd.so.1");
	}
	if (f)
		fclose(f);
	close(fd);
	unlink(path);
	CHECKF(lines == 1 && said == 1, "%d lines on stderr, %d saying it", lines, said);
}

int main(void)
{
	RUN(missing_library_said_once);
	TEST_EXIT();
}
