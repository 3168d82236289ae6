/* seccomper.c — installs a seccomp filter that forbids perf_event_open,
 * then execs a program (as a sandbox launcher does): under tally, the
 * collector's first event would be the program's death.  With kill_clone,
 * the filter allows perf_event_open but kills clone and clone3 (a sandbox
 * that forbids new processes): a probe process of the collector's would be
 * the program's death.  With PROGRAM `--thread`, no exec: the process
 * installs the filter itself, after the collector started, then makes a
 * thread that spins 0.2 s of CPU (its per-thread events, `-c`, are opened
 * under a filter the collector did not see at start).  With allow_perf,
 * the filter allows perf_event_open and clone (it fails acct(2) only): run
 * as `seccomper allow_perf tally record PROGRAM`, the program starts under a
 * filter tally record probed safe.  kill_process_prctl is kill_process
 * installed by prctl(PR_SET_SECCOMP), not the seccomp system call.  Used
 * by test_exec.sh.
 *
 * usage: seccomper kill_process|kill_process_prctl|kill_thread|errno|kill_clone|allow_perf|
 *                  kill_getrobust PROGRAM|--thread [ARGS...]
 */
#define _GNU_SOURCE
#include <errno.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <pthread.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

static void *spin(void *arg)
{
	struct timespec t;
	volatile unsigned long n = 0;

	(void)arg;
	do {
		for (int i = 0; i < 100000; i++)
			n++;
		clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
	} while (t.tv_sec == 0 && t.tv_nsec < 200000000);
	return NULL;
}

int main(int argc, char **argv)
{
	if (argc < 3) {
		fprintf(stderr, "usage: seccomper kill_process|kill_process_prctl|kill_thread|errno|kill_clone|"
				"allow_perf|kill_getrobust PROGRAM|--thread [ARGS...]\n");
		return 2;
	}
	bool clones = !strcmp(argv[1], "kill_clone"), allow = !strcmp(argv[1], "allow_perf"),
	     by_prctl = !strcmp(argv[1], "kill_process_prctl"), robust = !strcmp(argv[1], "kill_getrobust");
	unsigned action = !strcmp(argv[1], "kill_process") || clones || by_prctl || robust ? SECCOMP_RET_KILL_PROCESS
			  : !strcmp(argv[1], "kill_thread")             ? SECCOMP_RET_KILL_THREAD
									: SECCOMP_RET_ERRNO | EPERM;
	unsigned first = clones ? SYS_clone : allow ? SYS_acct : robust ? SYS_get_robust_list : SYS_perf_event_open,
		 second = clones ? SYS_clone3 : allow ? SYS_acct : robust ? SYS_get_robust_list : SYS_perf_event_open;
	struct sock_filter f[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, arch)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, AUDIT_ARCH_X86_64, 1, 0),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, first, 1, 0),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, second, 0, 1),
		BPF_STMT(BPF_RET | BPF_K, action),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	};
	struct sock_fprog prog = { sizeof(f) / sizeof(f[0]), f };
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0 ||
	    (by_prctl ? prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog, 0, 0)
		      : syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, &prog)) != 0) {
		perror("seccomper: seccomp");
		return 2;
	}
	if (!strcmp(argv[2], "--thread")) {
		pthread_t t;
		if (pthread_create(&t, NULL, spin, NULL) != 0 || pthread_join(t, NULL) != 0) {
			fprintf(stderr, "seccomper: no thread\n");
			return 2;
		}
		printf("thread done\n");
		return 0;
	}
	execvp(argv[2], argv + 2);
	perror("seccomper: exec");
	return 127;
}
