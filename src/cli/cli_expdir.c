/* SPDX-License-Identifier: MIT
 *
 * cli_expdir.c — an experiment directory held by a descriptor, for root
 * recording another user's process (`tally record -p PID`, cli_attach.c).
 *
 * The collector runs inside the process, as its user, and must create files
 * in the experiment: the directory is lent to that user for the run.  While
 * it is lent, the user may put anything under any name there (a symbolic
 * link named log.txt to a root-owned file, archive/ pointing elsewhere, a
 * FIFO, a hard link), and may rename the directory itself if its parent is
 * sticky.  So root never opens a file of the experiment by path:
 *   - the directory is opened once, right after mkdir, while root owns it;
 *     every file is opened relative to that descriptor (cli_expdir_file:
 *     O_NOFOLLOW, O_NONBLOCK so that a FIFO cannot block, then fstat: a
 *     regular file with one link, owned by root or the borrower);
 *   - before root's end-of-run work (compaction, archive, space report) the
 *     directory is taken back (cli_expdir_reclaim: fchown to root, no write
 *     for group and others, then every subdirectory likewise, and anything
 *     that is not a plain file or directory removed, with one warning line):
 *     after that nobody but root can add or rename a name in it, and the
 *     path "/proc/self/fd/N" (cli_expdir_path) reaches it whatever it is
 *     called now;
 *   - at the end, the files and directories root made are handed to the
 *     user (cli_expdir_handover), the directory itself last.
 * Only what root made is chowned, by descriptor or with AT_SYMLINK_NOFOLLOW
 * relative to a directory root holds.  Called from the main thread of
 * `tally record` only.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli/cli.h"
#include "cli/cli_expdir.h"
#include "cli/cli_record.h"

/* Deeper than this, tally never looks: subdirectories there are taken
 * back (so nothing can be added) but not walked. */
#define EXPDIR_MAX_DEPTH 3

int cli_expdir_open(struct cli_expdir *x, const char *dir)
{
	struct stat st;

	memset(x, 0, sizeof(*x));
	x->dirfd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (x->dirfd < 0)
		return -1;
	if (fstat(x->dirfd, &st) != 0 || st.st_uid != geteuid()) {
		close(x->dirfd);
		x->dirfd = -1;
		errno = EPERM;
		return -1;
	}
	x->dev = st.st_dev;
	x->ino = st.st_ino;
	x->uid = geteuid();
	x->gid = getegid();
	snprintf(x->path, sizeof(x->path), "/proc/self/fd/%d", x->dirfd);
	snprintf(x->name, sizeof(x->name), "%s", dir);
	return 0;
}

const char *cli_expdir_path(const struct cli_expdir *x)
{
	return x->path;
}

/* Is this a file root may read or write: regular, one link, root's or the
 * borrower's? */
static bool plain_file(const struct cli_expdir *x, const struct stat *st)
{
	return S_ISREG(st->st_mode) && st->st_nlink == 1 && (st->st_uid == geteuid() || st->st_uid == x->uid);
}

int cli_expdir_file(const struct cli_expdir *x, const char *name, int flags, mode_t mode)
{
	struct stat st;
	int fd = openat(x->dirfd, name, flags | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC, mode);

	if (fd < 0)
		return -1;
	if (fstat(fd, &st) != 0 || !plain_file(x, &st)) {
		close(fd);
		errno = EPERM;
		return -1;
	}
	if (fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK) != 0) {
		close(fd);
		return -1;
	}
	return fd;
}

int cli_expdir_lend(struct cli_expdir *x, uid_t uid, gid_t gid)
{
	if (fchown(x->dirfd, uid, gid) != 0)
		return -1;
	x->uid = uid;
	x->gid = gid;
	x->lent = true;
	return 0;
}

/* Take the directory open as `fd` back (root's, no write for group and
 * others), then everything in it: plain files stay, subdirectories are
 * taken back in turn, anything else is removed.  The first removal is named
 * in `first` (path relative to the experiment).  Returns the number
 * removed. */
static unsigned reclaim(const struct cli_expdir *x, int fd, int depth, const char *rel, char *first,
			size_t len)
{
	struct stat st;
	unsigned removed = 0;

	if (fchown(fd, geteuid(), getegid()) != 0 || fstat(fd, &st) != 0)
		return 0;
	fchmod(fd, st.st_mode & 0755);
	if (depth >= EXPDIR_MAX_DEPTH)
		return 0;
	int dfd = dup(fd);
	DIR *d = dfd >= 0 ? fdopendir(dfd) : NULL;
	if (!d) {
		if (dfd >= 0)
			close(dfd);
		return 0;
	}
	rewinddir(d);           /* the dup shares the offset of an earlier walk */
	for (struct dirent *e; (e = readdir(d));) {
		char sub[512];
		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		if (fstatat(fd, e->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0)
			continue;
		snprintf(sub, sizeof(sub), "%s%s%s", rel, *rel ? "/" : "", e->d_name);
		if (S_ISDIR(st.st_mode)) {
			int c = openat(fd, e->d_name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
			if (c >= 0) {
				removed += reclaim(x, c, depth + 1, sub, first, len);
				close(c);
			}
			continue;
		}
		if (plain_file(x, &st) || unlinkat(fd, e->d_name, 0) != 0)
			continue;
		if (!removed++)
			snprintf(first, len, "%s (%s)", sub,
				 S_ISLNK(st.st_mode) ? "a symbolic link" : S_ISREG(st.st_mode) ?
				 "a file with another owner or link" : "not a regular file");
	}
	closedir(d);
	return removed;
}

void cli_expdir_reclaim(struct cli_expdir *x, const char *cmd)
{
	char first[600] = "";

	if (!x->lent)
		return;
	unsigned n = reclaim(x, x->dirfd, 0, "", first, sizeof(first));
	if (n && cmd)
		cli_warn(cmd, "%s: %u entries the process's user put there removed, first %s: "
			 "tally follows no link of theirs", x->name, n, first);
}

/* Hand what root made under `fd` to the borrower, children first. */
static void handover(const struct cli_expdir *x, int fd, int depth)
{
	struct stat st;
	int dfd = depth < EXPDIR_MAX_DEPTH ? dup(fd) : -1;
	DIR *d = dfd >= 0 ? fdopendir(dfd) : NULL;

	if (!d && dfd >= 0)
		close(dfd);
	if (d)
		rewinddir(d);
	for (struct dirent *e; d && (e = readdir(d));) {
		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..") ||
		    fstatat(fd, e->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0 || st.st_uid != geteuid())
			continue;
		if (S_ISDIR(st.st_mode)) {
			int c = openat(fd, e->d_name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
			if (c >= 0) {
				handover(x, c, depth + 1);
				close(c);
			}
		} else if (S_ISREG(st.st_mode)) {
			fchownat(fd, e->d_name, x->uid, x->gid, AT_SYMLINK_NOFOLLOW);
		}
	}
	if (d)
		closedir(d);
	fchown(fd, x->uid, x->gid);
}

void cli_expdir_handover(struct cli_expdir *x)
{
	if (x->lent)
		handover(x, x->dirfd, 0);
}

void cli_expdir_remove(struct cli_expdir *x)
{
	struct stat st;

	cli_expdir_reclaim(x, NULL);
	cli_record_remove_dir(x->path);
	/* The name still the directory we made (root's again: nobody else can
	 * have renamed it since)? */
	if (lstat(x->name, &st) == 0 && st.st_dev == x->dev && st.st_ino == x->ino)
		rmdir(x->name);
}

void cli_expdir_close(struct cli_expdir *x)
{
	if (x->dirfd >= 0)
		close(x->dirfd);
	x->dirfd = -1;
}
