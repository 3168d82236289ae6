/* slow_own_read.c — a thread whose profiler's own work waits off the CPU
 * (tests/e2e/test_states_collector.sh).  The main thread naps ROUNDS
 * times for NAP_MS in nap_a_while(); under `tally record --states` each
 * resume from a nap runs the collector's switch handler, which reads the
 * thread's schedstat with pread64 and its page faults with getrusage.
 * This program makes the handler wait, as a record write waits for a
 * loaded disk: a seccomp filter installed on the main thread sends CALL
 * (getrusage, or pread64) to a supervisor thread (user notification),
 * which holds each call HOLD_MS before letting it run.  Nothing of the
 * program's makes either call.  Held, the schedstat read itself cannot
 * tell its own wait for a CPU after the hold from the nap's before it
 * (docs/states.md): the checks hold getrusage, which comes after it.
 *
 * It prints what it measured itself, in ns, summed over the naps:
 *   nap WALL RUNNABLE HELD
 * WALL is each nap's wall time (around nap_a_while), RUNNABLE the part of
 * it waiting for a CPU (its schedstat run delay, read with read(2)), HELD
 * the part the supervisor held a call within it (tally's own time, not
 * the program's: WALL - RUNNABLE - HELD is the program's sleep); then
 *   held TOTAL COUNT
 * over the whole run.  Exit 3 when the filter cannot be installed.
 * usage: slow_own_read ROUNDS NAP_MS HOLD_MS [CALL]
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "mono_clock.h"
#include "run_delay.h"

#define NOIPA __attribute__((noinline, noipa))

static int hold_ms = 20;
static atomic_llong held_ns, held_count;
static atomic_int holding = 1;
/* The filter's listener, found by the supervisor itself: a handler of
 * tally's may make a held call as soon as the filter exists (at the
 * seccomp call's own resume), before the main thread could say the
 * number.  A guess of the number (the lowest free one, before the call)
 * could be wrong: the collector's threads open descriptors of their own
 * in between, and then the held call waited for nobody. */
static atomic_int listener = -1, installing;

/* The descriptor that is a seccomp listener: the only kind that answers
 * NOTIF_ID_VALID for an unknown id with ENOENT (others: ENOTTY, EINVAL,
 * EBADF); -1 if none yet. */
static int find_listener(void)
{
	for (int fd = 0; fd < 4096; fd++) {
		__u64 id = 0;
		if (ioctl(fd, SECCOMP_IOCTL_NOTIF_ID_VALID, &id) != 0 && errno == ENOENT)
			return fd;
	}
	return -1;
}

/* The supervisor: not filtered (made before the filter, which is the main
 * thread's alone). */
static void *supervise(void *arg)
{
	(void)arg;
	for (;;) {
		struct seccomp_notif req;
		struct seccomp_notif_resp resp;
		int fd = atomic_load(&listener);
		if (fd < 0 && atomic_load(&installing)) {
			fd = find_listener();
			if (fd >= 0)
				atomic_store(&listener, fd);
		}
		memset(&req, 0, sizeof(req));
		if (fd < 0 || ioctl(fd, SECCOMP_IOCTL_NOTIF_RECV, &req) != 0) {
			sleep_ms(1);             /* no filter yet */
			continue;
		}
		if (atomic_load(&holding)) {
			long long t0 = now();
			sleep_ms(hold_ms);
			atomic_fetch_add(&held_ns, now() - t0);
			atomic_fetch_add(&held_count, 1);
		}
		memset(&resp, 0, sizeof(resp));
		resp.id = req.id;
		resp.flags = SECCOMP_USER_NOTIF_FLAG_CONTINUE;
		ioctl(fd, SECCOMP_IOCTL_NOTIF_SEND, &resp);
	}
	return NULL;   /* never: it ends with the process */
}

static int install_filter(long held_call)
{
	struct sock_filter f[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, arch)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, AUDIT_ARCH_X86_64, 1, 0),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, (unsigned)held_call, 0, 1),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_USER_NOTIF),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	};
	struct sock_fprog prog = { sizeof(f) / sizeof(f[0]), f };

	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0)
		return -1;
	atomic_store(&installing, 1);
	int fd = (int)syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, SECCOMP_FILTER_FLAG_NEW_LISTENER, &prog);
	if (fd >= 0)
		atomic_store(&listener, fd);
	atomic_store(&installing, 0);
	return fd < 0 ? -1 : 0;
}

NOIPA void nap_a_while(int ms)
{
	sleep_ms(ms);
	__asm__ volatile("" ::: "memory");   /* no tail call */
}

int main(int argc, char **argv)
{
	if (argc < 4) {
		fprintf(stderr, "usage: slow_own_read ROUNDS NAP_MS HOLD_MS [getrusage|pread64]\n");
		return 2;
	}
	long held_call = argc > 4 && strcmp(argv[4], "pread64") == 0 ? SYS_pread64 : SYS_getrusage;
	int rounds = atoi(argv[1]), nap_ms = atoi(argv[2]);
	hold_ms = atoi(argv[3]);
	pthread_t sup;

	if (pthread_create(&sup, NULL, supervise, NULL) != 0)
		return 2;
	if (install_filter(held_call) != 0) {
		perror("slow_own_read: seccomp user notification");
		return 3;
	}
	long long wall = 0, runnable = 0, held = 0;
	for (int i = 0; i < rounds; i++) {
		long long d0 = run_delay_ns(), h0 = atomic_load(&held_ns), w0 = now();
		nap_a_while(nap_ms);
		long long w1 = now(), h1 = atomic_load(&held_ns), d1 = run_delay_ns();
		wall += w1 - w0;
		runnable += d1 - d0;
		held += h1 - h0;
	}
	atomic_store(&holding, 0);
	printf("nap %lld %lld %lld\nheld %lld %lld\n", wall, runnable, held, (long long)atomic_load(&held_ns),
	       (long long)atomic_load(&held_count));
	return 0;   /* the supervisor, in its ioctl, ends with the process */
}
