/* seccomper.c — installs a seccomp filter that forbids perf_event_open,
 * then execs a program (as a sandbox launcher does): under tally, the
 * collector's first event would be the program's death.  Used by
 * test_exec.sh.
 *
 * usage: seccomper kill_process|kill_thread|errno PROGRAM [ARGS...]
 */
#define _GNU_SOURCE
#include <errno.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	if (argc < 3) {
		fprintf(stderr, "usage: seccomper kill_process|kill_thread|errno PROGRAM [ARGS...]\n");
		return 2;
	}
	unsigned action = !strcmp(argv[1], "kill_process") ? SECCOMP_RET_KILL_PROCESS
			  : !strcmp(argv[1], "kill_thread") ? SECCOMP_RET_KILL_THREAD
							     : SECCOMP_RET_ERRNO | EPERM;
	struct sock_filter f[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, arch)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, AUDIT_ARCH_X86_64, 1, 0),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_perf_event_open, 0, 1),
		BPF_STMT(BPF_RET | BPF_K, action),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	};
	struct sock_fprog prog = { sizeof(f) / sizeof(f[0]), f };
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0 ||
	    syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, &prog) != 0) {
		perror("seccomper: seccomp");
		return 2;
	}
	execv(argv[2], argv + 2);
	perror("seccomper: exec");
	return 127;
}
