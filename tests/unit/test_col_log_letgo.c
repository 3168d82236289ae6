/* SPDX-License-Identifier: MIT
 *
 * test_col_log_letgo.c — a log write in progress keeps its descriptor when
 * the collector lets the log go (col_log_let_go, a lean process once its
 * directory is made): the last write closes it.  The log here is a full
 * pipe, so a second thread's line stays in its write(2) (as one
 * interrupted by the program's signal handler, or on a full disk, would)
 * while the log is let go.  Before, let go waited a bounded while (100,000
 * yields) and closed it under the write: the number was free for the
 * program's next open while the collector's write went on.  The test knows
 * the line is in its write from the kernel (/proc/self/task/TID/syscall
 * names write(2) on the pipe), not from a wait.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "collector/col_log.h"
#include "collector/col_state.h"
#include "testhelp.h"

static int pipe_fd[2];
static atomic_int line_done;
static atomic_int writer_tid;

static void *write_line(void *arg)
{
	(void)arg;
	atomic_store(&writer_tid, (int)syscall(SYS_gettid));
	col_log_sigsafe("letgo", "a line written while the log is let go");
	atomic_store(&line_done, 1);
	return NULL;
}

/* Bytes in the pipe, read until `want` is seen or nothing more comes. */
static int drain_until(const char *want)
{
	static char got[1 << 20];
	size_t n = 0;

	for (int idle = 0; idle < 200 && n < sizeof(got) - 1;) {
		ssize_t r = read(pipe_fd[0], got + n, sizeof(got) - 1 - n);
		if (r > 0) {
			n += (size_t)r;
			got[n] = 0;
			if (memmem(got, n, want, strlen(want)))
				return 1;
			idle = 0;
		} else {
			struct timespec ts = { 0, 10 * 1000 * 1000 };
			nanosleep(&ts, NULL);
			idle++;
		}
	}
	return 0;
}

/* What thread `tid` of this process is in, from the kernel: 1 if it is
 * blocked in write(2) on descriptor `fd` (/proc/self/task/TID/syscall is
 * "NR FD ..."), 0 if not, -1 if the file cannot be read. */
static int blocked_in_write(int tid, int fd)
{
	char path[64], text[256];
	long nr = -1;
	unsigned long arg0 = 0;

	snprintf(path, sizeof(path), "/proc/self/task/%d/syscall", tid);
	FILE *f = fopen(path, "r");
	if (!f)
		return -1;
	int got = fgets(text, sizeof(text), f) != NULL;
	fclose(f);
	if (!got)
		return -1;
	return sscanf(text, "%ld %lx", &nr, &arg0) == 2 && nr == SYS_write && arg0 == (unsigned long)fd;
}

/* Until the writer is blocked in its write to the pipe (1), or it ended
 * its line without blocking (0).  The poll count only guards against a
 * writer that never writes; the answer comes from the kernel. */
static int writer_in_write(void)
{
	struct timespec ms = { 0, 1000 * 1000 };

	for (long polls = 0; polls < 100000; polls++) {
		int tid = atomic_load(&writer_tid);
		if (tid && blocked_in_write(tid, pipe_fd[1]) == 1)
			return 1;
		if (atomic_load(&line_done))
			return 0;
		nanosleep(&ms, NULL);
	}
	return 0;
}

static void write_in_progress_keeps_descriptor(void)
{
	pthread_t t;
	char fill[4096];

	if (blocked_in_write((int)syscall(SYS_gettid), -1) < 0)
		SKIP("/proc/self/task/TID/syscall unreadable (a kernel without CONFIG_HAVE_ARCH_TRACEHOOK?)");
	CHECK(pipe(pipe_fd) == 0);
	fcntl(pipe_fd[0], F_SETFL, O_NONBLOCK);
	fcntl(pipe_fd[1], F_SETFL, O_NONBLOCK);
	memset(fill, 'x', sizeof(fill));
	while (write(pipe_fd[1], fill, sizeof(fill)) > 0)
		;
	fcntl(pipe_fd[1], F_SETFL, 0);        /* the line's write now waits */
	col_proc.log_fd = pipe_fd[1];
	col_proc.log_ino = 0;                 /* not checked to be a file */
	CHECK(pthread_create(&t, NULL, write_line, NULL) == 0);
	CHECKF(writer_in_write(), "the line was not seen blocked in write(2) on the full pipe");
	col_log_let_go();
	CHECK(col_proc.log_fd == -1);
	CHECKF(fcntl(pipe_fd[1], F_GETFD) >= 0, "closed under the write in progress");
	CHECK(drain_until("letgo: a line written while the log is let go\n"));
	CHECK(pthread_join(t, NULL) == 0);
	CHECK(atomic_load(&line_done));
	errno = 0;
	CHECKF(fcntl(pipe_fd[1], F_GETFD) == -1 && errno == EBADF, "not closed by the last write");
	close(pipe_fd[0]);
}

static void no_write_closes_at_once(void)
{
	CHECK(pipe(pipe_fd) == 0);
	col_proc.log_fd = pipe_fd[1];
	col_log_let_go();
	errno = 0;
	CHECK(fcntl(pipe_fd[1], F_GETFD) == -1 && errno == EBADF);
	col_log_sigsafe("after", "nothing to write to");   /* no descriptor: dropped */
	close(pipe_fd[0]);
}

int main(void)
{
	RUN(write_in_progress_keeps_descriptor);
	RUN(no_write_closes_at_once);
	return th_failed_cases != 0;
}
