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

void col_log_sigsafe(const char *key, const char *value)
{
	char line[1024];
	size_t n = 0, k = strlen(key), v = strlen(value);

	if (col_proc.log_fd < 0)
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
	col_sys_write(col_proc.log_fd, line, n);
}

void col_log_u64_sigsafe(const char *key, uint64_t value)
{
	char buf[24];

	col_fmt_u64_sigsafe(buf, value);
	col_log_sigsafe(key, buf);
}
