/* SPDX-License-Identifier: MIT
 *
 * fuzz_flip.c — the libFuzzer target over one corrupt byte (`make fuzz`):
 * the input picks a file of tests/data/every.exp (byte 0), an offset in it
 * (bytes 1-4, little-endian, modulo its size) and a mask (byte 5); the rule
 * of flip.h must hold, or the target aborts (a crasher in
 * tests/fuzz/crashers/).  Run from the project root.
 */
#include "flip.c"
#include "symbols/sym.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void quiet(const char *msg)
{
	(void)msg;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct flip_exp x;
	static int ready;
	char why[1024];

	if (!ready) {
		sym_set_warning_handler(quiet);
		if (flip_setup(&x, "tests/data/every.exp", why, sizeof(why)) != 0) {
			fprintf(stderr, "fuzz_flip: %s (run from the project root)\n", why);
			abort();
		}
		ready = 1;
	}
	if (size < 6 || !data[5])
		return 0;
	int file = data[0] % 16;
	if (!x.data[file])
		return 0;
	uint32_t off;
	memcpy(&off, data + 1, 4);
	off %= (uint32_t)x.size[file];
	if (flip_check(&x, file, off, data[5], 1, why, sizeof(why))) {
		fprintf(stderr, "fuzz_flip: %s at 0x%x ^ 0x%02x: %s\n", exp_dir_file((size_t)file), off,
			data[5], why);
		abort();
	}
	return 0;
}
