/* vforky.c — vfork as programs use it: the child writes to its parent's
 * memory before it leaves (legal, and what vfork is for: the parent sees
 * the write), once with _exit and once with an exec of the program given.
 * Exits 0 if the parent saw both writes, 1 if not.
 * usage: vforky [PROGRAM [ARGS...]] */
#include <stdio.h>
#include <sys/wait.h>
#include <unistd.h>

static volatile int seen;

static int child_writes_then(char **exec_argv)
{
	int status;
	pid_t pid = vfork();

	if (pid == 0) {
		seen++;                          /* the parent's memory */
		if (exec_argv)
			execv(exec_argv[0], exec_argv);
		_exit(exec_argv ? 127 : 0);
	}
	if (pid < 0 || waitpid(pid, &status, 0) != pid)
		return -1;
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128;
}

int main(int argc, char **argv)
{
	int rc = child_writes_then(NULL);
	if (rc != 0 || seen != 1) {
		fprintf(stderr, "vforky: after _exit: status %d, seen %d\n", rc, seen);
		return 1;
	}
	if (argc > 1) {
		rc = child_writes_then(argv + 1);
		if (rc != 0 || seen != 2) {
			fprintf(stderr, "vforky: after exec: status %d, seen %d\n", rc, seen);
			return 1;
		}
	}
	return 0;
}
