/* SPDX-License-Identifier: MIT
 *
 * test_col_deferred.c — a fork child's files while they wait for its first
 * write (col_files_defer, col_files_open_deferred_sigsafe): its start
 * lines come first in its file, and no line of its reaches its parent's
 * log.  Steps as the fork handler takes them
 * (col_descend.c, on_fork_child), on files in a scratch directory.
 */
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "collector/col_files.h"
#include "collector/col_fds.h"
#include "collector/col_log.h"
#include "collector/col_state.h"
#include "testhelp.h"

static char dir[64];

/* The whole of a small file, NUL-terminated (static). */
static const char *contents(const char *path)
{
	static char buf[65536];
	int fd = open(path, O_RDONLY);
	ssize_t n = fd >= 0 ? read(fd, buf, sizeof(buf) - 1) : -1;

	if (fd >= 0)
		close(fd);
	buf[n > 0 ? n : 0] = 0;
	for (ssize_t i = 0; i < n; i++)       /* the head's NULs and records: searchable */
		if (!buf[i])
			buf[i] = '.';
	return buf;
}

static off_t size_of(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 ? st.st_size : -1;
}

/* The parent's log, P, still open and named, with its identity: the
 * collector lean (its files opened by path for each use, as under a
 * descriptor limit it cannot rise above).  Then the fork handler's steps:
 * the files closed, the child's deferred.  A line written before the
 * child's file exists finds no log of its own; before, the identity left
 * was P's, so a log opened by path passed the check as the child's (in the
 * real fork the path names the child's file by then, which is not there:
 * the identity is what let P through). */
static void deferred_line_never_reaches_parent_log(void)
{
	char parent[128];
	struct stat st;
	struct rlimit rl;

	snprintf(parent, sizeof(parent), "%s/parent-log.txt", dir);
	int fd = open(parent, O_WRONLY | O_CREAT | O_APPEND | O_TRUNC, 0644);
	CHECK(fd >= 0 && write(fd, "parent\n", 7) == 7 && fstat(fd, &st) == 0);
	CHECK(getrlimit(RLIMIT_NOFILE, &rl) == 0);
	rl.rlim_max = rl.rlim_cur;            /* no room above the limit: lean */
	CHECK(setrlimit(RLIMIT_NOFILE, &rl) == 0);
	CHECK(col_fds_go_lean());
	col_proc.active = true;
	col_proc.pid = getpid();
	col_proc.proc_file = true;
	col_proc.log_fd = fd;
	col_proc.log_dev = (uint64_t)st.st_dev;
	col_proc.log_ino = (uint64_t)st.st_ino;
	snprintf(col_proc.log_path, sizeof(col_proc.log_path), "%s", parent);
	col_close_files();
	col_files_defer();
	col_log_sigsafe("child", "a line before its file exists");
	CHECKF(size_of(parent) == 7, "the child's line is in its parent's log (%lld bytes)",
	       (long long)size_of(parent));
	CHECK(col_proc.log_ino == 0 && col_proc.log_dev == 0);
}

/* The start lines parked at the fork come first in the child's file: the
 * thread that makes it writes them before the file is seen made, so
 * another thread's line (one that waited for the making, or came just
 * after) follows them.  Before, the maker wrote them after it had marked
 * the file made: a line written in between went first.  Here the making
 * is called as a first write's would call it, and a line follows. */
static void parked_start_lines_come_first(void)
{
	col_proc.active = true;
	col_proc.pid = getpid();
	col_proc.proc_file = true;
	col_proc.log_fd = col_proc.dirfd = -1;
	col_proc.slot_given = 0;
	snprintf(col_proc.root, sizeof(col_proc.root), "%s", dir);
	snprintf(col_proc.lineage, sizeof(col_proc.lineage), "_f1");
	snprintf(col_proc.dir, sizeof(col_proc.dir), "%s/_f1.exp", dir);
	snprintf(col_proc.log_path, sizeof(col_proc.log_path), "%s/_f1.proc", dir);
	col_log_hold_sigsafe();                     /* as the fork handler */
	col_log_sigsafe("pid", "4242");
	col_log_park_sigsafe();
	col_files_defer();
	CHECK(col_files_open_deferred_sigsafe() == 1);
	col_log_sigsafe("other", "a line after the file is made");
	const char *got = contents(col_proc.log_path);
	const char *start = strstr(got, "pid: 4242\n"), *other = strstr(got, "other: a line");
	CHECKF(start && other && start < other, "start %s, other %s, in: %s", start ? "found" : "lost",
	       other ? "found" : "lost", got);
	col_close_files();
}

int main(void)
{
	snprintf(dir, sizeof(dir), "/tmp/test_col_deferred.XXXXXX");
	if (!mkdtemp(dir))
		return 1;
	RUN(parked_start_lines_come_first);        /* before lean: for good */
	RUN(deferred_line_never_reaches_parent_log);
	char cmd[128];
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	return (system(cmd) != 0) | (th_failed_cases != 0);
}
