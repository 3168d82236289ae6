/* states_traced.c — a child traced by its parent, as a debugger's or
 * strace's child is: with `traceme` the child asks (PTRACE_TRACEME) and
 * stops itself with raise(SIGSTOP) (gdb's way); with `seize` it stops
 * itself with kill(getpid(), SIGSTOP) and the parent seizes it while it is
 * stopped, then continues it (strace's way).  Then the child sleeps 20
 * times 2 ms (each a context switch, each resume a signal's delivery
 * under the signal way) and exits 7; the parent continues every stop with
 * its signal (SIGSTOP's dropped) and prints
 *   child exit STATUS stops N      or      child signal SIG stops N
 * Exit 77 if ptrace is refused here (a container, Yama's scope 3).
 * usage: states_traced traceme|seize */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static void child_naps(void)
{
	struct timespec ts = { 0, 2000000 };

	for (int i = 0; i < 20; i++)
		nanosleep(&ts, NULL);
	_exit(7);
}

int main(int argc, char **argv)
{
	int seize = argc > 1 && strcmp(argv[1], "seize") == 0;
	int st, stops = 0;
	pid_t pid = fork();

	if (pid < 0)
		return perror("fork"), 1;
	if (pid == 0) {
		if (!seize && ptrace(PTRACE_TRACEME, 0, 0, 0) != 0)
			_exit(77);
		if (seize)
			kill(getpid(), SIGSTOP);
		else
			raise(SIGSTOP);
		child_naps();
	}
	if (seize) {
		if (waitpid(pid, &st, WUNTRACED) != pid || !WIFSTOPPED(st))
			return fprintf(stderr, "states_traced: the child did not stop\n"), 1;
		if (ptrace(PTRACE_SEIZE, pid, 0, 0) != 0) {
			fprintf(stderr, "states_traced: PTRACE_SEIZE: %s\n", strerror(errno));
			kill(pid, SIGKILL);
			return 77;
		}
		kill(pid, SIGCONT);
	}
	for (;;) {
		if (waitpid(pid, &st, __WALL) < 0)
			return perror("waitpid"), 1;
		if (!WIFSTOPPED(st))
			break;
		stops++;
		int sig = WSTOPSIG(st);
		ptrace(PTRACE_CONT, pid, 0, sig == SIGSTOP || (st >> 16) ? 0 : sig);
	}
	if (WIFEXITED(st) && WEXITSTATUS(st) == 77)
		return fprintf(stderr, "states_traced: PTRACE_TRACEME refused\n"), 77;
	printf("child %s %d stops %d\n", WIFEXITED(st) ? "exit" : "signal", WIFEXITED(st) ? WEXITSTATUS(st) : WTERMSIG(st),
	       stops);
	return 0;
}
