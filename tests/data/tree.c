/* tree.c — the program recorded into tests/data/tree.exp (by make-tree.sh):
 * a small process tree, so that the fuzzer and tests/unit/test_fuzz_tree.c
 * have sub-experiments to break.  The founder forks a child that allocates
 * and writes (_f1), and a child that execs this program again as a leaf
 * (_f2_x1 after its fork, or _f2 then _f2_x1), and spins; each process has
 * samples, heap and I/O events.  usage: tree [leaf] */
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static volatile unsigned long sink;

__attribute__((noinline)) static void spin(unsigned long n)
{
	unsigned long x = sink;
	for (unsigned long i = 0; i < n; i++)
		x = x * 6364136223846793005ul + 1;
	sink = x;
}

__attribute__((noinline)) static void churn(int n)
{
	int fd = open("/dev/null", O_WRONLY);
	for (int i = 0; i < n; i++) {
		char *volatile p = malloc(32 + (size_t)i);
		if (p && fd >= 0 && write(fd, (char *)p, 16) < 0)
			break;
		free(p);
	}
	if (fd >= 0)
		close(fd);
}

int main(int argc, char **argv)
{
	if (argc > 1 && !strcmp(argv[1], "leaf")) {
		churn(50);
		spin(20000000);
		return 0;
	}
	pid_t a = fork();
	if (a == 0) {
		churn(100);
		spin(10000000);
		_exit(0);
	}
	pid_t b = fork();
	if (b == 0) {
		execl("/proc/self/exe", argv[0], "leaf", (char *)NULL);
		_exit(127);
	}
	churn(80);
	spin(30000000);
	waitpid(a, NULL, 0);
	waitpid(b, NULL, 0);
	return 0;
}
