/* SPDX-License-Identifier: MIT
 *
 * exp_write.h — appending records to an experiment's record files.
 *
 * Used by the collector and the mcount runtime inside the target.  A
 * `struct exp_file_writer` is one open record file shared by all threads; each
 * thread appends through its own `struct exp_cursor`, which owns one mapped
 * block at a time, so threads never contend except for one atomic add when
 * they claim a block.  Everything but exp_writer_open/close is
 * async-signal-safe and lock-free; a cursor must not be used by two contexts
 * at once (the collector's per-thread busy flag ensures that).
 */
#ifndef TALLY_EXP_WRITE_H
#define TALLY_EXP_WRITE_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "format/exp_records.h"

/* At most this many spare first blocks (struct exp_file_writer, spare):
 * a thread's first claim, when the file is opened for each use, maps as
 * many spares as first claims came before it, up to this. */
#define EXP_SPARE_BLOCKS 16

struct exp_file_writer {
	int fd;                        /* -1: not open */
	uint32_t block_bytes;
	uint32_t kind;                 /* enum exp_file_kind */
	_Atomic uint64_t next_block;   /* index of the next unclaimed block */
	_Atomic int full;              /* a claim failed (disk full, I/O error, size limit) */
	int err;                       /* errno of the first failure */
	_Atomic int over_budget;       /* it was the size limit's (err EFBIG) */
	/* The file's identity.  Before each claim the writer checks that `fd`
	 * still is this file (a program may close or replace descriptors with
	 * raw system calls); if not, it asks `reattach` (the collector's: open
	 * the file again, 0 or -1) and never writes through a descriptor that is
	 * not the file's. */
	uint64_t dev, ino;
	int (*reattach)(struct exp_file_writer *w);
	_Atomic int users;             /* claims using `fd` now (moving it waits) */
	/* Set, with `fd` -1: the file is not held open while the program runs
	 * (its descriptor limit leaves the collector no number of its own):
	 * each claim opens it through this (the collector's: a descriptor
	 * checked to be the file's, or -errno) and closes it when done.  A
	 * claim that finds no free descriptor (EMFILE, ENFILE) fails for now
	 * only, telling its cursor (no_fd); the next one tries again. */
	int (*open_fd)(struct exp_file_writer *w);
	/* Set with open_fd: run op(fd, arg) on the file outside the program's
	 * descriptor table (the collector's), so that not even for an instant
	 * does a descriptor of ours take a number of the program's; op's value
	 * or -errno, or -ECHILD when it cannot (then the claim opens the file
	 * in place, through open_fd; if that finds no number free, it asks
	 * again with `needed`, which makes room in the copy of the table). */
	int (*aside)(struct exp_file_writer *w, int (*op)(int fd, void *arg), void *arg, bool needed);
	/* The experiment's size limit, shared by every file of every process:
	 * bytes given disk so far (a spare block counts when it is made, and
	 * is given back at the end if no thread took it:
	 * exp_writer_free_spares) and the most allowed (NULL: no limit). */
	_Atomic uint64_t *budget_used;
	uint64_t budget_limit;
	/* The last bytes of the limit, kept for a cursor's `reserved` claims
	 * only (the records that close a thread's life, THREAD_END): the rest
	 * stops at budget_limit - budget_reserve. */
	uint64_t budget_reserve;
	/* Opened for each use (open_fd), a thread's first block is taken from
	 * these, mapped already: blocks claimed and mapped with an earlier
	 * thread's first claim, in the same open (a helper clone each when it
	 * is made aside), so that a thread's start costs no open of its own.
	 * A slot holds a mapped block's address, or 0; `firsts` counts the
	 * first claims (spares taken included), which size the next batch.
	 * Under a size limit, only as many spares are made as the limit has
	 * room for beside the claim's own blocks, counted at once. */
	_Atomic uintptr_t spare[EXP_SPARE_BLOCKS];
	_Atomic uint32_t firsts;
};

/* A thread's place in one file.  It starts with runs of consecutive blocks
 * mapped at once, doubling from one block (a quiet thread wastes at most a
 * block).  A thread that has filled EXP_DIRECT_MAX_BLOCKS blocks that way is
 * busy: it gets a staging window of EXP_STAGE_BLOCKS blocks, mapped once and
 * reused.  Each window block starts with an EXP_REC_MIRROR record naming the
 * block it stands for; when the window is full it is copied there with one
 * pwrite, then zeroed and pointed at fresh blocks.  Copying into the page
 * cache costs a third of mapping new pages one by one (page faults, dirty
 * tracking, unmapping), and every record stays in the file at every instant.
 * Records never cross a block boundary: a record that does not fit leaves
 * the rest of its block zero, which tells the reader to go on at the next
 * block. */
struct exp_cursor {
	char *block;                   /* mapped run or window, or NULL */
	uint32_t used;                 /* bytes of it already written */
	uint32_t size;                 /* bytes mapped */
	uint32_t next_run;             /* blocks to claim next time (0: one) */
	uint64_t dest;                 /* window: block its first block stands
	                                  for; 0: a direct run */
	int no_fd;                     /* the last reserve failed for want of a
	                                  descriptor only (see open_fd) */
	bool reserved;                 /* its claims may take the size limit's
	                                  reserve (budget_reserve), one block at
	                                  a time, past the limit's stop */
};
#define EXP_DIRECT_MAX_BLOCKS 4
#define EXP_STAGE_BLOCKS 8

/* Is the file open for records (its descriptor held, or opened for each
 * use)?  Sigsafe. */
static inline bool exp_writer_ready(const struct exp_file_writer *w)
{
	return w->fd >= 0 || w->open_fd;
}

/* Create `name` in directory `dirfd` and write its header.  Not sigsafe.
 * Returns 0 or -errno; on failure no file is left behind.  w's earlier
 * contents are not read (it may be uninitialized): spares it held are
 * forgotten, not unmapped; drop them before with exp_writer_drop_spares. */
int exp_writer_open(struct exp_file_writer *w, int dirfd, const char *name,
		    enum exp_file_kind kind, uint32_t pid);

/* Make sure the cursor has room for a record of `len` bytes (claiming its
 * block now, if that is what it needs), without writing one: the next
 * reserve of len bytes or fewer then costs no system call.  0, or -1 as
 * exp_record_reserve_sigsafe fails. */
int exp_record_room_sigsafe(struct exp_file_writer *w, struct exp_cursor *c, uint32_t len);

/* Reserve `len` bytes (a multiple of 8, <= block size) in the cursor's block,
 * claiming a new block if needed.  Returns where the record goes, zeroed, or
 * NULL if no space could be had (w->full is then set, or, if only no
 * descriptor was free, c->no_fd).  Fill the payload, then
 * call exp_record_publish_sigsafe. */
void *exp_record_reserve_sigsafe(struct exp_file_writer *w, struct exp_cursor *c,
				 uint32_t len);

/* Reserve the rest of a block, at least `min_len` bytes (a multiple of 8):
 * the rest of the cursor's block if that is enough, else a new block.
 * *len gets the bytes reserved (a multiple of 8).  NULL as above. */
void *exp_record_reserve_rest_sigsafe(struct exp_file_writer *w, struct exp_cursor *c,
				      uint32_t min_len, uint32_t *len);

/* Publish a reserved record: release-store its first word. */
void exp_record_publish_sigsafe(void *rec, uint32_t type, uint32_t len);

/* Copy a complete record (whose first word is filled in by this call) into
 * the file.  Returns 0 or -1 (no space). */
int exp_record_append_sigsafe(struct exp_file_writer *w, struct exp_cursor *c,
			      uint32_t type, const void *rec, uint32_t len);

/* Claim whole blocks for one large record of `len` bytes (arc tables; at most
 * EXP_REC_LEN_MAX) and map them.  The caller fills the record in place and publishes its word when it
 * wishes; the mapping stays until exp_large_release.  Returns NULL on failure.*/
void *exp_large_reserve_sigsafe(struct exp_file_writer *w, uint32_t len,
				size_t *mapped);
void exp_large_release_sigsafe(void *p, size_t mapped);

/* Drop the cursor's mapping (thread exit, or a fork child that must not write
 * into its parent's files).  The fork rule, every cursor writer's duty: a
 * window is forgotten (block NULL) before it is unmapped and named (block
 * set, after its size) only whole, a signal fence between, so that a fork
 * child, which releases the parent's other threads' cursors
 * (col_thread.c), never unmaps what the cursor no longer names. */
void exp_cursor_release_sigsafe(struct exp_cursor *c);

/* Forget the cursor's mapping without unmapping it: the process is ending,
 * and its exit unmaps everything at once (each munmap here would cost a TLB
 * flush on every CPU the process ran on).  The records are in the file
 * either way: the mapping is MAP_SHARED. */
void exp_cursor_forget_sigsafe(struct exp_cursor *c);

/* Unmap w's spare first blocks (a fork child's are its parent's file's).
 * w must have been opened (or be zeroed).  Not sigsafe. */
void exp_writer_drop_spares(struct exp_file_writer *w);

/* At the process's end: punch w's spare first blocks no thread took out of
 * the file (MADV_REMOVE) and give their count back to the size limit (kept
 * where the file system cannot punch), then unmap them.  Not sigsafe. */
void exp_writer_free_spares(struct exp_file_writer *w);

/* Close the file descriptor (and take no more records); mapped blocks stay
 * valid.  Not sigsafe. */
void exp_writer_close(struct exp_file_writer *w);

#endif
