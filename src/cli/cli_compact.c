/* SPDX-License-Identifier: MIT
 *
 * cli_compact.c — after the run, rewrite each record file densely.
 *
 * Once a process has ended nobody writes its files any more: each is
 * rewritten densely by exp_file_compact (src/format/exp_compact.c, which
 * says how).  A file that does not parse is left as it is (the report will
 * say why); one that cannot be rewritten (disk full) stays as it was, with
 * a warning.
 */
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli.h"
#include "format/exp_compact.h"
#include "format/exp_launch.h"

/* Has the process that wrote `dir` ended, or stopped writing it (a
 * collector attached by `tally record -p` that detached)?  Its log says. */
static bool process_ended(const char *dir)
{
	char path[PATH_MAX + 16], line[256];
	bool detached = false;

	snprintf(path, sizeof(path), "%s/%s", dir, EXP_LOG_NAME);
	FILE *f = fopen(path, "r");
	long pid = 0;
	if (!f)
		return false;
	while (fgets(line, sizeof(line), f)) {
		if (!strncmp(line, "pid: ", 5))
			pid = atol(line + 5);
		detached |= !strncmp(line, "attach.detached: ", 17);
	}
	fclose(f);
	return detached || (pid > 0 && kill((pid_t)pid, 0) != 0 && errno == ESRCH);
}

/* The kind of record file `name` names, 0 if none. */
static int record_kind(const char *name)
{
	for (int k = 1; k < EXP_FILE_COUNT_; k++) {
		const char *n = exp_file_name((enum exp_file_kind)k);
		if (n && !strcmp(n, name))
			return k;
	}
	return 0;
}

/* The record files that are there, from one listing of the directory (a
 * look for each kind was a system call each: 15 per process, most for
 * files a process does not make), then compacted in the order of their
 * kinds: a large file is rewritten beside itself and renamed, which a
 * listing still open could show again. */
static void compact_dir(const char *dir)
{
	char path[PATH_MAX + 32];
	bool there[EXP_FILE_COUNT_] = { false };
	struct dirent *de;

	if (!process_ended(dir))
		return;
	DIR *d = opendir(dir);
	while (d && (de = readdir(d)))
		there[record_kind(de->d_name)] = true;
	if (d)
		closedir(d);
	for (int k = 1; k < EXP_FILE_COUNT_; k++) {
		if (!there[k])
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, exp_file_name((enum exp_file_kind)k));
		struct exp_error err;
		if (exp_file_compact(path, &err) < 0)
			cli_warn("record", "%s (left as it was)", err.msg);
	}
}

void cli_compact(const char *expdir)
{
	char sub[PATH_MAX + 300];
	DIR *d = opendir(expdir);
	struct dirent *de;

	compact_dir(expdir);
	while (d && (de = readdir(d))) {
		size_t n = strlen(de->d_name);
		if (de->d_name[0] != '_' || n < 5 || strcmp(de->d_name + n - 4, ".exp"))
			continue;
		snprintf(sub, sizeof(sub), "%s/%s", expdir, de->d_name);
		compact_dir(sub);
	}
	if (d)
		closedir(d);
}
