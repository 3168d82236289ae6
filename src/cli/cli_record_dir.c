/* SPDX-License-Identifier: MIT
 *
 * cli_record_dir.c — what both ways of recording share, below both: the
 * experiment directory made and removed, the log's "key: value" lines, the
 * clock.  `tally record PROGRAM` (cmd_record.c) and `tally record -p PID`
 * (cli_attach.c) call it; it calls neither, so they do not call each other
 * but for cmd_record.c handing -p to cli_attach_record.
 */
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cli/cli.h"
#include "cli/cli_record.h"
#include "format/exp_launch.h"

#define CMD "record"

/* Root does not record into a directory any user may write that lacks
 * the sticky bit: anyone could rename the experiment away and put links in
 * its place between root's steps.  0, or -1 with the message printed. */
int cli_record_parent_safe(const char *path)
{
	char parent[PATH_MAX];
	struct stat st;
	const char *slash = strrchr(path, '/');

	if (geteuid() != 0)
		return 0;
	if (!slash)
		snprintf(parent, sizeof(parent), ".");
	else
		snprintf(parent, sizeof(parent), "%.*s", slash == path ? 1 : (int)(slash - path), path);
	if (stat(parent, &st) == 0 && (st.st_mode & S_IWOTH) && !(st.st_mode & S_ISVTX)) {
		cli_error(CMD, "%s: not recording as root in %s: any user may write there and it has no "
			  "sticky bit, so they could swap the experiment's files (chmod +t it, or choose "
			  "another -o)", path, parent);
		return -1;
	}
	return 0;
}


int cli_record_make_dir(const char *out, char *path, size_t len)
{
	if (cli_record_parent_safe(out ? out : "tally.1.exp") != 0)
		return -1;
	if (out) {
		snprintf(path, len, "%s", out);
		if (mkdir(path, 0755) != 0) {
			if (errno == EEXIST)
				cli_error(CMD, "%s: already exists (remove it, or choose another -o name)", path);
			else
				cli_error(CMD, "%s: cannot create the experiment: %s", path, strerror(errno));
			return -1;
		}
		return 0;
	}
	int rc = exp_dir_create_next(path, len);
	if (rc == -EEXIST)
		cli_error(CMD, "no unused name tally.N.exp in this directory");
	else if (rc < 0)
		cli_error(CMD, "%s: cannot create the experiment: %s", path, strerror(-rc));
	return rc < 0 ? -1 : 0;
}

void cli_record_remove_dir(const char *dir)
{
	char path[PATH_MAX + 32];
	const char *name;

	for (size_t i = 0; (name = exp_dir_file(i)); i++) {
		snprintf(path, sizeof(path), "%s/%s", dir, name);
		unlink(path);
	}
	for (size_t i = 0; i < 2; i++) {            /* an attach's control FIFOs */
		snprintf(path, sizeof(path), "%s/%s", dir, i ? "attach.ack" : "attach.ctl");
		unlink(path);
	}
	rmdir(dir);
}


void cli_log_line(FILE *log, const char *key, const char *fmt, ...)
{
	va_list ap;

	fprintf(log, "%s: ", key);
	va_start(ap, fmt);
	vfprintf(log, fmt, ap);
	va_end(ap);
	fputc('\n', log);
}


uint64_t cli_now_ns(clockid_t id)
{
	struct timespec ts;

	clock_gettime(id, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

void cli_log_options(FILE *log, const struct exp_launch_options *o)
{
	char buf[EXP_OPTIONS_MAX];

	if (exp_launch_encode(o, buf, sizeof(buf)) < 0)
		snprintf(buf, sizeof(buf), "?");
	cli_log_line(log, "options", "%s", buf);
}
