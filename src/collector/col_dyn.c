/* SPDX-License-Identifier: MIT
 *
 * col_dyn.c — dynamically generated code in the experiment: a DYN_FUNC
 * record (dyn.dat) per function, with a copy of its instructions (the Sun
 * analyzer's dyntext) so that it can be disassembled after the process is gone.
 * Three sources:
 *  - tally_func_load / tally_func_unload (include/tally.h), from any thread,
 *    when the program calls them;
 *  - /tmp/perf-PID.map, the JIT convention perf reads (`START SIZE name` per
 *    line, hex), read when the process ends (col_init.c's destructor): the
 *    code is copied then, if still mapped;
 *  - jit-PID.dump, the jitdump format, found mapped in /proc/self/maps when
 *    the process ends (JITs map it so that perf sees its name), if it
 *    recorded anything with a pc: each JIT_CODE_LOAD carries its time, name
 *    and code.
 * Code is copied with process_vm_readv, which fails rather than faults on
 * memory no longer mapped; what cannot be copied is counted
 * (dyn.code-not-copied) and the function is recorded with what could be.
 * Not sigsafe: runs in normal context only.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <unistd.h>

#include "collector/col_dyn.h"
#include "collector/col_fds.h"
#include "collector/col_files.h"
#include "collector/col_log.h"
#include "collector/col_state.h"
#include "collector/col_sys.h"
#include "collector/col_time.h"

#define DYN_CODE_MAX (1u << 20)     /* bytes of one function copied at most */
#define DYN_SMALL 4096              /* records up to this go through the thread's block */

static atomic_flag open_lock = ATOMIC_FLAG_INIT;

static uint32_t pad8(uint64_t n)
{
	return (uint32_t)((n + 7) & ~(uint64_t)7);
}

/* Copy `len` bytes at `addr` of this process into `out`; bytes copied. */
static size_t copy_code(uint64_t addr, void *out, size_t len)
{
	struct iovec local = { out, len }, remote = { (void *)(uintptr_t)addr, len };
	ssize_t n = process_vm_readv(getpid(), &local, 1, &remote, 1, 0);

	return n > 0 ? (size_t)n : 0;
}

/* dyn.dat, opened on first use; 0 or -1. */
static int dyn_file(void)
{
	struct exp_file_writer *w = &col_proc.file[EXP_FILE_DYN];
	int rc = 0;

	while (atomic_flag_test_and_set_explicit(&open_lock, memory_order_acquire))
		;
	if (!exp_writer_ready(w) && !atomic_load(&w->full))
		rc = col_writer_open(EXP_FILE_DYN);
	atomic_flag_clear_explicit(&open_lock, memory_order_release);
	return rc < 0 || !exp_writer_ready(w) ? -1 : 0;
}

/* Fill a DYN_FUNC record of `len` bytes at `r`; `code` (or, if NULL, the
 * process's memory at addr) gives the bytes. */
static void fill(void *rec, uint32_t flags, uint64_t time_ns, uint64_t addr, uint64_t size,
		 const char *name, uint32_t name_len, const uint32_t (*lines)[2], uint32_t nlines,
		 const void *code, uint32_t code_len)
{
	struct exp_dyn_func *r = rec;
	uint8_t *p = (uint8_t *)(r + 1);

	r->time_ns = time_ns;
	r->addr = addr;
	r->size = size;
	r->name_len = name_len;
	r->nlines = nlines;
	memcpy(p, name, name_len - 1);
	p[name_len - 1] = 0;
	p += pad8(name_len);
	memcpy(p, lines, 8 * (size_t)nlines);
	p += 8 * (size_t)nlines;
	size_t got = code ? (memcpy(p, code, code_len), code_len) : copy_code(addr, p, code_len);
	if (got < code_len || code_len < size) {
		flags |= EXP_DYN_TRUNCATED;
		col_count_sigsafe(EXP_CTR_DYN_LOST, 1);
	}
	r->code_len = (uint32_t)got;
	r->flags = flags;
}

/* col_dyn_func's work; `held`: the calling thread, already inside the
 * collector (the process's end holds it), or NULL to enter it here.  A
 * small record goes through the thread's block; only one that cannot (too
 * big, or the thread busy) takes whole blocks of its own: at the end, where
 * col_enter refuses, a perf map's every line took 16 KiB that way (5,000
 * lines, 79 MB of dyn.dat). */
static int dyn_func(struct col_thread *held, uint32_t flags, uint64_t time_ns, uint64_t addr, uint64_t size,
		    const char *name, const uint32_t (*lines)[2], uint32_t nlines, const void *code)
{
	if (!col_proc.active || dyn_file())
		return -1;
	uint32_t name_len = (uint32_t)strnlen(name, 4000) + 1;
	uint32_t code_len = size < DYN_CODE_MAX ? (uint32_t)size : DYN_CODE_MAX;
	if (nlines > (1u << 16))
		nlines = 1u << 16;
	uint32_t len = (uint32_t)sizeof(struct exp_dyn_func) + pad8(name_len) + 8 * nlines + pad8(code_len);
	uint8_t small[DYN_SMALL] __attribute__((aligned(8)));
	struct col_thread *t;

	if (len <= DYN_SMALL && (t = held ? held : col_enter())) {
		memset(small, 0, len);
		fill(small, flags, time_ns, addr, size, name, name_len, lines, nlines, code, code_len);
		int rc = col_write_sigsafe(t, EXP_FILE_DYN, EXP_REC_DYN_FUNC, small, len);
		if (!held)
			col_leave(t);
		return rc;
	}
	size_t mapped;
	void *rec = exp_large_reserve_sigsafe(&col_proc.file[EXP_FILE_DYN], len, &mapped);
	if (!rec) {
		col_count_sigsafe(EXP_CTR_LOST_EVENTS, 1);
		return -1;
	}
	fill(rec, flags, time_ns, addr, size, name, name_len, lines, nlines, code, code_len);
	exp_record_publish_sigsafe(rec, EXP_REC_DYN_FUNC, len);
	exp_large_release_sigsafe(rec, mapped);
	return 0;
}

int col_dyn_func(uint32_t flags, uint64_t time_ns, uint64_t addr, uint64_t size, const char *name,
		 const uint32_t (*lines)[2], uint32_t nlines, const void *code)
{
	return dyn_func(NULL, flags, time_ns, addr, size, name, lines, nlines, code);
}

int col_dyn_unload(uint64_t addr)
{
	struct exp_dyn_unload r = { .time_ns = col_now_ns_sigsafe(), .addr = addr };
	struct col_thread *t;

	if (!col_proc.active || dyn_file() || !(t = col_enter()))
		return -1;
	int rc = col_write_sigsafe(t, EXP_FILE_DYN, EXP_REC_DYN_UNLOAD, &r, sizeof(r));
	col_leave(t);
	return rc;
}

/* ---- at exit: perf map and jitdump ---------------------------------------- */

/* A file read whole into an anonymous mapping, by read_whole: the open
 * goes the way of every one-use descriptor (col_fds_use: aside while other
 * threads of the program may open, as they may while it ends), so no
 * number of the program's is taken even for an instant.  The mapping is
 * the caller's (the helper shares the memory). */
struct whole {
	const char *path;
	char *buf;                      /* NULL: absent, empty or too big */
	size_t len, maplen;
};

/* Raw system calls only (col_fds_aside).  0 or -errno. */
static int read_whole(void *p)
{
	struct whole *w = p;
	struct stat st;
	int fd = col_sys_openat(AT_FDCWD, w->path, O_RDONLY | O_CLOEXEC, 0);

	if (fd < 0)
		return -errno;
	if (col_sys_fstat(fd, &st) != 0 || st.st_size <= 0 || st.st_size > (1 << 30)) {
		col_sys_close(fd);
		return 0;
	}
	size_t maplen = (size_t)st.st_size + 1, n = 0;
	char *buf = col_sys_mmap(NULL, maplen, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (buf == MAP_FAILED) {
		col_sys_close(fd);
		return 0;
	}
	for (ssize_t got; n < (size_t)st.st_size &&
			  (got = col_sys_read(fd, buf + n, (size_t)st.st_size - n)) > 0;)
		n += (size_t)got;
	col_sys_close(fd);
	buf[n] = 0;
	w->buf = buf;
	w->len = n;
	w->maplen = maplen;
	return 0;
}

/* Read the file at `path` whole into an anonymous mapping; NULL if it
 * cannot be (unmap *len bytes, rounded, when done).  A failure other than
 * its absence is logged: what it named is then missing from the profile. */
static char *read_all(const char *path, size_t *len, size_t *maplen)
{
	struct whole w = { path, NULL, 0, 0 };
	int rc = col_fds_use(read_whole, &w);

	if (rc < 0 && rc != -ENOENT)
		col_log_error_sigsafe(path, -rc, "dynamic code it names not recorded");
	*len = w.len;
	*maplen = w.maplen;
	return w.buf;
}

static uint64_t hex(const char **p)
{
	uint64_t v = 0;

	if ((*p)[0] == '0' && ((*p)[1] == 'x' || (*p)[1] == 'X'))
		*p += 2;
	for (;; (*p)++) {
		char c = **p;
		int d = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 :
			c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
		if (d < 0)
			return v;
		v = v * 16 + (uint64_t)d;
	}
}

/* /tmp/perf-PID.map: `START SIZE name` per line. */
static void read_perf_map(struct col_thread *held)
{
	char path[64];
	size_t len, maplen;

	snprintf(path, sizeof(path), "/tmp/perf-%d.map", (int)getpid());
	char *buf = read_all(path, &len, &maplen);
	if (!buf)
		return;
	for (char *l = buf; l < buf + len;) {
		char *nl = memchr(l, '\n', (size_t)(buf + len - l));
		if (nl)
			*nl = 0;
		const char *p = l;
		uint64_t start = hex(&p);
		if (*p == ' ') {
			p++;
			uint64_t size = hex(&p);
			if (*p == ' ' && size && p[1])
				dyn_func(held, EXP_DYN_PERFMAP, 0, start, size, p + 1, NULL, 0, NULL);
		}
		l = nl ? nl + 1 : buf + len;
	}
	col_sys_munmap(buf, maplen);
}

/* jitdump (tools/perf/Documentation/jitdump-specification.txt): a header,
 * then records { u32 id, u32 total_size, u64 timestamp, ... }; JIT_CODE_LOAD
 * (id 0) has pid, tid, vma, code_addr, code_size, code_index, the name
 * (NUL-terminated) and the code. */
static void read_jitdump(struct col_thread *held, const char *path)
{
	size_t len, maplen;
	char *buf = read_all(path, &len, &maplen);
	uint32_t magic, hsize, flags_lo;

	if (!buf)
		return;
	memcpy(&magic, buf, len >= 4 ? 4 : 0);
	if (len < 40 || magic != 0x4A695444) {     /* "JiTD", our byte order */
		col_sys_munmap(buf, maplen);
		return;
	}
	memcpy(&hsize, buf + 8, 4);
	memcpy(&flags_lo, buf + 32, 4);
	bool tsc = flags_lo & 1;                    /* JITDUMP_FLAGS_ARCH_TIMESTAMP */
	for (size_t off = hsize; off + 16 <= len;) {
		uint32_t id, total;
		uint64_t ts;
		memcpy(&id, buf + off, 4);
		memcpy(&total, buf + off + 4, 4);
		memcpy(&ts, buf + off + 8, 8);
		if (total < 16 || total > len - off)
			break;
		if (id == 0 && total >= 16 + 40) {
			uint64_t code_addr, code_size;
			memcpy(&code_addr, buf + off + 16 + 16, 8);
			memcpy(&code_size, buf + off + 16 + 24, 8);
			const char *name = buf + off + 16 + 40;
			size_t nlen = strnlen(name, total - 56);
			size_t code_off = 56 + nlen + 1;
			if (nlen < total - 56 && code_size <= total - code_off && code_size < (1u << 30)) {
				dyn_func(held, EXP_DYN_JITDUMP, tsc ? 0 : ts, code_addr, code_size, name, NULL, 0,
					     buf + off + code_off);
			}
		}
		off += total;
	}
	col_sys_munmap(buf, maplen);
}

/* The scan of /proc/self/maps for jit-PID.dump files, in the caller's
 * frame: scan_maps runs aside (col_fds_use), where the helper's
 * /proc/self/maps is the program's (it shares the memory), and only notes
 * the files; they are read after it. */
#define JITDUMPS_MAX 4
struct jit_scan {
	char buf[8192], want[40];
	char found[JITDUMPS_MAX][4096];  /* found[n - 1]: the last one noted */
	int n;
};

/* One line of /proc/self/maps: a jit-PID.dump file (`want`) not the same
 * as the last one noted is noted. */
static void jitdump_line(const char *l, struct jit_scan *s)
{
	const char *slash = strchr(l, '/');
	size_t wl = strlen(s->want), pl = slash ? strlen(slash) : 0;

	if (slash && pl >= wl && !strcmp(slash + pl - wl, s->want) && pl < sizeof(s->found[0]) &&
	    (!s->n || strcmp(slash, s->found[s->n - 1])) && s->n < JITDUMPS_MAX)
		memcpy(s->found[s->n++], slash, pl + 1);
}

/* /proc/self/maps read through the scan's buffer, line by line: a big
 * buffer mapped and unmapped here cost a TLB flush in every process's end.
 * A line longer than the buffer (a path near PATH_MAX) is looked at in its
 * first part only, which cannot end in the name looked for.  Raw system
 * calls only (col_fds_aside).  0 or -errno. */
static int scan_maps(void *p)
{
	struct jit_scan *s = p;
	size_t len = 0;
	bool eof = false;
	int fd = col_sys_openat(AT_FDCWD, "/proc/self/maps", O_RDONLY | O_CLOEXEC, 0);

	if (fd < 0)
		return -errno;
	s->n = 0;
	while (!eof) {
		ssize_t got = col_sys_read(fd, s->buf + len, sizeof(s->buf) - 1 - len);
		if (got > 0)
			len += (size_t)got;
		else if (got < 0 && errno == EINTR)
			continue;
		else
			eof = true;
		s->buf[len] = 0;
		char *l = s->buf;
		for (char *nl; (nl = memchr(l, '\n', (size_t)(s->buf + len - l)));) {
			*nl = 0;
			jitdump_line(l, s);
			l = nl + 1;
		}
		size_t rest = (size_t)(s->buf + len - l);
		if (rest && (eof || rest == sizeof(s->buf) - 1)) {
			jitdump_line(l, s);     /* the last, or too long */
			rest = 0;
		}
		memmove(s->buf, l, rest);
		len = rest;
	}
	col_sys_close(fd);
	return 0;
}

/* jit-PID.dump files this process has mapped (the JIT maps it for perf). */
static void find_jitdumps(struct col_thread *held)
{
	struct jit_scan s;

	s.n = 0;
	snprintf(s.want, sizeof(s.want), "/jit-%d.dump", (int)getpid());
	int rc = col_fds_use(scan_maps, &s);
	if (rc < 0) {
		col_log_error_sigsafe("/proc/self/maps", -rc, "jitdump files not looked for");
		return;
	}
	for (int i = 0; i < s.n; i++)
		read_jitdump(held, s.found[i]);
}

/* Has this process recorded anything that may hold a pc or a stack (any
 * record file but the maps', threads' and dynamic code's)?  Only then can a
 * function of dynamic code name something of the experiment. */
static bool pcs_recorded(void)
{
	for (int k = 1; k < EXP_FILE_COUNT_; k++)
		if (col_file_holds_pcs((enum exp_file_kind)k) && atomic_load(&col_proc.file[k].next_block) > 0)
			return true;
	return false;
}

void col_dyn_at_exit(void)
{
	/* The end holds this thread (col_thread_hold_for_end): its records go
	 * through its block (attached, it is not held: each enters). */
	struct col_thread *t = col_thread_self_sigsafe();
	struct col_thread *held = t && atomic_load_explicit(&t->busy, memory_order_relaxed) ? t : NULL;

	if (!col_proc.active)
		return;
	read_perf_map(held);
	/* Reading /proc/self/maps was a third of a short process's end: one
	 * that recorded no pc (a shell's short commands, mostly) has nothing a
	 * jitdump could name. */
	if (pcs_recorded())
		find_jitdumps(held);
}
