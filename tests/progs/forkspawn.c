/* forkspawn.c — fork children that start programs before they compute:
 * each of CHILDREN fork children runs COMMAND ROUNDS times through WAY
 * (system, popen, posix_spawn of /bin/sh -c, posix_spawnp of sh -c,
 * posix_spawn_copied: posix_spawn with a copy of the environment made in
 * main before the forks, as a program that keeps its own copy does, or
 * wordexp of "$(COMMAND)", whose shell glibc starts by an internal spawn),
 * waiting for each, then ends by _exit.  A child never computes itself, so
 * a profiler that waits for a fork child's first write to make its files
 * (tally's deferred fork child) sees the spawn before anything of its own.
 * usage: forkspawn WAY CHILDREN ROUNDS COMMAND
 * exit: 0 when every command ended with status 0. */
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include <wordexp.h>

extern char **environ;

/* The environment as main found it (posix_spawn_copied). */
static char **env_copy;

static void copy_environ(void)
{
	size_t n = 0;

	while (environ[n])
		n++;
	env_copy = calloc(n + 1, sizeof(*env_copy));
	for (size_t i = 0; env_copy && i < n; i++)
		env_copy[i] = strdup(environ[i]);
}

/* COMMAND once through `way`: its exit status, or -1. */
static int run(const char *way, const char *command)
{
	char *argv[] = { "sh", "-c", (char *)command, NULL };
	pid_t p;
	int st;

	if (!strcmp(way, "system")) {
		st = system(command);
		return st == -1 || !WIFEXITED(st) ? -1 : WEXITSTATUS(st);
	}
	if (!strcmp(way, "wordexp")) {       /* the command's status is not kept */
		char sub[4096];
		wordexp_t w;
		snprintf(sub, sizeof(sub), "$(%s)", command);
		if (wordexp(sub, &w, WRDE_SHOWERR) != 0)
			return -1;
		wordfree(&w);
		return 0;
	}
	if (!strcmp(way, "popen")) {
		FILE *f = popen(command, "r");
		char buf[256];
		if (!f)
			return -1;
		while (fgets(buf, sizeof(buf), f))
			fputs(buf, stdout);
		st = pclose(f);
		return st == -1 || !WIFEXITED(st) ? -1 : WEXITSTATUS(st);
	}
	int rc = !strcmp(way, "posix_spawnp")       ? posix_spawnp(&p, "sh", NULL, NULL, argv, environ)
		 : !strcmp(way, "posix_spawn_copied") ? posix_spawn(&p, "/bin/sh", NULL, NULL, argv, env_copy)
						      : posix_spawn(&p, "/bin/sh", NULL, NULL, argv, environ);
	if (rc != 0 || waitpid(p, &st, 0) != p)
		return -1;
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

int main(int argc, char **argv)
{
	if (argc != 5)
		return 2;
	int children = atoi(argv[2]), rounds = atoi(argv[3]), bad = 0;

	copy_environ();
	if (!env_copy)
		return 2;

	fflush(stdout);
	for (int c = 0; c < children; c++) {
		pid_t p = fork();
		if (p < 0)
			return 2;
		if (p == 0) {
			int failed = 0;
			for (int r = 0; r < rounds; r++)
				failed += run(argv[1], argv[4]) != 0;
			fflush(stdout);
			_exit(failed ? 1 : 0);
		}
	}
	for (int c = 0; c < children; c++) {
		int st;
		if (wait(&st) < 0 || !WIFEXITED(st) || WEXITSTATUS(st))
			bad++;
	}
	return bad ? 1 : 0;
}
