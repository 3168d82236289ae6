/* SPDX-License-Identifier: MIT
 *
 * cli_target.c — can `tally record` run and profile this program?
 *
 * Resolves the program as execvp would (PATH search), and tells the shell's
 * answers (127 not found, 126 not executable) and the cases where preloading
 * cannot work: a 32-bit program and a set-user- or set-group-ID program, for
 * which the dynamic loader ignores LD_PRELOAD; and says when the program is
 * statically linked (no PT_INTERP), which is profiled from outside instead
 * (src/outside/, docs/static.md).
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli/cli_target.h"
#include "format/elf_go.h"
#include "format/elf_peek.h"

static int check_file(const char *path, struct cli_target *t)
{
	struct stat st;

	if (stat(path, &st) != 0) {
		snprintf(t->why, sizeof(t->why), "%s", strerror(errno));
		return errno == ENOENT || errno == ENOTDIR ? 127 : 126;
	}
	if (S_ISDIR(st.st_mode)) {
		snprintf(t->why, sizeof(t->why), "Is a directory");
		return 126;
	}
	if (access(path, X_OK) != 0) {
		snprintf(t->why, sizeof(t->why), "%s", strerror(errno));
		return 126;
	}
	if (((st.st_mode & S_ISUID) && st.st_uid != geteuid()) ||
	    ((st.st_mode & S_ISGID) && st.st_gid != getegid())) {
		snprintf(t->why, sizeof(t->why),
			 "set-user-ID or set-group-ID program: the loader ignores LD_PRELOAD for it, "
			 "so it cannot be profiled (run a copy without the bit)");
		return 126;
	}
	return 0;
}

/* Why the program at `path` cannot be profiled, or NULL; *is_static (and
 * `outside_why`) when the collector cannot be preloaded into it, or could
 * not keep its signal there: it is profiled from outside. */
static const char *unprofilable(const char *path, bool *is_static, char *outside_why, size_t len)
{
	struct elf_peek p;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return NULL;
	int rc = elf_peek_fd(fd, NULL, &p);
	close(fd);
	if (rc == -ENOEXEC && p.elf_class)
		return "a 32-bit program: tally's collector is 64-bit and cannot be loaded into it";
	/* A static-PIE or plain static executable has no interpreter; a
	 * shared library run directly (ET_DYN without PT_INTERP) is not
	 * something we can preload into either. */
	*is_static = rc == 0 && elf_peek_is_static(&p);
	if (*is_static) {
		snprintf(outside_why, len, "statically linked");
	} else if (rc == 0 && (fd = open(path, O_RDONLY | O_CLOEXEC)) >= 0) {
		*is_static = elf_go_without_cgo(fd);
		close(fd);
		if (*is_static)
			snprintf(outside_why, len, "%s", ELF_GO_OUTSIDE_WHY);
	}
	return NULL;
}

int cli_target_resolve(const char *prog, struct cli_target *t)
{
	int rc = 127;

	t->why[0] = 0;
	t->is_static = false;
	t->outside_why[0] = 0;
	if (strchr(prog, '/')) {
		snprintf(t->path, sizeof(t->path), "%s", prog);
		rc = check_file(t->path, t);
	} else {
		const char *path = getenv("PATH");
		if (!path || !*path)
			path = "/usr/local/bin:/usr/bin:/bin";
		snprintf(t->why, sizeof(t->why), "command not found");
		for (const char *p = path; ; ) {
			const char *colon = strchr(p, ':');
			size_t n = colon ? (size_t)(colon - p) : strlen(p);
			if (n + strlen(prog) + 2 < sizeof(t->path)) {
				struct cli_target cand;
				snprintf(cand.path, sizeof(cand.path), "%.*s%s%s", (int)n, p, n ? "/" : "", prog);
				int r = check_file(cand.path, &cand);
				if (r == 0) {
					*t = cand;
					rc = 0;
					break;
				}
				if (r == 126 && rc == 127) {   /* found but not runnable */
					*t = cand;
					rc = 126;
				}
			}
			if (!colon)
				break;
			p = colon + 1;
		}
	}
	const char *why = rc == 0 ? unprofilable(t->path, &t->is_static, t->outside_why,
							     sizeof(t->outside_why)) : NULL;
	if (why) {
		snprintf(t->why, sizeof(t->why), "%s", why);
		rc = 126;
	}
	return rc;
}
