/* SPDX-License-Identifier: MIT
 *
 * harness.h — one fuzz input through the experiment reader.  Shared by
 * the libFuzzer target (fuzz_experiment.c) and the crasher replay in
 * `make check` (tests/unit/test_fuzz_crashers.c).
 */
#ifndef TALLY_FUZZ_HARNESS
#define TALLY_FUZZ_HARNESS

#include <stddef.h>
#include <stdint.h>

/* The first byte picks the file (samples.dat, stacks.dat, ... counters.dat,
 * log.txt), or with FUZZ_PROC_BYTE a descendant's process file (_f1.proc,
 * format 8) beside the founder's log; the rest is its content.  The
 * experiment is loaded and, when it names no load objects, modelled and
 * reported.  Returns 0 if it loaded, 1 if the reader rejected it (both
 * fine); crashing is the failure, and so is an error or a damaged place
 * not said in one line naming its file (abort). */
#define FUZZ_PROC_BYTE 'P'
int fuzz_one(const uint8_t *data, size_t size);

/* The input's experiment made in the harness's directory (as fuzz_one
 * does): that directory, or NULL. */
const char *fuzz_place(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#endif
