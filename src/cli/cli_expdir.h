/* SPDX-License-Identifier: MIT
 *
 * cli_expdir.h — an experiment directory held by a descriptor, lent by root
 * to the user of a process it records and taken back before root touches
 * anything in it (cli_expdir.c says why and how).
 */
#ifndef TALLY_CLI_EXPDIR_H
#define TALLY_CLI_EXPDIR_H

#include <stdbool.h>
#include <sys/types.h>

struct cli_expdir {
	int dirfd;              /* the directory, opened right after mkdir */
	dev_t dev;              /* ... and its identity, to find its name again */
	ino_t ino;
	uid_t uid;              /* the borrower (while lent), else us */
	gid_t gid;
	bool lent;              /* given to uid at some point */
	char path[32];          /* "/proc/self/fd/N" */
	char name[4096];        /* the name it was made under, for messages */
};

/* Open `dir`, just made by us: 0, or -1 with errno (EPERM: not ours). */
int cli_expdir_open(struct cli_expdir *x, const char *dir);
/* A path that reaches the directory itself whatever its name now: safe to
 * use for paths below it once it is ours again (cli_expdir_reclaim). */
const char *cli_expdir_path(const struct cli_expdir *x);
/* openat(dirfd, name, flags | O_NOFOLLOW | O_CLOEXEC, mode), refusing
 * anything but a regular file with one link owned by us or the borrower
 * (EPERM; ELOOP for a symbolic link): a descriptor, or -1 with errno. */
int cli_expdir_file(const struct cli_expdir *x, const char *name, int flags, mode_t mode);
/* Give the directory to uid:gid for the run; 0 or -1 with errno. */
int cli_expdir_lend(struct cli_expdir *x, uid_t uid, gid_t gid);
/* Take it back, with every subdirectory, removing links and special files
 * the borrower put there (one warning line under `cmd`, none if NULL). */
void cli_expdir_reclaim(struct cli_expdir *x, const char *cmd);
/* At the end: what we made in it, then the directory, to the borrower. */
void cli_expdir_handover(struct cli_expdir *x);
/* Take it back and remove the experiment (a failed start). */
void cli_expdir_remove(struct cli_expdir *x);
void cli_expdir_close(struct cli_expdir *x);

#endif
