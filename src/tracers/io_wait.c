/* SPDX-License-Identifier: MIT
 *
 * io_wait.c — waits for descriptors (tally record -i): poll, ppoll,
 * select, pselect (and the _FORTIFY_SOURCE __poll_chk, __ppoll_chk),
 * epoll_wait, epoll_pwait, epoll_pwait2; and epoll_ctl, which says what an
 * epoll descriptor waits on (epoll_create and epoll_create1: a set made
 * here is known empty).  For the critical path (model_critical_waits.c):
 * an event loop's thread blocks here, not in the read that follows, so the
 * write that ended its wait is found only from the descriptors it waited on.
 *
 *   a wait of at least IO_WAIT_MIN_NS   one FD_WAIT record, with its stack
 *                                       and the descriptors it waited on to
 *                                       read (POLLIN, POLLPRI, POLLRDHUP;
 *                                       select's read set; for epoll its
 *                                       epoll descriptor), and those poll
 *                                       or select waited on to write alone
 *                                       (POLLOUT, select's write set, as
 *                                       ~fd, EXP_WAIT_WRITES), each descriptor's
 *                                       flow noted (io_flow.c) as of the
 *                                       wait's start
 *   epoll_ctl that succeeded            one FD_WATCH record (no stack), and
 *                                       the added descriptor's flow
 *   the first timed wait on an epoll    its interest list as the kernel
 *   descriptor no epoll_ctl of ours     shows it (/proc/self/fdinfo/EPFD,
 *   was seen for                        a `tfd:` line per descriptor), one
 *                                       FD_WATCH record each, as of the
 *                                       wait's start: a set inherited, made
 *                                       before the library was loaded, or
 *                                       by raw system calls (one made by
 *                                       epoll_create or epoll_create1 while
 *                                       traced is empty at our first
 *                                       epoll_ctl on it: not read then)
 *   epoll_ctl while recording is off    nothing; the set is forgotten, so
 *   (paused, stopped), or one whose     that the next one recorded reads
 *   record was lost                     its fdinfo again (a set filled
 *                                       while paused; a descriptor taken
 *                                       out meanwhile keeps its last
 *                                       record, a channel closed since
 *                                       is told by its name)
 *
 * A shorter wait found a descriptor ready (a poll that blocks nowhere returns
 * in about a microsecond) and costs two clock reads; a call with a timeout
 * of 0 cannot block and is not timed.  (A write that waits for room in
 * the call itself is found from the IO records of the write and of the
 * read that made room.)  Called
 * in any thread, and from signal handlers: the record is on the stack
 * (EXP_WAIT_FDS_MAX descriptors, 1 KiB).
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdatomic.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/select.h>
#include <signal.h>
#include <time.h>

#include "collector/col_glibc.h"
#include "tracers/io.h"

#define IO_WAIT_MIN_NS 10000          /* shorter: nothing blocked */
#define READ_EVENTS (POLLIN | POLLPRI | POLLRDNORM | POLLRDBAND | POLLRDHUP)
#define WRITE_EVENTS (POLLOUT | POLLWRNORM | POLLWRBAND)

struct wait_rec {
	struct exp_fd_wait h;
	int32_t fds[EXP_WAIT_FDS_MAX];
};

/* Descriptor fd is waited on to read by w (to write, if `writes`: noted
 * as ~fd): noted, and its flow. */
static void add_fd_for(struct wait_rec *w, int fd, bool writes)
{
	if (fd < 0)
		return;
	if (w->h.nfds == EXP_WAIT_FDS_MAX) {
		w->h.flags |= EXP_WAIT_CUT;
		return;
	}
	w->fds[w->h.nfds++] = writes ? ~fd : fd;
	if (writes)
		w->h.flags |= EXP_WAIT_WRITES;
	if (!(w->h.flags & EXP_WAIT_EPOLL)) {
		io_name_unnamed(fd, w->h.time_ns);
		io_flow_note(fd, w->h.time_ns);
	}
}

static void add_fd(struct wait_rec *w, int fd)
{
	add_fd_for(w, fd, false);
}

static void wait_write(struct trace_caller at, struct wait_rec *w)
{
	uint32_t len = (uint32_t)((sizeof(w->h) + 4u * w->h.nfds + 7) & ~7u);

	io_run_end();
	if (len > sizeof(w->h) + 4u * w->h.nfds)
		w->fds[w->h.nfds] = 0;       /* the padding */
	if (tally__trace_event(EXP_FILE_IO, EXP_REC_FD_WAIT, w, len, at.ra, at.sp, at.fp))
		tally__count(EXP_CTR_LOST_EVENTS, 1);
}

/* Begin a record of a wait that started at t0 and lasted until now, if it
 * was long enough to have blocked: 1, else 0. */
static int long_enough(struct wait_rec *w, uint64_t t0, uint16_t flags)
{
	uint64_t dur = tally__now() - t0;

	if (dur < IO_WAIT_MIN_NS)
		return 0;
	w->h = (struct exp_fd_wait){ .time_ns = t0, .dur_ns = dur, .flags = flags };
	return 1;
}

/* ---- poll ----------------------------------------------------------------- */

static void polled(struct trace_caller at, const struct pollfd *v, nfds_t n, uint64_t t0)
{
	struct wait_rec w;

	if (!long_enough(&w, t0, 0))
		return;
	for (nfds_t i = 0; i < n; i++)
		if (v[i].events & READ_EVENTS)
			add_fd(&w, v[i].fd);
		else if (v[i].events & WRITE_EVENTS)
			add_fd_for(&w, v[i].fd, true);
	wait_write(at, &w);
}

/* Can a call with this timeout block?  (0: it returns at once.) */
static int may_block_ms(int ms)
{
	return ms != 0;
}

static int may_block_ts(const struct timespec *t)
{
	return !t || t->tv_sec || t->tv_nsec;
}

static int may_block_tv(const struct timeval *t)
{
	return !t || t->tv_sec || t->tv_usec;
}

#define POLL_LIKE(call, blocks) IO_TIMED_IF(blocks, call, polled(TRACE_CALLER(), v, n, t0_))

TRACE_API int poll(struct pollfd *v, nfds_t n, int timeout)
{
	POLL_LIKE(REAL(poll)(v, n, timeout), may_block_ms(timeout));
}

TRACE_API int __poll_chk(struct pollfd *v, nfds_t n, int timeout, size_t vlen)
{
	POLL_LIKE(REAL(__poll_chk)(v, n, timeout, vlen), may_block_ms(timeout));
}

TRACE_API int ppoll(struct pollfd *v, nfds_t n, const struct timespec *timeout, const sigset_t *mask)
{
	POLL_LIKE(REAL(ppoll)(v, n, timeout, mask), may_block_ts(timeout));
}

TRACE_API int __ppoll_chk(struct pollfd *v, nfds_t n, const struct timespec *timeout,
			  const sigset_t *mask, size_t vlen)
{
	POLL_LIKE(REAL(__ppoll_chk)(v, n, timeout, mask, vlen), may_block_ts(timeout));
}

/* ---- select: the sets are overwritten by the call, so they are copied ---- */

/* A descriptor in the read set is waited on to read; one in the write set
 * alone, to write (as poll's POLLOUT). */
static void selected(struct trace_caller at, int n, const fd_set *rd, const fd_set *wr, uint64_t t0)
{
	struct wait_rec w;

	if (!long_enough(&w, t0, 0))
		return;
	for (int fd = 0; (rd || wr) && fd < n && fd < FD_SETSIZE; fd++)
		if (rd && FD_ISSET(fd, rd))
			add_fd(&w, fd);
		else if (wr && FD_ISSET(fd, wr))
			add_fd_for(&w, fd, true);
	wait_write(at, &w);
}

/* The read and write sets, copied before the call overwrites them: only
 * when the wait is timed (tracing on, a wait that may block), not in every
 * select of a process recorded without -i. */
#define SELECT_LIKE(call, blocks)                                                     \
	IO_TIMED_SETUP_IF(blocks,                                                     \
			  fd_set rd_copy_; fd_set wr_copy_;                           \
			  const fd_set *r_ = rd ? memcpy(&rd_copy_, rd, sizeof(rd_copy_)) : NULL; \
			  const fd_set *w_ = wr ? memcpy(&wr_copy_, wr, sizeof(wr_copy_)) : NULL, \
			  call, selected(TRACE_CALLER(), n, r_, w_, t0_))

TRACE_API int select(int n, fd_set *rd, fd_set *wr, fd_set *ex, struct timeval *timeout)
{
	SELECT_LIKE(REAL(select)(n, rd, wr, ex, timeout), may_block_tv(timeout));
}

TRACE_API int pselect(int n, fd_set *rd, fd_set *wr, fd_set *ex, const struct timespec *timeout,
		      const sigset_t *mask)
{
	SELECT_LIKE(REAL(pselect)(n, rd, wr, ex, timeout, mask), may_block_ts(timeout));
}

/* ---- epoll ---------------------------------------------------------------- */

#define WATCH_FDS 65536                /* epoll descriptors we know */

/* Bit epfd: its interest list is known (an epoll_ctl of ours on it, or its
 * fdinfo read at a wait). */
static _Atomic uint64_t known_sets[WATCH_FDS / 64];

/* Bit epfd: the set was made here (epoll_create, epoll_create1) while
 * traced, and no epoll_ctl of ours has been seen on it yet. */
static _Atomic uint64_t made_sets[WATCH_FDS / 64];

/* Mark epfd's set known: true if it was not. */
static bool set_known(int epfd)
{
	if (epfd < 0 || epfd >= WATCH_FDS)
		return false;
	uint64_t bit = 1ull << (epfd % 64);
	return !(atomic_load_explicit(&known_sets[epfd / 64], memory_order_relaxed) & bit) &&
	       !(atomic_fetch_or_explicit(&known_sets[epfd / 64], bit, memory_order_relaxed) & bit);
}

/* Forget what is known of epfd's set (a change to it went unrecorded):
 * the next wait or epoll_ctl recorded reads its interest list again. */
static void set_forget(int epfd)
{
	if (epfd < 0 || epfd >= WATCH_FDS)
		return;
	uint64_t keep = ~(1ull << (epfd % 64));
	atomic_fetch_and_explicit(&known_sets[epfd / 64], keep, memory_order_relaxed);
	atomic_fetch_and_explicit(&made_sets[epfd / 64], keep, memory_order_relaxed);
}

/* One FD_WATCH record: true if written. */
static bool watch_write(int epfd, int fd, int op, uint32_t events, uint64_t t0)
{
	struct exp_fd_watch r = { .time_ns = t0, .epfd = epfd, .fd = fd, .op = (uint16_t)op, .events = events };

	if (events & READ_EVENTS) {
		io_name_unnamed(fd, t0);
		io_flow_note(fd, t0);
	}
	if (!tally__trace_event(EXP_FILE_IO, EXP_REC_FD_WATCH, &r, sizeof(r), 0, 0, 0))
		return true;
	tally__count(EXP_CTR_LOST_EVENTS, 1);
	return false;
}

/* The number after `key` in text (base 10 or 16), past blanks; its end in
 * *end; -1 if none. */
static long long field_after(const char *text, const char *key, int base, const char **end)
{
	const char *p = strstr(text, key);
	long long v = 0;

	if (!p)
		return -1;
	for (p += strlen(key); *p == ' ' || *p == '\t'; p++)
		;
	const char *first = p;
	for (;; p++) {
		int d = *p >= '0' && *p <= '9' ? *p - '0'
		      : base == 16 && *p >= 'a' && *p <= 'f' ? *p - 'a' + 10 : -1;
		if (d < 0)
			break;
		v = v * base + d;
	}
	*end = p;
	return p > first ? v : -1;
}

/* epfd's interest list from /proc/self/fdinfo (its `tfd:` lines), as
 * FD_WATCH records at t0: a set whose epoll_ctl calls we did not see.
 * Raw system calls (sigsafe); at most what 8 KiB of text holds. */
static void watches_from_fdinfo(int epfd, uint64_t t0)
{
	char path[48] = "/proc/self/fdinfo/", buf[8192];
	char digits[12];
	int n = 0, at = (int)strlen(path);

	for (int v = epfd; n == 0 || v; v /= 10)
		digits[n++] = (char)('0' + v % 10);
	while (n)
		path[at++] = digits[--n];
	path[at] = 0;
	/* Read aside: the program's threads may be opening files now, each
	 * counting on the lowest free number (fdnumbers epoll: 505-2,907 of
	 * 100,000 opens elsewhere when this was opened in place). */
	long got = tally__read_file(path, buf, sizeof(buf));
	if (got <= 0)
		return;
	/* "tfd:        5 events:       19 data: ..." per descriptor */
	for (const char *p = strstr(buf, "tfd:"); p; p = strstr(p, "tfd:")) {
		const char *e;
		long long fd = field_after(p, "tfd:", 10, &e);
		if (fd < 0)
			break;
		long long ev = field_after(e, "events:", 16, &p);
		if (ev < 0)
			break;
		if (!watch_write(epfd, (int)fd, EPOLL_CTL_ADD, (uint32_t)ev, t0)) {
			set_forget(epfd);
			return;
		}
	}
}

/* A set made here while traced is empty: its first epoll_ctl of ours
 * reads no fdinfo (an open and a read, aside: a helper task each).  Its
 * first wait before any does (a set made here and filled by raw
 * epoll_ctl calls: rare, but its waits would have no waker). */
static int set_made(int epfd)
{
	if (epfd >= 0 && epfd < WATCH_FDS && io_tracing())
		atomic_fetch_or_explicit(&made_sets[epfd / 64], 1ull << (epfd % 64), memory_order_relaxed);
	return epfd;
}

/* Was epfd made here, with no epoll_ctl of ours before?  (Forgets it.) */
static bool made_here(int epfd)
{
	if (epfd < 0 || epfd >= WATCH_FDS)
		return false;
	uint64_t bit = 1ull << (epfd % 64);
	return (atomic_load_explicit(&made_sets[epfd / 64], memory_order_relaxed) & bit) &&
	       (atomic_fetch_and_explicit(&made_sets[epfd / 64], ~bit, memory_order_relaxed) & bit);
}

TRACE_API int epoll_create(int size)
{
	return set_made(REAL(epoll_create)(size));
}

TRACE_API int epoll_create1(int flags)
{
	return set_made(REAL(epoll_create1)(flags));
}

TRACE_API int epoll_ctl(int epfd, int op, int fd, struct epoll_event *ev)
{
	if (!io_tracing())
		return REAL(epoll_ctl)(epfd, op, fd, ev);
	if (!tally__recording()) {
		/* Its record would not be written: the set's list is read
		 * again at the next one that is. */
		int rc = REAL(epoll_ctl)(epfd, op, fd, ev);
		if (rc == 0)
			set_forget(epfd);
		return rc;
	}
	uint64_t t0 = tally__now();
	/* A set first met here, not empty already (inherited, made before the
	 * library was loaded): what it held before this call.  One made here
	 * is empty. */
	if (set_known(epfd) && !made_here(epfd))
		watches_from_fdinfo(epfd, t0 - 1);    /* before this call's own record */
	int rc = REAL(epoll_ctl)(epfd, op, fd, ev);
	int saved = errno;
	if (rc == 0 && !watch_write(epfd, fd, op, ev && op != EPOLL_CTL_DEL ? ev->events : 0, t0))
		set_forget(epfd);
	errno = saved;
	return rc;
}

static void epolled(struct trace_caller at, int epfd, uint64_t t0)
{
	struct wait_rec w;

	if (!long_enough(&w, t0, EXP_WAIT_EPOLL) || !tally__recording())
		return;                      /* short, or its record would not be written */
	if (set_known(epfd))
		watches_from_fdinfo(epfd, t0);
	add_fd(&w, epfd);
	wait_write(at, &w);
}

#define EPOLL_LIKE(call, blocks) IO_TIMED_IF(blocks, call, epolled(TRACE_CALLER(), epfd, t0_))

TRACE_API int epoll_wait(int epfd, struct epoll_event *ev, int max, int timeout)
{
	EPOLL_LIKE(REAL(epoll_wait)(epfd, ev, max, timeout), may_block_ms(timeout));
}

TRACE_API int epoll_pwait(int epfd, struct epoll_event *ev, int max, int timeout, const sigset_t *mask)
{
	EPOLL_LIKE(REAL(epoll_pwait)(epfd, ev, max, timeout, mask), may_block_ms(timeout));
}

TRACE_API int epoll_pwait2(int epfd, struct epoll_event *ev, int max, const struct timespec *timeout,
			   const sigset_t *mask)
{
	EPOLL_LIKE(REAL(epoll_pwait2)(epfd, ev, max, timeout, mask), may_block_ts(timeout));
}
