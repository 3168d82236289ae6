/* SPDX-License-Identifier: MIT
 *
 * col_log.c — the collector's lines in the experiment's log.txt.
 *
 * Callable from any context, signal handlers included: lines are formatted
 * into a stack buffer without stdio and appended with one write(2) to a file
 * opened O_APPEND, so lines from several threads and processes never mix.
 * Never writes to the target's stdout or stderr.  Sigsafe file.
 */
#include <string.h>

#include "collector/col_log.h"
#include "collector/col_state.h"
#include "collector/col_sys.h"
#include "format/exp_launch.h"

int col_fmt_u64_sigsafe(char *buf, uint64_t v)
{
	char tmp[21];
	int n = 0, len = 0;

	do {
		tmp[n++] = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	while (n)
		buf[len++] = tmp[--n];
	buf[len] = 0;
	return len;
}

/* One "key: value" line, with one write(2), to the log open as `fd`. */
static void log_line(int fd, const char *key, const char *value)
{
	char line[1024];
	size_t n = 0, k = strlen(key), v = strlen(value);

	if (fd < 0)
		return;
	if (k > 200)
		k = 200;
	if (v > sizeof(line) - k - 4)
		v = sizeof(line) - k - 4;
	memcpy(line, key, k);
	n = k;
	line[n++] = ':';
	line[n++] = ' ';
	memcpy(line + n, value, v);
	n += v;
	line[n++] = '\n';
	col_sys_write(fd, line, n);
}

void col_log_sigsafe(const char *key, const char *value)
{
	log_line(col_proc.log_fd, key, value);
}

int col_fmt_x64_sigsafe(char *buf, uint64_t v)
{
	static const char hex[] = "0123456789abcdef";
	int n = 0;

	for (int shift = 60; shift >= 0; shift -= 4)
		if (n || (v >> shift) & 15 || shift == 0)
			buf[n++] = hex[(v >> shift) & 15];
	buf[n] = 0;
	return n;
}

/* "WHAT: errno N (CONSEQUENCE)" into line (>= 512 bytes). */
static void error_text(char *line, const char *what, int err, const char *consequence)
{
	size_t n = 0;

	for (const char *parts[] = { what, ": errno ", NULL }, **p = parts; *p; p++)
		for (const char *c = *p; *c && n < 300; c++)
			line[n++] = *c;
	n += (size_t)col_fmt_u64_sigsafe(line + n, (uint64_t)(err < 0 ? -err : err));
	for (const char *c = " ("; *c; c++)
		line[n++] = *c;
	for (const char *c = consequence; *c && n < sizeof(line) - 2; c++)
		line[n++] = *c;
	line[n++] = ')';
	line[n] = 0;
}

void col_log_error_sigsafe(const char *what, int err, const char *consequence)
{
	char line[512];

	error_text(line, what, err, consequence);
	log_line(col_proc.log_fd, "error", line);
}

void col_log_error_in(const char *dir, const char *what, int err, const char *consequence)
{
	char line[512], path[4200];
	size_t n = strlen(dir);

	if (n + 1 + sizeof(EXP_LOG_NAME) > sizeof(path))
		return;
	memcpy(path, dir, n);
	path[n] = '/';
	memcpy(path + n + 1, EXP_LOG_NAME, sizeof(EXP_LOG_NAME));
	int fd = col_sys_openat(AT_FDCWD, path, O_WRONLY | O_APPEND | O_CLOEXEC, 0);
	error_text(line, what, err, consequence);
	log_line(fd, "error", line);
	if (fd >= 0)
		col_sys_close(fd);
}

void col_log_u64_sigsafe(const char *key, uint64_t value)
{
	char buf[24];

	col_fmt_u64_sigsafe(buf, value);
	col_log_sigsafe(key, buf);
}
