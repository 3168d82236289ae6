/* SPDX-License-Identifier: MIT
 *
 * col_log.c — the collector's lines in the experiment's log.txt, or in a
 * descendant's process file (its slot of processes.dat, or LINEAGE.proc),
 * with its threads' records.
 *
 * Callable from any context, signal handlers included: lines are formatted
 * into a stack buffer without stdio and appended with one write(2) to a file
 * opened O_APPEND, or written with one pwrite(2) at a place claimed in the
 * process's slot of processes.dat (col_procslot.c), so lines from several
 * threads and processes never mix.
 * Never writes to the target's stdout or stderr.  Sigsafe file.
 */
#include <errno.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>

#include "collector/col_fds.h"
#include "collector/col_log.h"
#include "collector/col_procslot.h"
#include "collector/col_state.h"
#include "collector/col_sys.h"
#include "format/exp_launch.h"

int col_fmt_u64_sigsafe(char *buf, uint64_t v)
{
	char tmp[21];
	int n = 0, len = 0;

	do {
		tmp[n++] = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	while (n)
		buf[len++] = tmp[--n];
	buf[len] = 0;
	return len;
}

/* One "key: value" line into `line` (at least COL_LOG_LINE_MAX bytes);
 * its length. */
static size_t format_line(char *line, const char *key, const char *value)
{
	size_t n = 0, k = strlen(key), v = strlen(value);

	if (k > 200)
		k = 200;
	if (v > COL_LOG_LINE_MAX - k - 4)
		v = COL_LOG_LINE_MAX - k - 4;
	memcpy(line, key, k);
	n = k;
	line[n++] = ':';
	line[n++] = ' ';
	memcpy(line + n, value, v);
	n += v;
	line[n++] = '\n';
	return n;
}

/* One "key: value" line, with one write(2), to another log open as `fd`
 * (O_APPEND: a parent's). */
static void log_line(int fd, const char *key, const char *value)
{
	char line[COL_LOG_LINE_MAX];

	if (fd < 0)
		return;
	col_sys_write(fd, line, format_line(line, key, value));
}

/* The log opened for one use, when the collector is lean (col_fds_lean):
 * checked to be the log; a descriptor or -errno. */
static int open_log_once(void)
{
	struct stat st;
	/* The founder's through the directory it holds (found after a
	 * chroot too); a descendant's process file through its directory
	 * once it has one (ROOT/LINEAGE.proc is ../LINEAGE.proc from
	 * ROOT/LINEAGE.exp: col_log_let_go), else by its path (it holds that
	 * file: only when the program took its descriptor). */
	bool via_dir = !col_proc.proc_file || (atomic_load(&col_proc.dir_state) == 2 && col_proc.dirfd >= 0);
	int dir = via_dir ? col_fds_dir() : AT_FDCWD;
	if (dir < 0 && dir != AT_FDCWD)
		return dir;
	const char *name = EXP_LOG_NAME;
	char sibling[sizeof(col_proc.log_path) + 4];
	if (col_proc.proc_file && !via_dir) {
		name = col_proc.log_path;
	} else if (col_proc.proc_file) {
		const char *base = strrchr(col_proc.log_path, '/');
		base = base ? base + 1 : col_proc.log_path;
		memcpy(sibling, "../", 3);
		memcpy(sibling + 3, base, strlen(base) + 1);
		name = sibling;
	}
	int fd = col_sys_openat(dir, name, O_WRONLY | (col_proc.slot_off ? 0 : O_APPEND) | O_CLOEXEC | O_NOFOLLOW, 0);

	if (fd < 0)
		return -errno;
	if (col_sys_fstat(fd, &st) != 0 || st.st_ino != col_proc.log_ino || st.st_dev != col_proc.log_dev) {
		col_sys_close(fd);
		return -ESTALE;
	}
	return fd;
}

/* The log's descriptor, checked to still be the log: a program may have
 * closed it and put a file of its own there with raw system calls, which no
 * interposer sees.  Then the log is opened again (and counted). */
static int log_fd(void)
{
	int fd = __atomic_load_n(&col_proc.log_fd, __ATOMIC_ACQUIRE);
	struct stat st;

	if (fd < 0 || !col_proc.log_ino ||
	    (col_sys_fstat(fd, &st) == 0 && st.st_ino == col_proc.log_ino && st.st_dev == col_proc.log_dev))
		return fd;
	col_fd_forget(fd);                     /* the program's now: left alone */
	__atomic_store_n(&col_proc.log_fd, -1, __ATOMIC_RELEASE);
	int n = col_sys_openat(AT_FDCWD, col_proc.log_path, O_WRONLY | (col_proc.slot_off ? 0 : O_APPEND) | O_CLOEXEC, 0);
	if (n < 0)
		return -1;
	if (col_sys_fstat(n, &st) != 0 || st.st_ino != col_proc.log_ino || st.st_dev != col_proc.log_dev) {
		col_sys_close(n);
		return -1;
	}
	col_count_sigsafe(EXP_CTR_FDS_REPLACED, 1);
	return col_fd_keep(n, &col_proc.log_fd, NULL);
}

struct log_text {
	const char *buf;
	size_t len;
};

/* Append text to the log opened for this one use (lean): 0, -1 if not
 * written whole, or -errno if it could not be opened. */
static int write_once(void *p)
{
	const struct log_text *t = p;
	int fd = open_log_once();

	if (fd < 0)
		return fd;
	ssize_t n = col_procslot_put_sigsafe(fd, t->buf, t->len, true);
	col_sys_close(fd);
	return n == (ssize_t)t->len ? 0 : -1;
}

/* The process's end: the holding thread's lines and records kept here and
 * written with one write(2) (col_log_hold_sigsafe, col_log_flush_sigsafe);
 * other threads' go at once. */
static struct {
	_Atomic pid_t tid;             /* the holding thread, 0 none */
	size_t n;                      /* bytes held */
	uint64_t records;              /* records among them (lost if the write fails) */
	char buf[4096];
} held;

/* Keep `len` bytes, the calling thread holding, if they fit: true.  The
 * room is taken before the copy: the thread's own signal handler, logging
 * in the middle of it, holds its bytes after these, not over them. */
static bool hold(const char *buf, size_t len)
{
	size_t at = held.n;

	if (at + len > sizeof(held.buf))
		return false;
	held.n = at + len;
	atomic_signal_fence(memory_order_seq_cst);
	memcpy(held.buf + at, buf, len);
	held.records += len && !buf[0];
	return true;
}

static int log_put(const char *buf, size_t len);

/* A deferred fork child's first lines (col_log_park_sigsafe): written
 * by col_open_experiment as its file is made, before any other line of
 * its, and before another thread may find the file made. */
static struct {
	_Atomic size_t n;              /* bytes parked; 0 none, or taken */
	uint64_t records;
	char buf[sizeof(held.buf)];
} parked;

void col_log_park_sigsafe(void)
{
	if (atomic_load(&held.tid) != col_sys_gettid())
		return;
	atomic_store(&held.tid, 0);
	memcpy(parked.buf, held.buf, held.n);
	parked.records = held.records;
	atomic_store(&parked.n, held.n);
	held.n = 0;
}

void col_log_write_parked_sigsafe(void)
{
	size_t first = atomic_load_explicit(&parked.n, memory_order_relaxed) ? atomic_exchange(&parked.n, 0) : 0;

	if (first && log_put(parked.buf, first) != 0 && parked.records)
		col_count_sigsafe(EXP_CTR_LOST_EVENTS, parked.records);
}

void col_log_unpark(void)
{
	atomic_store(&parked.n, 0);
}

void col_log_hold_sigsafe(void)
{
	held.n = 0;
	held.records = 0;
	atomic_store(&held.tid, col_sys_gettid());
}

/* Append `len` bytes of whole lines (or one record) to the log, with one
 * write(2).  When the collector is lean, the log is opened for it aside
 * (col_fds_aside: out of the program's descriptor table, with a number to
 * spare there if the program holds every one).  0 if written whole, else
 * -1. */
static int log_write(const char *buf, size_t len);

/* The holding thread's bytes written now (they no longer fit): what is
 * held goes first, so that the log keeps its order. */
static void spill(void)
{
	size_t n = held.n;
	uint64_t records = held.records;

	held.n = 0;
	held.records = 0;
	atomic_store(&held.tid, 0);
	if (log_write(held.buf, n) != 0 && records)
		col_count_sigsafe(EXP_CTR_LOST_EVENTS, records);
	atomic_store(&held.tid, col_sys_gettid());
}

/* Writes in progress on col_proc.log_fd, and LET_GO once the descriptor
 * was let go while some were: the last of them closes it (let_go_fd).  A
 * write interrupted for as long as the program's signal handler runs (or
 * blocked on a full disk or a FIFO) keeps its number: closed after a
 * bounded wait before, that number could be the program's next open while
 * the write went on, into the program's file. */
#define LET_GO (1 << 30)
static _Atomic int log_users;
static _Atomic int let_go_fd = -1;     /* let go, not yet closed */

/* Close the descriptor let go, if no other did. */
static void close_let_go(void)
{
	int fd = atomic_exchange(&let_go_fd, -1);

	if (fd < 0)
		return;
	col_fd_forget(fd);
	col_sys_close(fd);
	atomic_fetch_and(&log_users, ~LET_GO);
}

static void log_use_begin(void)
{
	atomic_fetch_add(&log_users, 1);
}

/* A use ends: the last one after a let go closes the descriptor. */
static void log_use_end(void)
{
	if (atomic_fetch_sub(&log_users, 1) - 1 == LET_GO)
		close_let_go();
}

void col_log_let_go(void)
{
	int fd = __atomic_exchange_n(&col_proc.log_fd, -1, __ATOMIC_ACQ_REL);

	if (fd < 0)
		return;
	/* A write that counted itself before the exchange may still use fd
	 * (one that counts itself after finds -1): it closes it at its end. */
	atomic_store(&let_go_fd, fd);
	if ((atomic_fetch_or(&log_users, LET_GO) & ~LET_GO) == 0)
		close_let_go();
}

/* `len` bytes to the log now, with one write(2): 0, or -1. */
static int log_put(const char *buf, size_t len)
{
	struct log_text t = { buf, len };

	log_use_begin();
	int fd = log_fd();
	if (fd >= 0) {
		int rc = col_procslot_put_sigsafe(fd, buf, len, false) == (ssize_t)len ? 0 : -1;
		log_use_end();
		return rc;
	}
	log_use_end();
	if (col_fds_lean() && col_proc.log_ino)
		return col_fds_use(write_once, &t) == 0 ? 0 : -1;
	return -1;
}

static int log_write(const char *buf, size_t len)
{
	pid_t holder = atomic_load_explicit(&held.tid, memory_order_relaxed);

	if (holder && holder == col_sys_gettid()) {
		if (hold(buf, len))
			return 0;
		if (held.n) {
			spill();
			if (hold(buf, len))
				return 0;
		}
	}
	/* A fork child's file, at its first write (its first lines, parked,
	 * written first: col_log_write_parked_sigsafe). */
	col_open_deferred_sigsafe();
	return log_put(buf, len);
}

int col_log_record_sigsafe(uint32_t type, const void *rec, uint32_t len)
{
	char buf[1 + EXP_PROC_REC_MAX + 1];
	uint32_t word = EXP_REC_WORD(type, len);

	if (len < 8 || len > EXP_PROC_REC_MAX || len % 8)
		return -1;
	buf[0] = 0;
	memcpy(buf + 1, &word, 4);
	memcpy(buf + 5, (const char *)rec + 4, len - 4);
	buf[1 + len] = '\n';
	return log_write(buf, len + 2);
}

void col_log_flush_sigsafe(void)
{
	if (atomic_load(&held.tid) != col_sys_gettid())
		return;
	atomic_store(&held.tid, 0);
	if (held.n && log_write(held.buf, held.n) != 0 && held.records)
		col_count_sigsafe(EXP_CTR_LOST_EVENTS, held.records);
	held.n = 0;
}

/* One "key: value" line to the log. */
static void log_to_log(const char *key, const char *value)
{
	char line[COL_LOG_LINE_MAX];

	log_write(line, format_line(line, key, value));
}

void col_log_sigsafe(const char *key, const char *value)
{
	log_to_log(key, value);
}

int col_fmt_x64_sigsafe(char *buf, uint64_t v)
{
	static const char hex[] = "0123456789abcdef";
	int n = 0;

	for (int shift = 60; shift >= 0; shift -= 4)
		if (n || (v >> shift) & 15 || shift == 0)
			buf[n++] = hex[(v >> shift) & 15];
	buf[n] = 0;
	return n;
}

#define ERROR_TEXT_BYTES 512

/* "WHAT: errno N (CONSEQUENCE)" into line (ERROR_TEXT_BYTES). */
static void error_text(char *line, const char *what, int err, const char *consequence)
{
	size_t n = 0;

	for (const char *parts[] = { what, ": errno ", NULL }, **p = parts; *p; p++)
		for (const char *c = *p; *c && n < 300; c++)
			line[n++] = *c;
	n += (size_t)col_fmt_u64_sigsafe(line + n, (uint64_t)(err < 0 ? -err : err));
	for (const char *c = " ("; *c; c++)
		line[n++] = *c;
	for (const char *c = consequence; *c && n < ERROR_TEXT_BYTES - 2; c++)
		line[n++] = *c;
	line[n++] = ')';
	line[n] = 0;
}

void col_log_error_sigsafe(const char *what, int err, const char *consequence)
{
	char line[ERROR_TEXT_BYTES];

	error_text(line, what, err, consequence);
	log_to_log("error", line);
}

bool col_log_error_in(const char *log_path, const char *what, int err, const char *consequence)
{
	char line[ERROR_TEXT_BYTES];
	int fd = col_sys_openat(AT_FDCWD, log_path, O_WRONLY | O_APPEND | O_CLOEXEC, 0);
	if (fd < 0)
		return false;
	error_text(line, what, err, consequence);
	log_line(fd, "error", line);
	col_sys_close(fd);
	return true;
}

void col_log_u64_sigsafe(const char *key, uint64_t value)
{
	char buf[24];

	col_fmt_u64_sigsafe(buf, value);
	col_log_sigsafe(key, buf);
}

void col_log_batch_add(struct col_log_batch *b, const char *key, const char *value)
{
	if (b->n + COL_LOG_LINE_MAX > sizeof(b->buf))
		col_log_batch_write(b);
	b->n += format_line(b->buf + b->n, key, value);
}

void col_log_batch_u64(struct col_log_batch *b, const char *key, uint64_t value)
{
	char buf[24];

	col_fmt_u64_sigsafe(buf, value);
	col_log_batch_add(b, key, buf);
}

void col_log_batch_write(struct col_log_batch *b)
{
	if (b->n)
		log_write(b->buf, b->n);
	b->n = 0;
}
