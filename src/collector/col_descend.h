/* SPDX-License-Identifier: MIT
 *
 * col_descend.h — following descendant processes into sub-experiments.
 */
#ifndef TALLY_COL_DESCEND_H
#define TALLY_COL_DESCEND_H

/* Decide where this process writes, from the environment it inherited, and
 * create that directory: the founder writes `env_dir`; an exec'd image or a
 * spawned child writes ROOT/LINEAGE.exp.  Publishes TALLY_* for children.
 * Returns 0, or -1 to stay inactive. */
int col_descend_place(const char *env_dir);

/* Publish this process's variables again (its slot of processes.dat, once
 * its files are open, goes with its pid in TALLY_PID). */
void col_descend_publish(void);

/* --follow=none: take our variables and libraries out of the environment, so
 * that no descendant is profiled (the exec interposer and the fork handler do
 * the rest). */
void col_descend_stop_following(void);

/* Register the fork handlers (once). */
void col_descend_install(void);

#endif
