/* SPDX-License-Identifier: MIT
 *
 * col_procslot.c — a descendant's process file in a slot of the run's
 * processes.dat (see col_procslot.h; the layout in exp_records.h).
 *
 * Why: a short process (a shell's /bin/true) wrote one file, its process
 * file, and creating it cost 40-1,100 us of CPU on this machine's ext4
 * without a journal (the allocator skips every inode deleted in the last
 * minutes: an experiment removed and recorded again pays for each), where
 * opening processes.dat, which exists after the first descendant, costs a
 * few.  A slot is EXP_SLOT_BYTES: a short process writes about 1 KiB; the
 * items past the slot go to the process's own file, made then.
 *
 * Items of several threads (and of a vfork child, in its parent's memory)
 * take their places with one atomic add each, then one pwrite: whole, never
 * mixed.  Once one item does not fit, no later one does (the add only
 * grows), so the slot's items all come before the file's.  Sigsafe file.
 */
#include <errno.h>
#include <stdbool.h>
#include <fcntl.h>
#include <stddef.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "collector/col_fds.h"
#include "collector/col_procslot.h"
#include "collector/col_state.h"
#include "collector/col_sys.h"
#include "format/exp_header.h"
#include "format/exp_launch.h"

void col_procslot_head(uint8_t *head)
{
	struct exp_file_header h;

	memset(head, 0, EXP_PROC_HEAD_BYTES);
	exp_file_header_init(&h, EXP_PROC_KIND, 4096, (uint32_t)col_proc.pid, col_proc.start_ns, 0);
	memcpy(head, &h, sizeof(h));
	head[EXP_PROC_HEAD_BYTES - 1] = '\n';
}

/* Append `s` to buf at *n (bounded by cap). */
static void put_str(char *buf, size_t cap, size_t *n, const char *s)
{
	size_t l = strlen(s);

	if (*n + l <= cap)
		memcpy(buf + *n, s, l);
	*n += l;
}

int col_procslot_open(_Atomic uint64_t *claimed, uint64_t given)
{
	char path[sizeof(col_proc.log_path)];
	size_t n = 0;
	struct stat st;

	put_str(path, sizeof(path) - 1, &n, col_proc.root);
	put_str(path, sizeof(path) - 1, &n, "/" EXP_SLOTS_NAME);
	if (n >= sizeof(path) - 1)
		return -ENAMETOOLONG;
	path[n] = 0;
	/* The head and the first line, the lineage, in one write. */
	char head[EXP_PROC_HEAD_BYTES + sizeof(col_proc.lineage) + 16];
	size_t len = EXP_PROC_HEAD_BYTES;
	col_procslot_head((uint8_t *)head);
	put_str(head, sizeof(head) - 1, &len, EXP_SLOT_LINEAGE_KEY);
	put_str(head, sizeof(head) - 1, &len, col_proc.lineage);
	head[len++] = '\n';
	int fd = col_sys_openat(AT_FDCWD, path, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
	if (fd < 0)
		return -errno;
	uint64_t k = given ? given - 1 : atomic_fetch_add(claimed, 1);
	uint64_t off = (k + 1) * EXP_SLOT_BYTES;
	int rc = col_sys_fstat(fd, &st) == 0 ? 0 : -errno;
	/* The file's header: by the first slot's process, or whoever finds
	 * it missing (the same bytes from each: no pid, no time). */
	if (rc == 0 && (k == 0 || st.st_size < EXP_HEADER_BYTES)) {
		struct exp_file_header h;
		exp_file_header_init(&h, EXP_SLOTS_KIND, EXP_SLOT_BYTES, 0, 0, 0);
		if (col_sys_pwrite(fd, &h, sizeof(h), 0) != (ssize_t)sizeof(h))
			rc = -EIO;
	}
	if (rc == 0 && col_sys_pwrite(fd, head, len, (off_t)off) != (ssize_t)len)
		rc = errno ? -errno : -EIO;
	void *p = rc == 0 ? col_sys_mmap(NULL, EXP_COUNTERS_BYTES, PROT_READ | PROT_WRITE, MAP_SHARED, fd, (off_t)off)
			  : MAP_FAILED;
	if (rc == 0 && p == MAP_FAILED)
		rc = -errno;
	if (rc) {
		col_sys_close(fd);
		return rc;
	}
	col_proc.counters = (_Atomic uint64_t *)((char *)p + EXP_HEADER_BYTES);
	memcpy(col_proc.log_path, path, n + 1);
	col_proc.slot_off = off;
	atomic_store(&col_proc.slot_used, len);
	atomic_store(&col_proc.spill_state, 0);
	col_proc.log_dev = (uint64_t)st.st_dev;
	col_proc.log_ino = (uint64_t)st.st_ino;
	col_fd_keep(fd, &col_proc.log_fd, NULL);
	return 0;
}

/* One item for the process's own file, ROOT/LINEAGE.proc: the items past
 * its slot.  The file is opened for each such item and closed (the
 * collector may be lean, or writing from a helper with a descriptor table
 * of its own: col_fds_use), made by the first (`make`: its head first). */
struct spill {
	const void *buf;
	size_t len;
	bool make;
};

/* Raw system calls only (col_fds_use).  0 or -errno. */
static int spill_item(void *arg)
{
	const struct spill *s = arg;
	char path[sizeof(col_proc.log_path)];
	size_t n = 0;
	uint8_t head[EXP_PROC_HEAD_BYTES];

	put_str(path, sizeof(path) - 1, &n, col_proc.root);
	put_str(path, sizeof(path) - 1, &n, "/");
	put_str(path, sizeof(path) - 1, &n, col_proc.lineage);
	put_str(path, sizeof(path) - 1, &n, EXP_PROC_SUFFIX);
	if (n >= sizeof(path) - 1)
		return -ENAMETOOLONG;
	path[n] = 0;
	int fd = col_sys_openat(AT_FDCWD, path, O_WRONLY | O_APPEND | O_CLOEXEC | (s->make ? O_CREAT | O_TRUNC : 0),
				0644);
	if (fd < 0)
		return -errno;
	int rc = 0;
	col_procslot_head(head);
	if (s->make && col_sys_write(fd, head, sizeof(head)) != (ssize_t)sizeof(head))
		rc = -EIO;
	if (rc == 0 && col_sys_write(fd, s->buf, s->len) != (ssize_t)s->len)
		rc = -EIO;
	col_sys_close(fd);
	return rc;
}

/* Write an item past the slot: the first makes the file, other threads
 * wait for it (the making thread's own signal handler does not: -1). */
static ssize_t spill_write(const void *buf, size_t len, bool aside)
{
	int s = 0, self = -(int)col_sys_gettid();
	struct spill item = { buf, len, false };

	if (atomic_compare_exchange_strong(&col_proc.spill_state, &s, self)) {
		item.make = true;
		int rc = aside ? spill_item(&item) : col_fds_use(spill_item, &item);
		atomic_store(&col_proc.spill_state, rc == 0 ? 2 : 3);
		return rc == 0 ? (ssize_t)len : -1;
	}
	if (s == self)
		return -1;
	while ((s = atomic_load(&col_proc.spill_state)) < 0)
		col_syscall(SYS_sched_yield);
	if (s != 2)
		return -1;
	int rc = aside ? spill_item(&item) : col_fds_use(spill_item, &item);
	return rc == 0 ? (ssize_t)len : -1;
}

ssize_t col_procslot_put_sigsafe(int fd, const void *buf, size_t len, bool aside)
{
	if (!col_proc.slot_off)
		return col_sys_write(fd, buf, len);
	uint64_t at = atomic_fetch_add(&col_proc.slot_used, len);
	if (at + len <= EXP_SLOT_BYTES)
		return col_sys_pwrite(fd, buf, len, (off_t)(col_proc.slot_off + at));
	return spill_write(buf, len, aside);
}

void col_procslot_close(void)
{
	col_proc.slot_off = 0;
	atomic_store(&col_proc.spill_state, 0);
}
