/* SPDX-License-Identifier: MIT
 *
 * exp_write.c — the writer half of the experiment format (see exp_write.h).
 *
 * Called from the collector's signal handler and interposers, in any thread.
 * Invariant: the file is valid at every instant.  Blocks are claimed with one
 * atomic add, given real disk space with fallocate (so a full disk is an error
 * here, never a SIGBUS later in the target), mapped MAP_SHARED, and filled
 * record by record; a record's first word is stored last with release order.
 * A busy cursor writes into a staging window instead and copies it out with
 * pwrite (exp_write.h says why; exp_records.h, EXP_REC_MIRROR, how).
 * Sigsafe file: system calls through exp_sys (exp_write_sys.h) only, no
 * stdio, no malloc, no locks.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "format/exp_header.h"
#include "format/exp_write.h"
#include "format/exp_write_sys.h"

static uint64_t clock_ns(clockid_t id)
{
	struct timespec ts;

	clock_gettime(id, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

int exp_writer_open(struct exp_file_writer *w, int dirfd, const char *name,
		    enum exp_file_kind kind, uint32_t pid)
{
	struct exp_file_header h;

	w->fd = -1;
	w->block_bytes = EXP_BLOCK_BYTES;
	w->kind = kind;
	atomic_store(&w->next_block, 0);
	atomic_store(&w->full, 0);
	atomic_store(&w->over_budget, 0);
	w->err = 0;
	w->dev = w->ino = 0;
	w->reattach = NULL;
	atomic_store(&w->users, 0);
	w->budget_used = NULL;
	w->budget_limit = 0;
	w->open_fd = NULL;
	w->aside = NULL;
	w->budget_reserve = 0;
	/* w's earlier contents are not read: it may be new, uninitialized (a
	 * writer on the stack), and a slot's garbage unmapped as a spare took
	 * whatever it pointed into (a thread's stack).  A fork child's spares,
	 * its parent's file's blocks, are dropped before: exp_writer_drop_spares. */
	for (int i = 0; i < EXP_SPARE_BLOCKS; i++)
		atomic_store(&w->spare[i], 0);
	atomic_store(&w->firsts, 0);

	int fd = EXP_SYS(openat)(dirfd, name, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0)
		return -errno;
	exp_file_header_init(&h, kind, w->block_bytes, pid, clock_ns(CLOCK_MONOTONIC), clock_ns(CLOCK_REALTIME));
	if (EXP_SYS(pwrite)(fd, &h, sizeof(h), 0) != (ssize_t)sizeof(h)) {
		int e = errno ? errno : EIO;
		EXP_SYS(close)(fd);
		EXP_SYS(unlinkat)(dirfd, name, 0);   /* no file rather than one without a header */
		return -e;
	}
	struct stat st;
	if (EXP_SYS(fstat)(fd, &st) == 0) {
		w->dev = (uint64_t)st.st_dev;
		w->ino = (uint64_t)st.st_ino;
	}
	w->fd = fd;
	return 0;
}

/* A claim failed with `err`: the file takes no more records. */
static void writer_failed(struct exp_file_writer *w, int err)
{
	if (!atomic_exchange(&w->full, 1))
		w->err = err ? err : EIO;
}

/* Begin using w's descriptor: the descriptor, checked to still be the
 * file's (else reattached), or one opened for this use (w->open_fd: *own
 * set), or -errno (w->users is then not held).  End with writer_fd_done. */
static int writer_fd(struct exp_file_writer *w, bool *own)
{
	struct stat st;

	*own = false;
	atomic_fetch_add(&w->users, 1);
	int fd = __atomic_load_n(&w->fd, __ATOMIC_ACQUIRE);
	if (fd < 0 && w->open_fd) {
		atomic_fetch_sub(&w->users, 1);
		fd = w->open_fd(w);
		*own = fd >= 0;
		return fd;
	}
	if (!w->ino || (EXP_SYS(fstat)(fd, &st) == 0 && (uint64_t)st.st_ino == w->ino &&
			(uint64_t)st.st_dev == w->dev))
		return fd;
	if (w->reattach && w->reattach(w) == 0)
		return __atomic_load_n(&w->fd, __ATOMIC_ACQUIRE);
	atomic_fetch_sub(&w->users, 1);
	return -EBADF;
}

/* End a use of `fd` from writer_fd: a descriptor opened for it is closed. */
static void writer_fd_done(struct exp_file_writer *w, int fd, bool own)
{
	if (own)
		EXP_SYS(close)(fd);
	else
		atomic_fetch_sub(&w->users, 1);
}

/* Run op(fd, arg) on w's file: 0, or -errno.  A failure of the file fails
 * the writer; when only no descriptor was free (none to spare either), just
 * this use fails (*no_fd set). */
static int with_fd(struct exp_file_writer *w, int (*op)(int fd, void *arg), void *arg, int *no_fd)
{
	bool own;
	int fd, rc = -ECHILD;

	if (w->aside && __atomic_load_n(&w->fd, __ATOMIC_ACQUIRE) < 0)
		rc = w->aside(w, op, arg, false);
	if (rc == -ECHILD) {
		fd = writer_fd(w, &own);
		if (fd >= 0) {
			rc = op(fd, arg);
			writer_fd_done(w, fd, own);
		} else if ((fd == -EMFILE || fd == -ENFILE) && w->aside) {
			rc = w->aside(w, op, arg, true);
			if (rc == -ECHILD)     /* no helper either: still no descriptor */
				rc = fd;
		} else {
			rc = fd;
		}
	}
	if (rc == -EMFILE || rc == -ENFILE)
		*no_fd = 1;
	else if (rc < 0)
		writer_failed(w, -rc);
	return rc;
}

/* Count `bytes` more against the experiment's size limit; false (and the
 * writer failed with EFBIG) if they would pass it: the limit less its
 * reserve, or, for a `reserved` claim, the limit itself. */
static bool within_budget(struct exp_file_writer *w, uint64_t bytes, bool reserved)
{
	if (!w->budget_used)
		return true;
	uint64_t limit = w->budget_limit;
	if (!reserved)
		limit = limit > w->budget_reserve ? limit - w->budget_reserve : 0;
	uint64_t used = atomic_fetch_add(w->budget_used, bytes) + bytes;
	if (used <= limit)
		return true;
	atomic_fetch_sub(w->budget_used, bytes);
	atomic_store(&w->over_budget, 1);
	writer_failed(w, EFBIG);
	return false;
}

struct claim {
	off_t off, len;
	void *p;               /* the mapping made */
};

/* Give the blocks of `arg` (struct claim) disk space and map them. */
static int claim_op(int fd, void *arg)
{
	struct claim *c = arg;
	int e = EXP_SYS(fallocate)(fd, 0, c->off, c->len);

	if (e != 0 && (errno == EOPNOTSUPP || errno == ENOSYS)) {
		/* No fallocate here: write one byte at the end (sparse). */
		char zero = 0;
		e = EXP_SYS(pwrite)(fd, &zero, 1, c->off + c->len - 1) == 1 ? 0 : -1;
	}
	if (e != 0)
		return errno ? -errno : -EIO;
	c->p = EXP_SYS(mmap)(NULL, (size_t)c->len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, c->off);
	return c->p == MAP_FAILED ? -errno : 0;
}

/* Give blocks [first, first + n) disk space and map them, the first
 * `charged` of them counted against the size limit (the rest are
 * spares, counted before by spares_charged); NULL on failure (*no_fd set if only no
 * descriptor was free). */
static void *claim_map(struct exp_file_writer *w, uint64_t first, uint64_t n, uint64_t charged, int *no_fd,
		       bool reserved)
{
	struct claim c = { (off_t)(first * w->block_bytes), (off_t)(n * w->block_bytes), MAP_FAILED };
	uint64_t charge = charged * w->block_bytes;

	if (!within_budget(w, charge, reserved))
		return NULL;
	if (with_fd(w, claim_op, &c, no_fd) != 0) {
		if (*no_fd && w->budget_used)          /* not claimed after all */
			atomic_fetch_sub(w->budget_used, charge);
		return NULL;
	}
	/* Populated now, in one call: faulting the pages in one by one costs a
	 * page-cache lookup and readahead each, inside the target. */
	if (madvise(c.p, (size_t)c.len, 23 /*MADV_POPULATE_WRITE*/) != 0)
		madvise(c.p, (size_t)c.len, MADV_WILLNEED);
	return c.p;
}

void exp_cursor_release_sigsafe(struct exp_cursor *c)
{
	char *block = c->block;
	uint32_t size = c->size;

	/* Forgotten first, unmapped after: a fork by another thread meanwhile
	 * leaves its child a cursor that names a mapping the child has, or
	 * none (this window leaks in the child), never an address unmapped
	 * since, which a mapping of the program's may have taken (a fork
	 * child drops the parent's other threads' cursors, col_thread.c). */
	c->block = NULL;
	c->used = c->size = 0;
	c->dest = 0;
	atomic_signal_fence(memory_order_seq_cst);
	if (block)
		EXP_SYS(munmap)(block, size);
}

/* Give cursor c the window of `size` bytes at `block` (c released
 * before: both zero).  Size first, block last, a fence between: a fork by
 * another thread meanwhile leaves its child (col_thread.c,
 * drop_other_after_fork) no block, or the whole window, never a block
 * with a size it does not have.  Every writer of a cursor's window keeps
 * this order (exp_write.h). */
static void cursor_set(struct exp_cursor *c, char *block, uint32_t size)
{
	c->size = size;
	atomic_signal_fence(memory_order_seq_cst);
	c->block = block;
}

void exp_cursor_forget_sigsafe(struct exp_cursor *c)
{
	c->block = NULL;
	c->used = c->size = 0;
	c->dest = 0;
}

/* Point every block of the window at the block it stands for, from c->dest. */
static void tag_window(struct exp_cursor *c, uint32_t bs)
{
	for (uint32_t i = 0; i < c->size / bs; i++) {
		struct exp_mirror *m = (struct exp_mirror *)(c->block + (size_t)i * bs);
		m->block = c->dest + i;
		exp_record_publish_sigsafe(m, EXP_REC_MIRROR, sizeof(*m));
	}
	c->used = sizeof(struct exp_mirror);
}

struct copy {
	const char *buf;
	uint32_t len;
	off_t off;
};

/* Write the bytes of `arg` (struct copy) at their offset. */
static int copy_op(int fd, void *arg)
{
	const struct copy *c = arg;

	for (uint32_t done = 0; done < c->len;) {
		ssize_t n = EXP_SYS(pwrite)(fd, c->buf + done, c->len - done, c->off + done);
		if (n <= 0) {
			if (n < 0 && errno == EINTR)
				continue;
			return n < 0 && errno ? -errno : -EIO;
		}
		done += (uint32_t)n;
	}
	return 0;
}

/* The window is full: copy it to the blocks it stands for, then empty it
 * (its first words first, so it never shows records it no longer holds)
 * and point it at fresh blocks.  If only no descriptor was free, the window
 * stays full: the next reserve tries again. */
static bool next_run(struct exp_file_writer *w, struct exp_cursor *c);

static bool flush_window(struct exp_file_writer *w, struct exp_cursor *c)
{
	const uint32_t bs = w->block_bytes;
	struct copy job = { c->block, c->size, (off_t)(c->dest * bs) };

	if (with_fd(w, copy_op, &job, &c->no_fd) != 0)
		return false;
	for (uint32_t i = 0; i < c->size / bs; i++)
		atomic_store_explicit((_Atomic uint32_t *)(c->block + (size_t)i * bs), 0,
				      memory_order_release);
	memset(c->block, 0, c->size);
	/* A reserved claim takes one block, not a window's worth. */
	if (c->reserved) {
		exp_cursor_release_sigsafe(c);
		return next_run(w, c);
	}
	/* The window goes on standing for fresh blocks: they count. */
	if (!within_budget(w, c->size, false)) {
		exp_cursor_release_sigsafe(c);
		return false;
	}
	c->dest = atomic_fetch_add(&w->next_block, c->size / bs);
	tag_window(c, bs);
	return true;
}

/* A spare first block (struct exp_file_writer, spare), or NULL. */
static char *spare_take(struct exp_file_writer *w)
{
	for (int i = 0; i < EXP_SPARE_BLOCKS; i++)
		if (atomic_load_explicit(&w->spare[i], memory_order_relaxed)) {
			uintptr_t p = atomic_exchange(&w->spare[i], 0);
			if (p)
				return (char *)p;
		}
	return NULL;
}

/* Spares (beyond a claim's n blocks) the size limit leaves room for now,
 * counted against it at once (the limit bounds what is on disk: a spare
 * is fallocated when made, whoever takes it), the claim's own n blocks
 * left room for (they are counted by claim_map, which may stop the file
 * at the limit; spares never do, there are only fewer of them).  One
 * never taken is given back at the end (exp_writer_free_spares). */
static uint32_t spares_charged(struct exp_file_writer *w, uint32_t n, uint32_t spares)
{
	if (!w->budget_used || !spares)
		return spares;
	uint64_t limit = w->budget_limit > w->budget_reserve ? w->budget_limit - w->budget_reserve : 0;
	uint64_t used = atomic_load_explicit(w->budget_used, memory_order_relaxed);
	do {
		uint64_t room = limit > used ? (limit - used) / w->block_bytes : 0;
		room = room > n ? room - n : 0;
		if (room < spares)
			spares = (uint32_t)room;
		if (!spares)
			return 0;
	} while (!atomic_compare_exchange_weak(w->budget_used, &used, used + (uint64_t)spares * w->block_bytes));
	return spares;
}

/* Keep the mapped block at p as a spare (unmapped if every slot is
 * taken: it stays zero in the file, which the reader passes over). */
static void spare_put(struct exp_file_writer *w, char *p)
{
	for (int i = 0; i < EXP_SPARE_BLOCKS; i++) {
		uintptr_t none = 0;
		if (atomic_compare_exchange_strong(&w->spare[i], &none, (uintptr_t)p))
			return;
	}
	EXP_SYS(munmap)(p, w->block_bytes);
}

/* Map the cursor's next run of blocks, or, once it has proved busy, its
 * staging window.  A first block, when the file is opened for each use,
 * is a spare if there is one, else claimed with spares for the next
 * threads' (as many as first claims came before, spares taken included,
 * up to EXP_SPARE_BLOCKS): one open for many threads' starts, at most a
 * block wasted per thread made. */
static bool next_run(struct exp_file_writer *w, struct exp_cursor *c)
{
	const uint32_t bs = w->block_bytes;
	uint32_t n = c->next_run && !c->reserved ? c->next_run : 1;
	bool stage = n > EXP_DIRECT_MAX_BLOCKS;
	uint32_t spares = 0;

	exp_cursor_release_sigsafe(c);
	if (!c->next_run && __atomic_load_n(&w->fd, __ATOMIC_ACQUIRE) < 0 && w->open_fd) {
		spares = atomic_fetch_add(&w->firsts, 1);
		char *p = spare_take(w);
		/* Counted when it was made (spares_charged). */
		if (p) {
			cursor_set(c, p, bs);
			c->used = 0;
			c->next_run = 2;
			return true;
		}
		if (spares > EXP_SPARE_BLOCKS)
			spares = EXP_SPARE_BLOCKS;
	}
	if (stage)
		n = EXP_STAGE_BLOCKS;
	spares = spares_charged(w, n, spares);
	uint64_t b = atomic_fetch_add(&w->next_block, n + spares);
	/* Block 0 holds the file's header: never a window block, whose first
	 * words are its MIRROR tag.  A first claim is a direct run. */
	if (b == 0)
		stage = false;
	char *p = claim_map(w, b, n + spares, n, &c->no_fd, c->reserved);
	if (!p) {
		if (spares && w->budget_used)        /* none made after all */
			atomic_fetch_sub(w->budget_used, (uint64_t)spares * bs);
		return false;
	}
	for (uint32_t i = 0; i < spares; i++)
		spare_put(w, p + (size_t)(n + i) * bs);
	cursor_set(c, p, n * bs);
	c->used = b == 0 ? EXP_HEADER_BYTES : 0;
	c->next_run = n * 2;
	if (stage) {
		if (!within_budget(w, (uint64_t)n * bs, false)) {
			exp_cursor_release_sigsafe(c);
			return false;
		}
		c->dest = atomic_fetch_add(&w->next_block, n);
		tag_window(c, bs);
	}
	return true;
}

void *exp_record_reserve_sigsafe(struct exp_file_writer *w, struct exp_cursor *c,
				 uint32_t len)
{
	const uint32_t bs = w->block_bytes;

	c->no_fd = 0;
	if ((w->fd < 0 && !w->open_fd) || len > bs - EXP_HEADER_BYTES)
		return NULL;
	if (c->dest && c->used % bs == 0)                /* a window block: */
		c->used += sizeof(struct exp_mirror);   /* past its MIRROR */
	if (c->block && bs - c->used % bs < len)         /* next block */
		c->used = (c->used / bs + 1) * bs + (c->dest ? sizeof(struct exp_mirror) : 0);
	if (!c->block || c->used + len > c->size) {
		/* Full: no claim, but a reserved one when it was the limit. */
		if (atomic_load_explicit(&w->full, memory_order_relaxed) &&
		    !(c->reserved && atomic_load_explicit(&w->over_budget, memory_order_relaxed)))
			return NULL;
		if (!(c->block && c->dest ? flush_window(w, c) : next_run(w, c)))
			return NULL;
	}
	char *rec = c->block + c->used;
	c->used += len;
	return rec;
}

int exp_record_room_sigsafe(struct exp_file_writer *w, struct exp_cursor *c, uint32_t len)
{
	char *p = exp_record_reserve_sigsafe(w, c, len);

	if (!p)
		return -1;
	c->used = (uint32_t)(p - c->block);      /* the same place again, next time */
	return 0;
}

void *exp_record_reserve_rest_sigsafe(struct exp_file_writer *w, struct exp_cursor *c,
				      uint32_t min_len, uint32_t *len)
{
	char *p = exp_record_reserve_sigsafe(w, c, min_len);

	if (!p)
		return NULL;
	uint32_t bs = w->block_bytes;
	uint32_t end = ((uint32_t)(p - c->block) / bs + 1) * bs;
	*len = end - (uint32_t)(p - c->block);
	c->used = end;
	return p;
}

void exp_record_publish_sigsafe(void *rec, uint32_t type, uint32_t len)
{
	atomic_store_explicit((_Atomic uint32_t *)rec, EXP_REC_WORD(type, len),
			      memory_order_release);
}

int exp_record_append_sigsafe(struct exp_file_writer *w, struct exp_cursor *c,
			      uint32_t type, const void *rec, uint32_t len)
{
	char *p = exp_record_reserve_sigsafe(w, c, len);

	if (!p)
		return -1;
	memcpy(p + 4, (const char *)rec + 4, len - 4);
	exp_record_publish_sigsafe(p, type, len);
	return 0;
}

void *exp_large_reserve_sigsafe(struct exp_file_writer *w, uint32_t len, size_t *mapped)
{
	int no_fd = 0;

	if ((w->fd < 0 && !w->open_fd) || atomic_load(&w->full) || len > EXP_REC_LEN_MAX)
		return NULL;
	uint64_t n = (len + w->block_bytes - 1) / w->block_bytes;
	uint64_t b = atomic_fetch_add(&w->next_block, n);
	if (b == 0) {
		/* Block 0 holds the file header: large records start later. */
		b = atomic_fetch_add(&w->next_block, n);
	}
	char *p = claim_map(w, b, n, n, &no_fd, false);
	if (p)
		*mapped = n * w->block_bytes;
	return p;
}

void exp_large_release_sigsafe(void *p, size_t mapped)
{
	if (p)
		EXP_SYS(munmap)(p, mapped);
}

void exp_writer_drop_spares(struct exp_file_writer *w)
{
	for (int i = 0; i < EXP_SPARE_BLOCKS; i++) {
		uintptr_t p = atomic_exchange(&w->spare[i], 0);
		if (p)
			EXP_SYS(munmap)((void *)p, w->block_bytes);
	}
	atomic_store(&w->firsts, 0);
}

void exp_writer_free_spares(struct exp_file_writer *w)
{
	for (int i = 0; i < EXP_SPARE_BLOCKS; i++) {
		uintptr_t p = atomic_exchange(&w->spare[i], 0);
		if (!p)
			continue;
		/* Its disk given back (a hole, read as a zero block, which the
		 * reader passes over), then its count: where the file system
		 * cannot punch, the block stays on disk and counted. */
		if (madvise((void *)p, w->block_bytes, MADV_REMOVE) == 0 && w->budget_used)
			atomic_fetch_sub(w->budget_used, w->block_bytes);
		EXP_SYS(munmap)((void *)p, w->block_bytes);
	}
}

void exp_writer_close(struct exp_file_writer *w)
{
	if (w->fd >= 0)
		EXP_SYS(close)(w->fd);
	w->fd = -1;
	w->open_fd = NULL;
	w->aside = NULL;
}
