/* SPDX-License-Identifier: MIT
 *
 * attach_inject.c — loading the collector into a running process: one of its
 * threads, stopped at a safe point, calls dlopen(collector, RTLD_NOW) and
 * then tally__attach(DIR, OPTIONS), and is put back exactly as it was.
 *
 * The thread is chosen so that the calls cannot deadlock on a lock it holds
 * itself (malloc's, the dynamic loader's): a thread blocked in a system call
 * that holds none of them (read, poll, nanosleep, accept, ...), or one
 * running the program's own code, outside libc and the loader.  Threads are
 * looked at one by one, each stopped only for the look (tens of µs); the
 * others run on.  A thread waiting on a futex is taken only when no better
 * one turned up for a while.  docs/attach.md lists what this cannot see.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "attach/attach.h"
#include "attach/attach_ptrace.h"

#define MAX_THREADS 65536
#define PICK_TIMEOUT_NS 3000000000ull
#define FUTEX_AFTER_ROUNDS 20
#define RED_ZONE 128
#define STACK_NEEDED (64 * 1024)          /* for dlopen and the collector's set-up */
#define RTLD_NOW_ 2
#define RTLD_DLOPEN_ 0x80000000          /* __libc_dlopen_mode's internal flag */

/* Addresses in the target. */
struct plan {
	uint64_t dlopen, dlopen_flags, dlerror, errno_location, gadget;
};

enum verdict { V_SYSCALL, V_USER, V_FUTEX, V_UNSAFE };

static bool base_is(const struct attach_map *m, const char *prefix)
{
	return !strncmp(attach_map_base(m), prefix, strlen(prefix));
}

static const struct attach_map *find_object(const struct attach_maps *maps, const char *prefix)
{
	for (size_t i = 0; i < maps->n; i++)
		if (maps->v[i].path[0] == '/' && maps->v[i].perms[2] == 'x' && base_is(&maps->v[i], prefix))
			return &maps->v[i];
	return NULL;
}

/* A `syscall` instruction (0f 05) anywhere in libc's code. */
static uint64_t find_gadget(pid_t pid, const struct attach_map *text)
{
	static uint8_t buf[65536];

	for (uint64_t a = text->start; a < text->end; a += sizeof(buf) - 1) {
		size_t n = text->end - a < sizeof(buf) ? (size_t)(text->end - a) : sizeof(buf);
		if (attach_mem_read(pid, a, buf, n) != 0)
			return 0;
		for (size_t i = 0; i + 1 < n; i++)
			if (buf[i] == 0x0f && buf[i + 1] == 0x05)
				return a + i;
	}
	return 0;
}

static int make_plan(pid_t pid, const struct attach_maps *maps, struct plan *p, char *why, size_t len)
{
	const struct attach_map *libc = find_object(maps, "libc.so"), *libdl;

	if (!libc)
		libc = find_object(maps, "libc-2.");
	if (!libc) {
		snprintf(why, len, "no glibc (libc.so.6) in the process");
		return -1;
	}
	p->dlopen_flags = RTLD_NOW_;
	p->dlopen = attach_symbol(pid, maps, libc, "dlopen", why, len);
	p->dlerror = attach_symbol(pid, maps, libc, "dlerror", why, len);
	libdl = p->dlopen ? NULL : find_object(maps, "libdl.so");
	if (libdl) {                          /* glibc < 2.34 */
		p->dlopen = attach_symbol(pid, maps, libdl, "dlopen", why, len);
		p->dlerror = attach_symbol(pid, maps, libdl, "dlerror", why, len);
	}
	if (!p->dlopen) {
		p->dlopen = attach_symbol(pid, maps, libc, "__libc_dlopen_mode", why, len);
		p->dlopen_flags |= RTLD_DLOPEN_;
	}
	p->errno_location = attach_symbol(pid, maps, libc, "__errno_location", why, len);
	p->gadget = find_gadget(pid, libc);
	if (!p->dlopen || !p->errno_location) {
		return -1;
	} else if (!p->gadget) {
		snprintf(why, len, "%s: no syscall instruction found in its code", libc->path);
		return -1;
	}
	return 0;
}

/* System calls whose wait holds no lock of libc or the loader. */
static bool quiet_syscall(long nr, const struct attach_thread *t)
{
	switch (nr) {
	case SYS_read: case SYS_write: case SYS_readv: case SYS_writev: case SYS_pread64:
	case SYS_pwrite64: case SYS_recvfrom: case SYS_recvmsg: case SYS_sendto: case SYS_sendmsg:
	case SYS_accept: case SYS_accept4: case SYS_connect: case SYS_poll: case SYS_select:
	case SYS_epoll_wait: case SYS_nanosleep: case SYS_clock_nanosleep: case SYS_pause:
	case SYS_wait4: case SYS_waitid: case SYS_msgrcv: case SYS_semop: case SYS_semtimedop:
	case SYS_rt_sigtimedwait: case SYS_io_getevents: case SYS_flock: case SYS_fcntl:
	case SYS_mq_timedreceive: case SYS_recvmmsg:
		return true;
	/* These install a temporary signal mask while they wait; changing the
	 * mask would lose the thread's real one.  Fine without a mask. */
	case SYS_ppoll:
		return t->regs.r10 == 0;
	case SYS_epoll_pwait: case SYS_epoll_pwait2:
		return t->regs.r8 == 0;
	default:
		return false;
	}
}

/* Is the stopped thread at a point where it can call dlopen? */
static enum verdict judge(const struct attach_thread *t, const struct attach_maps *maps,
			  char *how, size_t len)
{
	static const char *const locked_objects[] = { "libc.so", "libc-", "ld-linux", "ld-",
						      "libpthread", "libdl", "libgcc_s" };
	const struct attach_map *stack = attach_maps_find(maps, t->regs.rsp);
	const struct attach_map *code = attach_maps_find(maps, t->regs.rip);
	uint64_t room = stack ? t->regs.rsp - stack->start : 0;

	if (!stack || (strcmp(stack->path, "[stack]") ? room < STACK_NEEDED : room < 16384)) {
		snprintf(how, len, "thread %d: too little stack left below its stack pointer",
			 (int)t->tid);
		return V_UNSAFE;
	}
	if (attach_thread_in_syscall(t)) {
		long nr = (long)t->regs.orig_rax;
		snprintf(how, len, "thread %d: blocked in system call %ld", (int)t->tid, nr);
		/* A futex wait may be inside a lock of libc's; restart_syscall
		 * continues an interrupted sleep, poll or futex wait. */
		if (nr == SYS_futex || nr == SYS_restart_syscall)
			return V_FUTEX;
		return quiet_syscall(nr, t) ? V_SYSCALL : V_UNSAFE;
	}
	const char *where = code ? attach_map_base(code) : "?";
	snprintf(how, len, "thread %d: running in %s", (int)t->tid, where);
	for (size_t i = 0; code && i < sizeof(locked_objects) / sizeof(locked_objects[0]); i++)
		if (base_is(code, locked_objects[i]))
			return V_UNSAFE;
	return code ? V_USER : V_UNSAFE;
}

/* Stop the threads one by one until one is at a safe point (left stopped in
 * *t), letting the others go at once. */
static int pick_thread(struct attach_target *tg, struct attach_thread *t, struct attach_timing *tm)
{
	static pid_t tids[MAX_THREADS];
	char how[160] = "", why[256];
	uint64_t deadline = attach_now_ns() + PICK_TIMEOUT_NS;

	for (int round = 0;; round++) {
		struct attach_maps maps;
		int n = attach_threads(tg->pid, tids, MAX_THREADS);
		if (n <= 0 || attach_maps_read(tg->pid, &maps) != 0) {
			snprintf(tg->why, sizeof(tg->why), "%d: the process ended", (int)tg->pid);
			return -1;
		}
		for (int i = 0; i < n; i++) {
			errno = 0;
			if (attach_thread_stop(t, tg->pid, tids[i], why, sizeof(why)) != 0) {
				if (errno == EPERM || t->group_stopped) {
					snprintf(tg->why, sizeof(tg->why), "%d: %s", (int)tg->pid, why);
					attach_maps_free(&maps);
					return -1;
				}
				continue;        /* it ended meanwhile */
			}
			enum verdict v = judge(t, &maps, how, sizeof(how));
			if (v == V_SYSCALL || v == V_USER || (v == V_FUTEX && round >= FUTEX_AFTER_ROUNDS)) {
				snprintf(tm->how, sizeof(tm->how), "%s", how);
				attach_maps_free(&maps);
				return 0;
			}
			tm->probes++;
			tm->probe_ns += attach_now_ns() - t->stopped_at_ns;
			attach_thread_release(t);
		}
		attach_maps_free(&maps);
		if (attach_now_ns() > deadline) {
			snprintf(tg->why, sizeof(tg->why),
				 "%d: no thread was at a safe point to load the collector for %.0f s "
				 "(last seen: %s); try again", (int)tg->pid, PICK_TIMEOUT_NS / 1e9, how);
			return -1;
		}
		struct timespec ts = { 0, 2000000 };
		nanosleep(&ts, NULL);
	}
}

/* Read a NUL-terminated string of the target. */
static void read_string(pid_t pid, uint64_t addr, char *buf, size_t len)
{
	buf[0] = 0;
	for (size_t i = 0; addr && i + 1 < len; i++) {
		if (attach_mem_read(pid, addr + i, &buf[i], 1) != 0 || !buf[i]) {
			buf[i] = 0;
			return;
		}
		buf[i + 1] = 0;
	}
}

/* The calls, in the stopped thread t.  0 or -1 with tg->why. */
static int calls(struct attach_target *tg, struct attach_thread *t, const struct plan *p,
		 const char *collector, const char *expdir, const char *options)
{
	char why[512], msg[512];
	size_t lc = strlen(collector) + 1, ld = strlen(expdir) + 1, lo = strlen(options) + 1;
	size_t strings = (lc + ld + lo + 15) & ~(size_t)15;
	uint64_t top = t->regs.rsp - RED_ZONE - strings;     /* our strings, under the red zone */
	uint64_t sp = top & ~15ull, errno_at = 0, handle = 0, rc = 0, attach_fn;
	int saved_errno = 0;
	char *buf = malloc(strings);

	if (!buf)
		return -1;
	memset(buf, 0, strings);
	memcpy(buf, collector, lc);
	memcpy(buf + lc, expdir, ld);
	memcpy(buf + lc + ld, options, lo);
	int w = attach_mem_write(tg->pid, top, buf, strings);
	free(buf);
	if (w != 0) {
		snprintf(tg->why, sizeof(tg->why), "%d: cannot write to the stack of thread %d",
			 (int)tg->pid, (int)t->tid);
		return -1;
	}
	/* errno is the thread's own: saved before, put back after. */
	if (attach_thread_call(t, p->errno_location, 0, 0, sp, p->gadget, &errno_at, why, sizeof(why)) ||
	    attach_mem_read(tg->pid, errno_at, &saved_errno, sizeof(saved_errno)) != 0)
		goto failed;
	if (attach_thread_call(t, p->dlopen, top, p->dlopen_flags, sp, p->gadget, &handle, why,
			       sizeof(why)))
		goto failed;
	if (!handle) {
		uint64_t m = 0;
		if (p->dlerror)
			attach_thread_call(t, p->dlerror, 0, 0, sp, p->gadget, &m, why, sizeof(why));
		read_string(tg->pid, m, msg, sizeof(msg));
		snprintf(tg->why, sizeof(tg->why), "%d: its dlopen of the collector failed: %s",
			 (int)tg->pid, msg[0] ? msg : "(no message)");
		goto restore_errno;
	}
	struct attach_maps maps;
	if (attach_maps_read(tg->pid, &maps) != 0) {
		snprintf(why, sizeof(why), "cannot read its maps");
		goto failed;
	}
	const struct attach_map *col = NULL;
	for (size_t i = 0; i < maps.n && !col; i++)
		if (!strcmp(maps.v[i].path, collector))
			col = &maps.v[i];
	attach_fn = col ? attach_symbol(tg->pid, &maps, col, "tally__attach", why, sizeof(why)) : 0;
	attach_maps_free(&maps);
	if (!attach_fn) {
		snprintf(tg->why, sizeof(tg->why), "%d: the collector was loaded but its entry point "
			 "was not found: %s", (int)tg->pid, col ? why : "no mapping of it");
		goto restore_errno;
	}
	if (attach_thread_call(t, attach_fn, top + lc, top + lc + ld, sp, p->gadget, &rc, why,
			       sizeof(why)))
		goto failed;
	if ((int)rc != 0) {
		int e = -(int)rc;
		snprintf(tg->why, sizeof(tg->why), "%d: the collector could not start: %s", (int)tg->pid,
			 e == EBUSY ? "it is collecting already (another `tally record -p` is attached)"
				    : strerror(e));
		goto restore_errno;
	}
	attach_mem_write(tg->pid, errno_at, &saved_errno, sizeof(saved_errno));
	return 0;

failed:
	snprintf(tg->why, sizeof(tg->why), "%d: while loading the collector in thread %d: %s",
		 (int)tg->pid, (int)t->tid, why);
restore_errno:
	if (errno_at)
		attach_mem_write(tg->pid, errno_at, &saved_errno, sizeof(saved_errno));
	return -1;
}

int attach_inject(struct attach_target *tg, const char *collector, const char *expdir,
		  const char *options, struct attach_timing *tm)
{
	static struct attach_thread t;     /* 16 KiB of vector state: not on our stack */
	struct attach_maps maps;
	struct plan p;
	char why[512];

	memset(tm, 0, sizeof(*tm));
	if (attach_maps_read(tg->pid, &maps) != 0) {
		snprintf(tg->why, sizeof(tg->why), "%d: cannot read /proc/%d/maps", (int)tg->pid,
			 (int)tg->pid);
		return -1;
	}
	int rc = make_plan(tg->pid, &maps, &p, why, sizeof(why));
	attach_maps_free(&maps);
	if (rc != 0) {
		snprintf(tg->why, sizeof(tg->why), "%d: %s", (int)tg->pid, why);
		return -1;
	}
	if (pick_thread(tg, &t, tm) != 0)
		return -1;
	tm->tid = t.tid;
	rc = calls(tg, &t, &p, collector, expdir, options);
	tm->syscall_stops = t.syscall_stops;
	if (attach_thread_restore(&t, why, sizeof(why)) != 0) {
		snprintf(tg->why, sizeof(tg->why), "%d: %s", (int)tg->pid, why);
		rc = -1;
	}
	tm->stopped_ns = attach_now_ns() - t.stopped_at_ns;
	return rc;
}
