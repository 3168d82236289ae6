/* SPDX-License-Identifier: MIT
 *
 * cli_unsampled.c — the line `tally record` prints at the end when threads
 * could not be sampled: the collector names each such thread in its log
 * ("thread.unsampled: TID NAME: N us of CPU after its last sample ...", see
 * src/collector/col_thread.c); the founder's log and every sub-experiment's
 * are read.  The report shows the same in its overview.
 */
#include <dirent.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "format/exp_launch.h"

#define KEY "thread.unsampled: "

/* Append the unsampled threads of `dir` to the list: "TID NAME (N ms...)". */
static void scan_log(const char *dir, char *list, size_t len, int *n)
{
	char path[PATH_MAX + 16], line[512];

	snprintf(path, sizeof(path), "%s/%s", dir, EXP_LOG_NAME);
	FILE *f = fopen(path, "r");
	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		if (strncmp(line, KEY, strlen(KEY)))
			continue;
		line[strcspn(line, "\n")] = 0;
		char *who = line + strlen(KEY), *colon = strstr(who, ": ");
		if (!colon)
			continue;
		*colon = 0;
		unsigned long long us = strtoull(colon + 2, NULL, 10);
		size_t at = strlen(list);
		snprintf(list + at, len - at, "%s%s (%.0f ms of CPU unsampled)", *n ? ", " : "", who,
			 (double)us / 1e3);
		++*n;
	}
	fclose(f);
}

void cli_unsampled_warn(const char *expdir)
{
	char list[2048] = "", sub[PATH_MAX + 300];
	int n = 0;
	DIR *d = opendir(expdir);
	struct dirent *de;

	scan_log(expdir, list, sizeof(list), &n);
	while (d && (de = readdir(d))) {
		size_t len = strlen(de->d_name);
		if (de->d_name[0] != '_' || len < 5 || strcmp(de->d_name + len - 4, ".exp"))
			continue;
		snprintf(sub, sizeof(sub), "%s/%s", expdir, de->d_name);
		scan_log(sub, list, sizeof(list), &n);
	}
	if (d)
		closedir(d);
	if (n)
		cli_warn("record", "%d thread%s could not be sampled (blocked the sampling signal with a "
			 "raw system call?): %s", n, n > 1 ? "s" : "", list);
}
