/* SPDX-License-Identifier: MIT
 *
 * fuzz_experiment.c — the libFuzzer target over the experiment reader,
 * model and reports (`make fuzz`).  Crashers found go to tests/fuzz/crashers/
 * and are replayed by `make check` forever after.
 */
#include "harness.c"
