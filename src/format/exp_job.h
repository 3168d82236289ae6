/* SPDX-License-Identifier: MIT
 *
 * exp_job.h — an MPI job's experiment: a directory holding one experiment
 * per rank, `rankN.exp` (N its MPI_COMM_WORLD rank), each a whole
 * experiment (the rank's process and its descendants), and, when the
 * launcher itself was recorded (`tally record -o job.exp -- mpirun ...`),
 * the launcher's experiment in the directory itself.  docs/mpi.md describes
 * how jobs are recorded.
 *
 * Used by the analysis commands to list what to load; each rank is then
 * loaded with exp_experiment_load, one at a time.
 */
#ifndef TALLY_EXP_JOB_H
#define TALLY_EXP_JOB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "format/exp_read.h"

struct exp_job_rank {
	int32_t rank;
	char *dir;                 /* path of rankN.exp */
};

struct exp_job {
	char *path;
	bool launcher;             /* path/log.txt: the launcher was recorded too */
	struct exp_job_rank *ranks;   /* by rank */
	size_t nranks;
	int32_t size;              /* highest rank + 1 */
};

/* List the job in directory `path`.  Returns 1 (a job: at least one
 * rankN.exp with a log.txt), 0 (not a job: a plain experiment, or not an
 * experiment at all, left to exp_experiment_load), or -errno / -EXP_ECORRUPT
 * with `err` filled. */
int exp_job_open(struct exp_job *j, const char *path, struct exp_error *err);
void exp_job_free(struct exp_job *j);

#endif
