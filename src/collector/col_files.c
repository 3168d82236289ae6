/* SPDX-License-Identifier: MIT
 *
 * col_files.c — the experiment's files of this process (see col_files.h).
 *
 * Opened at start (col_init.c) and again in a fork child (col_descend.c);
 * records are appended from any thread and from the signal handler, through
 * the thread's own cursor (format/exp_write.h).  The counters live in
 * counters.dat, mapped shared, so they survive a SIGKILL; if it cannot be
 * mapped they are kept in memory and lost with the process.  Sigsafe file
 * (col_write_sigsafe runs in the signal handler).
 */
#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <signal.h>
#include <string.h>
#include <dirent.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "collector/col_fds.h"
#include "collector/col_files.h"
#include "collector/col_log.h"
#include "collector/col_procslot.h"
#include "collector/col_real.h"
#include "collector/col_state.h"
#include "collector/col_sys.h"
#include "collector/col_time.h"
#include "format/exp_header.h"
#include "format/exp_launch.h"
#include "format/exp_write_sys.h"

static uint64_t local_counters[EXP_CTR_COUNT_];

/* Map counters.dat; if it cannot be, the counters live in memory, lost with
 * the process, and the log says so. */
static int open_counters(void)
{
	int fd = col_sys_openat(col_proc.dirfd, EXP_COUNTERS_NAME, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	struct exp_file_header h;

	if (fd < 0) {
		col_proc.counters = (_Atomic uint64_t *)local_counters;
		col_log_error_sigsafe(EXP_COUNTERS_NAME, errno, "loss counters kept in memory only");
		return -1;
	}
	exp_file_header_init(&h, 0, 4096, (uint32_t)col_proc.pid, col_proc.start_ns, 0);
	/* The whole file, header and zero counters, in one write: the file's
	 * space is then the file system's to keep (as fallocate gave it), so
	 * a store through the mapping cannot fault for want of it; one system
	 * call instead of two (and their signal masks, exp_write_sys.c). */
	union {
		struct exp_file_header h;
		uint8_t bytes[EXP_COUNTERS_BYTES];
	} whole;
	memset(&whole, 0, sizeof(whole));
	whole.h = h;
	int rc = col_sys_pwrite(fd, &whole, sizeof(whole.bytes), 0) == (ssize_t)sizeof(whole.bytes) ? 0 : -1;
	void *p = rc == 0 ? col_sys_mmap(NULL, EXP_COUNTERS_BYTES, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0)
			  : MAP_FAILED;
	int e = errno;
	col_sys_close(fd);
	if (p == MAP_FAILED)
		col_log_error_sigsafe(EXP_COUNTERS_NAME, e, "loss counters kept in memory only");
	col_proc.counters = p == MAP_FAILED ? (_Atomic uint64_t *)local_counters
					    : (_Atomic uint64_t *)((char *)p + EXP_HEADER_BYTES);
	return p == MAP_FAILED ? -1 : 0;
}

/* A descendant's process file, ROOT/LINEAGE.proc (exp_records.h): made
 * with one open and one write (its header, the zero counters and the
 * newline that ends them), the counters mapped from it as from
 * counters.dat, and its descriptor kept as the log's (opened O_APPEND:
 * the log's lines and the threads' records are appended to it, one
 * write(2) each).  0, or -1 with the counters in memory. */
static int open_proc_file(void)
{
	struct stat st;
	int fd = col_sys_openat(AT_FDCWD, col_proc.log_path, O_RDWR | O_APPEND | O_CREAT | O_TRUNC | O_CLOEXEC,
				0644);

	if (fd < 0) {
		col_proc.counters = (_Atomic uint64_t *)local_counters;
		return -1;
	}
	uint8_t head[EXP_PROC_HEAD_BYTES];
	col_procslot_head(head);
	bool whole = col_sys_write(fd, head, sizeof(head)) == (ssize_t)sizeof(head);
	void *p = whole ? col_sys_mmap(NULL, EXP_COUNTERS_BYTES, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0)
			: MAP_FAILED;
	col_proc.counters = p == MAP_FAILED ? (_Atomic uint64_t *)local_counters
					    : (_Atomic uint64_t *)((char *)p + EXP_HEADER_BYTES);
	col_fd_keep(fd, &col_proc.log_fd, NULL);
	col_proc.log_dev = col_proc.log_ino = 0;
	if (col_proc.log_fd >= 0 && col_sys_fstat(col_proc.log_fd, &st) == 0) {
		col_proc.log_dev = (uint64_t)st.st_dev;
		col_proc.log_ino = (uint64_t)st.st_ino;
	}
	if (p == MAP_FAILED)
		col_log_error_sigsafe(col_proc.log_path, whole ? errno : EIO, "loss counters kept in memory only");
	return p == MAP_FAILED ? -1 : 0;
}

/* A descendant's directory, made at its first file beyond the process
 * file (a record file, in any context: the signal handler's samples.dat
 * included); other threads wait for the one making it.  That thread's own
 * sampling signal, landing while it makes it, must not wait for itself
 * (it would spin for ever): -EAGAIN, and its record is lost as such.
 * 0 or -errno. */
static int dir_ready(void)
{
	int s = 0, self = -(int)col_sys_gettid();

	if (!col_proc.proc_file)
		return 0;
	if (atomic_load(&col_proc.dir_state) == 2)
		return col_proc.dirfd >= 0 || col_fds_lean() ? 0 : -ENOENT;
	/* The maker is named in the same store that claims the making. */
	if (!atomic_compare_exchange_strong(&col_proc.dir_state, &s, self)) {
		if (s == self)
			return -EAGAIN;
		while (atomic_load(&col_proc.dir_state) < 0)
			col_syscall(SYS_sched_yield);
		return col_proc.dirfd >= 0 ? 0 : -ENOENT;
	}
	int rc = 0;
	if (col_real.mkdir(col_proc.dir, 0755) != 0 && errno != EEXIST)
		rc = -errno;
	if (rc == 0) {
		col_fd_keep(col_sys_openat(AT_FDCWD, col_proc.dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC, 0),
			    &col_proc.dirfd, NULL);
		rc = col_proc.dirfd >= 0 ? 0 : -errno;
		col_fds_dir_opened();
	}
	/* Lean, the directory is all it keeps besides its clock: its process
	 * file is ../LINEAGE.proc from there (reached after a chroot too). */
	if (rc == 0 && col_fds_lean())
		col_log_let_go();
	if (rc < 0)
		col_log_error_sigsafe(col_proc.dir, -rc, "its record files are not made");
	atomic_store(&col_proc.dir_state, 2);
	return rc;
}

/* Does this process open the record file of `kind` at start?  (A new file
 * kind is opened here when its option asks for it, or on first use.) */
static bool wanted(enum exp_file_kind k)
{
	switch (k) {
	case EXP_FILE_THREADS: return !col_proc.proc_file;   /* else in the process file */
	case EXP_FILE_MAPS:                   /* before the first record holding a pc */
	case EXP_FILE_SAMPLES:
	case EXP_FILE_STACKS:
	case EXP_FILE_HEAP:
	case EXP_FILE_SYNC: return false;     /* at the first record (col_file_ready_sigsafe) */
	case EXP_FILE_IO: return col_proc.opt.io;
	case EXP_FILE_MPI: return col_proc.opt.mpi;
	case EXP_FILE_STATES: return col_proc.opt.states;
	case EXP_FILE_HWC: return col_proc.nevents > 0 || col_proc.opt.data;
	default: return false;     /* arcs.dat: on first use (col_api.c) */
	}
}

/* The founder's file `name` by path, in `path`: false (*error set) if it is
 * too long. */
static bool founder_path(const char *name, char *path, size_t size, int *error)
{
	size_t n = strlen(col_proc.root), k = strlen(name);

	if (n + 1 + k + 1 > size) {
		*error = ENAMETOOLONG;
		return false;
	}
	memcpy(path, col_proc.root, n);
	path[n] = '/';
	memcpy(path + n + 1, name, k + 1);
	return true;
}

void *col_files_map_founder(const char *name, size_t len, int *error)
{
	char path[4200];

	return founder_path(name, path, sizeof(path), error) ? col_fds_map_shared(path, 0, len, error) : NULL;
}

/* The bytes of a size limit `limit` kept for the records that close a
 * thread's life (col_write_closing_sigsafe): COL_LIMIT_RESERVE_BLOCKS of
 * threads.dat's, at most an eighth of the limit.  The same in every process
 * of the experiment (the budget is the founder's, shared). */
static uint64_t limit_reserve(uint64_t limit)
{
	uint64_t r = (uint64_t)COL_LIMIT_RESERVE_BLOCKS * EXP_BLOCK_BYTES;

	return r < limit / 8 ? r : limit / 8;
}

static _Atomic uint64_t *root_counters_mapped(void *p)
{
	return p ? (col_proc.root_counters = (_Atomic uint64_t *)((char *)p + EXP_HEADER_BYTES)) : NULL;
}

/* The founder's counters, where every process of the experiment counts the
 * bytes it claims against the size limit: ours in the founder, else mapped
 * from its directory (once per process; a fork child inherits the mapping). */
static _Atomic uint64_t *root_counters(void)
{
	if (!col_proc.lineage[0])
		return col_proc.counters;
	if (col_proc.root_counters)
		return col_proc.root_counters;
	int err;
	return root_counters_mapped(col_files_map_founder(EXP_COUNTERS_NAME, EXP_COUNTERS_BYTES, &err));   /* mid-run: aside */
}

/* root_counters in the helper of col_fds_aside, which maps the file itself:
 * another helper would be cloned on this one's small stack (8 KB; the
 * build checks it, scripts/check-aside-stack.sh). */
static void root_counters_in_helper(void)
{
	char path[4200];
	int err;

	if (col_proc.lineage[0] && !col_proc.root_counters &&
	    founder_path(EXP_COUNTERS_NAME, path, sizeof(path), &err))
		root_counters_mapped(col_fds_map_shared_here(path, 0, EXP_COUNTERS_BYTES, &err));
}

_Atomic uint64_t *col_files_slots_claimed(bool may_map)
{
	_Atomic uint64_t *root = may_map || !col_proc.lineage[0] ? root_counters() : col_proc.root_counters;

	if (!root || root == (_Atomic uint64_t *)local_counters)
		return NULL;
	return (_Atomic uint64_t *)((char *)root - EXP_HEADER_BYTES + offsetof(struct exp_file_header, slots));
}

/* The program replaced the descriptor of `w`'s file (with raw system calls:
 * the interposers would have moved ours first): open the file again by its
 * path, if it still is the same file.  Sigsafe; 0 or -1. */
static int reattach(struct exp_file_writer *w)
{
	static _Atomic int busy;
	char path[4200];
	const char *name = exp_file_name((enum exp_file_kind)w->kind);
	struct stat st;
	int rc = -1;

	if (!name || atomic_exchange(&busy, 1))
		return -1;
	size_t d = strlen(col_proc.dir), n = strlen(name);
	int old = __atomic_load_n(&w->fd, __ATOMIC_ACQUIRE);
	if (d + n + 2 <= sizeof(path)) {
		memcpy(path, col_proc.dir, d);
		path[d] = '/';
		memcpy(path + d + 1, name, n + 1);
		int fd = col_sys_openat(AT_FDCWD, path, O_RDWR | O_CLOEXEC, 0);
		if (fd >= 0 && col_sys_fstat(fd, &st) == 0 && (uint64_t)st.st_ino == w->ino &&
		    (uint64_t)st.st_dev == w->dev) {
			col_fd_forget(old);        /* the program's now: left alone */
			col_fd_keep(fd, &w->fd, &w->users);
			col_count_sigsafe(EXP_CTR_FDS_REPLACED, 1);
			col_log_sigsafe("fd.replaced", name);
			rc = 0;
		} else if (fd >= 0) {
			col_sys_close(fd);
		}
	}
	atomic_store(&busy, 0);
	return rc;
}

/* A descriptor of w's file for one use, when the collector is lean
 * (exp_write.h, open_fd): opened in the experiment's directory and checked
 * to be the file's, or -errno. */
static int open_for_use(struct exp_file_writer *w)
{
	const char *name = exp_file_name((enum exp_file_kind)w->kind);
	struct stat st;
	int dir = col_fds_dir();
	if (dir < 0)
		return dir;
	int fd = col_sys_openat(dir, name, O_RDWR | O_CLOEXEC | O_NOFOLLOW, 0);

	if (fd < 0)
		return -errno;
	if (col_sys_fstat(fd, &st) != 0 || (uint64_t)st.st_ino != w->ino || (uint64_t)st.st_dev != w->dev) {
		col_sys_close(fd);
		return -ESTALE;
	}
	return fd;
}

struct aside_job {
	struct exp_file_writer *w;
	int (*op)(int fd, void *arg);
	void *arg;
};

/* In the helper of col_fds_aside: open the file and run the writer's op. */
static int aside_run(void *p)
{
	struct aside_job *j = p;
	int fd = open_for_use(j->w);

	if (fd < 0)
		return fd;
	int rc = j->op(fd, j->arg);
	col_sys_close(fd);
	return rc;
}

/* Run op on w's file aside, out of the program's descriptor table
 * (exp_write.h, aside). */
static int aside(struct exp_file_writer *w, int (*op)(int fd, void *arg), void *arg, bool needed)
{
	struct aside_job j = { w, op, arg };

	return col_fds_aside(aside_run, &j, needed);
}

/* Stop holding w's descriptor: later claims open the file for each use.
 * Claims using the old descriptor finish first (bounded wait). */
static void let_go(struct exp_file_writer *w)
{
	w->open_fd = open_for_use;
	w->aside = aside;
	if (w->fd < 0)
		return;
	int fd = __atomic_exchange_n(&w->fd, -1, __ATOMIC_ACQ_REL);
	for (int spins = 0; atomic_load(&w->users) > 0 && spins < 100000; spins++)
		col_syscall(SYS_sched_yield);
	col_fd_forget(fd);
	col_sys_close(fd);
}

void col_files_let_go(void)
{
	if (!col_fds_go_lean())
		return;
	for (int i = 0; i < EXP_FILE_COUNT_; i++)
		if (col_proc.file[i].fd >= 0 && col_proc.file[i].ino)
			let_go(&col_proc.file[i]);
	/* A descendant keeps its process file, as the founder keeps its
	 * directory: its log reached after a chroot, or when its directory
	 * is no longer reachable by path (opened by path for each line, its
	 * end lines were lost then), and no open per line; until it has made
	 * its directory (dir_ready), which reaches the process file too. */
	if (!col_proc.proc_file || (atomic_load(&col_proc.dir_state) == 2 && col_proc.dirfd >= 0))
		col_log_let_go();
}

/* In the helper of col_fds_aside: make the record file `arg` points to
 * (its descriptor is the helper's: closed there). */
static int create_aside(void *arg)
{
	enum exp_file_kind kind = *(enum exp_file_kind *)arg;
	struct exp_file_writer *w = &col_proc.file[kind];
	int dir = col_fds_dir();
	int rc = dir < 0 ? dir : exp_writer_open(w, dir, exp_file_name(kind), kind, (uint32_t)col_proc.pid);

	if (rc == 0) {
		col_sys_close(w->fd);
		w->fd = -1;
		if (col_proc.opt.limit_bytes > 0)
			root_counters_in_helper();   /* mapped here, out of the program's numbers too */
	}
	return rc;
}

bool col_file_holds_pcs(enum exp_file_kind k)
{
	return k > 0 && k < EXP_FILE_COUNT_ && k != EXP_FILE_MAPS && k != EXP_FILE_THREADS &&
	       k != EXP_FILE_DYN && k != EXP_FILE_CODE;
}

/* Set once a record file that holds pcs is made in this process: from then
 * on its maps are written (col_objects.c, through pcs_hook). */
static _Atomic bool maps_wanted;
static void (*pcs_hook)(void);

void col_files_on_pcs(void (*fn)(void))
{
	pcs_hook = fn;
}

bool col_files_maps_wanted(void)
{
	return atomic_load(&maps_wanted);
}

/* col_writer_open, its "file.opened" line added to `batch` if not NULL
 * (written by the caller), else written at once. */
static int writer_open(enum exp_file_kind kind, struct col_log_batch *batch)
{
	col_open_deferred_sigsafe();
	struct exp_file_writer *w = &col_proc.file[kind];
	const char *name = exp_file_name(kind);
	int made = dir_ready();
	if (made < 0)
		return made;
	int rc = COL_FDS_NO_HELPER;

	/* Lean: made aside, at no number of the program's even for an instant. */
	if (col_fds_lean())
		rc = col_fds_aside(create_aside, &kind, false);
	if (rc == COL_FDS_NO_HELPER) {
		int dir = col_fds_lean() ? col_fds_dir() : col_proc.dirfd;
		rc = dir < 0 && col_fds_lean() ? dir : exp_writer_open(w, dir, name, kind, (uint32_t)col_proc.pid);
		if ((rc == -EMFILE || rc == -ENFILE) && col_fds_lean())
			rc = col_fds_aside(create_aside, &kind, true);
		if (rc == COL_FDS_NO_HELPER)
			rc = -EMFILE;
	}
	if (rc < 0)
		return rc;
	w->reattach = reattach;
	if (col_fds_lean())
		let_go(w);
	else
		col_fd_keep_above(w->fd, &w->fd, &w->users);
	/* Its absence later is damage. */
	if (batch)
		col_log_batch_add(batch, "file.opened", name);
	else
		col_log_sigsafe("file.opened", name);
	/* The size limit's counters: at the process's first record file (a
	 * short process makes none: it was an open and a mapping at each
	 * lean start), aside with the file when lean (create_aside). */
	_Atomic uint64_t *root = col_proc.opt.limit_bytes > 0 ? root_counters() : NULL;
	if (root) {
		w->budget_used = &root[EXP_CTR_BYTES];
		w->budget_limit = (uint64_t)col_proc.opt.limit_bytes;
		w->budget_reserve = limit_reserve(w->budget_limit);
	}
	/* Its records will name pcs: the load-object map must be there too. */
	if (col_file_holds_pcs(kind) && !atomic_exchange(&maps_wanted, true) && pcs_hook)
		pcs_hook();
	return 0;
}

int col_writer_open(enum exp_file_kind kind)
{
	return writer_open(kind, NULL);
}

/* maps.dat, samples.dat, stacks.dat, heap.dat and sync.dat: made at their
 * first record, not at the start (maps.dat's first records come with the
 * first file that holds pcs, col_objects.c).  Most short processes (a shell's /bin/true, a
 * compiler driver) take no clock sample and write no stack node (a clock
 * sample's stack goes into samples.dat's runs), and a process traced with
 * -H -s often allocates nothing and waits for no lock; each file made costs
 * it an inode, about 0.1-0.3 ms of CPU on ext4 (docs/experiment-format.md).
 * samples.dat is so made in the signal handler: its system calls are
 * sigsafe.  0 not made yet, 1 being made, 2 made (or
 * failed). */
static _Atomic int lazy_state[EXP_FILE_COUNT_];

static bool lazy_kind(enum exp_file_kind k)
{
	return k == EXP_FILE_MAPS || (k == EXP_FILE_SAMPLES && col_proc.opt.hz) || k == EXP_FILE_STACKS ||
	       (k == EXP_FILE_HEAP && col_proc.opt.heap) ||
	       (k == EXP_FILE_SYNC && col_proc.opt.sync_ns != -1);
}

void col_file_ready_sigsafe(enum exp_file_kind k)
{
	struct exp_file_writer *w = &col_proc.file[k];
	int s = 0;

	col_open_deferred_sigsafe();
	/* The state, not the descriptor, says when the file is ready: the
	 * descriptor is set before col_fd_keep moves it (and closes the first). */
	if (!lazy_kind(k) || atomic_load(&lazy_state[k]) == 2)
		return;
	if (atomic_compare_exchange_strong(&lazy_state[k], &s, 1)) {
		int rc = col_writer_open(k);
		if (rc == -EMFILE || rc == -ENFILE || rc == -EAGAIN) {
			/* No descriptor, none to spare, or the directory being
			 * made by this very thread (dir_ready): its records are
			 * lost as such (lost()) until a later one makes it. */
			atomic_store(&lazy_state[k], 0);
			return;
		}
		if (rc < 0) {
			atomic_store(&w->full, 1);
			col_log_error_sigsafe(exp_file_name(k), rc, "not collecting");
		}
		atomic_store(&lazy_state[k], 2);
		return;
	}
	/* Another thread makes it (never this one: a thread is inside the
	 * collector while it makes a file, so nothing of it comes here). */
	while (atomic_load(&lazy_state[k]) == 1)
		col_syscall(SYS_sched_yield);
}

int col_open_experiment(void)
{
	struct stat st;

	for (int i = 0; i < EXP_FILE_COUNT_; i++) {
		/* A fork child's spares are its parent's file's blocks. */
		exp_writer_drop_spares(&col_proc.file[i]);
		col_proc.file[i].fd = -1;
		col_proc.file[i].open_fd = NULL;       /* a fork child: not the parent's files */
		col_proc.file[i].aside = NULL;
		atomic_store(&lazy_state[i], 0);
	}
	atomic_store(&maps_wanted, false);
	col_proc.dirfd = -1;
	col_procslot_close();
	if (col_proc.proc_file) {
		/* A descendant: its process file now, in a slot of the run's
		 * processes.dat (the root's counters count the slots: only when
		 * they are shared), else its own file; its directory at its
		 * first record file (dir_ready). */
		uint64_t given = col_proc.slot_given;
		col_proc.slot_given = 0;             /* a fork child's is its own */
		_Atomic uint64_t *claimed = given ? NULL : col_files_slots_claimed(true);
		bool slotted = (given || claimed) && col_procslot_open(claimed, given) == 0;
		if (!slotted && open_proc_file() != 0 && col_proc.log_fd < 0)
			return -errno;
	} else {
		size_t d = strlen(col_proc.dir);
		if (d + 1 + sizeof(EXP_LOG_NAME) > sizeof(col_proc.log_path))
			return -ENAMETOOLONG;
		memcpy(col_proc.log_path, col_proc.dir, d);
		col_proc.log_path[d] = '/';
		memcpy(col_proc.log_path + d + 1, EXP_LOG_NAME, sizeof(EXP_LOG_NAME));
		col_fd_keep(col_sys_openat(AT_FDCWD, col_proc.dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC, 0),
			    &col_proc.dirfd, NULL);
		if (col_proc.dirfd < 0)
			return -errno;
		col_fds_dir_opened();
		col_fd_keep(col_sys_openat(col_proc.dirfd, EXP_LOG_NAME,
					   O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644),
			    &col_proc.log_fd, NULL);
		col_proc.log_dev = col_proc.log_ino = 0;
		if (col_proc.log_fd >= 0 && col_sys_fstat(col_proc.log_fd, &st) == 0) {
			col_proc.log_dev = (uint64_t)st.st_dev;
			col_proc.log_ino = (uint64_t)st.st_ino;
		}
		open_counters();
	}
	/* A deferred fork child's start lines, parked at its fork, before any
	 * other line of its (the "file.opened" below included), and before
	 * the file is seen made (col_files_open_deferred_sigsafe): a thread
	 * that waited for it writes after them. */
	col_log_write_parked_sigsafe();
	atomic_store(&col_proc.failures_logged, 0);
	/* The files' "file.opened" lines in one write (each line alone is
	 * four system calls). */
	struct col_log_batch opened;
	int rc = 0;

	opened.n = 0;
	for (int k = 1; k < EXP_FILE_COUNT_ && rc == 0; k++) {
		const char *name = exp_file_name((enum exp_file_kind)k);
		if (!name || !wanted((enum exp_file_kind)k))
			continue;
		rc = writer_open((enum exp_file_kind)k, &opened);
		if (rc < 0) {
			col_log_batch_write(&opened);
			col_log_error_sigsafe(name, rc, "not collecting");
		}
	}
	if (rc == 0)
		col_log_batch_write(&opened);
	return rc;
}

/* A fork child's waiting process file (col_files_defer): 0 none (made, or
 * never deferred), 1 waiting, -TID being made by thread TID. */
static _Atomic int deferred;
static _Atomic uint64_t deferred_counters[EXP_CTR_COUNT_];

void col_files_defer(void)
{
	for (int i = 0; i < EXP_FILE_COUNT_; i++) {
		/* A fork child's spares are its parent's file's blocks. */
		exp_writer_drop_spares(&col_proc.file[i]);
		col_proc.file[i].fd = -1;
		col_proc.file[i].open_fd = NULL;
		col_proc.file[i].aside = NULL;
	}
	for (int i = 0; i < EXP_CTR_COUNT_; i++)
		atomic_store(&deferred_counters[i], 0);
	col_proc.counters = deferred_counters;
	/* No log until the file is made: the identity left is the parent's
	 * log's, which a line opened by path (lean) would have passed. */
	col_proc.log_dev = col_proc.log_ino = 0;
	atomic_store(&deferred, 1);
}

bool col_files_deferred(void)
{
	return atomic_load(&deferred) == 1;
}

int col_files_open_deferred_sigsafe(void)
{
	int s = 1, self = -(int)col_sys_gettid();

	if (atomic_compare_exchange_strong(&deferred, &s, self)) {
		/* No signal while it is made (a clock sample would find it
		 * being made by this thread and write past it): the caller
		 * may be outside the collector (a fork's prepare handler). */
		uint64_t all = ~(uint64_t)0, old = 0;
		col_syscall(SYS_rt_sigprocmask, SIG_BLOCK, &all, &old, sizeof(all));
		int rc = col_open_experiment();
		/* What was counted meanwhile (the thread's set-up, losses)
		 * joins the file's counters. */
		if (col_proc.counters != deferred_counters)
			for (int i = 0; i < EXP_CTR_COUNT_; i++) {
				uint64_t v = atomic_exchange(&deferred_counters[i], 0);
				if (v)
					atomic_fetch_add(&col_proc.counters[i], v);
			}
		if (rc < 0)
			col_proc.active = false;
		atomic_store(&deferred, 0);
		col_syscall(SYS_rt_sigprocmask, SIG_SETMASK, &old, NULL, sizeof(old));
		return rc < 0 ? rc : 1;
	}
	if (s == self || s == 0)
		return 0;
	while (atomic_load(&deferred) < 0)
		col_syscall(SYS_sched_yield);
	return 0;
}

void col_files_keep_root_counters(void)
{
	if (!col_proc.lineage[0] && !col_proc.root_counters && col_proc.counters &&
	    col_proc.counters != (_Atomic uint64_t *)local_counters && col_proc.counters != deferred_counters)
		col_proc.root_counters = col_proc.counters;
}

void col_files_free_spares(void)
{
	for (int i = 0; i < EXP_FILE_COUNT_; i++)
		exp_writer_free_spares(&col_proc.file[i]);
}

/* Before a write of this process's: its waiting file made first. */
void col_close_files(void)
{
	for (int i = 0; i < EXP_FILE_COUNT_; i++) {
		col_fd_forget(col_proc.file[i].fd);
		exp_writer_close(&col_proc.file[i]);
	}
	col_procslot_close();
	col_fd_forget(col_proc.log_fd);
	col_fd_forget(col_proc.dirfd);
	if (col_proc.log_fd >= 0)
		col_sys_close(col_proc.log_fd);
	if (col_proc.dirfd >= 0)
		col_sys_close(col_proc.dirfd);
	col_proc.log_fd = col_proc.dirfd = -1;
}

/* The process's command line, arguments joined by spaces, control
 * characters as spaces so it stays one log line; "" if unreadable.  From
 * the argv our constructor was given when there is one (`own`: a new
 * image), which is what /proc/self/cmdline would say at this point:
 * reading that file was three system calls, about 40 us of a short
 * process's start here; else from the file (a fork child's is its
 * parent's until it execs; an attached process). */
static void read_cmdline(char *cmd, size_t size, bool own)
{
	ssize_t n = 0;

	if (own && col_proc.argv) {
		/* As the file has them: each argument and its NUL. */
		for (int i = 0; i < col_proc.argc && col_proc.argv[i] && (size_t)n < size - 1; i++) {
			size_t len = strnlen(col_proc.argv[i], size - 1 - (size_t)n);
			memcpy(cmd + n, col_proc.argv[i], len);
			n += (ssize_t)len;
			if ((size_t)n < size - 1)
				cmd[n++] = 0;
		}
	} else {
		int fd = col_sys_openat(AT_FDCWD, "/proc/self/cmdline", O_RDONLY | O_CLOEXEC, 0);
		n = fd >= 0 ? col_sys_read(fd, cmd, size - 1) : 0;
		if (fd >= 0)
			col_sys_close(fd);
	}
	if (n < 0)
		n = 0;
	while (n > 0 && !cmd[n - 1])
		n--;
	for (ssize_t i = 0; i < n; i++)
		if ((unsigned char)cmd[i] < ' ' || cmd[i] == 0x7f)
			cmd[i] = ' ';
	cmd[n] = 0;
}

void col_log_start(const char *created_by)
{
	char exe[1024], cmd[COL_LOG_LINE_MAX];
	ssize_t n = col_proc.exe[0] ? 0 : readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	struct col_log_batch b;

	b.n = 0;
	exe[n > 0 ? n : 0] = 0;
	if (col_proc.exe[0])
		memcpy(exe, col_proc.exe, sizeof(exe));
	col_log_batch_u64(&b, "pid", (uint64_t)col_proc.pid);
	col_log_batch_u64(&b, "ppid", (uint64_t)getppid());
	col_log_batch_add(&b, "exe", exe);
	col_log_batch_add(&b, "lineage", col_proc.lineage[0] ? col_proc.lineage : "founder");
	col_log_batch_add(&b, "created-by", created_by);
	read_cmdline(cmd, sizeof(cmd), strcmp(created_by, "fork") && !col_proc.attached);
	if (cmd[0])
		col_log_batch_add(&b, "argv", cmd);
	if (col_proc.rank >= 0)
		col_log_batch_u64(&b, "rank", (uint64_t)col_proc.rank);
	if (col_proc.rank_from) {
		struct exp_launch_job job;
		exp_launch_job(col_proc.rank_from, &job);
		col_log_batch_add(&b, "rank.from", col_proc.rank_from);
		for (size_t i = 0; i < job.n; i++)
			col_log_batch_add(&b, job.key[i], job.value[i]);
	}
	col_log_batch_u64(&b, "start.mono_ns", col_proc.start_ns);
	/* What the process ran before the collector started: not sampled;
	 * from cpu.entry_ns on, the collector's own start-up (counted in its
	 * CPU), never the program's "loading, constructors". */
	/* A fork child's CPU starts at the fork, inside the collector: 0 (the
	 * parent's value, still in memory, is not the child's). */
	if (!strcmp(created_by, "fork"))
		col_log_batch_u64(&b, "cpu.entry_ns", 0);
	else if (col_proc.entry_cpu_ns)
		col_log_batch_u64(&b, "cpu.entry_ns", col_proc.entry_cpu_ns);
	if (col_proc.exec_cost_ns)       /* before the exec, moved from "loading" to the collector's */
		col_log_batch_u64(&b, "cpu.exec_collector_ns", col_proc.exec_cost_ns);
	col_log_batch_u64(&b, "cpu.start_ns", col_process_cputime_ns_sigsafe());
	if (col_proc.opt.hz)
		col_log_batch_u64(&b, "clock.hz", col_proc.opt.hz);
	col_log_batch_u64(&b, "max-frames", col_proc.opt.max_frames);
	col_log_batch_write(&b);
}

/* The first failure of a file: in the log, and, for the size limit, when
 * (the founder's counter, set once for the whole experiment). */
static void writer_failed(struct exp_file_writer *w, enum exp_file_kind file)
{
	const char *name = exp_file_name(file);

	if (atomic_fetch_or(&col_proc.failures_logged, 1u << file) & (1u << file))
		return;
	if (w->err == EFBIG && !atomic_load(&w->over_budget) && exp_sys_fsize_hit()) {
		/* The program's own file size limit (ulimit -f): this file ends
		 * there, the program goes on, and the log says so in one line. */
		struct rlimit rl;
		char value[300];
		size_t n = strlen(name ? name : "record file");
		if (col_syscall(SYS_prlimit64, 0, RLIMIT_FSIZE, NULL, &rl) != 0)
			rl.rlim_cur = 0;
		int len = col_fmt_u64_sigsafe(value, (uint64_t)rl.rlim_cur);
		value[len++] = ' ';
		memcpy(value + len, name ? name : "record file", n + 1 < sizeof(value) - (size_t)len ? n + 1 : 1);
		col_log_sigsafe("rlimit.fsize.reached", value);
	} else if (w->err == EFBIG) {
		_Atomic uint64_t *root = root_counters();
		uint64_t zero = 0;
		if (root)
			atomic_compare_exchange_strong(&root[EXP_CTR_LIMIT_NS], &zero, col_now_ns_sigsafe());
		atomic_store(&col_proc.stopped, 1);
		col_log_u64_sigsafe("size-limit.reached", (uint64_t)col_proc.opt.limit_bytes);
	} else {
		col_log_error_sigsafe(name ? name : "record file", w->err, "its records are lost from now on");
	}
}

/* A record of `file` lost: counted under `ctr`, the size limit's counter
 * once that stopped recording, or, when only no descriptor was free for the
 * claim (`no_fd`), the descriptor limit's. */
static void lost(enum exp_file_kind file, enum exp_counter ctr, int no_fd)
{
	struct exp_file_writer *w = &col_proc.file[file];

	if (atomic_load_explicit(&w->full, memory_order_relaxed))
		writer_failed(w, file);
	else if (no_fd || (lazy_kind(file) && atomic_load(&lazy_state[file]) == 0))
		ctr = EXP_CTR_LOST_NOFILE;
	col_count_sigsafe(atomic_load_explicit(&col_proc.stopped, memory_order_relaxed) ? EXP_CTR_LOST_LIMIT : ctr, 1);
}

/* threads.dat's records (a few per thread: start, end, cost, names) go
 * through one cursor for the process: each thread's own would claim a
 * 16 KiB block for ~200 bytes (5,000 short threads made an 80 MB file).
 * The lock is only tried (a signal handler may interrupt its holder): a
 * thread that does not get it soon writes through its own cursor. */
static struct exp_cursor shared_threads;
static atomic_flag shared_lock = ATOMIC_FLAG_INIT;

void col_files_drop_shared_sigsafe(void)
{
	exp_cursor_release_sigsafe(&shared_threads);
	/* A new process's file: its runs start again from one block.  The
	 * doubling carried over forks reached the staging window by the third
	 * generation, whose first claim, block 0, then lost its header to the
	 * window's MIRROR tag (a bash subshell in a command substitution in a
	 * subshell: "bad magic" in 6 threads.dat files of python3 -c pass
	 * through pyenv's shims). */
	shared_threads.next_run = 0;
	atomic_flag_clear(&shared_lock);
}

void col_stamp_record_sigsafe(const struct col_thread *t, uint32_t *words)
{
	uint64_t time_ns;

	memcpy(&time_ns, words + 2, 8);
	if (!time_ns) {
		time_ns = col_now_ns_sigsafe();
		memcpy(words + 2, &time_ns, 8);
	}
	words[1] = (uint32_t)t->tid;
}

/* col_write_sigsafe, and col_write_closing_sigsafe's (`reserved`: past the
 * size limit's stop, from its reserve). */
static int write_record(struct col_thread *t, enum exp_file_kind file, uint32_t type,
			const void *rec, uint32_t len, bool reserved)
{
	struct exp_file_writer *w = &col_proc.file[file];
	struct exp_cursor *c = &t->cursor[file];
	bool locked = false;

	col_open_deferred_sigsafe();
	if (file == EXP_FILE_THREADS && col_proc.proc_file) {
		/* A descendant's threads: in its process file, one write each. */
		if (!atomic_load_explicit(&col_proc.stopped, memory_order_relaxed) &&
		    col_log_record_sigsafe(type, rec, len) == 0)
			return 0;
		lost(file, EXP_CTR_LOST_EVENTS, 0);
		return -1;
	}
	col_file_ready_sigsafe(file);
	for (int i = 0; file == EXP_FILE_THREADS && i < 1000 && !locked; i++)
		locked = !atomic_flag_test_and_set_explicit(&shared_lock, memory_order_acquire);
	if (locked)
		c = &shared_threads;
	int rc = -1;
	if (reserved || !atomic_load_explicit(&col_proc.stopped, memory_order_relaxed)) {
		c->reserved = reserved;
		rc = exp_record_append_sigsafe(w, c, type, rec, len);
		c->reserved = false;
	}
	int no_fd = rc != 0 && c->no_fd;
	if (locked)
		atomic_flag_clear_explicit(&shared_lock, memory_order_release);
	if (rc == 0)
		return 0;
	lost(file, file == EXP_FILE_SAMPLES ? EXP_CTR_LOST_BUFFER : EXP_CTR_LOST_EVENTS, no_fd);
	return -1;
}

int col_write_sigsafe(struct col_thread *t, enum exp_file_kind file, uint32_t type,
		      const void *rec, uint32_t len)
{
	return write_record(t, file, type, rec, len, false);
}

int col_write_closing_sigsafe(struct col_thread *t, enum exp_file_kind file, uint32_t type,
			      const void *rec, uint32_t len, uint64_t opened_ns)
{
	if (!atomic_load_explicit(&col_proc.stopped, memory_order_relaxed))
		return write_record(t, file, type, rec, len, false);
	/* Stopped by the size limit: from its reserve, if what it closes was
	 * opened before the limit was reached (its opening record written). */
	_Atomic uint64_t *root = col_proc.lineage[0] ? col_proc.root_counters : col_proc.counters;
	uint64_t limit_ns = root ? atomic_load(&root[EXP_CTR_LIMIT_NS]) : 0;
	bool reserved = limit_ns && opened_ns < limit_ns;
	return write_record(t, file, type, rec, len, reserved);
}

void col_write_room_sigsafe(struct col_thread *t, enum exp_file_kind file, uint32_t len)
{
	col_open_deferred_sigsafe();
	col_file_ready_sigsafe(file);
	if (!atomic_load_explicit(&col_proc.stopped, memory_order_relaxed))
		exp_record_room_sigsafe(&col_proc.file[file], &t->cursor[file], len);
}

void col_file_lost_sigsafe(enum exp_file_kind file, enum exp_counter ctr)
{
	struct col_thread *t = col_thread_self_sigsafe();

	lost(file, ctr, t ? t->cursor[file].no_fd : 0);
}

/* How full the descriptor table is, found by count_nofile: aside
 * (col_fds_use) while other threads of the program may open, as they may
 * while it ends, since every step below takes a number for an instant; the
 * helper's copy of the table has the same numbers in use. */
struct nofile {
	rlim_t limit;
	bool two_free;                  /* two numbers below the limit are free */
	bool listed;                    /* /proc/self/fd could be listed */
	int open_fds;                   /* below the limit, its own descriptor not counted */
};

/* Are two descriptor numbers below `limit` free?  Then the limit is not
 * reached, which the listing of /proc/self/fd below would also say (it
 * counts its own descriptor): two duplicates of the log's descriptor ask the
 * kernel for the lowest free numbers (F_DUPFD fails at the limit), four
 * system calls instead of the listing, most of a short process's end. */
static bool two_free_below(int limit)
{
	int any = col_proc.log_fd >= 0 ? col_proc.log_fd : col_proc.dirfd;
	long a = any >= 0 ? col_syscall(SYS_fcntl, any, F_DUPFD_CLOEXEC, 0) : -1;
	long b = a >= 0 && a + 1 < limit ? col_syscall(SYS_fcntl, any, F_DUPFD_CLOEXEC, a + 1) : -1;

	if (a >= 0)
		col_syscall(SYS_close, a);
	if (b >= 0)
		col_syscall(SYS_close, b);
	return b >= 0 && b < limit;
}

/* Raw system calls only (col_fds_aside).  Always 0: a table found full is
 * the answer, not a want of a number to ask again with. */
static int count_nofile(void *p)
{
	struct nofile *c = p;
	char buf[4096];

	c->two_free = two_free_below((int)c->limit);
	if (c->two_free)
		return 0;
	int dir = (int)col_syscall(SYS_openat, AT_FDCWD, "/proc/self/fd", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	c->listed = dir >= 0;
	c->open_fds = 0;
	if (dir < 0)
		return 0;
	long got;
	while ((got = col_syscall(SYS_getdents64, dir, buf, sizeof(buf))) > 0)
		for (long off = 0; off < got;) {
			unsigned short reclen;
			__builtin_memcpy(&reclen, buf + off + 16, sizeof(reclen));
			uint64_t fd = 0;
			const char *d = buf + off + 19;
			for (; *d >= '0' && *d <= '9'; d++)
				fd = fd * 10 + (uint64_t)(*d - '0');
			/* Ours above the soft limit take nothing from the program. */
			c->open_fds += buf[off + 19] != '.' && fd < c->limit;
			off += reclen;
		}
	col_syscall(SYS_close, dir);
	c->open_fds--;                  /* the directory's own */
	return 0;
}

void col_files_check_nofile(void)
{
	struct rlimit rl;
	char value[64];

	if (col_syscall(SYS_prlimit64, 0, RLIMIT_NOFILE, NULL, &rl) != 0 || rl.rlim_cur > 65536)
		return;
	struct nofile c = { .limit = rl.rlim_cur };
	col_fds_use(count_nofile, &c);
	if (c.two_free)
		return;
	/* Reached: no descriptor left for the directory, or all in use. */
	if (c.listed && (rlim_t)c.open_fds + 1 < rl.rlim_cur)
		return;
	int ours = 0;
	for (int fd = -1; (fd = col_fd_next(fd + 1, (int)rl.rlim_cur - 1)) >= 0;)
		ours++;
	if (!ours)                             /* the program's own limit, as bare */
		return;
	int n = col_fmt_u64_sigsafe(value, (uint64_t)rl.rlim_cur);
	value[n++] = ' ';
	col_fmt_u64_sigsafe(value + n, (uint64_t)ours);
	col_log_sigsafe("rlimit.nofile.reached", value);
}

