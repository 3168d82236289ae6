/* SPDX-License-Identifier: MIT
 *
 * cli_target.h — checking the program `tally record` is asked to run.
 */
#ifndef TALLY_CLI_TARGET_H
#define TALLY_CLI_TARGET_H

#include <limits.h>
#include <stdbool.h>

struct cli_target {
	char path[PATH_MAX];       /* resolved path of the program */
	char why[256];             /* why it cannot be run or profiled */
	bool is_static;            /* profiled from outside (docs/static.md): */
	char outside_why[128];     /* ... why: "statically linked", or a Go runtime's signals */
};

/* Resolve `prog` like execvp.  Returns 0 if it can be run and profiled
 * (`is_static`: statically linked, so from outside: src/outside/), 127 if
 * it was not found, 126 if it cannot be run or cannot be profiled (32-bit,
 * set-user-ID); `why` says which. */
int cli_target_resolve(const char *prog, struct cli_target *t);

#endif
