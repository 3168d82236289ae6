/* SPDX-License-Identifier: MIT
 *
 * col_sample.h — the profiling signal handler.
 */
#ifndef TALLY_COL_SAMPLE_H
#define TALLY_COL_SAMPLE_H

/* Install the handler for SIGTRAP and SIGPROF (once per process, before the
 * first clock starts), keeping the target's dispositions (col_signal.h). */
void col_sample_install(void);

#endif
