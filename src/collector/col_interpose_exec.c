/* SPDX-License-Identifier: MIT
 *
 * col_interpose_exec.c — the exec family and vfork, interposed so that an
 * exec is safe and noted.
 *
 * A profiling signal raised while execve runs would stay pending across it
 * and kill the new image, whose handlers are reset to the default: so before
 * the real call we stop the calling thread's clock and drain any SIGPROF of
 * ours that is pending; if the exec fails, the clock starts again.  The log
 * notes each exec, and says when the new program is statically linked or
 * set-user-ID, where the collector cannot follow (its sub-experiment will be
 * missing), or when the collector is not reachable from the process's root
 * after a chroot (the exec then goes without tally's preload and variables,
 * so the new image's loader has nothing to complain of).  The variadic execl* forms are rebuilt as argument vectors;
 * execveat, and execve or execveat through syscall(), take the same path.
 * vfork is the real one (col_vfork.S): its child shares its parent's memory,
 * so in it nothing of the parent's state is touched, and its exec is
 * followed as a spawned child's.  Called from any thread of the target, never
 * from a signal handler.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "collector/col_clock.h"
#include "collector/col_counters.h"
#include "collector/col_datablocks.h"
#include "collector/col_fds.h"
#include "collector/col_files.h"
#include "collector/col_init.h"
#include "collector/col_log.h"
#include "collector/col_real.h"
#include "collector/col_signal.h"
#include "collector/col_state.h"
#include "collector/col_states.h"
#include "collector/col_sys.h"
#include "collector/col_thread.h"
#include "collector/col_time.h"
#include "format/elf_peek.h"
#include "format/exp_launch.h"

/* Is every library of tally's in LD_PRELOAD readable from this process's
 * root?  After a chroot the absolute paths preloaded name nothing there:
 * the new image's loader would print two lines on the program's stderr and
 * run it unprofiled. */
static bool preload_reachable(void)
{
	const char *p = col_proc.preload;
	char lib[1024];

	while (*p) {
		size_t len = strcspn(p, " :");
		if (len && len < sizeof(lib)) {
			memcpy(lib, p, len);
			lib[len] = 0;
			const char *base = strrchr(lib, '/');
			base = base ? base + 1 : lib;
			if (!strncmp(base, "libtally", 8) && access(lib, R_OK) != 0)
				return false;
		}
		p += len;
		p += strspn(p, " :");
	}
	return true;
}

static const char UNREACHABLE[] = "the collector is not reachable from this root (chroot?): not profiled";

/* The head of the file unprofilable() peeks at: elf_peek's reads come
 * from it (the exec'ing thread's own: a vfork child's writes here are its
 * parent's thread's, which waits). */
#define PEEK_HEAD 4096
static _Thread_local struct peeked {
	const char *p;
	size_t len;
} peeked;

static ssize_t pread_peeked(int fd, void *buf, size_t n, off_t off)
{
	(void)fd;
	if (off < 0 || (size_t)off >= peeked.len)
		return 0;
	if (n > peeked.len - (size_t)off)
		n = peeked.len - (size_t)off;
	memcpy(buf, peeked.p + off, n);
	return (ssize_t)n;
}

/* Why `path` will not run with the collector, or NULL if it will (as far as
 * we can tell without resolving a PATH search); *found: the file is there. */
static const char *unprofilable(const char *path, bool *found)
{
	struct stat st;
	struct elf_peek p;

	*found = false;
	if (!preload_reachable())
		return UNREACHABLE;
	if (!path || stat(path, &st) != 0)
		return NULL;
	*found = true;
	if ((st.st_mode & S_ISUID) && st.st_uid != geteuid())
		return "set-user-ID: not profiled";
	/* Its head read aside (col_fds_read): a thread of the program that
	 * opens a file meanwhile gets its own number (the exec may fail and
	 * the program go on).  Program headers past the head read as a
	 * truncated file: "profilable" (every executable here has them
	 * right after the ELF header). */
	char head[PEEK_HEAD + 1];
	ssize_t len = col_fds_read(path, head, sizeof(head));
	if (len <= 0)
		return NULL;
	peeked = (struct peeked){ head, (size_t)len };
	int rc = elf_peek_fd(-1, pread_peeked, &p);
	peeked.p = NULL;
	if (rc == -ENOEXEC && p.elf_class)
		return "32-bit: not profiled";
	return rc == 0 && elf_peek_is_static(&p) ? "statically linked: not profiled" : NULL;
}

/* A vfork child (or a child of clone(CLONE_VM)): it runs in its parent's
 * memory, on its parent's thread state, with a descriptor table of its own. */
static bool vfork_child(void)
{
	return col_in_vfork_child() || getpid() != col_proc.pid;
}

/* The number the new image takes from this process's counters (a vfork
 * child's: its parent's, mapped in the memory they share), taken here
 * rather than by the new image, which had to open and map its parent's
 * counters for it (30 us of each short process's start; a spawned child,
 * posix_spawn's, still does).  Only for a file that is there: a shell's
 * search of PATH tries execve in each directory, and a number taken for
 * each failure would leave gaps in the names.  "PID WRITER N[/K]" (K: the
 * slot of processes.dat taken for it; exec_env adds
 * the vfork child's CPU so far, the collector's: EXP_ENV_SLOT), or "" (in
 * the caller's buffer: a vfork child's statics are its parent's). */
#define SLOT_BYTES 64

static void take_slot(bool found, char *slot)
{
	slot[0] = 0;
	if (!found || !col_proc.opt.follow || !col_proc.counters)
		return;
	bool child = vfork_child();
	uint64_t n = atomic_fetch_add(&col_proc.counters[child ? EXP_CTR_FORKS : EXP_CTR_EXECS], 1) + 1;
	int at = col_fmt_u64_sigsafe(slot, (uint64_t)col_syscall(SYS_getpid));
	slot[at++] = ' ';
	at += col_fmt_u64_sigsafe(slot + at, (uint64_t)col_proc.pid);
	slot[at++] = ' ';
	at += col_fmt_u64_sigsafe(slot + at, n);
	/* Its slot of processes.dat too, from the root's counters if they are
	 * mapped here (a vfork child maps nothing: it shares its parent's
	 * memory), so that the image maps nothing of the root's either. */
	_Atomic uint64_t *claimed = col_files_slots_claimed(!child);
	if (claimed) {
		slot[at++] = '/';
		col_fmt_u64_sigsafe(slot + at, atomic_fetch_add(claimed, 1));
	}
}

/* Quiesce our clock in this thread before the image goes away.  In a vfork
 * child, change nothing (the clock, the state and the files are the
 * parent's): only say in the parent's log what the child runs if it is not
 * profiled.  Returns
 * false when the new image cannot load the collector (chroot): the exec
 * then goes without tally's preload and variables. */
static bool before_exec(const char *path, char *slot)
{
	char line[1100];
	const char *why;
	sigset_t prof, old;
	struct timespec zero = { 0, 0 };
	bool found;

	slot[0] = 0;
	col_ensure_init();
	if (!col_proc.active)
		return true;
	/* A fork child whose file still waits (col_files_defer): its exec
	 * writes nothing unless the new image cannot be profiled (said in
	 * its log, made for it); its collector time so far goes to the new
	 * image (exec_env). */
	bool deferred = !vfork_child() && col_files_deferred();
	if (deferred)
		col_proc.exec_from_ns = col_thread_cputime_ns_sigsafe();
	why = unprofilable(path, &found);
	bool reachable = why != UNREACHABLE;
	take_slot(found && !why, slot);
	snprintf(line, sizeof(line), "%s%s%s", path ? path : "?", why ? ": " : "", why ? why : "");
	/* A vfork child's exec is said in its parent's log only when the new
	 * image is not profiled (cli_unsampled.c names it at the end): a
	 * profiled one says what it runs in its own log (exe, argv), and the
	 * line cost each exec an open, a write and a close of the parent's
	 * log (~15 us). */
	if (vfork_child()) {
		if (why)
			col_log_sigsafe("exec.vfork-child", line);
		return reachable;
	}
	if (!deferred || why) {
		col_log_sigsafe("exec", line);
		col_log_u64_sigsafe("cpu.end_ns", col_process_cputime_ns_sigsafe());   /* this image's */
	}
	struct col_thread *t = col_thread_self_sigsafe();
	if (t) {
		/* What the tracers hold (a run of putc, sums of buffered stdio
		 * calls) would go with the image.  Not in a deferred child
		 * going on profiled: writing them would make the file the
		 * deferral avoids, and their bytes, still in the stream's
		 * buffer, go with the image too (exec flushes no stdio). */
		if (!deferred || why)
			col_thread_tracers_end();
		col_clock_stop(t);
		/* The switch events and counters signal too: their records now. */
		while (atomic_exchange(&t->busy, 1))
			;
		col_states_thread_end(t);
		col_counters_thread_end(t);
		col_data_blocks_write_out(t);    /* what this image's samples may have seen */
		atomic_store(&t->busy, 0);
	}
	sigemptyset(&prof);
	sigaddset(&prof, SIGPROF);
	sigaddset(&prof, SIGTRAP);
	/* The real functions: our interposers would not let us block them. */
	const struct col_real *real = col_real_table();
	real->pthread_sigmask(SIG_BLOCK, &prof, &old);
	siginfo_t si;
	int sig;
	while ((sig = real->sigtimedwait(&prof, &si, &zero)) > 0) {
		/* A drained signal that was the target's own goes to its handler. */
		if (!col_clock_signal_sigsafe(sig, &si) && !col_states_signal_sigsafe(sig, &si, NULL, 0) &&
		    !col_counters_signal_sigsafe(sig, &si, NULL, 0))
			col_signal_forward(sig, &si, NULL);
	}
	real->pthread_sigmask(SIG_SETMASK, &old, NULL);
	return reachable;
}

/* The environment for the new image: `envp` with our variables set to this
 * process's values (a shell passes its own copy of the environment, made
 * before our fork handler updated it) and LD_PRELOAD kept (a program may
 * exec with a cleaned environment).  In memory of its own (mmap: a vfork
 * child must not use the parent's malloc); exec_env_free after a failed
 * exec.  NULL if not collecting.  The values are this process's, which in a
 * vfork child are its parent's: the new image, a pid that is not TALLY_PID,
 * is then a spawned child of the parent (_fN_x1), as it is. */
struct exec_env {
	char **env;
	size_t bytes;
};

/* `envp` without tally's variables, and its LD_PRELOAD without tally's
 * libraries (left out if nothing else is in it): for an image that cannot
 * load the collector.  Mapped, as exec_env's. */
static struct exec_env env_without_tally(char *const envp[])
{
	struct exec_env e = { NULL, 0 };
	size_t n = 0, k = 0;
	const size_t pre = strlen(EXP_ENV_PRELOAD);

	while (envp[n])
		n++;
	e.bytes = (n + 1) * sizeof(*e.env) + 4200;
	void *p = col_sys_mmap(NULL, e.bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		return (struct exec_env){ NULL, 0 };
	e.env = p;
	char *buf = (char *)(e.env + n + 1);
	for (size_t i = 0; i < n; i++) {
		bool ours = !strncmp(envp[i], EXP_ENV_FOUNDER "=", strlen(EXP_ENV_FOUNDER) + 1);
		for (size_t j = 0; j < EXP_ENV_INHERITED_COUNT && !ours; j++) {
			size_t len = strlen(exp_env_inherited[j]);
			ours = !strncmp(envp[i], exp_env_inherited[j], len) && envp[i][len] == '=';
		}
		if (!ours) {
			e.env[k++] = envp[i];
			continue;
		}
		if (strncmp(envp[i], EXP_ENV_PRELOAD "=", pre + 1))
			continue;
		/* LD_PRELOAD: the words that are not tally's, space-separated. */
		size_t at = (size_t)snprintf(buf, 4200, "%s=", EXP_ENV_PRELOAD), kept = 0;
		for (const char *w = envp[i] + pre + 1; *w;) {
			size_t len = strcspn(w, " :");
			const char *base = memrchr(w, '/', len);
			base = base ? base + 1 : w;
			if (len && strncmp(base, "libtally", 8) && at + len + 2 < 4200) {
				at += (size_t)snprintf(buf + at, 4200 - at, "%s%.*s", kept ? " " : "", (int)len, w);
				kept++;
			}
			w += len;
			w += strspn(w, " :");
		}
		if (kept)
			e.env[k++] = buf;
	}
	e.env[k] = NULL;
	return e;
}

static struct exec_env exec_env(char *const envp[], bool reachable, const char *slot)
{
	const char *const *ours = exp_env_inherited;
	struct exec_env e = { NULL, 0 };
	size_t n = 0, k = 0;

	if (!col_proc.active || !envp)
		return e;
	if (!reachable)
		return env_without_tally(envp);
	if (!col_proc.opt.follow)
		return e;
	while (envp[n])
		n++;
	e.bytes = (n + EXP_ENV_INHERITED_COUNT + 2) * sizeof(*e.env) + EXP_ENV_INHERITED_COUNT * 4200 +
		  SLOT_BYTES + 48;
	void *p = col_sys_mmap(NULL, e.bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		return (struct exec_env){ NULL, 0 };
	char **env = e.env = p;
	char *buf = (char *)(env + n + EXP_ENV_INHERITED_COUNT + 2);
	/* In the order of exp_env_inherited. */
	char pid[48], rank[24];
	if (col_proc.slot_off)          /* its counters' slot too (col_descend.c) */
		snprintf(pid, sizeof(pid), "%d %llu", (int)col_proc.pid, (unsigned long long)col_proc.slot_off);
	else
		snprintf(pid, sizeof(pid), "%d", (int)col_proc.pid);
	snprintf(rank, sizeof(rank), "%d", (int)col_proc.rank);
	const char *values[EXP_ENV_INHERITED_COUNT] = { col_proc.preload, col_proc.dir, col_proc.root,
							col_proc.lineage, pid, col_proc.options, rank,
							col_proc.events_spec };
	for (size_t i = 0; i < n; i++) {
		bool replaced = false;
		for (size_t j = 0; j < EXP_ENV_INHERITED_COUNT && !replaced; j++) {
			size_t len = strlen(ours[j]);
			replaced = !strncmp(envp[i], ours[j], len) && envp[i][len] == '=';
		}
		/* A slot another image was given is not this one's. */
		if (!replaced && !strncmp(envp[i], EXP_ENV_SLOT "=", sizeof(EXP_ENV_SLOT)))
			continue;
		if (!replaced)
			env[k++] = envp[i];
	}
	for (size_t j = 0; j < EXP_ENV_INHERITED_COUNT; j++) {
		if (j == 0 && !values[0][0])
			continue;
		env[k++] = buf;
		buf += snprintf(buf, 4200, "%s=%s", ours[j], values[j]) + 1;
	}
	if (slot[0]) {
		/* A vfork child's CPU began at the vfork: all but a few
		 * instructions of the shell's are the collector's, here.  A
		 * deferred fork child's: its fork handler's and its exec's. */
		unsigned long long cost = vfork_child() ? col_thread_cputime_ns_sigsafe()
					  : col_files_deferred() ? col_proc.fork_cost_ns + col_thread_cputime_ns_sigsafe() -
									   col_proc.exec_from_ns
					  : 0;
		env[k++] = buf;
		buf += snprintf(buf, SLOT_BYTES + 48, "%s=%s %llu", EXP_ENV_SLOT, slot, cost) + 1;
	}
	env[k] = NULL;
	return e;
}

static void exec_env_free(struct exec_env e)
{
	if (e.env)
		col_sys_munmap(e.env, e.bytes);
}

/* The exec failed: this image goes on, and so does its profile. */
static int after_failed_exec(int rc)
{
	int e = errno;
	struct col_thread *t = col_thread_self_sigsafe();

	if (col_proc.active && t && !vfork_child()) {
		col_log_sigsafe("exec.failed", strerror(e));
		t->last_cpu_ns = 0;
		col_clock_start(t);
		col_states_thread_start(t);
		col_counters_thread_start(t);
		if (t->perf_fd < 0 && !t->has_timer && !t->inherited_clock)
			col_log_sigsafe("warning", "sampling clock not restarted after a failed exec");
	}
	errno = e;
	return rc;
}

extern char **environ;

COL_API int execve(const char *path, char *const argv[], char *const envp[])
{
	int (*real)(const char *, char *const[], char *const[]) = col_real_table()->execve;

	char slot[SLOT_BYTES];
	bool reachable = before_exec(path, slot);
	struct exec_env env = exec_env(envp, reachable, slot);
	int rc = after_failed_exec(real(path, argv, env.env ? env.env : envp));
	exec_env_free(env);
	return rc;
}

COL_API int execv(const char *path, char *const argv[])
{
	return execve(path, argv, environ);
}

COL_API int execvpe(const char *file, char *const argv[], char *const envp[])
{
	int (*real)(const char *, char *const[], char *const[]) = col_real_table()->execvpe;

	char slot[SLOT_BYTES];
	bool reachable = before_exec(file, slot);
	struct exec_env env = exec_env(envp, reachable, slot);
	int rc = after_failed_exec(real(file, argv, env.env ? env.env : envp));
	exec_env_free(env);
	return rc;
}

COL_API int execvp(const char *file, char *const argv[])
{
	return execvpe(file, argv, environ);
}

COL_API int fexecve(int fd, char *const argv[], char *const envp[])
{
	int (*real)(int, char *const[], char *const[]) = col_real_table()->fexecve;

	char slot[SLOT_BYTES];
	bool reachable = before_exec("(fexecve)", slot);
	struct exec_env env = exec_env(envp, reachable, slot);
	int rc = after_failed_exec(real(fd, argv, env.env ? env.env : envp));
	exec_env_free(env);
	return rc;
}

/* execveat (glibc 2.34+; the system call where libc lacks it).  `path` is
 * relative to `dirfd` (or empty with AT_EMPTY_PATH): the log names it as
 * given, and only a path from the working directory is peeked at. */
COL_API int execveat(int dirfd, const char *path, char *const argv[], char *const envp[], int flags)
{
	int (*real)(int, const char *, char *const[], char *const[], int) = col_real_table()->execveat;

	char slot[SLOT_BYTES];
	bool reachable = before_exec(dirfd == AT_FDCWD || path[0] == '/' ? path : "(execveat)", slot);
	struct exec_env env = exec_env(envp, reachable, slot);
	char *const *e = env.env ? env.env : envp;
	int rc = real ? real(dirfd, path, argv, e, flags)
		      : (int)col_syscall(SYS_execveat, dirfd, path, argv, e, flags);
	rc = after_failed_exec(rc);
	exec_env_free(env);
	return rc;
}

/* syscall(): a program (or a library) may exec through it, as a sandbox or
 * a language runtime's C shim does.  execve and execveat go through the
 * interposers above, so the clock is quiet before the image goes; a futex
 * goes to the sync tracer when it is loaded (tally__on_futex); a new file
 * size limit is told to the writer (col_interpose_rlimit.c); every
 * other number is the system call itself, made here (async-signal safe;
 * the collector's own calls do not come here: col_syscall, col_sys.h).  The six argument registers are passed on whatever the
 * call uses, as libc's syscall() does. */
COL_API long syscall(long nr, ...)
{
	va_list ap;
	long a[6];

	va_start(ap, nr);
	for (int i = 0; i < 6; i++)
		a[i] = va_arg(ap, long);
	va_end(ap);
	if (nr == SYS_execve)
		return execve((const char *)a[0], (char *const *)a[1], (char *const *)a[2]);
	if (nr == SYS_execveat)
		return execveat((int)a[0], (const char *)a[1], (char *const *)a[2], (char *const *)a[3], (int)a[4]);
	/* A seccomp filter the program adds (col_interpose_seccomp.c). */
	if (col_real_seccomp_call(nr, a[0])) {
		long rc = exp_sys_call6(nr, a[0], a[1], a[2], a[3], a[4], a[5]);
		col_real_seccomp_done(rc);
		return rc;
	}
	/* A new file size limit (exp_write_sys.c masks SIGXFSZ only under one). */
	if ((nr == SYS_setrlimit && a[0] == RLIMIT_FSIZE && a[1]) ||
	    (nr == SYS_prlimit64 && a[1] == RLIMIT_FSIZE && a[2])) {
		exp_sys_fsize_changed();
		long rc = exp_sys_call6(nr, a[0], a[1], a[2], a[3], a[4], a[5]);
		exp_sys_fsize_changed();
		return rc;
	}
	if (nr == SYS_futex) {
		long (*fn)(long, const long[6], uint64_t, uint64_t, uint64_t) =
			atomic_load_explicit(&col_proc.futex_call, memory_order_acquire);
		if (fn)
			return fn(nr, a, (uint64_t)(uintptr_t)__builtin_return_address(0),
				  (uint64_t)(uintptr_t)__builtin_frame_address(0) + 16,
				  *(uint64_t *)__builtin_frame_address(0));
	}
	return exp_sys_call6(nr, a[0], a[1], a[2], a[3], a[4], a[5]);
}

/* The arguments of execl* after `arg0`, as a vector (mapped, not malloc'd:
 * execl may be called in a vfork child; args_free after a failed exec).
 * `envp`, if not NULL, receives the pointer after the terminating NULL
 * (execle). */
static char **collect_args(const char *arg0, va_list ap, char *const **envp)
{
	va_list count;
	size_t n = 1;

	va_copy(count, ap);
	while (va_arg(count, char *))
		n++;
	va_end(count);
	size_t bytes = (n + 2) * sizeof(char *);
	char **argv = col_sys_mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (argv == MAP_FAILED)
		return NULL;
	argv[0] = (char *)bytes;          /* its size, before the vector */
	argv++;
	argv[0] = (char *)arg0;
	for (size_t i = 1; i <= n; i++)
		argv[i] = va_arg(ap, char *);
	if (envp)
		*envp = va_arg(ap, char *const *);
	return argv;
}

static void args_free(char **argv)
{
	col_sys_munmap(argv - 1, (size_t)argv[-1]);
}

/* How an execl* form runs its vector: execv, execvp, or execve with the
 * environment after the arguments. */
enum exec_form { EXEC_PATH, EXEC_SEARCH, EXEC_ENV };

static int exec_list(const char *file, const char *arg, va_list ap, enum exec_form form)
{
	char *const *envp = environ;
	char **argv = collect_args(arg, ap, form == EXEC_ENV ? &envp : NULL);

	if (!argv)
		return errno = ENOMEM, -1;
	int rc = form == EXEC_SEARCH ? execvp(file, argv) : execve(file, argv, envp);
	args_free(argv);
	return rc;
}

COL_API int execl(const char *path, const char *arg, ...)
{
	va_list ap;
	va_start(ap, arg);
	int rc = exec_list(path, arg, ap, EXEC_PATH);
	va_end(ap);
	return rc;
}

COL_API int execlp(const char *file, const char *arg, ...)
{
	va_list ap;
	va_start(ap, arg);
	int rc = exec_list(file, arg, ap, EXEC_SEARCH);
	va_end(ap);
	return rc;
}

COL_API int execle(const char *path, const char *arg, ...)
{
	va_list ap;
	va_start(ap, arg);
	int rc = exec_list(path, arg, ap, EXEC_ENV);
	va_end(ap);
	return rc;
}

/* vfork itself is col_vfork.S: the real system call, between these two.
 * Before it, the calling thread marks its state as its child's for a
 * while; back in the parent (the child exec'd or exited), it takes it back
 * and makes the result errno's.  Hidden; called from the assembly only. */
__attribute__((visibility("hidden"))) void col_vfork_enter(void);
__attribute__((visibility("hidden"))) long col_vfork_leave(long rc);

void col_vfork_enter(void)
{
	col_ensure_init();
	/* A deferred fork child's file first: its child's number and slot
	 * come from the counters (col_descend.c). */
	if (!col_in_vfork_child())
		col_open_deferred_sigsafe();
	struct col_thread *t = col_thread_self_sigsafe();
	if (t)
		atomic_store(&t->vfork_child, 1);
}

long col_vfork_leave(long rc)
{
	struct col_thread *t = col_thread_self_sigsafe();

	if (t)
		atomic_store(&t->vfork_child, 0);
	if (rc < 0 && rc > -4096) {
		errno = (int)-rc;
		return -1;
	}
	return rc;
}
