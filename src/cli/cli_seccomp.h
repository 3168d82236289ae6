/* SPDX-License-Identifier: MIT
 *
 * cli_seccomp.h — what a seccomp filter `tally record` runs under (and so
 * the program starts under) does to the collector's risky calls, probed
 * once in children of the launcher, where a call killed kills only them.
 */
#ifndef TALLY_CLI_SECCOMP_H
#define TALLY_CLI_SECCOMP_H

#include <stddef.h>

#include "format/exp_launch.h"

/* Under a seccomp filter (Seccomp: 2), probe perf_event_open and
 * clone(CLONE_VM | CLONE_VFORK) each in a child, and set
 * o->seccomp_filters (Seccomp_filters) and o->seccomp_safe (the calls
 * whose child lived); else leave them unset (-1, 0).  One line for the
 * log in `why` ("" when not under a filter).  Returns 1 under a filter,
 * else 0. */
int cli_seccomp_probe(struct exp_launch_options *o, char *why, size_t len);

#endif
