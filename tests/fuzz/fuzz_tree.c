/* SPDX-License-Identifier: MIT
 *
 * fuzz_tree.c — the libFuzzer target over whole experiment directories with
 * sub-experiments (`make fuzz`): files missing, cut short, swapped within and
 * across processes (harness_tree.h).  Crashers go to tests/fuzz/crashers/
 * (named tree-*), replayed by tests/unit/test_fuzz_tree.c.
 */
#include "harness_tree.c"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	fuzz_tree_one(data, size);
	return 0;
}
