/* SPDX-License-Identifier: MIT
 *
 * cli_space.c — `tally record` and the room an experiment takes: the size
 * limit (-L, or a default that protects the disk), a file system already
 * full refused before the program starts, and, after the run, one line on
 * stderr when anything was lost or the file system filled, with the count
 * (none, when the blocks claimed before it filled held every record) and
 * what to do.
 *
 * The limit is enforced inside the target (format/exp_write.c: every claim of
 * blocks, by every process, counts against one budget in the founder's
 * counters.dat); here it is chosen and its outcome read back.  The end of
 * the run reads only what is small: each process's counters.dat, its log's
 * error lines, and threads.dat (a thread's CPU time beside its samples); a
 * descendant's process file holds all three (format 8).
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include "cli/cli.h"
#include "format/exp_launch.h"
#include "format/exp_procfile.h"
#include "format/exp_read.h"

#define MIN_FREE (128u << 10)          /* an experiment's first files */
#define DEFAULT_CAP (2ull << 30)       /* as gprofng's -L default: 2 GB */

int cli_space_parse(const char *s, int64_t *bytes)
{
	char *end;

	if (!strcmp(s, "unlimited") || !strcmp(s, "none")) {
		*bytes = 0;
		return 0;
	}
	double v = strtod(s, &end);
	if (end == s || v < 0)
		return -1;
	double unit = 1 << 20;                 /* a plain number is in MiB, as gprofng's -L */
	if (*end == 'k' || *end == 'K')
		unit = 1 << 10;
	else if (*end == 'm' || *end == 'M')
		unit = 1 << 20;
	else if (*end == 'g' || *end == 'G')
		unit = (double)(1u << 30);
	else if (*end)
		return -1;
	if (*end && end[1] && strcmp(end + 1, "B") && strcmp(end + 1, "iB"))
		return -1;
	*bytes = (int64_t)(v * unit);
	return 0;
}

static void human(char *buf, size_t len, uint64_t bytes)
{
	if (bytes >= (1ull << 30))
		snprintf(buf, len, "%.1f GiB", (double)bytes / (double)(1ull << 30));
	else if (bytes >= (1u << 20))
		snprintf(buf, len, "%.1f MiB", (double)bytes / (double)(1u << 20));
	else
		snprintf(buf, len, "%llu KiB", (unsigned long long)(bytes >> 10));
}

int cli_space_check(const char *dir, int64_t *limit)
{
	struct statvfs vfs;
	char a[32], b[32];

	if (statvfs(dir, &vfs) != 0)
		return 0;                      /* nothing known: no default either */
	uint64_t free_bytes = (uint64_t)vfs.f_bavail * vfs.f_frsize;
	if (free_bytes < MIN_FREE) {
		human(a, sizeof(a), free_bytes);
		human(b, sizeof(b), MIN_FREE);
		cli_error("record", "%s: its file system is full (%s free; an experiment needs at least %s): "
			  "free some space, or record elsewhere (-o DIR)", dir, a, b);
		return -1;
	}
	if (*limit < 0)                        /* the default: half the free space, at most 2 GiB */
		*limit = (int64_t)(free_bytes / 2 < DEFAULT_CAP ? free_bytes / 2 : DEFAULT_CAP);
	return 0;
}

/* What the end of the run found, over every process. */
struct losses {
	uint64_t ctr[EXP_CTR_COUNT_];
	uint64_t limit_ns, start_ns;       /* founder's: when the limit was reached; start */
	int err;                           /* an errno the logs name for a record file */
	size_t blocked;                    /* threads that ran long without a sample */
	uint64_t blocked_ns;
	size_t empty;                      /* descendants whose experiment holds nothing */
	uint64_t nofile, nofile_ours;      /* the descriptor limit reached at a process's end */
	uint64_t fsize;                    /* the program's file size limit stopped a file */
	char fsize_file[64];               /* the first such file */
};

/* Adds the process's counters to l; returns the samples it lost (0 also
 * when it has no counters). */
static uint64_t counters_of(const uint8_t *buf, size_t n, struct losses *l, bool founder)
{
	if (n < EXP_HEADER_BYTES + 8 * EXP_CTR_COUNT_ || memcmp(buf, EXP_MAGIC, 8))
		return 0;
	uint64_t c[EXP_CTR_COUNT_];
	memcpy(c, buf + EXP_HEADER_BYTES, sizeof(c));
	for (int i = 0; i < EXP_CTR_COUNT_; i++)
		l->ctr[i] += c[i];
	if (founder)
		l->limit_ns = c[EXP_CTR_LIMIT_NS];
	return c[EXP_CTR_LOST_BUFFER] + c[EXP_CTR_LOST_LIMIT] + c[EXP_CTR_LOST_REENTRY] +
	       c[EXP_CTR_LOST_NOFILE];
}

static uint64_t read_counters(const char *path, struct losses *l, bool founder)
{
	uint8_t buf[EXP_COUNTERS_BYTES];
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	ssize_t n = pread(fd, buf, sizeof(buf), 0);
	close(fd);
	return n > 0 ? counters_of(buf, (size_t)n, l, founder) : 0;
}

/* The log's "error: NAME.dat: errno N (...)" lines name why a file failed;
 * its start.mono_ns dates the limit. */
/* Returns whether the process was sampled by POSIX timers (clock.fallback),
 * whose period is the kernel's tick, not 1/hz.  *pid and *cpu_start get
 * the process's pid and its CPU when the collector started (0: unknown). */
static bool read_log(FILE *f, struct losses *l, bool founder, uint64_t *pid, uint64_t *cpu_start)
{
	char line[1024];
	bool timers = false;

	if (!f)
		return false;
	while (fgets(line, sizeof(line), f)) {
		if (!strncmp(line, "clock.fallback: ", 16))
			timers = true;
		const char *e = strstr(line, ".dat: errno ");
		if (!strncmp(line, "error: ", 7) && e && !l->err)
			l->err = atoi(e + 12);
		if (!strncmp(line, "rlimit.fsize.reached: ", 22) && !l->fsize) {
			char *end;
			l->fsize = strtoull(line + 22, &end, 10);
			snprintf(l->fsize_file, sizeof(l->fsize_file), "%.*s", (int)strcspn(end + 1, "\n"),
				 *end ? end + 1 : "");
		}
		if (!strncmp(line, "rlimit.nofile.reached: ", 23) && !l->nofile) {
			char *end;
			l->nofile = strtoull(line + 23, &end, 10);
			l->nofile_ours = strtoull(end, NULL, 10);
		}
		if (founder && !strncmp(line, "start.mono_ns: ", 15))
			l->start_ns = strtoull(line + 15, NULL, 10);
		if (!strncmp(line, "pid: ", 5))
			*pid = strtoull(line + 5, NULL, 10);
		if (!strncmp(line, "cpu.start_ns: ", 14))
			*cpu_start = strtoull(line + 14, NULL, 10);
	}
	fclose(f);
	return timers;
}

/* Threads that ran at least 50 ms of CPU, and at least 8 sampling periods,
 * without a sample: the sampling signal was blocked (or the clock never
 * started).  Fewer periods prove nothing: at -F 1 a thread of 0.26 s has no
 * sample, as it should.  A few samples prove nothing either: each carries
 * the CPU since the one before (a thread that made 2,000 threads had 3
 * samples for 0.153 s, its signals deferred while the collector set up
 * each new thread); a thread that blocks the signal after its first
 * samples is found by the collector itself (thread.unsampled).  The main thread's CPU
 * before the collector started (`cpu_start`: an exec'd image's loading,
 * the CPU its process had before the exec) is not the collector's to
 * sample. */
static void thread_end(const struct exp_rec *r, uint32_t hz, struct losses *l, uint64_t pid, uint64_t cpu_start)
{
	struct exp_thread_end te;

	if (r->type != EXP_REC_THREAD_END || r->len != sizeof(te))
		return;
	memcpy(&te, r->p, sizeof(te));
	if (pid && te.tid == pid)
		te.cpu_ns = te.cpu_ns > cpu_start ? te.cpu_ns - cpu_start : 0;
	if (te.cpu_ns >= 50000000ull && te.cpu_ns >= 8 * (1000000000ull / hz) && !te.samples) {
		l->blocked++;
		l->blocked_ns += te.cpu_ns;
	}
}

/* The threads' ends, from DIR/threads.dat. */
static void read_threads(const char *dir, uint32_t hz, struct losses *l, uint64_t pid, uint64_t cpu_start)
{
	char path[PATH_MAX + 32];
	struct exp_file f;
	struct exp_rec r;
	struct exp_error err;

	if (!hz)
		return;
	snprintf(path, sizeof(path), "%s/%s", dir, exp_file_name(EXP_FILE_THREADS));
	if (exp_file_open(&f, path, EXP_FILE_THREADS, &err) != 0)
		return;
	while (exp_file_next(&f, &r, &err) > 0)
		thread_end(&r, hz, l, pid, cpu_start);
	exp_file_close(&f);
}

/* One process's losses: in its directory `dir`, or (a descendant of format
 * 8) in its process file `proc`. */
static void scan(const char *dir, uint32_t hz, struct losses *l, bool founder)
{
	char path[PATH_MAX + 32];
	uint64_t pid = 0, cpu_start = 0;

	snprintf(path, sizeof(path), "%s/%s", dir, EXP_COUNTERS_NAME);
	uint64_t lost = read_counters(path, l, founder);
	snprintf(path, sizeof(path), "%s/%s", dir, EXP_LOG_NAME);
	bool timers = read_log(fopen(path, "r"), l, founder, &pid, &cpu_start);
	if (!lost && !timers)          /* samples lost for a reason already said; a tick's period */
		read_threads(dir, hz, l, pid, cpu_start);
}

/* The same for a descendant whose log, counters and threads are in its
 * process file (format 8), in a slot or not (format 9). */
static void scan_procfile(const struct exp_procfile_src *src, uint32_t hz, struct losses *l)
{
	uint64_t pid = 0, cpu_start = 0;
	struct exp_procfile_joined j;
	struct exp_error err;

	if (exp_procfile_join(src, &j, &err) != 0)
		return;
	uint64_t lost = counters_of(j.data, j.size, l, false);
	bool timers = read_log(exp_procfile_log_data(j.data, j.size), l, false, &pid, &cpu_start);
	struct exp_procfile_item *it = !lost && !timers && hz ? malloc(sizeof(*it)) : NULL;
	size_t at = EXP_PROC_HEAD_BYTES;
	while (it && exp_procfile_next(j.data, j.size, &at, it) > 0)
		if (it->is_record)
			thread_end(&it->rec, hz, l, pid, cpu_start);
	free(it);
	free(j.data);
}

/* Append "; TEXT" (or TEXT first) to the line. */
static void part(char *line, size_t len, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void part(char *line, size_t len, const char *fmt, ...)
{
	size_t n = strlen(line);
	va_list ap;

	if (n && n + 2 < len) {
		strcpy(line + n, "; ");
		n += 2;
	}
	va_start(ap, fmt);
	vsnprintf(line + n, len - n, fmt, ap);
	va_end(ap);
}

/* A descendant's log with nothing in it: true if it stays so for a second.
 * (A process file holds its head before the first line: empty_size.)
 * A daemon's child has made its directory, but not yet written its first
 * line, as its parent (and tally record) returns: that was 'a record file
 * could not grow' in 5 runs of 16, with every file complete. */
static bool log_stays_empty(const char *log, off_t empty_size)
{
	struct stat st;

	for (int i = 0; i < 10; i++) {
		if (stat(log, &st) == 0 && st.st_size > empty_size)
			return false;
		usleep(100000);
	}
	return true;
}

/* exp_procfile_each's walk of the descendants, with what it adds to. */
struct space_walk {
	uint32_t hz;
	struct losses *l;
};

/* One descendant: its process file (a slot's, joined once), or its
 * directory; one with a file of its own that stays empty could not even
 * write its log. */
static void scan_descendant(void *arg, const struct exp_descendant *d)
{
	struct space_walk *w = arg;
	char log[PATH_MAX + 300];

	if (!d->src.slots) {
		if (d->dir)
			snprintf(log, sizeof(log), "%s/%s", d->dir, EXP_LOG_NAME);
		else
			snprintf(log, sizeof(log), "%s", d->src.file);
		if (log_stays_empty(log, d->dir ? 0 : EXP_PROC_HEAD_BYTES))
			w->l->empty++;
	}
	if (d->dir)
		scan(d->dir, w->hz, w->l, false);
	else
		scan_procfile(&d->src, w->hz, w->l);
}

bool cli_space_full(const char *dir)
{
	struct statvfs vfs;

	return statvfs(dir, &vfs) == 0 && (uint64_t)vfs.f_bavail * vfs.f_frsize < MIN_FREE;
}

void cli_space_report(const char *dir, const char *name, uint32_t hz, int64_t limit, bool full)
{
	struct losses l = { 0 };
	char line[2048] = "", size[32];

	scan(dir, hz, &l, true);
	struct space_walk walk = { hz, &l };
	exp_procfile_each(dir, scan_descendant, &walk);
	uint64_t no_space = l.ctr[EXP_CTR_LOST_BUFFER] + l.ctr[EXP_CTR_LOST_EVENTS];
	if (l.limit_ns) {
		human(size, sizeof(size), (uint64_t)limit);
		part(line, sizeof(line), "the experiment reached its size limit (%s) at %.3f s: sampling and "
		     "tracing stopped there, %llu samples and events not recorded (-L SIZE raises the limit, "
		     "-L unlimited lifts it)", size,
		     l.limit_ns > l.start_ns ? (double)(l.limit_ns - l.start_ns) / 1e9 : 0.0,
		     (unsigned long long)l.ctr[EXP_CTR_LOST_LIMIT]);
	}
	if (l.fsize && no_space && !l.err && !full) {
		human(size, sizeof(size), l.fsize);
		part(line, sizeof(line), "the program's file size limit (ulimit -f: %s) stopped %s: %llu samples "
		     "and events not recorded (the program was not harmed; a higher limit records all)",
		     size, l.fsize_file[0] ? l.fsize_file : "a record file", (unsigned long long)no_space);
		no_space = 0;
	}
	if (no_space || full || l.empty) {
		char what[256] = "";
		if (no_space)
			snprintf(what, sizeof(what), "%llu samples and events lost", (unsigned long long)no_space);
		if (l.empty)
			snprintf(what + strlen(what), sizeof(what) - strlen(what), "%s%zu process%s recorded nothing",
				 what[0] ? ", " : "", l.empty, l.empty > 1 ? "es" : "");
		/* Full at the end, yet every record had its place (the
		 * blocks claimed before the disk filled were enough). */
		if (!what[0])
			snprintf(what, sizeof(what), "no sample or event lost");
		bool enospc = l.err == ENOSPC || full;
		part(line, sizeof(line), "%s (%s): %s; %s%s",
		     enospc ? "the experiment's file system is full" : "a record file could not grow",
		     l.err ? strerror(l.err) : enospc ? strerror(ENOSPC) : "see the error: lines of the logs",
		     what, enospc ? "free space, or record elsewhere (-o DIR)" : "see the logs",
		     full ? "; not compacted, the program's objects not archived" : "");
	}
	if (l.nofile)
		part(line, sizeof(line), "the program's descriptor limit (ulimit -n: %llu) was reached; %llu of "
		     "them were the collector's (those it cannot open again: its directory, clocks, and "
		     "with -c or --states one per thread)",
		     (unsigned long long)l.nofile, (unsigned long long)l.nofile_ours);
	if (l.ctr[EXP_CTR_LOST_NOFILE])
		part(line, sizeof(line), "%llu samples and events lost: the program held every descriptor its "
		     "limit allows (ulimit -n) when the collector needed one for a moment (the program was "
		     "not harmed; a higher limit records all)",
		     (unsigned long long)l.ctr[EXP_CTR_LOST_NOFILE]);
	if (l.ctr[EXP_CTR_LOST_REENTRY] * 20 > l.ctr[EXP_CTR_SAMPLES] && l.ctr[EXP_CTR_LOST_REENTRY] > 10)
		part(line, sizeof(line), "%llu samples lost because the collector was busy (lost.reentry): "
		     "a lower rate (-F) loses fewer", (unsigned long long)l.ctr[EXP_CTR_LOST_REENTRY]);
	if (l.ctr[EXP_CTR_UNWIND_BROKEN] * 20 > l.ctr[EXP_CTR_SAMPLES] && l.ctr[EXP_CTR_UNWIND_BROKEN] > 10)
		part(line, sizeof(line), "%llu stacks broke while unwinding (code without unwind tables: "
		     "build with -fasynchronous-unwind-tables or frame pointers)",
		     (unsigned long long)l.ctr[EXP_CTR_UNWIND_BROKEN]);
	/* The threads the collector found unsampled are named in a line of
	 * their own (cli_unsampled.c); this catches those it could not see (a
	 * clock that never started). */
	if (l.blocked && !l.ctr[EXP_CTR_UNSAMPLED_THREADS])
		part(line, sizeof(line), "%zu thread%s ran %.3f s of CPU without samples (the sampling "
		     "signal blocked?)", l.blocked, l.blocked > 1 ? "s" : "", (double)l.blocked_ns / 1e9);
	if (line[0])
		cli_warn("record", "%s: %s", name, line);
}
