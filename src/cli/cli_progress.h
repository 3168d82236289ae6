/* SPDX-License-Identifier: MIT
 *
 * cli_progress.h — the progress line of the analysis commands: on a
 * terminal's stderr, once loading and aggregating have taken a second
 * (TALLY_PROGRESS_MS milliseconds, for tests), one line saying what tally
 * is doing, rewritten as it goes on and erased when done.  A timer signal
 * shows it even while one long step (a million samples of one experiment)
 * is running.
 */
#ifndef TALLY_CLI_PROGRESS_H
#define TALLY_CLI_PROGRESS_H

/* Now doing `what` `arg` (the first call starts the clock). */
void cli_progress(const char *cmd, const char *what, const char *arg);
/* Done: the timer stopped, the line erased. */
void cli_progress_done(void);
/* Erase the line before another message on stderr (the next
 * cli_progress shows it again). */
void cli_progress_hide(void);

#endif
