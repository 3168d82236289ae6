/* SPDX-License-Identifier: MIT
 *
 * col_descend.c — descendants write sub-experiments inside the founder's
 * experiment, named as in the Sun Performance Analyzer: `_f1.exp` for a process's first fork,
 * `_f1_x1.exp` when that child execs.
 *
 * Every collecting process publishes in its environment where it writes
 * (TALLY_EXP, TALLY_LINEAGE, TALLY_PID; TALLY_ROOT is the founder's
 * directory).  A new image reading them knows what it is:
 *   - no TALLY_PID: the founder, started by `tally record` (which names it
 *     in TALLY_FOUNDER); or, once the founder has started (its counters.dat
 *     exists), an image that was given the founder's first environment, not
 *     the one its collector published: Go keeps its own copy of the
 *     environment and execs with it, from the founder (TALLY_FOUNDER is its
 *     own pid: LINEAGE_xN) or from a child (LINEAGE_fN_x1).  Taken for the
 *     founder, it would truncate the founder's files under its writes;
 *   - TALLY_PID is its own pid: the process exec'd: LINEAGE_xN;
 *   - another pid: a child that exec'd without passing through fork() in the
 *     parent (posix_spawn, system, popen, vfork): LINEAGE_fN_x1.
 * A fork() child is handled by the pthread_atfork child handler: LINEAGE_fN.
 * N comes from the parent experiment's counters.dat (EXP_CTR_FORKS/EXECS),
 * shared memory across processes, so concurrent children never collide.
 *
 * MPI jobs (docs/mpi.md): a process that a launcher made rank N
 * (exp_launch_rank) and whose parent was not already part of rank N's
 * experiment (TALLY_JOB_RANK) starts a new one, ROOT/rankN.exp, which is the
 * root of its own descendants: `tally record -- mpirun ...` leaves the
 * launcher's experiment with one rankN.exp per rank inside, as
 * `mpirun ... tally record` does.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "collector/col_control.h"
#include "collector/col_descend.h"
#include "collector/col_fds.h"
#include "collector/col_runtime.h"
#include "collector/col_files.h"
#include "collector/col_heap.h"
#include "collector/col_log.h"
#include "collector/col_objects.h"
#include "collector/col_real.h"
#include "collector/col_stacks.h"
#include "collector/col_state.h"
#include "collector/col_sys.h"
#include "collector/col_thread.h"
#include "collector/col_time.h"
#include "format/exp_launch.h"

/* The file of the parent experiment that holds `name` (its counters or its
 * log): a descendant's process file, ROOT/LINEAGE.proc, or the founder's
 * DIR/NAME.  False if the path does not fit. */
static bool parent_file(char *path, size_t size, const char *dir, const char *lineage, const char *name)
{
	int n = lineage && *lineage ? snprintf(path, size, "%s/%s%s", col_proc.root, lineage, EXP_PROC_SUFFIX)
				    : snprintf(path, size, "%s/%s", dir, name);
	return n > 0 && (size_t)n < size;
}

/* Take the next number from the counter `c` of the parent experiment (in
 * `dir`, or its process file for a descendant `lineage`: its own, or its
 * slot of processes.dat, at the offset after the parent's pid in `writer`,
 * TALLY_PID): the counters sit at the same place in all. */
static uint64_t bump_counter(const char *dir, const char *lineage, const char *writer, enum exp_counter c)
{
	char path[4200];
	const char *space = strchr(writer, ' ');
	uint64_t off = lineage && *lineage && space ? strtoull(space + 1, NULL, 10) : 0;

	if (off ? snprintf(path, sizeof(path), "%s/%s", col_proc.root, EXP_SLOTS_NAME) >= (int)sizeof(path)
		: !parent_file(path, sizeof(path), dir, lineage, EXP_COUNTERS_NAME))
		return 1;
	int err;
	void *p = col_fds_map_shared(path, off, EXP_COUNTERS_BYTES, &err);
	if (!p)
		return 1;
	_Atomic uint64_t *ctr = (_Atomic uint64_t *)((char *)p + EXP_HEADER_BYTES);
	uint64_t n = atomic_fetch_add(&ctr[c], 1) + 1;
	/* The founder's (the parent is the founder, as in most process trees):
	 * kept as the size limit's counters (col_files.c), not mapped again. */
	if (!col_proc.root_counters && !(lineage && *lineage) && !strcmp(dir, col_proc.root))
		col_proc.root_counters = ctr;
	else
		col_sys_munmap(p, EXP_COUNTERS_BYTES);
	return n;
}

/* The variables' "NAME=value" strings, ours for the process's life: putenv
 * of a variable the environment has already (it was inherited) replaces
 * its pointer in place, where setenv mallocs a copy.  That malloc was the
 * first of a program that never allocates (a shell's /bin/true, mostly):
 * malloc's set-up (getrandom, two brk, a page fault) in each process. */
static char env_root[sizeof(col_proc.root) + 32], env_exp[sizeof(col_proc.dir) + 32];
static char env_lineage[sizeof(col_proc.lineage) + 32], env_pid[72], env_rank[48];

static void put_env(char *buf, size_t size, const char *name, const char *value)
{
	const char *now = getenv(name);

	if (now && !strcmp(now, value))
		return;                        /* inherited as it is */
	snprintf(buf, size, "%s=%s", name, value);
	putenv(buf);
}

/* Is env_pid the environment's TALLY_PID string?  Found where it is put
 * (normal context), so that republish_pid_sigsafe need not walk environ:
 * getenv there read an array another thread's setenv may free. */
static _Atomic bool pid_in_environ;

static void publish_env(void)
{
	char pid[48], rank[24];

	if (getenv(EXP_ENV_SLOT))
		unsetenv(EXP_ENV_SLOT);          /* this image's, none of its children's */
	/* The pid, and the slot of processes.dat holding this process's
	 * counters if it has one (bump_counter). */
	if (col_proc.slot_off)
		snprintf(pid, sizeof(pid), "%d %llu", (int)col_proc.pid, (unsigned long long)col_proc.slot_off);
	else
		snprintf(pid, sizeof(pid), "%d", (int)col_proc.pid);
	snprintf(rank, sizeof(rank), "%d", (int)col_proc.rank);
	put_env(env_root, sizeof(env_root), EXP_ENV_ROOT, col_proc.root);
	put_env(env_exp, sizeof(env_exp), EXP_ENV_EXP, col_proc.dir);
	put_env(env_lineage, sizeof(env_lineage), EXP_ENV_LINEAGE, col_proc.lineage);
	put_env(env_pid, sizeof(env_pid), EXP_ENV_PID, pid);
	atomic_store(&pid_in_environ, getenv(EXP_ENV_PID) == env_pid + sizeof(EXP_ENV_PID));
	put_env(env_rank, sizeof(env_rank), EXP_ENV_JOB_RANK, rank);
}

/* A new rank of a job whose launcher is recorded: ROOT/rankN.exp, the root
 * of its own descendants.  -1 if that directory exists already (a job
 * directory used twice): the process is then named as a descendant. */
static int place_rank(int32_t rank, const char *from)
{
	char dir[sizeof(col_proc.dir)];

	if (snprintf(dir, sizeof(dir), "%s/rank%d.exp", col_proc.root, (int)rank) >= (int)sizeof(dir) ||
	    col_real.mkdir(dir, 0755) != 0)
		return -1;
	memcpy(col_proc.dir, dir, sizeof(dir));
	memcpy(col_proc.root, dir, sizeof(dir));
	col_proc.lineage[0] = 0;
	col_proc.proc_file = false;
	col_proc.rank = rank;
	col_proc.rank_from = from;
	return 0;
}

/* Set col_proc.lineage to `parent` + `suffix`, and the names of the
 * descendant's process file, ROOT/LINEAGE.proc, where its log, counters and
 * threads go (col_open_experiment makes it), and of its directory,
 * ROOT/LINEAGE.exp, made only when it makes another file (col_files.c): a
 * short process (a shell's /bin/true) makes one file, not a directory and
 * three files (0.6 ms of its CPU here). */
static int name_descendant(const char *parent, const char *suffix)
{
	if (snprintf(col_proc.lineage, sizeof(col_proc.lineage), "%s%s", parent, suffix) >=
	    (int)sizeof(col_proc.lineage))
		return errno = ENAMETOOLONG, -1;
	if (snprintf(col_proc.dir, sizeof(col_proc.dir), "%s/%s.exp", col_proc.root,
		     col_proc.lineage) >= (int)sizeof(col_proc.dir) ||
	    snprintf(col_proc.log_path, sizeof(col_proc.log_path), "%s/%s%s", col_proc.root,
		     col_proc.lineage, EXP_PROC_SUFFIX) >= (int)sizeof(col_proc.log_path))
		return errno = ENAMETOOLONG, -1;
	col_proc.proc_file = true;
	atomic_store(&col_proc.dir_state, 0);
	return 0;
}

/* The number the exec'ing process took for this image (EXP_ENV_SLOT,
 * col_interpose_exec.c), if the slot is this pid's and `writer`'s; else 0
 * (the number is then taken here, from the parent's counters).  "N/K":
 * the exec'ing process took slot K of processes.dat for it too
 * (col_proc.slot_given).  Its last
 * field, the CPU the collector spent in the vfork child that exec'd us
 * (0 otherwise), goes to col_proc.exec_cost_ns (at most the CPU so far). */
static uint64_t slot_taken(const char *writer)
{
	const char *slot = getenv(EXP_ENV_SLOT);
	char *end;

	if (!slot || !writer)
		return 0;
	unsigned long long pid = strtoull(slot, &end, 10), by, n;
	if (end == slot || *end != ' ' || pid != (unsigned long long)col_proc.pid)
		return 0;
	by = strtoull(slot = end + 1, &end, 10);
	if (end == slot || *end != ' ' || by != strtoull(writer, NULL, 10))
		return 0;
	n = strtoull(slot = end + 1, &end, 10);
	if (end == slot)
		return 0;
	if (*end == '/') {                 /* the slot of processes.dat taken for it */
		unsigned long long k = strtoull(slot = end + 1, &end, 10);
		col_proc.slot_given = end > slot ? (uint64_t)k + 1 : 0;
	}
	if (*end && *end != ' ')
		return 0;
	unsigned long long cost = *end ? strtoull(end + 1, NULL, 10) : 0;
	col_proc.exec_cost_ns = cost < col_proc.entry_cpu_ns ? (uint64_t)cost : 0;
	return (uint64_t)n;
}

/* Has a founder already started writing in `dir`? */
static bool founder_started(const char *dir)
{
	char path[4200];

	snprintf(path, sizeof(path), "%s/%s", dir, EXP_COUNTERS_NAME);
	return access(path, F_OK) == 0;
}

int col_descend_place(const char *env_dir)
{
	const char *root = getenv(EXP_ENV_ROOT);
	const char *writer = getenv(EXP_ENV_PID);
	const char *lineage = getenv(EXP_ENV_LINEAGE);
	const char *job_rank = getenv(EXP_ENV_JOB_RANK), *from = NULL;
	char suffix[64];
	int32_t rank = exp_launch_rank(col_proc.exe, &from);
	col_proc.rank = job_rank && *job_rank ? (int32_t)atoi(job_rank) : -1;
	snprintf(col_proc.root, sizeof(col_proc.root), "%s", root && *root ? root : env_dir);
	const char *founder = getenv(EXP_ENV_FOUNDER);
	if ((!writer || !*writer) && founder && *founder && founder_started(env_dir)) {
		writer = founder;
		lineage = "";
	}
	if (writer && *writer && rank >= 0 && rank != col_proc.rank && place_rank(rank, from) == 0) {
		publish_env();
		return 0;
	}
	if (!writer || !*writer) {
		snprintf(col_proc.dir, sizeof(col_proc.dir), "%s", env_dir);
		col_proc.lineage[0] = 0;
		col_proc.proc_file = false;
	} else {
		char parent[256];
		snprintf(parent, sizeof(parent), "%s", lineage ? lineage : "");
		bool self = atoi(writer) == (int)col_proc.pid;
		uint64_t n = slot_taken(writer);
		if (!n)
			n = bump_counter(env_dir, parent, writer, self ? EXP_CTR_EXECS : EXP_CTR_FORKS);
		snprintf(suffix, sizeof(suffix), self ? "_x%llu" : "_f%llu_x1", (unsigned long long)n);
		if (name_descendant(parent, suffix) != 0) {
			/* Said in the parent's log; a parent in a slot of
			 * processes.dat (format 9) has no file of its own to
			 * append to: the run's first log then, the descendant
			 * named by its whole lineage. */
			int err = errno;
			char log[4200], whole[sizeof(parent) + sizeof(suffix)];
			if (!parent_file(log, sizeof(log), env_dir, parent, EXP_LOG_NAME) ||
			    !col_log_error_in(log, suffix, err, "descendant not profiled")) {
				snprintf(whole, sizeof(whole), "%s%s", parent, suffix);
				if (snprintf(log, sizeof(log), "%s/%s", col_proc.root, EXP_LOG_NAME) < (int)sizeof(log))
					col_log_error_in(log, whole, err, "descendant not profiled");
			}
			return -1;
		}
	}
	publish_env();
	return 0;
}

void col_descend_publish(void)
{
	publish_env();
}

void col_descend_stop_following(void)
{
	const char *pre = getenv(EXP_ENV_PRELOAD);
	char kept[4096];
	size_t n = 0;

	for (size_t i = 0; i < EXP_ENV_INHERITED_COUNT; i++)
		if (strcmp(exp_env_inherited[i], EXP_ENV_PRELOAD))
			unsetenv(exp_env_inherited[i]);
	kept[0] = 0;
	/* LD_PRELOAD without tally's libraries: words separated by spaces or colons. */
	for (const char *p = pre; p && *p;) {
		size_t len = strcspn(p, " :");
		const char *base = memrchr(p, '/', len);
		base = base ? base + 1 : p;
		if (len && strncmp(base, "libtally", 8) && n + len + 2 < sizeof(kept))
			n += (size_t)snprintf(kept + n, sizeof(kept) - n, "%s%.*s", n ? " " : "", (int)len, p);
		p += len;
		p += strspn(p, " :");
	}
	if (n)
		setenv(EXP_ENV_PRELOAD, kept, 1);
	else
		unsetenv(EXP_ENV_PRELOAD);
}

/* TALLY_PID rewritten in place once a deferred fork child has its slot,
 * for a child it spawns past our interposers (col_interpose_spawn.c makes
 * the file first for posix_spawn, system and popen): env_pid, the
 * environment's own string since publish_env put it (no putenv, which
 * takes a lock, and no getenv, whose walk of environ another thread's
 * setenv may free under it: the signal handler may come here).  The new
 * value extends the old ("PID" to "PID SLOT"): its tail is written first
 * and the byte that joins it last, so that a reader sees one or the
 * other whole. */
static void republish_pid_sigsafe(void)
{
	const size_t prefix = sizeof(EXP_ENV_PID);       /* "TALLY_PID=" */
	char v[sizeof(env_pid)];
	char *now = env_pid + prefix;
	size_t old = strlen(now);
	int n;

	if (!col_proc.slot_off || !atomic_load(&pid_in_environ))
		return;
	n = col_fmt_u64_sigsafe(v, (uint64_t)col_proc.pid);
	if ((size_t)n != old || memcmp(now, v, old))
		return;                        /* not this process's bare pid */
	v[n++] = ' ';
	n += col_fmt_u64_sigsafe(v + n, col_proc.slot_off);
	if (prefix + (size_t)n >= sizeof(env_pid))
		return;
	for (int i = n; i > (int)old; i--)
		__atomic_store_n(&now[i], v[i], __ATOMIC_RELAXED);
	__atomic_store_n(&now[old], v[old], __ATOMIC_RELEASE);
}

/* col_proc.open_deferred: a deferred fork child's process file, at its
 * first write (or fork, or vfork). */
static void open_deferred(void)
{
	if (col_files_open_deferred_sigsafe() != 0) {
		atomic_store_explicit(&col_proc.open_deferred, NULL, memory_order_release);
		republish_pid_sigsafe();
	}
}

/* The thread that forks, noted in it by before_fork: per thread, so two
 * threads forking at once keep their own, and the child's one thread has
 * its forker's copy.  Written to the child's log as fork.tid, so that the
 * critical path goes back to that thread, not the main one. */
static __thread pid_t forking_tid __attribute__((tls_model("initial-exec")));

/* The fork child: named, its clock running, but its process file, its log
 * lines and the load objects' map wait for its first write (a sample, a
 * traced event, its end), made then by open_deferred: a shell's child that
 * execs at once writes nothing, and its new image is named as a spawned
 * child's (_fN_x1, col_interpose_exec.c).  Its start lines are kept meanwhile
 * (col_log_park_sigsafe). */
static void on_fork_child(void)
{
	char parent[256], suffix[32];

	if (!col_proc.active)
		return;
	uint64_t cpu0 = col_thread_cputime_ns_sigsafe();
	col_thread_reset_after_fork();
	col_heap_reset_after_fork();
	col_log_unpark();
	atomic_store(&col_proc.open_deferred, NULL);
	uint64_t n = atomic_fetch_add(&col_proc.counters[EXP_CTR_FORKS], 1) + 1;
	int made = -1;
	if (col_proc.opt.follow) {
		snprintf(parent, sizeof(parent), "%s", col_proc.lineage);
		snprintf(suffix, sizeof(suffix), "_f%llu", (unsigned long long)n);
		col_files_keep_root_counters();
		made = name_descendant(parent, suffix);
		if (made != 0)   /* said in the parent's log, still open here */
			col_log_error_sigsafe(suffix, errno, "fork child not profiled");
	}
	col_close_files();
	col_proc.counters = NULL;
	col_proc.pid = getpid();
	col_unwind_set_pid(col_proc.pid);
	col_proc.start_ns = col_now_ns_sigsafe();
	if (!col_proc.opt.follow || made != 0) {
		col_proc.active = false;
		unsetenv(EXP_ENV_EXP);
		return;
	}
	col_files_defer();
	col_stacks_init();
	publish_env();
	col_log_hold_sigsafe();                                 /* kept, as at start */
	struct col_thread *held = col_thread_attach_held();     /* its start is no sample */
	col_log_start("fork");
	if (forking_tid)
		col_log_u64_sigsafe("fork.tid", (uint64_t)forking_tid);
	col_control_log_state();
	if (held)
		col_leave_untaken(held);
	col_objects_reset_after_fork();
	col_log_park_sigsafe();
	col_proc.fork_cost_ns = col_thread_cputime_ns_sigsafe() - cpu0;
	atomic_store_explicit(&col_proc.open_deferred, open_deferred, memory_order_release);
	/* A program that execs by its own system calls (col_runtime.h) execs
	 * past our interposer, which names the new image: its file now. */
	if (col_runtime_raw_syscalls())
		open_deferred();
}

/* Before a fork (pthread_atfork's prepare, in the forking thread): its id
 * (forking_tid), the load objects looked at
 * (col_runtime.h), and a deferred process file made, so that the
 * children's numbers come from counters they share. */
static void before_fork(void)
{
	forking_tid = col_sys_gettid();
	col_runtime_scan_before_fork();
	col_open_deferred_sigsafe();
}

void col_descend_install(void)
{
	static int done;

	if (!done++)
		pthread_atfork(before_fork, NULL, on_fork_child);
}
