/* SPDX-License-Identifier: MIT
 *
 * cli_control.h — turning the recording of a launched run off and on from
 * outside it (cli_control.c): the control page of format/exp_launch.h,
 * which `tally record --control fifo:PATH` writes as commands arrive on its
 * FIFO, and `tally control EXP off|on` writes directly.
 */
#ifndef TALLY_CLI_CONTROL_H
#define TALLY_CLI_CONTROL_H

#include <stdbool.h>

struct cli_control;

/* Check a --control value: "fifo:PATH", or "cmd" (the page alone, for
 * `tally control`); 0, or -1 with the message printed. */
int cli_control_check(const char *spec);

/* Before the program starts: make the control page in the experiment
 * directory `dir` and open the FIFO of `spec` (made if missing, and then
 * removed by cli_control_close).  NULL with the message printed. */
struct cli_control *cli_control_open(const char *spec, const char *dir);

/* Wait up to `timeout_ms` for commands on the FIFO and apply them: a line
 * "disable", "pause" or "off" turns recording off, "enable", "resume" or
 * "on" turns it on; another line is refused on stderr. */
void cli_control_poll(struct cli_control *c, int timeout_ms);

/* After the program ended.  Frees c. */
void cli_control_close(struct cli_control *c);

/* Set the control page of experiment `dir` (off: recording off).  0, or -1
 * with a one-line message in `why` (no page: not recorded with --control). */
int cli_control_set(const char *dir, bool off, char *why, size_t why_len);

#endif
