/* SPDX-License-Identifier: MIT
 *
 * out_zstd.c — zstd decompression (out_zstd.h) through libzstd.so.1,
 * loaded with dlopen at the first zstd-compressed section met, as capstone
 * is (sym_capstone.c): tally needs neither zstd's headers to build nor the
 * library to run (Debian installs libzstd1 with dpkg itself; without it a
 * zstd section is not read, and the first one met says so on stderr, one
 * line for the run).  TALLY_ZSTD_LIB replaces the library's name (a test's
 * missing one).  Called by out_debugframe.c in `tally record`
 * (the outside mode), never in the target.  The ABI used is zstd's stable
 * one: ZSTD_decompress and ZSTD_isError, unchanged since 1.0.
 */
#include <dlfcn.h>
#include <pthread.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>

#include "outside/out_zstd.h"

#define ZSTD_SONAME "libzstd.so.1"

static struct {
	size_t (*decompress)(void *dst, size_t dst_len, const void *src, size_t src_len);
	unsigned (*is_error)(size_t code);
} zstd;                        /* both set, or `decompress` NULL: not loaded */
static pthread_once_t once = PTHREAD_ONCE_INIT;

/* Open the library and resolve both functions, or neither; once, at the
 * first compressed section: where it cannot, say so then. */
static void load(void)
{
	const char *lib = getenv("TALLY_ZSTD_LIB") && *getenv("TALLY_ZSTD_LIB") ? getenv("TALLY_ZSTD_LIB")
										  : ZSTD_SONAME;
	void *h = dlopen(lib, RTLD_NOW | RTLD_LOCAL);
	void *dec, *err;

	if (!h) {
		fprintf(stderr, "tally record: zstd-compressed .debug_frame sections are not read: %s "
			"(Debian: apt-get install libzstd1)\n", dlerror());
		return;
	}
	dec = dlsym(h, "ZSTD_decompress");
	err = dlsym(h, "ZSTD_isError");
	if (!dec || !err) {
		fprintf(stderr, "tally record: zstd-compressed .debug_frame sections are not read: %s has no "
			"ZSTD_decompress or ZSTD_isError\n", lib);
		dlclose(h);
		return;
	}
	*(void **)&zstd.is_error = err;
	*(void **)&zstd.decompress = dec;
}

bool out_zstd_decompress(uint8_t *out, uint64_t size, const uint8_t *in, uint64_t in_len)
{
	pthread_once(&once, load);
	if (!zstd.decompress || size > SIZE_MAX || in_len > SIZE_MAX)
		return false;
	size_t got = zstd.decompress(out, (size_t)size, in, (size_t)in_len);
	return !zstd.is_error(got) && got == size;
}
