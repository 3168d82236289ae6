/* SPDX-License-Identifier: MIT
 *
 * cli_outside.h — `tally record` of a statically linked program, or of a Go
 * program without cgo (ELF_GO_OUTSIDE_WHY): what the outside mode
 * (src/outside/, docs/static.md) refuses, and its start.
 */
#ifndef TALLY_CLI_OUTSIDE_H
#define TALLY_CLI_OUTSIDE_H

#include <sys/types.h>

#include "cli/cli_record.h"

struct cli_kernel;
struct out_session;

/* 0 if the options given can be recorded from outside (their rows'
 * `outside` column, cli_record.h; o->pid set for -p), else -1 with one line
 * printed naming the first that cannot and why (`what`: "PROGRAM is
 * statically linked", a Go program's ELF_GO_OUTSIDE_WHY, or the like). */
int cli_outside_check(const struct record_opts *o, const char *what);

/* Open the outside mode's events on `child` (waiting before its exec) for
 * experiment `dir`; `why` (the log's collector.mode) says why from outside.
 * NULL with the message printed. */
struct out_session *cli_outside_start(pid_t child, pid_t attach_pid, const char *dir,
				      const struct record_opts *o, struct cli_kernel *kern, const char *why);

#endif
