/* SPDX-License-Identifier: MIT
 *
 * col_sched.c — THREAD_SCHED records (col_sched.h): each thread's
 * /proc/TID/schedstat ("cpu_ns run_delay_ns slices") read as it ends.
 * Without --states nothing else says how long a thread waited for a CPU:
 * its samples' weights are CPU time, and the wall time between them may be
 * a wait for a CPU or a sleep in a call no tracer sees.  With --states the
 * thread holds its file open already (col_states.c): col_sched_write_text
 * takes its text, with no open and for any thread.  Else the files are
 * opened by /proc/TID, not /proc/thread-self: the helper that opens them
 * aside (col_fds_use) is a task of its own.  A thread's context switches
 * (THREAD_SWITCHES, getrusage) are written as it ends too: they say whether
 * a short thread needs its file read at all; those still running at the
 * process's end get theirs from /proc/TID/status, read aside in one batch
 * by the ending thread (col_sched_write_others_switches).  Sigsafe file.
 */
#include <fcntl.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>

#include "collector/col_fds.h"
#include "collector/col_files.h"
#include "collector/col_log.h"
#include "collector/col_sched.h"
#include "collector/col_state.h"
#include "collector/col_sys.h"
#include "collector/col_time.h"
#include "format/exp_schedstat.h"

struct reads {
	const pid_t *tids;
	size_t n;
	char text[COL_SCHED_BATCH][80];    /* each file's text, "" if unread */
};

/* The n threads' files into r->text (run aside: raw system calls only). */
static int read_all(void *arg)
{
	struct reads *r = arg;
	char path[48] = "/proc/";
	int rc = 0;

	for (size_t i = 0; i < r->n; i++) {
		int k = 6 + col_fmt_u64_sigsafe(path + 6, (uint64_t)r->tids[i]);
		memcpy(path + k, "/schedstat", 11);
		int fd = col_sys_openat(AT_FDCWD, path, O_RDONLY | O_CLOEXEC, 0);
		if (fd < 0) {
			if (errno == EMFILE || errno == ENFILE)
				rc = -errno;
			continue;
		}
		ssize_t got = col_sys_read(fd, r->text[i], sizeof(r->text[i]) - 1);
		col_sys_close(fd);
		r->text[i][got > 0 ? got : 0] = 0;
	}
	return rc;
}

/* Threads still running at the process's end: their context switches
 * from /proc/TID/status (the counters getrusage RUSAGE_THREAD reads for
 * the calling thread only), read aside in one use. */
struct status_reads {
	const pid_t *tids;
	size_t n;
	uint64_t voluntary[COL_SCHED_BATCH], involuntary[COL_SCHED_BATCH];
	bool ok[COL_SCHED_BATCH];
	char text[4096];                   /* one file at a time (about 1.5 kB) */
};

/* The decimal after "\n<key>:" in `text`, into *out; false if absent. */
static bool status_count(const char *text, const char *key, uint64_t *out)
{
	size_t klen = strlen(key);

	for (const char *p = text; (p = strchr(p, '\n')) != NULL; p++) {
		if (strncmp(p + 1, key, klen) != 0 || p[1 + klen] != ':')
			continue;
		const char *d = p + 2 + klen;
		while (*d == ' ' || *d == '\t')
			d++;
		if (*d < '0' || *d > '9')
			return false;
		uint64_t v = 0;
		for (; *d >= '0' && *d <= '9'; d++)
			v = v * 10 + (uint64_t)(*d - '0');
		*out = v;
		return true;
	}
	return false;
}

/* The n threads' status files' two counts into r (run aside: raw system
 * calls only); a file that cannot be read or parsed leaves ok false. */
static int read_status_all(void *arg)
{
	struct status_reads *r = arg;
	char path[48] = "/proc/";
	int rc = 0;

	for (size_t i = 0; i < r->n; i++) {
		int k = 6 + col_fmt_u64_sigsafe(path + 6, (uint64_t)r->tids[i]);
		memcpy(path + k, "/status", 8);
		int fd = col_sys_openat(AT_FDCWD, path, O_RDONLY | O_CLOEXEC, 0);
		if (fd < 0) {
			if (errno == EMFILE || errno == ENFILE)
				rc = -errno;
			continue;
		}
		size_t have = 0;
		ssize_t got;
		while (have < sizeof(r->text) - 1 &&
		       (got = col_sys_read(fd, r->text + have, sizeof(r->text) - 1 - have)) > 0)
			have += (size_t)got;
		col_sys_close(fd);
		r->text[have] = 0;
		r->ok[i] = status_count(r->text, "voluntary_ctxt_switches", &r->voluntary[i]) &&
			   status_count(r->text, "nonvoluntary_ctxt_switches", &r->involuntary[i]);
	}
	return rc;
}

void col_sched_write_others_switches(struct col_thread *via, struct col_thread *const *threads, size_t n)
{
	struct status_reads r;
	pid_t tids[COL_SCHED_BATCH];

	if (!via || !n)
		return;
	if (n > COL_SCHED_BATCH)
		n = COL_SCHED_BATCH;
	for (size_t i = 0; i < n; i++) {
		tids[i] = threads[i]->tid;
		r.ok[i] = false;
	}
	r.tids = tids;
	r.n = n;
	col_fds_use(read_status_all, &r);
	uint64_t now = col_now_ns_sigsafe();
	for (size_t i = 0; i < n; i++) {
		const struct col_thread *t = threads[i];
		if (!r.ok[i])
			continue;
		/* As the thread's own end counts them (col_sched_switches_now):
		 * since its routine began, less tally's own. */
		uint64_t all = r.voluntary[i];
		uint64_t prog = all > t->collector_switches ? all - t->collector_switches : 0;
		uint64_t vol = prog > t->routine_switches ? prog - t->routine_switches : 0;
		struct exp_thread_switches rec = { 0, (uint32_t)t->tid, now, vol, r.involuntary[i],
						   t->created_ns && t->born_ns > t->created_ns ? t->born_ns - t->created_ns : 0 };
		col_sched_write_switches(via, &rec);
	}
}

/* The thread's voluntary switches in `ru` less tally's own (at least 0). */
static uint64_t less_tallys(const struct col_thread *t, const struct rusage *ru)
{
	uint64_t all = (uint64_t)ru->ru_nvcsw;

	return all > t->collector_switches ? all - t->collector_switches : 0;
}

uint64_t col_sched_program_switches(const struct col_thread *t)
{
	struct rusage ru;

	if (!t || col_syscall(SYS_getrusage, RUSAGE_THREAD, &ru) != 0)
		return 0;
	return less_tallys(t, &ru);
}

bool col_sched_switches_now(struct col_thread *t, struct exp_thread_switches *rec)
{
	struct rusage ru;

	if (!t || col_syscall(SYS_getrusage, RUSAGE_THREAD, &ru) != 0)
		return false;
	/* Since its routine began, less tally's own (a helper's clone
	 * waited for: col_fds_aside; the set-up before the routine). */
	uint64_t now = less_tallys(t, &ru);
	uint64_t vol = now > t->routine_switches ? now - t->routine_switches : 0;
	*rec = (struct exp_thread_switches){ 0, (uint32_t)t->tid, col_now_ns_sigsafe(), vol, (uint64_t)ru.ru_nivcsw,
					     t->created_ns && t->born_ns > t->created_ns ? t->born_ns - t->created_ns : 0 };
	return true;
}

void col_sched_write_switches(struct col_thread *t, const struct exp_thread_switches *rec)
{
	col_write_sigsafe(t, EXP_FILE_THREADS, EXP_REC_THREAD_SWITCHES, rec, sizeof(*rec));
}

void col_sched_write_text(struct col_thread *via, pid_t tid, const char *text)
{
	struct exp_schedstat v;

	if (!via || !exp_schedstat_parse(text, &v))
		return;
	struct exp_thread_sched rec = { 0, (uint32_t)tid, col_now_ns_sigsafe(), v.cpu_ns, v.run_delay_ns, v.slices };
	col_write_sigsafe(via, EXP_FILE_THREADS, EXP_REC_THREAD_SCHED, &rec, sizeof(rec));
}

void col_sched_read_many(const pid_t *tids, size_t n, struct exp_thread_sched *out)
{
	struct reads r;

	if (n > COL_SCHED_BATCH)
		n = COL_SCHED_BATCH;
	r.tids = tids;
	r.n = n;
	for (size_t i = 0; i < n; i++)
		r.text[i][0] = 0;
	if (n)
		col_fds_use(read_all, &r);
	uint64_t now = col_now_ns_sigsafe();
	for (size_t i = 0; i < n; i++) {
		struct exp_schedstat v;
		out[i] = (struct exp_thread_sched){ 0, (uint32_t)tids[i], 0, 0, 0, 0 };
		if (exp_schedstat_parse(r.text[i], &v))
			out[i] = (struct exp_thread_sched){ 0, (uint32_t)tids[i], now, v.cpu_ns, v.run_delay_ns, v.slices };
	}
}

void col_sched_write_rec(struct col_thread *via, const struct exp_thread_sched *rec)
{
	if (via)
		col_write_sigsafe(via, EXP_FILE_THREADS, EXP_REC_THREAD_SCHED, rec, sizeof(*rec));
}

void col_sched_write(struct col_thread *via, const pid_t *tids, size_t n)
{
	struct exp_thread_sched v[COL_SCHED_BATCH];

	if (!via || !n)
		return;
	if (n > COL_SCHED_BATCH)
		n = COL_SCHED_BATCH;
	col_sched_read_many(tids, n, v);
	for (size_t i = 0; i < n; i++)
		if (v[i].time_ns)
			col_sched_write_rec(via, &v[i]);
}
