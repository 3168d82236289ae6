/* forkchain.c — a chain of forks, each process waiting for its child: a
 * subshell in a command substitution in a subshell, as shell scripts nest
 * them (pyenv's shims do it on every python3).  The last one execs
 * /bin/true when given a second argument.
 * usage: forkchain [DEPTH] [exec] */
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	int depth = argc > 1 ? atoi(argv[1]) : 3;

	for (int d = 0; d < depth; d++) {
		pid_t p = fork();
		if (p < 0)
			return 2;
		if (p > 0) {
			int st;
			if (waitpid(p, &st, 0) != p)
				return 2;
			return WIFEXITED(st) ? WEXITSTATUS(st) : 3;
		}
	}
	if (argc > 2)
		execl("/bin/true", "true", (char *)0);
	return 0;
}
