/* SPDX-License-Identifier: MIT
 *
 * exp_job.c — listing a job's rank experiments (see exp_job.h): one readdir
 * of the job's directory, the rankN.exp entries that hold an experiment
 * (a log.txt), sorted by N.
 */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "format/exp_data.h"
#include "format/exp_job.h"

static bool has_log(const char *dir)
{
	char path[4200];
	struct stat st;

	snprintf(path, sizeof(path), "%s/log.txt", dir);
	return stat(path, &st) == 0;
}

/* N of a name "rankN.exp", or -1. */
static long rank_of(const char *name)
{
	char *end;

	if (strncmp(name, "rank", 4) || name[4] < '0' || name[4] > '9')
		return -1;
	long n = strtol(name + 4, &end, 10);
	return strcmp(end, ".exp") || n < 0 || n > INT32_MAX ? -1 : n;
}

static int cmp_rank(const void *a, const void *b)
{
	const struct exp_job_rank *x = a, *y = b;

	return x->rank < y->rank ? -1 : x->rank > y->rank;
}

int exp_job_open(struct exp_job *j, const char *path, struct exp_error *err)
{
	size_t cap = 0;
	struct dirent *de;

	memset(j, 0, sizeof(*j));
	DIR *d = opendir(path);
	if (!d)
		return 0;                  /* not a directory: exp_experiment_load says why */
	while ((de = readdir(d))) {
		char sub[4200];
		long n = rank_of(de->d_name);
		if (n < 0)
			continue;
		snprintf(sub, sizeof(sub), "%s/%s", path, de->d_name);
		if (!has_log(sub))
			continue;
		if (exp_grow(&j->ranks, &cap, j->nranks, sizeof(*j->ranks)) ||
		    !(j->ranks[j->nranks].dir = strdup(sub))) {
			closedir(d);
			exp_job_free(j);
			snprintf(err->msg, sizeof(err->msg), "%s: out of memory", path);
			return -ENOMEM;
		}
		j->ranks[j->nranks++].rank = (int32_t)n;
	}
	closedir(d);
	if (!j->nranks)
		return 0;
	qsort(j->ranks, j->nranks, sizeof(*j->ranks), cmp_rank);
	j->size = j->ranks[j->nranks - 1].rank + 1;
	j->launcher = has_log(path);
	j->path = strdup(path);
	return 1;
}

void exp_job_free(struct exp_job *j)
{
	for (size_t i = 0; i < j->nranks; i++)
		free(j->ranks[i].dir);
	free(j->ranks);
	free(j->path);
	memset(j, 0, sizeof(*j));
}
