/* SPDX-License-Identifier: MIT
 *
 * attach_check.c — every reason not to attach to a process, found from /proc
 * before the process is touched.  Each refusal is one line that names the
 * process, the cause and what to do; `tally record -p` then exits with 2.
 *
 * In order: the process exists and is a process (not a thread, not a zombie,
 * not stopped, not tally); ptrace would be allowed (ids, dumpable,
 * kernel.yama.ptrace_scope, CAP_SYS_PTRACE); nobody traces it already; it is
 * an x86-64 program with glibc's dynamic loader (not static, not musl, not
 * 32-bit); no seccomp filter could kill it for the collector's system calls;
 * it shares our mount namespace (the collector and the experiment have the
 * same paths there); it is not already profiled by tally.  Then, once the
 * experiment directory exists: its user can read the collector and write
 * the experiment.
 */
#include <dirent.h>
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "attach/attach.h"
#include "format/elf_go.h"
#include "format/elf_peek.h"

#define CAP_SYS_PTRACE_BIT 19

static int refuse(struct attach_target *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int refuse(struct attach_target *t, const char *fmt, ...)
{
	va_list ap;
	int n = snprintf(t->why, sizeof(t->why), "%d (%s): ", (int)t->pid, t->name[0] ? t->name : "?");

	va_start(ap, fmt);
	vsnprintf(t->why + n, sizeof(t->why) - (size_t)n, fmt, ap);
	va_end(ap);
	return 2;
}

static bool have_cap_sys_ptrace(void)
{
	char v[64];

	if (attach_status_field(getpid(), 0, "CapEff", v, sizeof(v)) != 0)
		return geteuid() == 0;
	return (strtoull(v, NULL, 16) >> CAP_SYS_PTRACE_BIT) & 1;
}

static int read_yama(void)
{
	FILE *f = fopen("/proc/sys/kernel/yama/ptrace_scope", "re");
	int v = -1;

	if (f) {
		if (fscanf(f, "%d", &v) != 1)
			v = -1;
		fclose(f);
	}
	return v;
}

const char *attach_permission_why(int yama, bool cap, bool same_ids, bool descendant,
				  char *buf, size_t len)
{
	if (yama == 3) {
		snprintf(buf, len, "kernel.yama.ptrace_scope is 3: attaching is disabled on this system "
			 "until it reboots (no process may be traced)");
		return buf;
	}
	if (yama == 2 && !cap) {
		snprintf(buf, len, "kernel.yama.ptrace_scope is 2: only a process with CAP_SYS_PTRACE may "
			 "attach; run tally as root");
		return buf;
	}
	if (!same_ids && !cap) {
		snprintf(buf, len, "it runs as another user (or changed its user ids): run tally as that "
			 "user, or as root (CAP_SYS_PTRACE)");
		return buf;
	}
	if (yama == 1 && !cap && !descendant) {
		snprintf(buf, len, "kernel.yama.ptrace_scope is 1: only its parent (or a process it named "
			 "with PR_SET_PTRACER) may attach; run tally as root, or set "
			 "`sysctl kernel.yama.ptrace_scope=0`");
		return buf;
	}
	return NULL;
}

/* "Uid:" and "Gid:" lines: real, effective, saved, filesystem. */
static bool ids_of(pid_t pid, const char *key, unsigned v[4])
{
	char s[128];

	return attach_status_field(pid, 0, key, s, sizeof(s)) == 0 &&
	       sscanf(s, "%u %u %u %u", &v[0], &v[1], &v[2], &v[3]) == 4;
}

static bool is_descendant(pid_t pid)
{
	char v[32];

	for (int depth = 0; pid > 1 && depth < 4096; depth++) {
		if (attach_status_field(pid, 0, "PPid", v, sizeof(v)) != 0)
			return false;
		pid = (pid_t)atoi(v);
		if (pid == getpid())
			return true;
	}
	return false;
}

static int check_permission(struct attach_target *t)
{
	unsigned u[4], g[4];
	char buf[512];
	struct stat st;
	char path[64];

	if (!ids_of(t->pid, "Uid", u) || !ids_of(t->pid, "Gid", g))
		return refuse(t, "cannot read its status");
	t->uid = u[0];
	t->euid = u[1];
	t->gid = g[0];
	t->egid = g[1];
	bool same = true;
	for (int i = 0; i < 3; i++)
		same = same && u[i] == getuid() && g[i] == getgid();
	/* A process that is not dumpable (it changed its ids, or said so with
	 * prctl) has its /proc files owned by root: only CAP_SYS_PTRACE may trace it. */
	snprintf(path, sizeof(path), "/proc/%d", (int)t->pid);
	if (same && stat(path, &st) == 0 && st.st_uid != u[1])
		same = false;
	const char *why = attach_permission_why(read_yama(), have_cap_sys_ptrace(), same,
						is_descendant(t->pid), buf, sizeof(buf));
	return why ? refuse(t, "no permission to attach: %s", why) : 0;
}

static int check_exe(struct attach_target *t)
{
	char path[64];
	struct elf_peek p;

	snprintf(path, sizeof(path), "/proc/%d/exe", (int)t->pid);
	ssize_t n = readlink(path, t->exe, sizeof(t->exe) - 1);
	t->exe[n > 0 ? n : 0] = 0;
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return refuse(t, "cannot open its executable: %s", strerror(errno));
	elf_peek_fd(fd, NULL, &p);
	close(fd);
	if (!p.elf_class)
		return refuse(t, "%s is not an ELF executable", t->exe);
	if (p.elf_class != ELFCLASS64 || p.machine != EM_X86_64) {
		const char *what = p.elf_class == ELFCLASS32
			? (p.machine == EM_386 ? "a 32-bit x86 (i386) program"
			   : p.machine == EM_X86_64 ? "an x32 program"
			   : "a 32-bit program for another architecture")
			: "a program for another architecture";
		return refuse(t, "%s is %s: tally attaches to x86-64 processes only", t->exe, what);
	}
	return 0;
}

/* The PT_INTERP of its executable ("" if none: static). */
static void interp_of(pid_t pid, char *out, size_t len)
{
	char path[64];
	struct elf_peek p;

	out[0] = 0;
	snprintf(path, sizeof(path), "/proc/%d/exe", (int)pid);
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return;
	if (elf_peek_fd(fd, NULL, &p) == 0)
		snprintf(out, len, "%s", p.interp);
	close(fd);
}

static int check_loader(struct attach_target *t)
{
	struct attach_maps m;
	bool glibc = false, ld_linux = false;
	char interp[PATH_MAX];

	if (attach_maps_read(t->pid, &m) != 0)
		return refuse(t, "cannot read its memory map: %s", strerror(errno));
	for (size_t i = 0; i < m.n; i++) {
		const char *b = attach_map_base(&m.v[i]);
		if (m.v[i].path[0] != '/')
			continue;
		if (!strncmp(b, "libc.so.6", 9) || !strncmp(b, "libc-2.", 7))
			glibc = true;
		else if (!strncmp(b, "ld-linux", 8))
			ld_linux = true;
	}
	attach_maps_free(&m);
	interp_of(t->pid, interp, sizeof(interp));
	if (glibc && ld_linux) {
		/* Sampled from outside (cli_attach.c) as `tally record` of a new
		 * one is (cli_target.c): injected, the clock's signal would reach
		 * Go's own handler, which throws. */
		char exe[64];
		snprintf(exe, sizeof(exe), "/proc/%d/exe", (int)t->pid);
		int fd = open(exe, O_RDONLY | O_CLOEXEC);
		if (fd >= 0 && elf_go_without_cgo(fd)) {
			t->is_static = true;
			snprintf(t->outside_why, sizeof(t->outside_why), "%s", ELF_GO_OUTSIDE_WHY);
		}
		if (fd >= 0)
			close(fd);
		return 0;
	}
	if (!interp[0]) {
		t->is_static = true;       /* sampled from outside (cli_attach.c) */
		snprintf(t->outside_why, sizeof(t->outside_why), "statically linked");
		return 0;
	}
	return refuse(t, "its loader is %s%s, not glibc's: the collector is built for glibc and "
		      "cannot be loaded into it", interp, strstr(interp, "musl") ? " (musl libc)" : "");
}

/* Was it started by `tally record` (TALLY_EXP in its environment), or is a
 * `tally record -p` attached to it now (our control FIFO among its files)? */
static int check_not_profiled(struct attach_target *t)
{
	char path[PATH_MAX], link[PATH_MAX];
	static char env[1 << 20];

	snprintf(path, sizeof(path), "/proc/%d/environ", (int)t->pid);
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n = fd >= 0 ? read(fd, env, sizeof(env) - 1) : -1;
	if (fd >= 0)
		close(fd);
	if (n > 0)
		env[n] = 0;
	for (ssize_t i = 0; i < n; i += (ssize_t)strlen(env + i) + 1) {
		if (!strncmp(env + i, "TALLY_EXP=", 10))
			return refuse(t, "it was started by `tally record`, which profiles it already "
				      "(experiment %s)", env + i + 10);
	}
	snprintf(path, sizeof(path), "/proc/%d/fd", (int)t->pid);
	DIR *d = opendir(path);
	for (struct dirent *e; d && (e = readdir(d));) {
		char fdp[PATH_MAX + 300];
		snprintf(fdp, sizeof(fdp), "%s/%s", path, e->d_name);
		ssize_t k = readlink(fdp, link, sizeof(link) - 1);
		if (k <= 0)
			continue;
		link[k] = 0;
		char *base = strrchr(link, '/');
		if (base && !strcmp(base, "/attach.ctl")) {
			*base = 0;
			closedir(d);
			return refuse(t, "another `tally record -p` is attached to it (experiment %s)", link);
		}
	}
	if (d)
		closedir(d);
	return 0;
}

/* Can a process with the target's ids read `file` and write in `dir`?  Asked
 * by a child that takes those ids (we are root when they differ). */
int attach_check_reachable(struct attach_target *t, const char *collector, const char *dir)
{
	if (t->euid == geteuid() && t->egid == getegid())
		return 0;
	pid_t c = fork();
	if (c == 0) {
		if (setgroups(0, NULL) != 0 || setresgid(t->egid, t->egid, t->egid) != 0 ||
		    setresuid(t->euid, t->euid, t->euid) != 0)
			_exit(3);
		if (access(collector, R_OK) != 0)
			_exit(1);
		_exit(access(dir, W_OK | X_OK) != 0 ? 2 : 0);
	}
	int st = 0;
	if (c < 0 || waitpid(c, &st, 0) != c || !WIFEXITED(st))
		return refuse(t, "cannot check what its user may access");
	switch (WEXITSTATUS(st)) {
	case 0: return 0;
	case 1: return refuse(t, "it runs as uid %u, who cannot read %s", (unsigned)t->euid, collector);
	case 2: return refuse(t, "it runs as uid %u, who cannot write the experiment %s: choose one "
			      "that user can reach (-o /tmp/NAME.exp)", (unsigned)t->euid, dir);
	default: return refuse(t, "cannot take its user ids to check what it may access");
	}
}

int attach_check(pid_t pid, struct attach_target *t)
{
	char v[256], path[64], ns_self[64] = "", ns_it[64] = "";
	int rc;

	memset(t, 0, sizeof(*t));
	t->pid = pid;
	if (pid == getpid())
		return refuse(t, "that is tally itself");
	if (attach_status_field(pid, 0, "Name", t->name, sizeof(t->name)) != 0)
		return refuse(t, "no such process");
	if (attach_status_field(pid, 0, "Tgid", v, sizeof(v)) == 0 && atoi(v) != pid)
		return refuse(t, "that is a thread of process %s: give the process id (-p %s)", v, v);
	if (attach_status_field(pid, 0, "State", v, sizeof(v)) == 0) {
		if (v[0] == 'Z' || v[0] == 'X')
			return refuse(t, "it has exited (state %s)", v);
		if (v[0] == 'T')
			return refuse(t, "it is stopped (state %s): continue it first (kill -CONT %d)", v,
				      (int)pid);
	}
	if ((rc = check_permission(t)) != 0)
		return rc;
	if (attach_status_field(pid, 0, "TracerPid", v, sizeof(v)) == 0 && atoi(v) != 0) {
		char tracer[64] = "?";
		attach_status_field((pid_t)atoi(v), 0, "Name", tracer, sizeof(tracer));
		return refuse(t, "it is traced already by process %s (%s): a process has one tracer; "
			      "detach that one first", v, tracer);
	}
	if ((rc = check_exe(t)) != 0 || (rc = check_loader(t)) != 0)
		return rc;
	if (!t->is_static && attach_status_field(pid, 0, "Seccomp", v, sizeof(v)) == 0 && atoi(v) != 0)
		return refuse(t, "it runs under a seccomp %s: the system calls the collector makes "
			      "(perf_event_open, mmap, ...) could be refused or kill it",
			      atoi(v) == 1 ? "strict mode" : "filter");
	snprintf(path, sizeof(path), "/proc/%d/ns/mnt", (int)pid);
	readlink(path, ns_it, sizeof(ns_it) - 1);
	readlink("/proc/self/ns/mnt", ns_self, sizeof(ns_self) - 1);
	if (strcmp(ns_it, ns_self))
		return refuse(t, "it is in another mount namespace (a container?): the collector and the "
			      "experiment would not be at the same paths there; run tally inside it");
	return check_not_profiled(t);
}
