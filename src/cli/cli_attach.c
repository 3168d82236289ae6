/* SPDX-License-Identifier: MIT
 *
 * cli_attach.c — `tally record -p PID [--duration S] [-o EXP] [-F HZ]`:
 * profile a running process for a while and leave it running.
 *
 * The order of things: refuse what cannot work (tracers, then attach_check:
 * nothing touched yet); make the experiment directory, owned by the
 * process's user, with two FIFOs in it (attach.ctl: tally → collector,
 * attach.ack: collector → tally); load the collector and start it
 * (attach_inject: one thread borrowed for about a millisecond); wait for its
 * "started"; wait for Ctrl-C, SIGTERM, the end of --duration or the end of
 * the process; write "stop" and wait for "stopped"; finish the log (the
 * process's CPU time over the window, from its CPU clock) and the experiment.
 * If tally dies, the collector reads end-of-file on attach.ctl and stops too.
 *
 * When root records another user's process, the directory is lent to that
 * user for the run and root touches it only through cli_expdir.c: files by
 * descriptor-relative opens that follow no link, and its end-of-run work
 * only after taking the directory back.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include "attach/attach.h"
#include "cli/cli.h"
#include "cli/cli_expdir.h"
#include "cli/cli_kernel.h"
#include "cli/cli_kernel_blocked.h"
#include "cli/cli_outside.h"
#include "cli/cli_record.h"
#include "format/exp_launch.h"
#include "format/exp_records.h"
#include "outside/out.h"

#define CMD "record"
#define ANSWER_TIMEOUT_MS 10000

static volatile sig_atomic_t stop_signal;

static void on_stop_signal(int sig)
{
	stop_signal = sig;
}

/* Fields 14, 15 (utime, stime, clock ticks) and 22 (start time) of /proc/PID/stat. */
static bool proc_stat(pid_t pid, unsigned long long *utime, unsigned long long *stime,
		      unsigned long long *start)
{
	char path[64], buf[2048];
	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	FILE *f = fopen(path, "re");
	if (!f)
		return false;
	size_t n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = 0;
	char *p = strrchr(buf, ')');    /* the name may hold spaces */
	unsigned long long v[20];
	int got = p ? sscanf(p + 2, "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %llu %llu %*d %*d %*d %*d "
				    "%*d %*d %llu", &v[0], &v[1], &v[2]) : 0;
	if (got != 3)
		return false;
	*utime = v[0];
	*stime = v[1];
	*start = v[2];
	return true;
}

static uint64_t process_cpu_ns(pid_t pid)
{
	clockid_t id;
	struct timespec ts;

	if (clock_getcpuclockid(pid, &id) != 0 || clock_gettime(id, &ts) != 0)
		return 0;
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* Is it still the process we attached to (not ended, pid not reused)? */
static bool same_process(pid_t pid, unsigned long long start)
{
	unsigned long long u, s, st;

	return proc_stat(pid, &u, &s, &st) && st == start;
}

/* Does the process still hold our control FIFO (the collector is there)? */
static bool holds_fifo(pid_t pid, const char *ctl)
{
	char path[64], fdp[PATH_MAX], link[PATH_MAX];
	bool found = false;

	snprintf(path, sizeof(path), "/proc/%d/fd", (int)pid);
	DIR *d = opendir(path);
	if (!d)
		return false;
	for (struct dirent *e; !found && (e = readdir(d));) {
		snprintf(fdp, sizeof(fdp), "%s/%s", path, e->d_name);
		ssize_t n = readlink(fdp, link, sizeof(link) - 1);
		if (n > 0) {
			link[n] = 0;
			found = !strcmp(link, ctl);
		}
	}
	closedir(d);
	return found;
}

/* Collect until a stop signal (Ctrl-C...), --duration after `since`, or the
 * end of the process (checked every fifth round), or `ended(arg)` says the
 * collection ended with it (every fiftieth): why, or NULL when it ended
 * with the process.  Each round waits about 20 ms in `wait(arg)`. */
static const char *collect_until(pid_t pid, unsigned long long start, uint64_t since, double duration_s,
				 void (*wait)(void *), bool (*ended)(void *), void *arg)
{
	for (int n = 0;; n++) {
		if (stop_signal)
			return stop_signal == SIGINT ? "Ctrl-C" : strsignal(stop_signal);
		if (duration_s && cli_now_ns(CLOCK_MONOTONIC) - since >= (uint64_t)(duration_s * 1e9))
			return "--duration";
		if ((n % 5 == 0 && !same_process(pid, start)) || (ended && n % 50 == 49 && ended(arg)))
			return NULL;
		wait(arg);
	}
}

static void sleep_20ms(void)
{
	struct timespec ts = { 0, 20000000 };

	nanosleep(&ts, NULL);
}

static void poll_session(void *out)
{
	out_session_poll(out, 20);
}

/* The attached collector let go of its control FIFO (an exec replaced the
 * image it was in). */
struct fifo_watch {
	pid_t pid;
	const char *ctl;
	struct cli_kernel *kern;   /* --kernel: its rings, drained each round */
};

/* A round of an attach: 20 ms, draining the kernel's rings if any. */
static void attach_round(void *arg)
{
	const struct fifo_watch *w = arg;

	if (w->kern)
		cli_kernel_poll(w->kern, 20);
	else
		sleep_20ms();
}

static bool fifo_let_go(void *arg)
{
	const struct fifo_watch *w = arg;

	return !holds_fifo(w->pid, w->ctl);
}

/* One line from the collector (attach.ack).  0, -1 timeout or stop signal,
 * -2 the process ended. */
static int read_answer(int fd, char *line, size_t len, int timeout_ms, pid_t pid,
		       unsigned long long start, bool stoppable)
{
	size_t n = 0;
	uint64_t deadline = cli_now_ns(CLOCK_MONOTONIC) + (uint64_t)timeout_ms * 1000000u;

	while (cli_now_ns(CLOCK_MONOTONIC) < deadline) {
		struct pollfd p = { fd, POLLIN, 0 };
		if (stoppable && stop_signal)
			return -1;
		if (poll(&p, 1, 100) > 0) {
			ssize_t r = read(fd, line + n, 1);
			if (r == 1 && line[n] == '\n') {
				line[n] = 0;
				return 0;
			}
			if (r == 1 && n + 2 < len)
				n++;
			continue;
		}
		if (!same_process(pid, start))
			return -2;
	}
	return -1;
}

/* Open the experiment's log.txt to append, through the directory's
 * descriptor (never a link the process's user put there); NULL if it
 * cannot be. */
static FILE *log_open(const struct cli_expdir *x)
{
	int fd = cli_expdir_file(x, EXP_LOG_NAME, O_WRONLY | O_APPEND, 0);
	FILE *f = fd >= 0 ? fdopen(fd, "a") : NULL;

	if (!f && fd >= 0)
		close(fd);
	return f;
}

/* The log's first lines, in a new log.txt made by root before the
 * directory is lent (then given to the process's user, whose collector
 * appends to it).  0, or -1 with errno. */
static int write_head(const struct cli_expdir *x, const struct attach_target *t,
		      const struct exp_launch_options *lo)
{
	char path[PATH_MAX + 16], host[256] = "", when[64], cmd[4096];
	struct utsname u;
	time_t now = time(NULL);

	snprintf(path, sizeof(path), "/proc/%d/cmdline", (int)t->pid);
	FILE *f = fopen(path, "re");
	size_t n = f ? fread(cmd, 1, sizeof(cmd) - 1, f) : 0;
	if (f)
		fclose(f);
	for (size_t i = 0; i + 1 < n; i++)
		if (!cmd[i])
			cmd[i] = ' ';
	cmd[n] = 0;
	int fd = cli_expdir_file(x, EXP_LOG_NAME, O_WRONLY | O_APPEND | O_CREAT | O_EXCL, 0644);
	FILE *log = fd >= 0 ? fdopen(fd, "a") : NULL;
	if (!log) {
		if (fd >= 0)
			close(fd);
		return -1;
	}
	if (t->euid != geteuid() && fchown(fd, t->euid, t->egid) != 0) {
		fclose(log);
		return -1;
	}
	gethostname(host, sizeof(host) - 1);
	strftime(when, sizeof(when), "%Y-%m-%dT%H:%M:%S%z", localtime(&now));
	cli_log_line(log, "tally.format", "%d", EXP_FORMAT_VERSION);
	cli_log_line(log, "target", "%s", t->exe);
	cli_log_line(log, "command", "%s", n ? cmd : t->name);
	cli_log_line(log, "host", "%s", host);
	if (uname(&u) == 0)
		cli_log_line(log, "kernel", "%s %s %s", u.sysname, u.release, u.machine);
	cli_log_line(log, "start", "%s", when);
	cli_log_line(log, "record.start.mono_ns", "%llu", (unsigned long long)cli_now_ns(CLOCK_MONOTONIC));
	struct exp_launch_options logged = *lo;   /* what an attach records */
	logged.heap = logged.io = logged.mpi = logged.follow = false;
	logged.sync_ns = -1;
	cli_log_options(log, &logged);
	cli_log_line(log, "size-limit", "%lld", (long long)lo->limit_bytes);
	cli_log_line(log, "attach.pid", "%d", (int)t->pid);
	cli_log_line(log, "attach.descendants", "not followed: fork and exec are not interposed after the fact");
	return fclose(log);
}

static void log_kv(const struct cli_expdir *x, const char *key, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static void log_kv(const struct cli_expdir *x, const char *key, const char *fmt, ...)
{
	char v[1024];
	va_list ap;

	FILE *log = log_open(x);
	if (!log)
		return;
	va_start(ap, fmt);
	vsnprintf(v, sizeof(v), fmt, ap);
	va_end(ap);
	cli_log_line(log, key, "%s", v);
	fclose(log);
}

/* --kernel --states: the kernel's stacks of the threads blocked at the
 * attach (read then, by cli_kernel_blocked_read) written into kern, and
 * what became of them in the log. */
static void log_blocked_stacks(const struct cli_expdir *x, struct cli_kernel *kern, struct cli_kblocked *kb)
{
	cli_kernel_blocked_write(kern, kb);
	if (kb->err)
		log_kv(x, "kernel.blocked_at_attach", "%u threads blocked; their kernel stacks not read "
		       "(/proc/%d/task/TID/stack: %s%s)", kb->blocked, (int)kb->pid, strerror(kb->err),
		       kb->err == EACCES || kb->err == EPERM ? ", root only" : "");
	else
		log_kv(x, "kernel.blocked_at_attach", "%u threads blocked: %u kernel stacks read, %u ran "
		       "meanwhile, %u not placed in /proc/kallsyms", kb->blocked, kb->read, kb->moved,
		       kb->unplaced);
}

/* The process's CPU time over the window, split into user and system as
 * /proc/PID/stat's ticks are (the total is the CPU clock's, to the ns). */
static void log_cpu(const struct cli_expdir *dir, uint64_t cpu_ns, unsigned long long du, unsigned long long ds)
{
	double user = du + ds ? (double)du / (double)(du + ds) : 1.0;
	uint64_t u = (uint64_t)((double)cpu_ns * user);

	log_kv(dir, "rusage.user_ns", "%llu", (unsigned long long)u);
	log_kv(dir, "rusage.sys_ns", "%llu", (unsigned long long)(cpu_ns - u));
}

/* A number the collector wrote in the log; 0 if absent. */
static uint64_t log_u64(const struct cli_expdir *x, const char *key)
{
	char line[512];
	size_t k = strlen(key);
	uint64_t v = 0;
	int fd = cli_expdir_file(x, EXP_LOG_NAME, O_RDONLY, 0);
	FILE *f = fd >= 0 ? fdopen(fd, "r") : NULL;

	if (!f && fd >= 0)
		close(fd);
	while (f && fgets(line, sizeof(line), f))
		if (!strncmp(line, key, k) && line[k] == ':')
			v = strtoull(line + k + 1, NULL, 10);
	if (f)
		fclose(f);
	return v;
}

/* --kernel's end, once the directory is ours again: the rings' rest and
 * the kernel's symbols to kernel.dat, its lines to the log. */
static void close_kernel(const struct cli_expdir *x, struct cli_kernel *kern)
{
	char log_path[PATH_MAX + 16];

	if (!kern)
		return;
	snprintf(log_path, sizeof(log_path), "%s/%s", cli_expdir_path(x), EXP_LOG_NAME);
	cli_kernel_close(kern, log_path);
}

/* A statically linked process (nothing can be loaded into it) or a Go
 * program without cgo (its runtime would replace the collector's handler)
 * is sampled from outside (src/outside/, docs/static.md): perf events on
 * each of its threads, inherited by what they create, no ptrace, no stop.
 * Until Ctrl-C, --duration or its end, as an attach is. */
static int attach_outside(const struct record_opts *o, const struct attach_target *t)
{
	char dir[PATH_MAX];
	pid_t pid = t->pid;
	struct cli_expdir x;
	char what[256];

	snprintf(what, sizeof(what), "process %d (%s) is %s", (int)pid, t->name, t->outside_why);
	if (cli_outside_check(o, what) != 0)
		return CLI_USAGE;
	if (cli_record_make_dir(o->out, dir, sizeof(dir)) != 0)
		return CLI_FATAL;
	if (cli_expdir_open(&x, dir) != 0) {
		cli_error(CMD, "%s: cannot open the experiment just made: %s", dir, strerror(errno));
		return CLI_FATAL;
	}
	struct record_opts oo = *o;
	int64_t limit = o->limit;
	unsigned long long u0, s0, start, u1, s1, st;
	if (cli_space_check(dir, &limit) != 0)
		goto fail;
	oo.launch.limit_bytes = limit > 0 ? limit : 0;
	oo.launch.follow = true;
	if (write_head(&x, t, &oo.launch) != 0) {
		cli_error(CMD, "%s/%s: %s", dir, EXP_LOG_NAME, strerror(errno));
		goto fail;
	}
	if (!proc_stat(pid, &u0, &s0, &start)) {
		cli_error(CMD, "cannot attach to %d: it ended", (int)pid);
		goto fail;
	}
	/* --kernel: the session's own events carry the kernel's chains. */
	char kernel_why[512];
	struct cli_kernel *kern = NULL;
	if (o->kernel && oo.launch.hz &&
	    !(kern = cli_kernel_file(cli_expdir_path(&x), 1000000000ull / oo.launch.hz, kernel_why,
				     sizeof(kernel_why))))
		log_kv(&x, "kernel.frames", "%s", kernel_why);
	uint64_t cpu0 = process_cpu_ns(pid), t0 = cli_now_ns(CLOCK_MONOTONIC);
	struct out_session *out = cli_outside_start(0, pid, cli_expdir_path(&x), &oo, kern, t->outside_why);
	if (!out) {
		if (kern)
			close_kernel(&x, kern);
		goto fail;
	}
	struct sigaction sa;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_stop_signal;
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	fprintf(stderr, "tally record: sampling %d (%s) from outside: it is %s; %s\n",
		(int)pid, t->name, t->outside_why, o->duration_s ? "collecting" : "Ctrl-C stops collecting");
	const char *why_end = collect_until(pid, start, t0, o->duration_s, poll_session, NULL, out);
	uint64_t cpu1 = process_cpu_ns(pid), t1 = cli_now_ns(CLOCK_MONOTONIC);
	bool still = proc_stat(pid, &u1, &s1, &st) && st == start;
	bool kernel_chains = out_session_kernel_chains(out);
	out_session_close(out);              /* its last samples' chains go to kern */
	if (kern && !kernel_chains) {
		char log_path[PATH_MAX + 16];
		snprintf(log_path, sizeof(log_path), "%s/%s", cli_expdir_path(&x), EXP_LOG_NAME);
		cli_kernel_refused(kern, log_path);
	} else {
		close_kernel(&x, kern);
	}
	char when[64];
	time_t now = time(NULL);
	strftime(when, sizeof(when), "%Y-%m-%dT%H:%M:%S%z", localtime(&now));
	log_kv(&x, "end", "%s", when);
	log_kv(&x, "record.end.mono_ns", "%llu", (unsigned long long)t1);
	log_kv(&x, "wall_ns", "%llu", (unsigned long long)(t1 - t0));
	if (still) {
		log_cpu(&x, cpu1 > cpu0 ? cpu1 - cpu0 : 0, u1 - u0, s1 - s0);
		log_kv(&x, "attach.end", "%s; detached, the process goes on", why_end ? why_end : "stopped");
	} else {
		log_kv(&x, "attach.end", "the process ended during collection");
	}
	const char *xp = cli_expdir_path(&x);
	cli_compact(xp);
	cli_archive(xp);
	cli_space_report(xp, dir, oo.launch.hz, oo.launch.limit_bytes, false);
	cli_expdir_close(&x);
	if (still)
		fprintf(stderr, "tally record: stopped sampling %d (%s), which goes on; experiment in %s\n",
			(int)pid, why_end ? why_end : "stopped", dir);
	else
		fprintf(stderr, "tally record: %d ended during collection; experiment in %s\n", (int)pid, dir);
	return CLI_OK;
fail:
	cli_expdir_remove(&x);
	cli_expdir_close(&x);
	return CLI_FATAL;
}

int cli_attach_record(const struct record_opts *o)
{
	struct attach_target t;
	struct attach_timing tm;
	char dir[PATH_MAX], absdir[PATH_MAX], lib[PATH_MAX + 32], collector[PATH_MAX];
	char ctl[PATH_MAX + 16], options[EXP_OPTIONS_MAX], line[1024];
	pid_t pid = (pid_t)o->pid;
	int tr = cli_record_opts_unattachable(o->given, CLI_ATT_TRACER);

	if (tr >= 0) {
		char name[40];
		cli_record_opt_name((size_t)tr, name, sizeof(name));
		cli_error(CMD, "%s cannot be attached: tracing interposes on the program's calls, which are "
			  "bound to libc before tally arrives; record the program from its start "
			  "(`tally record %s -- PROGRAM`), or attach without it", name, name);
		return CLI_FATAL;
	}
	snprintf(lib, sizeof(lib), "%s/libtally-collector.so", cli_lib_dir());
	if (!realpath(lib, collector)) {
		cli_error(CMD, "%s: %s (is tally installed? TALLY_LIB_DIR names its lib directory)", lib,
			  strerror(errno));
		return CLI_FATAL;
	}
	if (attach_check(pid, &t) != 0) {
		cli_error(CMD, "cannot attach to %s", t.why);
		return CLI_FATAL;
	}
	if (t.is_static)
		return attach_outside(o, &t);
	if (cli_record_make_dir(o->out, dir, sizeof(dir)) != 0)
		return CLI_FATAL;
	struct cli_expdir x;
	if (cli_expdir_open(&x, dir) != 0) {
		cli_error(CMD, "%s: cannot open the experiment just made: %s", dir, strerror(errno));
		return CLI_FATAL;
	}
	int ctl_fd = -1, ack_fd = -1;
	struct cli_kernel *kern = NULL;
	char kernel_why[512];
	if (!realpath(dir, absdir)) {
		cli_error(CMD, "%s: %s", dir, strerror(errno));
		goto fail;
	}
	/* The same size limit as a launched recording (-L; by default half the
	 * free space, at most 2 GiB): a long attach must not fill the disk. */
	struct exp_launch_options lo = o->launch;
	int64_t limit = o->limit;
	if (cli_space_check(dir, &limit) != 0)
		goto fail;
	lo.limit_bytes = limit > 0 ? limit : 0;
	lo.follow = false;
	snprintf(ctl, sizeof(ctl), "%s/attach.ctl", absdir);
	/* Made and opened while the directory is still ours.  O_RDWR: neither
	 * open waits for the other side, and the collector's end of attach.ctl
	 * sees end-of-file only when tally is gone. */
	if (mkfifoat(x.dirfd, "attach.ctl", 0600) != 0 || mkfifoat(x.dirfd, "attach.ack", 0600) != 0 ||
	    (ctl_fd = openat(x.dirfd, "attach.ctl", O_RDWR | O_NOFOLLOW | O_CLOEXEC)) < 0 ||
	    (ack_fd = openat(x.dirfd, "attach.ack", O_RDWR | O_NONBLOCK | O_NOFOLLOW | O_CLOEXEC)) < 0) {
		cli_error(CMD, "%s: cannot make its control FIFOs: %s", dir, strerror(errno));
		goto fail;
	}
	if (write_head(&x, &t, &lo) != 0) {
		cli_error(CMD, "%s/%s: %s", dir, EXP_LOG_NAME, strerror(errno));
		goto fail;
	}
	/* --kernel: the clock's kernel chains, from events tally holds on
	 * the process's threads (kernel.dat made while the directory is ours). */
	if (o->kernel && lo.hz && !(kern = cli_kernel_attach(pid, 1000000000ull / lo.hz, lo.states, x.dirfd, dir, kernel_why,
							     sizeof(kernel_why))))
		log_kv(&x, "kernel.frames", "%s", kernel_why);
	/* The collector writes as the process's user: the directory and the
	 * three files it needs are lent to that user until the end. */
	if (t.euid != geteuid() && (fchown(ctl_fd, t.euid, t.egid) != 0 || fchown(ack_fd, t.euid, t.egid) != 0 ||
				    cli_expdir_lend(&x, t.euid, t.egid) != 0)) {
		cli_error(CMD, "%s: cannot give it to uid %u: %s", dir, (unsigned)t.euid, strerror(errno));
		goto fail;
	}
	if (attach_check_reachable(&t, collector, absdir) != 0) {
		cli_error(CMD, "cannot attach to %s", t.why);
		goto fail;
	}
	if (exp_launch_encode(&lo, options, sizeof(options)) < 0) {
		cli_error(CMD, "options too long");
		goto fail;
	}

	unsigned long long u0, s0, start, u1, s1, st;
	if (!proc_stat(pid, &u0, &s0, &start)) {
		cli_error(CMD, "cannot attach to %d: it ended", (int)pid);
		goto fail;
	}
	uint64_t cpu0 = process_cpu_ns(pid), t0 = cli_now_ns(CLOCK_MONOTONIC);

	/* No Ctrl-C while the thread is borrowed: it would leave it mid-call. */
	sigset_t block, old;
	sigemptyset(&block);
	sigaddset(&block, SIGINT);
	sigaddset(&block, SIGTERM);
	sigaddset(&block, SIGHUP);
	sigprocmask(SIG_BLOCK, &block, &old);
	int rc = attach_inject(&t, collector, absdir, options, &tm);
	struct sigaction sa;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_stop_signal;
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	sigprocmask(SIG_SETMASK, &old, NULL);
	if (rc != 0) {
		cli_error(CMD, "cannot attach to %s", t.why);
		goto fail;
	}
	log_kv(&x, "attach.thread", "%d (%s)", (int)tm.tid, tm.how);
	log_kv(&x, "attach.stopped_ns", "%llu", (unsigned long long)tm.stopped_ns);
	log_kv(&x, "attach.probes", "%u threads looked at, stopped %llu ns in all", tm.probes,
	       (unsigned long long)tm.probe_ns);
	log_kv(&x, "attach.syscall_stops", "%u", tm.syscall_stops);

	int a = read_answer(ack_fd, line, sizeof(line), ANSWER_TIMEOUT_MS, pid, start, false);
	unsigned nthreads = 0, unsampled = 0;
	char how[32] = "";
	if (a != 0 || strncmp(line, "started ", 8) ||
	    sscanf(line + 8, "%u %u %31s", &nthreads, &unsampled, how) != 3) {
		if (a == 0 && !strncmp(line, "error ", 6))
			cli_error(CMD, "the collector in %d could not start: %s", (int)pid, line + 6);
		else
			cli_error(CMD, "the collector in %d did not answer (%s)", (int)pid,
				  a == -2 ? "the process ended" : "10 s");
		close(ctl_fd);
		close(ack_fd);
		cli_expdir_reclaim(&x, CMD);
		close_kernel(&x, kern);
		cli_expdir_handover(&x);
		cli_expdir_close(&x);
		return CLI_FATAL;
	}
	if (kern)
		cli_kernel_enable(kern, true);
	struct cli_kblocked kb = { 0 };
	if (kern && lo.states)
		cli_kernel_blocked_read(pid, &kb);   /* now: the blocks under way */
	uint64_t started = cli_now_ns(CLOCK_MONOTONIC);
	fprintf(stderr, "tally record: attached to %d (%s): %u threads%s; thread %d stopped %.2f ms; %s\n",
		(int)pid, t.name, nthreads, strcmp(how, "inherit") ? ", new ones found every 50 ms" : "",
		(int)tm.tid, tm.stopped_ns / 1e6,
		o->duration_s ? "collecting" : "Ctrl-C stops collecting");
	if (unsampled)
		cli_warn(CMD, "%u threads could not be given a clock (file descriptors): they are not sampled",
			 unsampled);

	/* Collect until told, the duration ends, or the process does. */
	struct fifo_watch fw = { pid, ctl, kern };
	const char *why_end = collect_until(pid, start, started, o->duration_s, attach_round, fifo_let_go, &fw);
	uint64_t t_stop = cli_now_ns(CLOCK_MONOTONIC), stop_ns = 0;
	bool alive = why_end != NULL;
	if (kern)
		cli_kernel_enable(kern, false);
	if (alive) {
		stop_signal = 0;
		if (write(ctl_fd, "stop\n", 5) != 5 ||
		    read_answer(ack_fd, line, sizeof(line), ANSWER_TIMEOUT_MS, pid, start, false) != 0 ||
		    strcmp(line, "stopped")) {
			cli_warn(CMD, "the collector in %d did not confirm the stop: the experiment may "
				 "lack its last records", (int)pid);
		}
		stop_ns = cli_now_ns(CLOCK_MONOTONIC) - t_stop;
	}
	uint64_t cpu1 = process_cpu_ns(pid), t1 = cli_now_ns(CLOCK_MONOTONIC);
	/* why_end NULL: the process ended, or its collector let go of the
	 * FIFO (an exec replaced the image the collector was in): either way
	 * the collection ended with it, not a detach. */
	bool still = why_end && proc_stat(pid, &u1, &s1, &st) && st == start;
	close(ctl_fd);
	close(ack_fd);
	unlinkat(x.dirfd, "attach.ctl", 0);
	unlinkat(x.dirfd, "attach.ack", 0);
	/* Ours again before anything below reads or writes in it by name. */
	cli_expdir_reclaim(&x, CMD);
	if (kern && lo.states)
		log_blocked_stacks(&x, kern, &kb);
	close_kernel(&x, kern);
	const char *xp = cli_expdir_path(&x);

	char when[64];
	time_t now = time(NULL);
	strftime(when, sizeof(when), "%Y-%m-%dT%H:%M:%S%z", localtime(&now));
	log_kv(&x, "end", "%s", when);
	log_kv(&x, "record.end.mono_ns", "%llu", (unsigned long long)t1);
	log_kv(&x, "wall_ns", "%llu", (unsigned long long)(t1 - t0));
	if (still) {
		/* The window the collector sampled, by the process's CPU clock;
		 * else ours (which adds the attach and the stop). */
		uint64_t c0 = log_u64(&x, "attach.cpu_start_ns"), c1 = log_u64(&x, "attach.cpu_end_ns");
		if (c0 && c1 > c0)
			log_cpu(&x, c1 - c0, u1 - u0, s1 - s0);
		else
			log_cpu(&x, cpu1 > cpu0 ? cpu1 - cpu0 : 0, u1 - u0, s1 - s0);
		log_kv(&x, "attach.end", "%s; detached, the process goes on", why_end);
		log_kv(&x, "attach.stop_ns", "%llu", (unsigned long long)stop_ns);
	} else {
		log_kv(&x, "attach.end", "the process ended or exec'd during collection");
	}
	cli_compact(xp);
	cli_archive(xp);
	cli_space_report(xp, dir, lo.hz, lo.limit_bytes, false);
	cli_expdir_handover(&x);
	cli_expdir_close(&x);
	if (still)
		fprintf(stderr, "tally record: detached from %d (%s), which goes on; experiment in %s\n",
			(int)pid, why_end, dir);
	else
		fprintf(stderr, "tally record: %d ended (or exec'd) during collection; experiment in %s\n",
			(int)pid, dir);
	return CLI_OK;

fail:
	if (kern)
		close_kernel(&x, kern);
	if (ctl_fd >= 0)
		close(ctl_fd);
	if (ack_fd >= 0)
		close(ack_fd);
	cli_expdir_remove(&x);
	cli_expdir_close(&x);
	return CLI_FATAL;
}
