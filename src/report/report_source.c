/* SPDX-License-Identifier: MIT
 *
 * report_source.c — finding and reading a source file for annotation, in
 * the Sun analyzer's manner: the places below are tried in turn, and the first file
 * of the right name that can be read wins:
 *   1. each directory of the search path (--source-path DIR:DIR...): the
 *      path as DWARF gives it below that directory (when relative), then the
 *      file's basename there;
 *   2. the path as DWARF gives it: absolute, or relative to the compilation
 *      directory (DW_AT_comp_dir), or to the current directory.
 * A Java method's source ("pkg/Class.java") is looked for in the search
 * path, then below the current directory, its src/main/java and its src.
 * Files are read whole (a source file is small) and split into lines.
 *
 * Root reading another user's experiment (report_source_restrict) shows
 * only what that user may read: a #line directive or a DWARF path can name
 * any file, and root would print (or embed in HTML) a root-only one.  Each
 * file is then read by a child that has taken the owner's uid, gid and
 * groups and passes the bytes back through a pipe: root never opens the
 * path itself, so no check-then-open race with a link the owner swaps in.
 * A file the owner may not read is hidden, and `hidden` says why.
 */
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "report/report_source.h"

static const char *base_of(const char *path)
{
	const char *s = strrchr(path, '/');
	return s ? s + 1 : path;
}

/* The user whose rights source files are read with; -1: our own. */
static long restrict_uid = -1;
static gid_t restrict_gid;

void report_source_restrict(uid_t uid, gid_t gid)
{
	if (restrict_uid < 0) {
		restrict_uid = (long)uid;
		restrict_gid = gid;
	}
}

/* All of `f` (closed), NUL-terminated, in a malloc'd buffer; NULL with
 * errno if out of memory or a read failed (a directory: EISDIR). */
static char *read_all(FILE *f, size_t *lenp)
{
	char *buf = NULL;
	size_t len = 0, cap = 0;

	for (;;) {
		if (cap - len < 4096) {
			char *q = realloc(buf, cap = cap * 2 + 8192);
			if (!q) {
				free(buf);
				fclose(f);
				return NULL;
			}
			buf = q;
		}
		size_t got = fread(buf + len, 1, cap - len - 1, f);
		len += got;
		if (got == 0)
			break;
	}
	if (ferror(f)) {
		int e = errno;
		free(buf);
		fclose(f);
		errno = e;
		return NULL;
	}
	fclose(f);
	buf[len] = 0;
	*lenp = len;
	return buf;
}

/* errno as the child's exit status, which keeps 8 bits: one past them is
 * EIO (masked to 7, EOWNERDEAD 130 read as 2, ENOENT: a normal miss). */
static int exit_errno(int e)
{
	return e > 0 && e < 256 ? e : EIO;
}

/* `path` read by a child that became restrict_uid: its bytes, or NULL
 * with errno (EACCES when the owner may not read it).  The child's exit
 * status is the errno of its open. */
static char *read_as_owner(const char *path, size_t *len)
{
	int fds[2];

	fflush(NULL);
	if (pipe2(fds, O_CLOEXEC) != 0)
		return NULL;
	pid_t c = fork();
	if (c < 0) {
		close(fds[0]);
		close(fds[1]);
		return NULL;
	}
	if (c == 0) {
		struct passwd *pw = getpwuid((uid_t)restrict_uid);
		close(fds[0]);
		if ((pw ? initgroups(pw->pw_name, restrict_gid) : setgroups(0, NULL)) != 0 ||
		    setresgid(restrict_gid, restrict_gid, restrict_gid) != 0 ||
		    setresuid((uid_t)restrict_uid, (uid_t)restrict_uid, (uid_t)restrict_uid) != 0)
			_exit(EPERM);
		int fd = open(path, O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			_exit(exit_errno(errno));
		char b[65536];
		ssize_t n;
		while ((n = read(fd, b, sizeof(b))) > 0) {
			ssize_t put = write(fds[1], b, (size_t)n);
			if (put != n)           /* short, no errno: the source would look whole */
				_exit(put < 0 ? exit_errno(errno) : EIO);
		}
		_exit(n < 0 ? exit_errno(errno) : 0);      /* the read's own errno (EISDIR...) */
	}
	close(fds[1]);
	/* Everything first (a large file would block the child on a full
	 * pipe), then its status decides. */
	FILE *f = fdopen(fds[0], "r");
	char *buf = f ? read_all(f, len) : NULL;
	if (!f)
		close(fds[0]);
	int st = 0;
	while (waitpid(c, &st, 0) < 0 && errno == EINTR)
		;
	int e = WIFEXITED(st) ? WEXITSTATUS(st) : EIO;
	if (buf && e) {
		free(buf);
		buf = NULL;
	}
	errno = e ? e : ENOMEM;
	return buf;
}

/* Read `path` into src; true if it could. */
static bool read_file(const char *path, struct report_source *src)
{
	size_t len = 0;
	char *buf = NULL;

	if (restrict_uid >= 0) {
		buf = read_as_owner(path, &len);
		if (!buf && (errno == EACCES || errno == EPERM) && !src->hidden[0])
			snprintf(src->hidden, sizeof(src->hidden), "%s: not shown: uid %ld, the experiment's "
				 "owner, may not read it", path, restrict_uid);
	} else {
		FILE *f = fopen(path, "r");
		buf = f ? read_all(f, &len) : NULL;
	}
	/* A file that is there but could not be read is said with its own
	 * errno (not shown as empty, nor as not found); absent ones are
	 * the search's normal misses. */
	if (!buf && errno != ENOENT && errno != ENOTDIR && !src->hidden[0])
		snprintf(src->hidden, sizeof(src->hidden), "%s: not shown: %s", path, strerror(errno));
	if (!buf)
		return false;
	size_t n = 1;
	for (size_t i = 0; i < len; i++)
		n += buf[i] == '\n';
	src->lines = malloc((n + 1) * sizeof(*src->lines));
	if (!src->lines) {
		free(buf);
		return false;
	}
	src->text = buf;
	src->nlines = 0;
	for (char *p = buf; *p;) {
		char *nl = strchr(p, '\n');
		src->lines[src->nlines++] = p;
		if (!nl)
			break;
		*nl = 0;
		p = nl + 1;
	}
	snprintf(src->found, sizeof(src->found), "%s", path);
	return true;
}

bool report_source_open(const char *file, const char *comp_dir, const char *search_path,
			struct report_source *src)
{
	char path[8192];

	memset(src, 0, sizeof(*src));
	for (const char *d = search_path; d && *d;) {
		const char *end = strchr(d, ':');
		int dl = (int)(end ? (size_t)(end - d) : strlen(d));
		if (dl && file[0] != '/') {
			snprintf(path, sizeof(path), "%.*s/%s", dl, d, file);
			if (read_file(path, src))
				return true;
		}
		if (dl) {
			snprintf(path, sizeof(path), "%.*s/%s", dl, d, base_of(file));
			if (read_file(path, src))
				return true;
		}
		d = end ? end + 1 : NULL;
	}
	if (file[0] != '/' && comp_dir) {
		snprintf(path, sizeof(path), "%s/%s", comp_dir, file);
		if (read_file(path, src))
			return true;
	}
	return read_file(file, src);
}

bool report_source_open_java(const char *rel, const char *search_path, struct report_source *src)
{
	static const char roots[] = ".:src/main/java:src";
	char path[8192];

	snprintf(path, sizeof(path), "%s%s%s", search_path ? search_path : "", search_path ? ":" : "",
		 roots);
	return report_source_open(rel, NULL, path, src);
}

const char *report_source_line(const struct report_source *src, int line)
{
	return src && line >= 1 && (size_t)line <= src->nlines ? src->lines[line - 1] : NULL;
}

void report_source_free(struct report_source *src)
{
	free(src->text);
	free(src->lines);
	memset(src, 0, sizeof(*src));
}
