/* SPDX-License-Identifier: MIT
 *
 * harness_tree.h — one fuzz input against a whole experiment directory
 * with sub-experiments: a copy of tests/data/tree.exp (a founder and three
 * descendants) on which the input's operations remove files, cut them
 * short, swap them within or across processes, flip bytes, remove a whole
 * process's files, put a directory or a FIFO where a file was, or repeat a file's
 * first half.  The experiment is then
 * loaded, modelled and reported.  Shared by the libFuzzer target
 * (fuzz_tree.c) and tests/unit/test_fuzz_tree.c.  Run from the project root.
 */
#ifndef TALLY_FUZZ_HARNESS_TREE
#define TALLY_FUZZ_HARNESS_TREE

#include <stddef.h>
#include <stdint.h>

#define TREE_SOURCE "tests/data/tree.exp"

/* Each 4 input bytes are one operation (at most 16): what, which process,
 * which file, how much.  Returns 0 if the experiment loaded, 1 if the
 * reader rejected it (with an error naming a file); crashing, or an error
 * that names nothing, is the failure (abort). */
int fuzz_tree_one(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#endif
