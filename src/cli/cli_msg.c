/* SPDX-License-Identifier: MIT
 *
 * cli_msg.c — the helpers every command shares: one-line messages on
 * stderr, the library directory, checked stdout.  Below the commands and
 * the command table (main.c): it calls none of them.
 */
#include <errno.h>
#include <libgen.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli.h"
#include "cli/cli_progress.h"
#include "format/exp_launch.h"

static void vmsg(const char *kind, const char *cmd, const char *fmt, va_list ap)
{
	fflush(stdout);
	cli_progress_hide();
	fprintf(stderr, "tally %s: %s", cmd, kind);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
}

void cli_error(const char *cmd, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vmsg("", cmd, fmt, ap);
	va_end(ap);
}

void cli_warn(const char *cmd, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vmsg("warning: ", cmd, fmt, ap);
	va_end(ap);
}

const char *cli_lib_dir(void)
{
	static char dir[PATH_MAX];
	char exe[PATH_MAX];
	const char *env = getenv(EXP_ENV_LIB_DIR);

	if (env && *env)
		return env;
	if (!dir[0]) {
		ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
		if (n <= 0)
			return ".";
		exe[n] = 0;
		snprintf(dir, sizeof(dir), "%s/../lib", dirname(exe));
	}
	return dir;
}

int cli_finish_stdout(const char *cmd, int rc)
{
	if (fflush(stdout) != 0 || ferror(stdout)) {
		if (errno != EPIPE)
			cli_error(cmd, "writing the output: %s", strerror(errno));
		return CLI_FATAL;
	}
	return rc;
}
