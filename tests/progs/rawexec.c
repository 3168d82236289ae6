/* rawexec.c — execs that no exec function of libc's makes: children of
 * fork that exec /bin/true through syscall(SYS_execve) or execveat(), and a
 * process that execs itself through syscall(SYS_execve), each after some
 * CPU time (so that a sampling clock is running and may fire in the
 * exec).  Used by test_exec.sh: under tally every child must exit 0 (a
 * collector signal left pending across the exec killed them, status 133).
 *
 * usage: rawexec raw|asm|at|fexec N
 *                                  fork N children (raw: syscall(), asm: the
 *                                  syscall instruction); print "bad B of N";
 *                                  exit 1 if any child did not exit 0
 *        rawexec self K           exec itself K more times, then print
 *                                  "self done"
 *        rawexec asmself K        the same by the syscall instruction
 *                                  ("asmself done")
 * Built with -DRAWEXEC_PAD_KIB=K: K KiB more of executable code (bytes that
 * are never run), so that the collector's search for an inline exec finds a
 * program of that size (col_runtime.c: at start only up to a limit, else
 * before the first fork).
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

#ifdef RAWEXEC_PAD_KIB
__attribute__((section(".text.rawexec_pad"), used, aligned(4096)))
static const unsigned char pad[RAWEXEC_PAD_KIB << 10] = { 0xc3 };
#endif

/* execve by the syscall instruction itself: no function anyone can
 * interpose (as a static runtime or a sandbox launcher does). */
static long asm_execve(const char *path, char *const *args, char *const *env)
{
	long rc;

	__asm__ volatile("syscall"
			 : "=a"(rc)
			 : "0"((long)SYS_execve), "D"(path), "S"(args), "d"(env)
			 : "rcx", "r11", "memory");
	return rc;
}

static void __attribute__((noinline)) work(long n)
{
	volatile double x = 0;
	for (long k = 0; k < n; k++)
		x += (double)k * 0.5;
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "raw";
	int n = argc > 2 ? atoi(argv[2]) : 100, bad = 0;

	if (!strcmp(mode, "self") || !strcmp(mode, "asmself")) {
		work(2000000);
		if (n <= 0) {
			printf("%s done\n", mode);
			return 0;
		}
		char next[16];
		snprintf(next, sizeof(next), "%d", n - 1);
		char *args[] = { argv[0], (char *)mode, next, NULL };
		if (!strcmp(mode, "self"))
			syscall(SYS_execve, "/proc/self/exe", args, environ);
		else
			asm_execve("/proc/self/exe", args, environ);
		perror("rawexec: execve");
		return 3;
	}
	char *cargv[] = { "true", NULL };
	for (int i = 0; i < n; i++) {
		work(200000);
		pid_t p = fork();
		if (p < 0) {
			perror("rawexec: fork");
			return 2;
		}
		if (p == 0) {
			if (!strcmp(mode, "raw"))
				syscall(SYS_execve, "/bin/true", cargv, environ);
			else if (!strcmp(mode, "asm"))
				asm_execve("/bin/true", cargv, environ);
			else if (!strcmp(mode, "at"))
				execveat(AT_FDCWD, "/bin/true", cargv, environ, 0);
			else if (!strcmp(mode, "fexec")) {
				int fd = open("/bin/true", O_RDONLY | O_CLOEXEC);
				fexecve(fd, cargv, environ);
			}
			_exit(99);
		}
		int st;
		if (waitpid(p, &st, 0) != p || !WIFEXITED(st) || WEXITSTATUS(st) != 0) {
			if (++bad <= 3)
				fprintf(stderr, "rawexec: child %d: status %d\n", i, st);
		}
	}
	printf("bad %d of %d\n", bad, n);
	return bad != 0;
}
