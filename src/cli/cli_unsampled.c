/* SPDX-License-Identifier: MIT
 *
 * cli_unsampled.c — the lines `tally record` prints at the end about what
 * ran unobserved: threads that could not be sampled (the collector names
 * each in its log: "thread.unsampled: TID NAME: N us of CPU after its last
 * sample ...", src/collector/col_thread.c), and exec'd programs that were
 * not profiled ("exec: PATH: WHY: not profiled", or "exec.vfork-child:",
 * src/collector/col_interpose_exec.c: static, set-user-ID, 32-bit, or the
 * collector not reachable after a chroot), and why the clock fell back to
 * POSIX timers ("clock.fallback: WHY", src/collector/col_clock.c, once),
 * and descendants that could not be profiled ("error: LINEAGE: errno N
 * (descendant not profiled)", src/collector/col_descend.c: a lineage too
 * long to name, a fork child whose files could not be made).
 * The founder's log and every
 * sub-experiment's are read (a descendant's in its process file).  The report shows the threads in its overview.
 */
#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "format/exp_launch.h"
#include "format/exp_procfile.h"

#define KEY "thread.unsampled: "

#define FALLBACK_KEY "clock.fallback: "
#define EXEC_KEY "exec: "
#define VFORK_EXEC_KEY "exec.vfork-child: "
#define NOT_PROFILED ": not profiled"

/* An exec line naming a program not profiled: append "PATH (WHY)". */
static char fallback[256];          /* the first clock.fallback line's cause */
static int ndescendants;            /* descendants not profiled */
static int descendant_errno;        /* the first one's cause */

/* "error: WHAT: errno N (descendant not profiled)" or "(fork child not
 * profiled)": count it, keep the first's errno. */
static void note_descendant(const char *line)
{
	const char *tail = " not profiled)", *e;
	size_t l = strlen(line), t = strlen(tail);

	if (strncmp(line, "error: ", 7) || l < t || strcmp(line + l - t, tail) || !(e = strstr(line, ": errno ")))
		return;
	if (!ndescendants++)
		descendant_errno = atoi(e + strlen(": errno "));
}

static void note_exec(char *line, char *list, size_t len, int *n)
{
	size_t k = !strncmp(line, EXEC_KEY, strlen(EXEC_KEY)) ? strlen(EXEC_KEY)
		   : !strncmp(line, VFORK_EXEC_KEY, strlen(VFORK_EXEC_KEY)) ? strlen(VFORK_EXEC_KEY) : 0;
	size_t l = strlen(line), tail = strlen(NOT_PROFILED);

	if (!k || l < k + tail || strcmp(line + l - tail, NOT_PROFILED))
		return;
	line[l - tail] = 0;
	char *path = line + k, *why = strstr(path, ": ");
	if (!why)
		return;
	*why = 0;
	size_t at = strlen(list);
	if (*n < 3)
		snprintf(list + at, len - at, "%s%s (%s)", *n ? ", " : "", path, why + 2);
	++*n;
}

/* Append the unsampled threads of `dir` to the list: "TID NAME (N ms...)",
 * and its exec'd programs not profiled to `execs`. */
static void scan_log(FILE *f, char *list, size_t len, int *n, char *execs, size_t elen, int *ne)
{
	char line[512];

	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\n")] = 0;
		if (!strncmp(line, FALLBACK_KEY, strlen(FALLBACK_KEY)) && !fallback[0])
			snprintf(fallback, sizeof(fallback), "%s", line + strlen(FALLBACK_KEY));
		if (strncmp(line, KEY, strlen(KEY))) {
			note_exec(line, execs, elen, ne);
			note_descendant(line);
			continue;
		}
		char *who = line + strlen(KEY), *colon = strstr(who, ": ");
		if (!colon)
			continue;
		*colon = 0;
		unsigned long long us = strtoull(colon + 2, NULL, 10);
		/* The collector says when it saw the signal blocked; else the
		 * cause is not known (never guessed as a blocked signal). */
		bool blocked = strstr(colon + 2, "blocks the sampling signal") != NULL;
		size_t at = strlen(list);
		snprintf(list + at, len - at, "%s%s (%.0f ms of CPU unsampled%s)", *n ? ", " : "", who,
			 (double)us / 1e3,
			 blocked ? "; it blocked the sampling signal, with a raw system call?"
				 : "; cause not seen: it did not block the signal");
		++*n;
	}
	fclose(f);
}

/* What the logs name, gathered over the run's processes. */
struct unsampled {
	char list[2048], execs[2048];
	int n, ne;
};

/* A descendant's log (exp_procfile_each): in its process file, joined
 * once, or in its directory. */
static void scan_descendant(void *arg, const struct exp_descendant *d)
{
	struct unsampled *u = arg;
	FILE *log = NULL;

	if (d->dir) {
		char path[PATH_MAX + 300];
		snprintf(path, sizeof(path), "%s/%s", d->dir, EXP_LOG_NAME);
		log = fopen(path, "r");
	} else {
		log = exp_procfile_log_src(&d->src);
	}
	scan_log(log, u->list, sizeof(u->list), &u->n, u->execs, sizeof(u->execs), &u->ne);
}

void cli_unsampled_warn(const char *expdir)
{
	struct unsampled u = { "", "", 0, 0 };
	char sub[PATH_MAX + 300];

	snprintf(sub, sizeof(sub), "%s/%s", expdir, EXP_LOG_NAME);
	scan_log(fopen(sub, "r"), u.list, sizeof(u.list), &u.n, u.execs, sizeof(u.execs), &u.ne);
	exp_procfile_each(expdir, scan_descendant, &u);
	int n = u.n, ne = u.ne;
	const char *list = u.list, *execs = u.execs;
	if (n)
		cli_warn("record", "%d thread%s could not be sampled: %s", n, n > 1 ? "s" : "", list);
	if (ne)
		cli_warn("record", "%d exec'd program%s not profiled: %s%s", ne, ne > 1 ? "s" : "", execs,
			 ne > 3 ? ", ..." : "");
	if (ndescendants)
		cli_warn("record", "%d descendant process%s not profiled: %s%s", ndescendants,
			 ndescendants > 1 ? "es" : "", strerror(descendant_errno),
			 descendant_errno == ENAMETOOLONG ? " (nested too deep to be named; the logs name each)"
							  : " (the logs name each)");
	if (fallback[0])
		cli_warn("record", "sampled by POSIX CPU-time timers, at the kernel's tick: %s", fallback);
}
