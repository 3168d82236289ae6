/* SPDX-License-Identifier: MIT
 *
 * col_sample.h — the profiling signal handler.
 */
#ifndef TALLY_COL_SAMPLE_H
#define TALLY_COL_SAMPLE_H

/* Install the handler for SIGTRAP and SIGPROF (once per process, before the
 * first clock starts), keeping the target's dispositions (col_signal.h). */
void col_sample_install(void);

/* For a process we attached to (col_attach.c): called by the handler, on a
 * signal of our clock in a thread without state, to set its state up; it
 * returns it, or NULL.  NULL: no such call. */
struct col_thread;
/* After creating a thread: a sample if the inherited clock fell behind
 * (the kernel's context swap took the period's progress). */
void col_sample_catch_up(void);
void col_sample_set_adopt(struct col_thread *(*fn)(const void *uc));

#endif
