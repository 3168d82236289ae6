/* SPDX-License-Identifier: MIT
 *
 * col_fds.h — the collector's own descriptors, out of the program's way.
 *
 * Every descriptor the collector keeps open (the experiment's directory, its
 * log and record files, each thread's perf event) is moved out of the
 * program's range: above its soft descriptor limit when the hard limit
 * leaves room (the soft limit raised for the move and put back), else to a
 * high number (F_DUPFD_CLOEXEC from COL_FDS_HIGH below the limit), so that
 * the program's own opens get the numbers they would get without tally, and
 * registered, so that the interposers of close, close_range, closefrom, dup,
 * dup2, dup3 and fcntl (col_interpose_fd.c) neither close ours nor let the
 * program replace them: a descriptor of ours is "not open" to the program,
 * and one it dup2()s onto is first moved elsewhere, its owner updated.
 * When the hard limit leaves no room above the soft one (`ulimit -n N`
 * sets both), a number of ours is one the program cannot have: the
 * collector then goes lean once started (col_fds_go_lean), keeping only
 * what cannot be opened again after a chroot (the directory, or a
 * descendant's process file until it makes its directory; the clock) and
 * opening its log and record
 * files for each use, aside (col_fds_aside: in a helper
 * with a copy of the descriptor table, never at a number of the program's).
 * Layer 3 (col_state.h).
 */
#ifndef TALLY_COL_FDS_H
#define TALLY_COL_FDS_H

#include <errno.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#define COL_FDS_MAX 65536          /* descriptors we can register */
/* The helper's stack (col_fds_aside): what it runs, and all that calls,
 * must fit, less 2 KB; the build checks it (scripts/check-aside-stack.sh). */
#define COL_FDS_ASIDE_STACK 8192
#define COL_FDS_HIGH 64            /* ours go this far below the limit (at most 1024) */

/* Move `fd`, just opened by the collector, high; register it, with the place
 * `where` that holds it (valid until col_fd_forget) and `users` (uses in
 * progress that a move must wait for; may be NULL).  Stores the descriptor in
 * *where and returns it (`fd` itself if it could not move).  Sigsafe. */
int col_fd_keep(int fd, int *where, _Atomic int *users);

/* col_fd_keep for a descriptor just opened in place (a record file made
 * at its first record) while other threads may run: with threads, first
 * copied above the program's soft limit as col_fd_open_above's are (in
 * the thread's batch, or by a helper of its own); else it stayed at our
 * start below the limit for good, two of the program's numbers under
 * `ulimit -Sn 64` (samples.dat and stacks.dat).  Sigsafe. */
int col_fd_keep_above(int fd, int *where, _Atomic int *users);

/* Open a descriptor to keep (open_fn(arg): a perf event, a file) with the
 * least time at a number of the program's: open_fn runs under the
 * program's own soft limit, then the new descriptor is copied above it
 * (the limit raised for that F_DUPFD only, when the hard limit leaves
 * room; else from our start below it) and the low one closed.  The limit
 * is never raised across the open: a program thread at its limit then
 * would get a number at or above it (a select() set overflows) and a
 * getrlimit would see ours.  Linux gives a new file only the lowest free
 * number, so a program thread that opens during those few calls still
 * gets the next.  Returns the descriptor (not yet registered: col_fd_keep
 * it, which leaves it where it is), or open_fn's negative value, errno
 * kept.  Sigsafe. */
int col_fd_open_above(int (*open_fn)(void *arg), void *arg);

/* A thread's start: between these two calls, in the calling thread, a
 * descriptor col_fd_open_above opens with other threads about waits at
 * our start below the program's limit, and col_fds_batch_end copies all
 * of them above it in one helper (the per-thread clock, --states' event
 * and schedstat, -c's counters: one clone per thread start, not one per
 * descriptor), their owners seeing the new numbers.  At most
 * COL_FDS_BATCH; more go one helper each, as outside a batch.  `b`
 * lives in the caller's frame until the end.  Normal context. */
#define COL_FDS_BATCH 16
struct col_fds_batch {
	_Atomic int n;
	int fd[COL_FDS_BATCH];
};
void col_fds_batch_begin(struct col_fds_batch *b);
void col_fds_batch_end(struct col_fds_batch *b);

/* `fd` is no longer ours (the collector closes it, or it was replaced
 * behind our back: then the program's, and left open).  Sigsafe. */
void col_fd_forget(int fd);

/* Is `fd` one of ours?  Sigsafe. */
bool col_fd_ours(int fd);

/* The program is about to put something at `fd`, one of ours: move ours to
 * another number first (its owner sees the new one once the uses in
 * progress are over).  0, or -1 if it cannot move.  Normal context. */
int col_fd_evict(int fd);

/* Our lowest descriptor in [from, to], or -1. */
int col_fd_next(int from, int to);

/* How many descriptors are ours now.  Sigsafe. */
int col_fd_count(void);

/* Decide, now, whether the collector keeps its files open while the program
 * runs: not when its descriptors would take numbers below the program's
 * soft limit (the hard limit leaves no room above it).  True if it goes
 * lean (for good in this process and its fork children).  Normal context. */
bool col_fds_go_lean(void);

/* col_proc.dirfd was just opened (the process's start, a fork child's):
 * it is the directory col_fds_dir checks for.  Normal context. */
void col_fds_dir_opened(void);

/* The experiment's directory (col_proc.dirfd), checked to still be the
 * directory it was when opened (a program may close it
 * with raw system calls and reuse the number); else opened again by its
 * path, checked, and kept (counted as replaced).  The descriptor, or -errno
 * (EMFILE: none free).  Not the caller's to close.  Sigsafe. */
int col_fds_dir(void);

/* Is the collector lean (files opened for each use)?  Sigsafe. */
bool col_fds_lean(void);

/* Run fn(arg) aside: in a helper task that shares the address space (a
 * mapping it makes is the caller's) but has a copy of the descriptor table,
 * so that the descriptors fn opens (and closes) never take a number of the
 * program's, even for an instant: a program thread that opens a file
 * meanwhile gets the number it would get without tally, and one that
 * dup2()s onto a number finds no file of ours there.  If fn finds no number
 * free (it returns -EMFILE or -ENFILE: the program holds every one its
 * limit allows), one of the program's descriptors is closed in the helper's
 * copy and fn runs again; the program's own table is untouched.  The
 * calling thread waits for it (CLONE_VFORK), with every signal blocked.
 * fn must use raw system calls only.  Returns fn's value, or
 * COL_FDS_NO_HELPER if no helper ran (unless `needed`, i.e. fn already
 * failed for want of a number: while the process has had one thread only,
 * col_proc.threaded, as no other can open meanwhile), never under a seccomp
 * filter (which might kill a clone), or when clone failed: the caller then
 * does the work in place.  Sigsafe. */
#define COL_FDS_NO_HELPER (-ECHILD)
int col_fds_aside(int (*fn)(void *arg), void *arg, bool needed);

/* Run fn(arg), which opens a descriptor for one use, the way every such
 * use goes: aside (col_fds_aside) when a helper runs, else in place, and
 * if in place found no number free, aside with one to spare.  fn's value
 * (-EMFILE or -ENFILE when no way had a number).  Sigsafe. */
int col_fds_use(int (*fn)(void *arg), void *arg);

/* `len` bytes of the file at `path` from `off` (a multiple of the page
 * size) mapped shared, read-write, its descriptor opened and closed by
 * col_fds_use (so at no number of the program's while other threads may
 * open): the mapping, or NULL with the cause in *error.  Sigsafe. */
void *col_fds_map_shared(const char *path, uint64_t off, size_t len, int *error);

/* The same, opened in the calling task: for a function that runs aside
 * already (in col_fds_aside's helper, which must not clone another on its
 * small stack: scripts/check-aside-stack.sh).  Sigsafe. */
void *col_fds_map_shared_here(const char *path, uint64_t off, size_t len, int *error);

/* The file at `path` read for one use, its descriptor opened and closed
 * by col_fds_use (never at a number of the program's while other threads
 * may open; opened O_NONBLOCK: a FIFO never waits): chunk(arg, buf, n) is
 * called with each read's bytes (in `buf`, `len` bytes) until the end of
 * the file or until it returns non-zero.  chunk runs where the helper
 * runs: raw system calls only, little stack.  0, or -errno (the open's or
 * a read's).  Sigsafe. */
int col_fds_read_each(const char *path, char *buf, size_t len, int (*chunk)(void *arg, const char *buf, size_t n),
		      void *arg);

/* The first `len` - 1 bytes of the file at `path`, read the same way, in
 * `buf`, NUL-terminated: the count, or -errno.  Sigsafe. */
ssize_t col_fds_read(const char *path, char *buf, size_t len);

/* The span [*lo, *hi) of the tables indexed by descriptor (1 MiB of the
 * collector's zero-filled data, touched a page at a time): col_init.c
 * faults in the rest of its data at start, not these. */
void col_fds_tables(uintptr_t *lo, uintptr_t *hi);

/* Fault in the tables' pages for the numbers ours take first (above the
 * soft limit, or from our start below it): two page faults of every
 * process's start otherwise.  Normal context, at start. */
void col_fds_prefault(void);

#endif
