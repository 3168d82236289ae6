/* SPDX-License-Identifier: MIT
 *
 * col_interpose_spawn.c — posix_spawn, posix_spawnp, system, popen and
 * wordexp, interposed so that a fork child whose files still wait
 * (col_files_defer) makes them before it starts a program.
 *
 * The spawned image names itself from its parent's counters (TALLY_PID,
 * col_descend.c): a deferred fork child has none yet, so each image it
 * spawned took number 1 from a file that was not there (two system() calls
 * made two `_f1_f1_x1`), under a parent that was never recorded.  glibc's
 * system(), popen() and wordexp() (its shell for a command substitution)
 * call its posix_spawn internally, past the PLT, so each is interposed
 * itself; the vfork path does the same
 * (col_interpose_exec.c).  Making the file republishes TALLY_PID with its
 * slot (col_descend.c), which these read from environ.  posix_spawn given
 * an environment of the program's own (a copy made before a fork, with
 * its parent's TALLY_PID) gets tally's variables as this process has them
 * now (spawn_env), so that the spawned image is this process's child.
 * Called from any thread of the target, never from a signal handler.
 *
 * A known limit: posix_spawn and posix_spawnp are defined unversioned, so
 * they bind a binary's posix_spawn@GLIBC_2.2.5 too, and call the default
 * version (@@GLIBC_2.15, dlsym's).  The old one retried a file the kernel
 * would not run (ENOEXEC: a script without a #! line) with /bin/sh; under
 * tally such a binary gets the new behaviour, the spawn failing with
 * ENOEXEC.  Only binaries linked before glibc 2.15 (2011) carry the old
 * reference; pthread_create's versions (col_interpose_thread.c) behave
 * alike, so there it does not matter.
 */
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <wordexp.h>

#include "collector/col_init.h"
#include "collector/col_real.h"
#include "collector/col_state.h"
#include "collector/col_sys.h"
#include "format/exp_launch.h"

extern char **environ;

/* The calling process's file made, if it still waits. */
static void before_spawn(void)
{
	col_ensure_init();
	if (col_proc.active)
		col_open_deferred_sigsafe();
}

/* An environment for posix_spawn: `envp` with each of tally's inherited
 * variables it holds replaced by this process's string in environ (where
 * col_descend.c publishes them: a fork child's TALLY_PID is its own, the
 * copy's was its parent's) and a TALLY_SLOT left out (an exec's, given to
 * this image, not to its children); in a mapping of its own, *bytes long
 * (munmap after the spawn).  NULL when `envp` is environ, or tally follows
 * no descendant, or no mapping could be had (envp is then used as it is). */
static char **spawn_env(char *const envp[], size_t *bytes)
{
	size_t n = 0, k = 0;

	if (!envp || envp == environ || !col_proc.active || !col_proc.opt.follow)
		return NULL;
	while (envp[n])
		n++;
	*bytes = (n + 1) * sizeof(char *);
	char **env = col_sys_mmap(NULL, *bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (env == MAP_FAILED)
		return NULL;
	for (size_t i = 0; i < n; i++) {
		const char *e = envp[i];
		if (!strncmp(e, EXP_ENV_SLOT "=", sizeof(EXP_ENV_SLOT)))
			continue;
		for (size_t j = 0; j < EXP_ENV_INHERITED_COUNT; j++) {
			size_t len = strlen(exp_env_inherited[j]);
			const char *now = strncmp(e, exp_env_inherited[j], len) || e[len] != '=' ? NULL
					  : getenv(exp_env_inherited[j]);
			if (now) {
				e = now - len - 1;      /* environ's "NAME=value" */
				break;
			}
		}
		env[k++] = (char *)e;
	}
	env[k] = NULL;
	return env;
}

COL_API int posix_spawn(pid_t *pid, const char *path, const posix_spawn_file_actions_t *actions,
			const posix_spawnattr_t *attr, char *const argv[], char *const envp[])
{
	size_t bytes = 0;

	before_spawn();
	char **env = spawn_env(envp, &bytes);
	int rc = col_real_table()->posix_spawn(pid, path, actions, attr, argv, env ? env : envp);
	if (env)
		col_sys_munmap(env, bytes);
	return rc;
}

COL_API int posix_spawnp(pid_t *pid, const char *file, const posix_spawn_file_actions_t *actions,
			 const posix_spawnattr_t *attr, char *const argv[], char *const envp[])
{
	size_t bytes = 0;

	before_spawn();
	char **env = spawn_env(envp, &bytes);
	int rc = col_real_table()->posix_spawnp(pid, file, actions, attr, argv, env ? env : envp);
	if (env)
		col_sys_munmap(env, bytes);
	return rc;
}

/* The sync tracer interposes system too (its wait for the child): the next
 * definition, as popen's. */
COL_API int system(const char *command)
{
	before_spawn();
	return col_real_table()->chain.system(command);
}

/* The I/O tracer interposes popen too: the next definition, its own when
 * it is loaded (col_real.h, the chain), so that both see the call. */
COL_API FILE *popen(const char *command, const char *mode)
{
	before_spawn();
	return col_real_table()->chain.popen(command, mode);
}

/* A command substitution's shell, `$(...)`, is spawned inside glibc: the
 * shell read its parent's stale TALLY_PID (the grandparent's) and took a
 * number of its counters, a second `_fN_x1` of another child's.  Words
 * that can run no command (WRDE_NOCMD, no `$(` and no backquote: a tilde
 * or a variable expanded) leave a deferred child's files deferred. */
COL_API int wordexp(const char *words, wordexp_t *result, int flags)
{
	if (!(flags & WRDE_NOCMD) && words && (strstr(words, "$(") || strchr(words, '`')))
		before_spawn();
	return col_real_table()->wordexp(words, result, flags);
}
