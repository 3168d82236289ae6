/* SPDX-License-Identifier: MIT
 *
 * test_col_faults.c — the collector survives the failure of any call it makes
 * for itself, injected through its table of real functions (col_real.h):
 * each entry of the table's own part (the system calls of our I/O and of the
 * record writer, the clock's calls, mkdir) fails once, at its first, second,
 * middle and last call of a run.
 *
 * A run is a forked child that starts the collector (col_start_here) and
 * runs a small target: two threads that spin and sum, a file written and
 * read back, a forked child that names a function (dyn.dat) and exits with a code.  For every injected
 * failure: no crash (the run ends within its time bound, exit 0); the
 * target's behaviour is unchanged (same sums, same file, same exit code);
 * and nothing is lost silently: either the experiment is as complete as a
 * run without failure (every thread's start and end, samples, the object
 * map, the fork child's sub-experiment, no missing stack) or the loss shows
 * (an "error:"/"warning:"/"clock.fallback:" line in the log, or a loss
 * counter).  Failures of close and munmap lose nothing by nature and are
 * only checked for the first two.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/perf_event.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "collector/col_init.h"
#include "collector/col_real.h"
#include "format/exp_data.h"
#include "format/exp_launch.h"
#include "tally.h"
#include "testhelp.h"

enum entry {
	E_OPENAT, E_READ, E_WRITE, E_PWRITE, E_CLOSE, E_FALLOCATE, E_MMAP, E_MUNMAP,
	E_PERF_EVENT_OPEN, E_IOCTL, E_FCNTL, E_TIMER_CREATE, E_TIMER_SETTIME, E_MKDIR, E_COUNT
};
static const char *const entry_name[E_COUNT] = {
	"openat", "read", "write", "pwrite", "close", "fallocate", "mmap", "munmap",
	"perf_event_open", "ioctl", "fcntl", "timer_create", "timer_settime", "mkdir",
};

/* Shared with the runs (MAP_SHARED): calls per entry, and whether the
 * injected failure happened. */
struct shared {
	uint64_t calls[E_COUNT];
	int fired;
};
static struct shared *sh;
static int fail_entry = -1;
static uint64_t fail_at;
static struct col_real orig;

/* Count the call; true if this one is to fail (errno set). */
static bool fails(enum entry e)
{
	uint64_t n = __atomic_add_fetch(&sh->calls[e], 1, __ATOMIC_RELAXED);

	if ((int)e != fail_entry || n != fail_at)
		return false;
	sh->fired = 1;
	errno = EIO;
	return true;
}

static int w_openat(int d, const char *p, int f, mode_t m)
{
	return fails(E_OPENAT) ? -1 : orig.sys.openat(d, p, f, m);
}
static ssize_t w_read(int fd, void *b, size_t n)
{
	return fails(E_READ) ? -1 : orig.sys.read(fd, b, n);
}
static ssize_t w_write(int fd, const void *b, size_t n)
{
	return fails(E_WRITE) ? -1 : orig.sys.write(fd, b, n);
}
static ssize_t w_pwrite(int fd, const void *b, size_t n, off_t o)
{
	return fails(E_PWRITE) ? -1 : orig.sys.pwrite(fd, b, n, o);
}
static int w_close(int fd)
{
	return fails(E_CLOSE) ? -1 : orig.sys.close(fd);
}
static int w_fallocate(int fd, int m, off_t o, off_t l)
{
	return fails(E_FALLOCATE) ? -1 : orig.sys.fallocate(fd, m, o, l);
}
static void *w_mmap(void *a, size_t l, int p, int f, int fd, off_t o)
{
	return fails(E_MMAP) ? MAP_FAILED : orig.sys.mmap(a, l, p, f, fd, o);
}
static int w_munmap(void *a, size_t l)
{
	return fails(E_MUNMAP) ? -1 : orig.sys.munmap(a, l);
}
static int w_perf_event_open(struct perf_event_attr *a, pid_t p, int c, int g, unsigned long f)
{
	return fails(E_PERF_EVENT_OPEN) ? -1 : orig.perf_event_open(a, p, c, g, f);
}
/* ioctl and fcntl take one more argument at most, an int or a pointer. */
static int w_ioctl(int fd, unsigned long req, ...)
{
	va_list ap;
	va_start(ap, req);
	void *arg = va_arg(ap, void *);
	va_end(ap);
	return fails(E_IOCTL) ? -1 : orig.ioctl(fd, req, arg);
}
static int w_fcntl(int fd, int cmd, ...)
{
	va_list ap;
	va_start(ap, cmd);
	void *arg = va_arg(ap, void *);
	va_end(ap);
	return fails(E_FCNTL) ? -1 : orig.fcntl(fd, cmd, arg);
}
static int w_timer_create(clockid_t c, struct sigevent *s, timer_t *t)
{
	return fails(E_TIMER_CREATE) ? -1 : orig.timer_create(c, s, t);
}
static int w_timer_settime(timer_t t, int f, const struct itimerspec *n, struct itimerspec *o)
{
	return fails(E_TIMER_SETTIME) ? -1 : orig.timer_settime(t, f, n, o);
}
static int w_mkdir(const char *p, mode_t m)
{
	return fails(E_MKDIR) ? -1 : orig.mkdir(p, m);
}

static void wrap_table(void)
{
	orig = col_real;
	col_real.sys.openat = w_openat;
	col_real.sys.read = w_read;
	col_real.sys.write = w_write;
	col_real.sys.pwrite = w_pwrite;
	col_real.sys.close = w_close;
	col_real.sys.fallocate = w_fallocate;
	col_real.sys.mmap = w_mmap;
	col_real.sys.munmap = w_munmap;
	col_real.perf_event_open = w_perf_event_open;
	col_real.ioctl = w_ioctl;
	col_real.fcntl = w_fcntl;
	col_real.timer_create = w_timer_create;
	col_real.timer_settime = w_timer_settime;
	col_real.mkdir = w_mkdir;
}

/* ---- the target ----------------------------------------------------------- */

static void *spin(void *arg)
{
	uint64_t x = (uint64_t)(uintptr_t)arg, sum = 0;

	for (uint64_t i = 0; i < 30000000; i++) {
		x = x * 6364136223846793005ull + 1442695040888963407ull;
		sum += x >> 33;
	}
	return (void *)(uintptr_t)sum;
}

/* What the target computes and does; the same with or without failures. */
static uint64_t target(const char *scratch)
{
	pthread_t th[2];
	uint64_t sum = 0;
	char buf[64] = "", path[256];

	for (int i = 0; i < 2; i++)
		if (pthread_create(&th[i], NULL, spin, (void *)(uintptr_t)(i + 1)) != 0)
			return 1;
	for (int i = 0; i < 2; i++) {
		void *r;
		pthread_join(th[i], &r);
		sum += (uint64_t)(uintptr_t)r;
	}
	snprintf(path, sizeof(path), "%s/target.txt", scratch);
	int fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0644);
	if (fd < 0 || write(fd, "written", 7) != 7 || pread(fd, buf, sizeof(buf), 0) != 7)
		return 2;
	close(fd);
	sum += strcmp(buf, "written") ? 3 : 0;
	pid_t c = fork();
	if (c == 0) {
		/* A record file of its own: its sub-experiment's directory
		 * (mkdir: a process that writes none has only its process
		 * file, format 8). */
		tally_func_load("faults_child", (const void *)(uintptr_t)&target, 16, NULL);
		_exit(7);
	}
	int st = 0;
	if (c < 0 || waitpid(c, &st, 0) != c || !WIFEXITED(st))
		return 4;
	return sum + (uint64_t)WEXITSTATUS(st);
}

/* One run: fail entry `e` at its call `at` (e < 0: none).  Returns the exit
 * status; *sum gets what the target computed. */
static int run(int e, uint64_t at, const char *exp, const char *scratch, uint64_t *sum)
{
	int pfd[2];

	memset(sh, 0, sizeof(*sh));
	fflush(stdout);
	if (pipe(pfd) != 0)
		return -1;
	pid_t pid = fork();
	if (pid == 0) {
		close(pfd[0]);
		alarm(60);                       /* the time bound of a run */
		fail_entry = e;
		fail_at = at;
		wrap_table();
		unsetenv(EXP_ENV_ROOT);
		unsetenv(EXP_ENV_PID);
		unsetenv(EXP_ENV_LINEAGE);
		setenv(EXP_ENV_OPTIONS, "hz=1000,follow=1", 1);
		/* As `tally record` does: the directory, and the head of its log. */
		char log[200];
		mkdir(exp, 0755);
		snprintf(log, sizeof(log), "%s/%s", exp, EXP_LOG_NAME);
		FILE *f = fopen(log, "w");
		if (!f || fputs("tally.format: 3\n", f) < 0 || fclose(f) != 0)
			_exit(4);
		col_start_here(exp);
		uint64_t s = target(scratch);
		if (write(pfd[1], &s, sizeof(s)) != sizeof(s))
			_exit(3);
		exit(0);                         /* destructors: the collector's end */
	}
	close(pfd[1]);
	int st = -1;
	*sum = 0;
	if (read(pfd[0], sum, sizeof(*sum)) != sizeof(*sum))
		*sum = 0;
	close(pfd[0]);
	waitpid(pid, &st, 0);
	return st;
}

/* Did the loss show, or was nothing lost? */
static bool accounted(const char *exp, char *why, size_t len)
{
	struct exp_experiment x;
	struct exp_error err;

	if (exp_experiment_load(&x, exp, &err) != 0) {
		snprintf(why, len, "%s", err.msg);
		exp_experiment_free(&x);
		return false;
	}
	/* No pid in the founder's log: the collector did not start, which
	 * `tally record` says (cmd_record.c). */
	bool shown = !exp_proc_log(&x.procs[0], "pid");
	for (size_t k = 0; k < x.nprocs; k++) {
		const struct exp_proc *q = &x.procs[k];
		for (size_t i = 0; i < q->nlog && !shown; i++)
			shown = !strcmp(q->log[i].key, "error") || !strcmp(q->log[i].key, "warning") ||
				!strcmp(q->log[i].key, "clock.fallback");
		shown = shown || q->counters[EXP_CTR_LOST_BUFFER] || q->counters[EXP_CTR_LOST_EVENTS] ||
			q->counters[EXP_CTR_NO_THREAD_STATE];
	}
	const struct exp_proc *p = &x.procs[0];
	bool complete = p->nthreads == 3 && p->nsamples > 0 && p->nmaps > 0 && !p->missing_stacks &&
			x.nprocs == 2 && x.procs[1].nthreads == 1 && !x.empty_descendants;
	snprintf(why, len, "threads %zu samples %zu maps %zu missing stacks %zu processes %zu",
		 p->nthreads, p->nsamples, p->nmaps, p->missing_stacks, x.nprocs);
	exp_experiment_free(&x);
	return shown || complete;
}

static char base[64];
static uint64_t expected, baseline[E_COUNT];

static void baseline_run(void)
{
	char exp[128];
	uint64_t sum;

	snprintf(exp, sizeof(exp), "%s/base.exp", base);
	int st = run(-1, 0, exp, base, &sum);
	CHECKF(WIFEXITED(st) && WEXITSTATUS(st) == 0, "status %d", st);
	CHECKF(sum == expected, "sum %llu, expected %llu", (unsigned long long)sum,
	       (unsigned long long)expected);
	memcpy(baseline, sh->calls, sizeof(baseline));
	char why[256];
	CHECKF(accounted(exp, why, sizeof(why)), "%s", why);
	for (int e = 0; e < E_COUNT; e++)
		if (e != E_FCNTL && e != E_TIMER_CREATE && e != E_TIMER_SETTIME)
			CHECKF(baseline[e] > 0, "%s never called", entry_name[e]);
}

static void each_call_fails_once(void)
{
	int runs = 0;

	for (int e = 0; e < E_COUNT; e++) {
		uint64_t n = baseline[e], at[4] = { 1, 2, n / 2, n };
		int npos = e == E_CLOSE || e == E_MUNMAP ? 2 : 4;
		for (int i = 0; i < npos; i++) {
			if (at[i] == 0 || at[i] > n || (i > 0 && at[i] <= at[i - 1]))
				continue;
			char exp[128], why[256];
			uint64_t sum;
			snprintf(exp, sizeof(exp), "%s/%s.%llu.exp", base, entry_name[e],
				 (unsigned long long)at[i]);
			int st = run(e, at[i], exp, base, &sum);
			runs++;
			CHECKF(WIFEXITED(st) && WEXITSTATUS(st) == 0, "%s call %llu: status %#x",
			       entry_name[e], (unsigned long long)at[i], st);
			CHECKF(sum == expected, "%s call %llu: the target computed %llu, not %llu",
			       entry_name[e], (unsigned long long)at[i], (unsigned long long)sum,
			       (unsigned long long)expected);
			/* A failure at the last call of a run may not come (timing). */
			if (!sh->fired)
				continue;
			if (e != E_CLOSE && e != E_MUNMAP)
				CHECKF(accounted(exp, why, sizeof(why)),
				       "%s call %llu failed and nothing shows: %s", entry_name[e],
				       (unsigned long long)at[i], why);
		}
	}
	CHECKF(runs >= 30, "only %d runs", runs);
}

int main(void)
{
	char cmd[128];

	snprintf(base, sizeof(base), "/tmp/tally-faults.XXXXXX");
	if (!mkdtemp(base))
		return 1;
	sh = mmap(NULL, sizeof(*sh), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (sh == MAP_FAILED)
		return 1;
	expected = target(base);
	RUN(baseline_run);
	RUN(each_call_fails_once);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", base);
	if (system(cmd) != 0)
		return 1;
	TEST_EXIT();
}
