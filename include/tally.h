/* SPDX-License-Identifier: MIT
 *
 * tally.h — the small API a program may call while `tally record` profiles
 * it.  Link with -ltally (build/lib/libtally.so).  Run without tally, every
 * function does nothing and returns 0, so the calls can stay in production
 * code.
 */
#ifndef TALLY_H
#define TALLY_H

#ifdef __cplusplus
extern "C" {
#endif

/* 1 if this process is being recorded by tally, else 0. */
int tally_collecting(void);

/* Stop recording clock samples and traced events in every thread of this
 * process, until tally_resume().  The CPU time that passes meanwhile is not
 * counted anywhere.  Returns 1 if recording was on. */
int tally_pause(void);
int tally_resume(void);

/* Note a named point in time (a phase, a request) in the experiment's log:
 * `tally report` lists the markers with their times, and `--time` selects
 * the stretch between two of them. */
void tally_marker(const char *name);

#ifdef __cplusplus
}
#endif

#endif
