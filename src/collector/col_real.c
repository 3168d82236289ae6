/* SPDX-License-Identifier: MIT
 *
 * col_real.c — the table of real functions (see col_real.h).
 *
 * Resolving a name: dlsym(RTLD_NEXT) from here finds the next definition
 * after the collector, which is the real one unless another of tally's
 * libraries defines the name too (a tracer preloaded after us: malloc with
 * -H).  Then the search goes on after that library, object by object in load
 * order, skipping tally's, until an object that defines the name itself.
 * Loaded as a dependency (a program linked with -ltally-mcount), libc may
 * come before us and RTLD_NEXT find nothing: then the first definition is
 * the real one, unless it is ours.  Normal context, once per process.
 */
#include <dlfcn.h>
#include <errno.h>
#include <link.h>
#include <malloc.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <poll.h>
#include <sys/epoll.h>
#include <sys/mman.h>
#include <linux/seccomp.h>
#include <sys/prctl.h>
#include <sys/sendfile.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <fcntl.h>
#include <unistd.h>

#include "collector/col_elfsym.h"
#include "collector/col_glibc.h"
#include "collector/col_real.h"
#include "format/exp_launch.h"

/* The table's types are the libc declarations' (checked here, where <stdio.h>
 * and <malloc.h> may be included). */
#define CHECK_TYPE(type, name, params)                                                   \
	_Static_assert(__builtin_types_compatible_p(__typeof__(&name), type(*) params), \
		       #name " has the wrong type in col_real.h");
COL_REAL_NEXT(CHECK_TYPE)
COL_REAL_CHAIN(CHECK_TYPE)
#undef CHECK_TYPE

/* perf_event_open under a seccomp filter: a filter may kill the caller
 * (SECCOMP_RET_KILL_PROCESS or _THREAD) instead of failing the call, and
 * the program would die of SIGSYS at our first event.  Nothing inside the
 * program tells without making the call: a filter's program is readable
 * only by a privileged tracer (PTRACE_SECCOMP_GET_FILTER), a call in place
 * with an invalid argument dies the same way, and a probe process made by
 * clone killed the program under a filter that kills clone.  But `tally
 * record` can probe outside it: the program inherits exactly the filters
 * the launcher runs under, and a child of the launcher that made the call
 * and lived (cli_seccomp.c) shows it safe, passed in the options
 * (seccomp=FILTERS, seccomp_safe=EXP_SECCOMP_* bits).  So under a filter
 * (Seccomp: 2) a call is made only when the probe made it, the process's
 * Seccomp_filters was the count probed (read once per process, with the
 * rest of its status: col_real_proc_status) and the program has added no
 * filter since (prctl(PR_SET_SECCOMP) and the seccomp system call through
 * syscall() are interposed and told here first, col_real_seccomp_call; a
 * filter added by an inline system call is not seen).  Otherwise it fails
 * with EPERM without being made, and the clock falls back to POSIX timers
 * (col_clock.c logs why).  Before, each call read /proc/thread-self/status
 * again, in place: 20 us, and a number of the program's taken meanwhile.
 * Filters met in practice forbid the call anyway (Docker's default profile
 * fails it with EPERM). */
static const char perf_unprobed[] =
	"perf_event_open not tried under a seccomp filter (Seccomp: 2, and tally record ran under none it "
	"could probe: a filter installed after start may kill its caller, and a probe process may be "
	"killed too)";
static const char perf_killed[] =
	"perf_event_open not tried under a seccomp filter that kills it (tally record's probe child under "
	"the same filter was killed)";
static const char perf_added[] =
	"perf_event_open not tried under a seccomp filter added after start (the program added one, or "
	"Seccomp_filters is not the count tally record probed: the new filter may kill its caller)";

static _Atomic int probed_filters = -1;
static _Atomic unsigned probed_safe;
static _Atomic bool filter_added;     /* the program added one (inherited by a fork child) */
static _Atomic int filters_adding;    /* calls that may add one, under way */

bool col_real_seccomp_call(long nr, long a0)
{
	if ((nr == SYS_seccomp && (a0 == SECCOMP_SET_MODE_FILTER || a0 == SECCOMP_SET_MODE_STRICT)) ||
	    (nr == SYS_prctl && a0 == PR_SET_SECCOMP)) {
		atomic_fetch_add(&filters_adding, 1);
		return true;
	}
	return false;
}

/* A failed call (a library probing what the kernel supports, libseccomp's
 * and systemd's way) adds nothing: perf events stay allowed after it. */
void col_real_seccomp_done(long rc)
{
	if (rc >= 0)
		atomic_store(&filter_added, true);
	atomic_fetch_sub(&filters_adding, 1);
}

void col_real_seccomp_probed(int filters, unsigned safe)
{
	atomic_store(&probed_safe, safe);
	atomic_store(&probed_filters, filters);
}

/* /proc/self/status's value of `key` ("\nSeccomp:") in `buf`, -1 if absent. */
static int status_value(const char *buf, const char *key)
{
	const char *s = strstr(buf, key);

	if (!s)
		return -1;
	for (s += strlen(key); *s == ' ' || *s == '\t'; s++)
		;
	return *s >= '0' && *s <= '9' ? atoi(s) : -1;
}

/* The status file `path` into buf (NUL-terminated; empty if unreadable). */
static void read_status(const char *path, char *buf, size_t len)
{
	int fd = (int)col_syscall(SYS_openat, AT_FDCWD, path, O_RDONLY | O_CLOEXEC);
	long n = fd >= 0 ? col_syscall(SYS_read, fd, buf, len - 1) : -1;

	if (fd >= 0)
		col_syscall(SYS_close, fd);
	buf[n > 0 ? n : 0] = 0;
}

static int start_filters = -1;          /* Seccomp_filters, read with the rest */

void col_real_proc_status(int *tracer_pid, int *seccomp)
{
	static _Atomic pid_t read_by;          /* the process whose fields these are */
	static int tracer;
	static _Atomic int mode;
	pid_t me = (pid_t)col_syscall(SYS_getpid);

	if (atomic_load(&read_by) != me) {
		char buf[4096];
		read_status("/proc/self/status", buf, sizeof(buf));
		tracer = status_value(buf, "\nTracerPid:");
		start_filters = status_value(buf, "\nSeccomp_filters:");
		atomic_store(&mode, status_value(buf, "\nSeccomp:"));
		atomic_store(&read_by, me);
	} else if (atomic_load(&mode) != 2 && atomic_load(&mode) != 1) {
		/* A filter is never removed, but one may have come since: the
		 * kernel's answer, one cheap call (not in strict mode, 1, which
		 * would kill the caller for it). */
		long m = col_syscall(SYS_prctl, PR_GET_SECCOMP, 0, 0, 0, 0);
		if (m >= 0)
			atomic_store(&mode, (int)m);
	}
	*tracer_pid = tracer;
	*seccomp = atomic_load(&mode);
}

int col_real_tracer_in(int fd)
{
	char buf[4096];
	long n = col_syscall(SYS_pread64, fd, buf, sizeof(buf) - 1, 0);

	buf[n > 0 ? n : 0] = 0;
	return status_value(buf, "\nTracerPid:");
}

/* Why the collector must not make `call` (EXP_SECCOMP_*) in this thread
 * (a line for the log), or NULL when it may: no filter, or the filters
 * tally record probed and the call lived there. */
static const char *seccomp_forbids(unsigned call)
{
	int tracer, mode;

	col_real_proc_status(&tracer, &mode);
	if (mode != 2)
		return NULL;
	int probed = atomic_load(&probed_filters);
	if (probed <= 0)
		return perf_unprobed;
	if (!(atomic_load(&probed_safe) & call))
		return perf_killed;
	return !atomic_load(&filter_added) && !atomic_load(&filters_adding) && start_filters == probed ? NULL
												   : perf_added;
}

const char *col_real_perf_forbidden(void)
{
	return seccomp_forbids(EXP_SECCOMP_PERF);
}

bool col_real_clone_forbidden(void)
{
	return seccomp_forbids(EXP_SECCOMP_CLONE) != NULL;
}

bool col_real_robust_forbidden(void)
{
	return seccomp_forbids(EXP_SECCOMP_ROBUST) != NULL;
}

bool col_real_filter_added_since(void)
{
	return atomic_load(&filter_added) || atomic_load(&filters_adding);
}

static int perf_event_open_raw(struct perf_event_attr *attr, pid_t pid, int cpu, int group,
			       unsigned long flags)
{
	if (col_real_perf_forbidden()) {
		errno = EPERM;
		return -1;
	}
	return (int)col_syscall(SYS_perf_event_open, attr, pid, cpu, group, flags);
}

/* fcntl is interposed by the collector itself (col_interpose_fd.c): its own
 * calls go to the kernel. */
static int fcntl_raw(int fd, int cmd, ...)
{
	va_list ap;
	va_start(ap, cmd);
	long arg = va_arg(ap, long);
	va_end(ap);
	return (int)col_syscall(SYS_fcntl, fd, cmd, arg);
}

struct col_real col_real = {
	.sys = EXP_SYS_RAW,
	.perf_event_open = perf_event_open_raw,
	.ioctl = ioctl,
	.fcntl = fcntl_raw,
	.timer_create = timer_create,
	.timer_settime = timer_settime,
	.mkdir = mkdir,
};

static int is_tally(const char *path)
{
	const char *base = strrchr(path, '/');

	return !strncmp(base ? base + 1 : path, "libtally", 8);
}

/* The address ranges of tally's own libraries (their PT_LOAD segments),
 * found at the start of each resolution: a definition outside them is not
 * tally's, an answer that then needs no dladdr.  dladdr scans the defining
 * object's symbol table (libc's: thousands of symbols) and was called for
 * every interposed name: the largest part of the collector's start-up in
 * each process (docs/benchmarks.md, process-heavy work). */
#define TALLY_RANGES_MAX 64
static struct {
	uintptr_t lo, hi;
	uintptr_t base;                 /* its object's load address ... */
	const char *name;               /* ... and name: its link map's */
} tally_ranges[TALLY_RANGES_MAX];
static size_t ntally_ranges;
static bool tally_ranges_known;

static int add_tally_ranges(struct dl_phdr_info *info, size_t size, void *data)
{
	(void)size;
	if (!info->dlpi_name || !is_tally(info->dlpi_name))
		return 0;
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		if (ph->p_type != PT_LOAD)
			continue;
		if (ntally_ranges == TALLY_RANGES_MAX) {
			*(bool *)data = false;      /* not all known: ask dladdr */
			return 1;
		}
		tally_ranges[ntally_ranges].lo = info->dlpi_addr + ph->p_vaddr;
		tally_ranges[ntally_ranges].hi = info->dlpi_addr + ph->p_vaddr + ph->p_memsz;
		tally_ranges[ntally_ranges].base = info->dlpi_addr;
		tally_ranges[ntally_ranges].name = info->dlpi_name;
		ntally_ranges++;
	}
	return 0;
}

static void find_tally_ranges(void)
{
	bool complete = true;

	ntally_ranges = 0;
	dl_iterate_phdr(add_tally_ranges, &complete);
	tally_ranges_known = complete;
}

/* Is `p` surely not in one of tally's libraries?  Else *at: the range that
 * holds it (-1: the ranges are not all known). */
static bool surely_not_tally(const void *p, int *at)
{
	*at = -1;
	if (!tally_ranges_known)
		return false;
	for (size_t i = 0; i < ntally_ranges; i++)
		if ((uintptr_t)p >= tally_ranges[i].lo && (uintptr_t)p < tally_ranges[i].hi) {
			*at = (int)i;
			return false;
		}
	return true;
}

/* The object that defines `p`, if it is one of tally's libraries: from the
 * range that holds it and the loader's list of objects, without dladdr's
 * scan of the object's symbols; dladdr when the list does not have it (an
 * object of another namespace). */
static struct link_map *tally_owner(void *p)
{
	Dl_info info;
	struct link_map *owner = NULL;
	int at;

	if (surely_not_tally(p, &at))
		return NULL;
	if (at >= 0)
		for (struct link_map *l = _r_debug.r_map; l; l = l->l_next)
			if (l->l_addr == tally_ranges[at].base && l->l_name &&
			    !strcmp(l->l_name, tally_ranges[at].name ? tally_ranges[at].name : ""))
				return l;
	if (!dladdr1(p, &info, (void **)&owner, RTLD_DL_LINKMAP) || !info.dli_fname ||
	    !is_tally(info.dli_fname))
		return NULL;
	return owner;
}

/* libc's dlsym, called straight from here: the collector's own dlsym
 * (col_dlsym.S) stands in front of it for the program, and RTLD_NEXT must
 * mean "after the collector" whoever asks. */
static void *(*libc_dlsym)(void *, const char *);

void *(*col_real_dlsym(void))(void *, const char *)
{
	void *(*fn)(void *, const char *) = __atomic_load_n(&libc_dlsym, __ATOMIC_ACQUIRE);

	/* After us when preloaded; else (loaded as a dependency, after libc)
	 * the first one, which is then libc's, not ours. */
	static void *const handles[] = { RTLD_NEXT, RTLD_DEFAULT };
	static const char *const versions[] = { "GLIBC_2.34", "GLIBC_2.2.5" };
	for (size_t h = 0; !fn && h < 2; h++)
		for (size_t v = 0; !fn && v < 2; v++) {
			void *p = dlvsym(handles[h], "dlsym", versions[v]);
			if (p && !tally_owner(p))
				fn = (void *(*)(void *, const char *))p;
		}
	if (fn)
		__atomic_store_n(&libc_dlsym, fn, __ATOMIC_RELEASE);
	return fn;
}

static void *dlsym_here(void *h, const char *name)
{
	void *(*fn)(void *, const char *) = col_real_dlsym();
	return fn ? fn(h, name) : NULL;
}

struct next_search {
	const struct link_map *after;
	const char *name;
	bool past;                      /* `after` met */
	void *found;
};

/* dl_iterate_phdr's callback: objects in the loader's order; from the
 * one after `after` on, the first not tally's that defines the name. */
static int next_search_object(struct dl_phdr_info *info, size_t size, void *arg)
{
	struct next_search *s = arg;

	(void)size;
	if (!s->past) {
		s->past = info->dlpi_addr == s->after->l_addr && info->dlpi_name && s->after->l_name &&
			  !strcmp(info->dlpi_name, s->after->l_name);
		return 0;
	}
	if (!info->dlpi_name || !info->dlpi_name[0] || is_tally(info->dlpi_name))
		return 0;
	for (int i = 0; i < info->dlpi_phnum; i++)
		if (info->dlpi_phdr[i].p_type == PT_DYNAMIC) {
			const ElfW(Dyn) *dyn = (const void *)(info->dlpi_addr + info->dlpi_phdr[i].p_vaddr);
			s->found = col_elfsym_lookup_at(info->dlpi_addr, dyn, s->name);
			break;
		}
	return s->found != NULL;
}

/* The definition of `name` in the first object after `after` that defines it
 * and is not tally's: read from each object's own symbol table
 * (col_elfsym.c).  Not dlopen(RTLD_NOLOAD) and dlsym on its handle, as
 * before: this runs at the first malloc or lock of a tracer's, often inside
 * a library's constructor, and dlopen of an object the program loaded at
 * start, not yet initialised, ran its constructors and its dependencies'
 * there, out of the program's order and while the table was half made
 * (gdb under -H: glib's constructor ran inside libp11-kit's malloc and
 * GSlice aborted; under -s, libsource-highlight's inside gnutls's first
 * lock, and its own lock found no real pthread_mutex_lock: SIGSEGV; every
 * run).
 *
 * Walked by dl_iterate_phdr, which holds the loader's lock on its list of
 * objects (dl_load_write_lock): a dlclose in another thread meanwhile
 * cannot free or unmap an object under the search, nor a dlopen link one
 * in half-way.  A dlopen under way may still have an object listed and not
 * yet relocated: an indirect function of it met first would have its
 * resolver called before its relocations (a name a tracer resolves at its
 * first use, defined first by an object another thread is opening at that
 * instant; not guarded). */
static void *next_after(struct link_map *after, const char *name)
{
	struct next_search s = { after, name, false, NULL };

	dl_iterate_phdr(next_search_object, &s);
	return s.found;
}

static void *resolve(const char *name)
{
	void *p = dlsym_here(RTLD_NEXT, name);
	struct link_map *owner;

	if (!p)
		p = dlsym_here(RTLD_DEFAULT, name);
	for (int hops = 0; p && hops < 16 && (owner = tally_owner(p)); hops++)
		p = next_after(owner, name);
	return p;
}

/* The next definition after the collector's, whoever's it is; the real one
 * when dlsym finds none after us (loaded as a dependency). */
static void *chain_next(const char *name)
{
	void *p = dlsym_here(RTLD_NEXT, name);

	return p ? p : resolve(name);
}

#define RESOLVE(type, name, params)                                                   \
	__atomic_store_n(&col_real.name, (type(*) params)resolve(#name), __ATOMIC_RELAXED);

/* The collector's own part: what its interposers stand in front of. */
static void resolve_collector(void)
{
	find_tally_ranges();
	__atomic_store_n(&col_real.dlopen, (void *(*)(const char *, int))resolve("dlopen"),
			 __ATOMIC_RELAXED);
	__atomic_store_n(&col_real.dlclose, (int (*)(void *))resolve("dlclose"), __ATOMIC_RELAXED);
	COL_REAL_COLLECTOR(RESOLVE)
	/* The chain: the very next definition, a tracer's included. */
#define RESOLVE_NEXT(type, name, params)                                              \
	__atomic_store_n(&col_real.chain.name, (type(*) params)chain_next(#name), __ATOMIC_RELAXED);
	COL_REAL_CHAIN(RESOLVE_NEXT)
#undef RESOLVE_NEXT
}

/* The tracers' part (about 180 names of the 210): only a process that
 * loaded a tracer (-H, -s, -i) asks for it, through tally__real. */
static void resolve_tracers(void)
{
	COL_REAL_HEAP(RESOLVE)
	COL_REAL_SYNC(RESOLVE)
	COL_REAL_IO(RESOLVE)
#undef RESOLVE
}

/* 0 nothing resolved; 1 the collector's part; 2 the tracers' too. */
static _Atomic int resolved;
static __thread int resolving __attribute__((tls_model("initial-exec")));

const struct col_real *col_real_table(void)
{
	if (__builtin_expect(atomic_load_explicit(&resolved, memory_order_acquire) >= 1, 1))
		return &col_real;
	if (resolving)
		return NULL;          /* an allocation of dlsym's, while we resolve */
	resolving = 1;
	resolve_collector();
	exp_sys = &col_real.sys;
	resolving = 0;
	int none = 0;              /* a tracer's call may have gone further meanwhile */
	atomic_compare_exchange_strong_explicit(&resolved, &none, 1, memory_order_release, memory_order_relaxed);
	return &col_real;
}

COL_API const struct col_real *tally__real(void)
{
	const struct col_real *r = col_real_table();

	if (!r || __builtin_expect(atomic_load_explicit(&resolved, memory_order_acquire) == 2, 1))
		return r;
	if (resolving)
		return NULL;
	resolving = 1;
	resolve_tracers();
	resolving = 0;
	atomic_store_explicit(&resolved, 2, memory_order_release);
	return r;
}
