/* SPDX-License-Identifier: MIT
 *
 * col_interpose_mmap.c — mmap and munmap of files, for `tally record --data`
 * (docs/dataspace.md): a sampled address in a file the program mapped is
 * named `<File: path>`, so each mapping of a file (not anonymous memory,
 * not one of the collector's own files) writes a DATA_FILE record with its
 * range and the file's path, and each munmap one with the range released.
 * Without --data the call goes straight on (one flag test).  The dynamic
 * loader maps objects with its own system calls and libc's malloc with its
 * internal __mmap: neither comes here, so loaded objects stay objects and
 * heap stays heap.  Any thread, normal context (or a program's signal
 * handler: col_enter refuses reentry).  Top layer.
 */
#include <stdatomic.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>

#include "collector/col_control.h"
#include "collector/col_fds.h"
#include "collector/col_files.h"
#include "collector/col_real.h"
#include "collector/col_state.h"
#include "collector/col_sys.h"
#include "collector/col_time.h"

/* One DATA_FILE record: the range and, for a mapping, the path of `fd`. */
static void note(uint32_t flags, void *addr, size_t len, int fd, off_t off)
{
	struct col_thread *t;
	union {
		struct exp_data_file f;
		char buf[sizeof(struct exp_data_file) + 512];
	} u;

	if (atomic_load_explicit(&col_proc.stopped, memory_order_relaxed) || col_control_paused_sigsafe(0) ||
	    !(t = col_enter()))
		return;
	memset(&u.f, 0, sizeof(u.f));
	u.f.flags = flags;
	u.f.time_ns = col_now_ns_sigsafe();
	u.f.addr = (uint64_t)(uintptr_t)addr;
	u.f.len = len;
	u.f.offset = (uint64_t)off;
	uint32_t plen = 0;
	if (!(flags & EXP_DATA_FILE_UNMAP)) {
		char link[32] = "/proc/self/fd/";
		char *p = link + strlen(link), digits[12];
		int nd = 0;
		for (unsigned v = (unsigned)fd; nd == 0 || v; v /= 10)
			digits[nd++] = (char)('0' + v % 10);
		while (nd)
			*p++ = digits[--nd];
		*p = 0;
		long n = col_syscall(SYS_readlink, link, u.buf + sizeof(u.f), sizeof(u.buf) - sizeof(u.f) - 1);
		plen = n > 0 ? (uint32_t)n : 0;
		u.buf[sizeof(u.f) + plen] = 0;
		plen++;
	}
	uint32_t len_rec = (uint32_t)((sizeof(u.f) + plen + 7) & ~(size_t)7);
	memset(u.buf + sizeof(u.f) + plen, 0, len_rec - sizeof(u.f) - plen);
	col_write_sigsafe(t, EXP_FILE_HWC, EXP_REC_DATA_FILE, &u, len_rec);
	col_leave(t);
}

static void *mapped(void *p, size_t len, int flags, int fd, off_t off)
{
	if (p != MAP_FAILED && col_proc.opt.data && fd >= 0 && !(flags & MAP_ANONYMOUS) && !col_fd_ours(fd))
		note(0, p, len, fd, off);
	return p;
}

COL_API void *mmap(void *addr, size_t len, int prot, int flags, int fd, off_t off)
{
	const struct col_real *r = col_real_table();

	if (!r)                        /* while the table resolves: -1 is MAP_FAILED */
		return (void *)col_syscall(SYS_mmap, addr, len, prot, flags, fd, off);
	return mapped(r->chain.mmap(addr, len, prot, flags, fd, off), len, flags, fd, off);
}

COL_API void *mmap64(void *addr, size_t len, int prot, int flags, int fd, off_t off)
{
	return mmap(addr, len, prot, flags, fd, off);
}

COL_API int munmap(void *addr, size_t len)
{
	const struct col_real *r = col_real_table();
	int rc;

	if (!r)
		return (int)col_syscall(SYS_munmap, addr, len);
	rc = r->chain.munmap(addr, len);
	if (rc == 0 && col_proc.opt.data)
		note(EXP_DATA_FILE_UNMAP, addr, len, -1, 0);
	return rc;
}
