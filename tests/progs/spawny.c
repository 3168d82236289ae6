/* spawny.c — every way of starting a program: fork (the child runs
 * child_work), vfork + exec, posix_spawn, system, popen; each started program
 * is the one named on the command line (a short CPU burner), and one exec is
 * of a second program, which may be static (not profilable).
 * usage: spawny PROGRAM [STATIC_PROGRAM] */
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

__attribute__((noinline)) void child_work(void)
{
	volatile unsigned long x = 1;
	for (long i = 0; i < 30000000; i++)
		x = x * 6364136223846793005ul + 1;
}

int main(int argc, char **argv)
{
	char *prog = argv[1];
	char *args[] = { prog, "0.05", NULL };
	int st;
	pid_t p;

	if (argc < 2)
		return 2;
	if ((p = fork()) == 0) {
		child_work();
		_exit(0);
	}
	waitpid(p, &st, 0);
	if ((p = vfork()) == 0) {
		execv(prog, args);
		_exit(127);
	}
	waitpid(p, &st, 0);
	if (posix_spawn(&p, prog, NULL, NULL, args, environ) == 0)
		waitpid(p, &st, 0);
	char cmd[4200];
	snprintf(cmd, sizeof(cmd), "%s 0.05", prog);
	if (system(cmd) != 0)
		return 3;
	FILE *f = popen(cmd, "r");
	if (f)
		pclose(f);
	if (argc > 2 && (p = fork()) == 0) {
		execl(argv[2], argv[2], "0", (char *)NULL);
		_exit(127);
	}
	if (argc > 2)
		waitpid(p, &st, 0);
	return 0;
}
