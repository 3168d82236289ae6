/* SPDX-License-Identifier: MIT
 *
 * col_datablocks.c — `tally record --data`'s heap blocks: the DATA_BLOCK
 * records (an allocation's bounds and time, a release's address and time)
 * that let the analyzer name the block a sampled address falls in
 * (docs/dataspace.md).  Called by every traced allocation and release
 * (col_heap.c's tally__heap_alloc and tally__heap_free), by the clock handler and at thread end.
 *
 * A block allocated and released with no clock sample between (of any
 * thread) can be named by no sample, so neither record is needed.  Each
 * thread holds its allocations back in a small table (256 slots, open
 * addressing by address) stamped with the process's sample epoch, which
 * every clock signal advances before it reads its time.  A release of a
 * block still held in the same epoch drops both; any other release is
 * written.  The table's blocks are written, with their own allocation
 * times, when the thread next sees a new epoch (its next allocation or
 * release, or its own clock sample), when the table fills, and at its end
 * (its live blocks outlive it).  The analyzer replays the records by time,
 * so writing an allocation late changes nothing.
 *
 * A malloc-heavy program paid two 40-byte records per allocation (bench
 * 1c: 347 ns per malloc and free, most of it the kernel's page faults
 * on hwc.dat); now a short-lived block costs a table insert and delete.
 * The price: a block held back by a thread that then blocks until the
 * process is killed with SIGKILL is not written (at a normal end the
 * ending thread writes the others' tables: col_data_blocks_others_at_end).
 *
 * The owner changes its table only while entered (busy); a seqlock
 * (`gen`, odd while changing) lets the ending thread copy another's.
 * Sigsafe file.
 */
#include <errno.h>
#include <string.h>
#include <sys/mman.h>

#include "collector/col_datablocks.h"
#include "collector/col_files.h"
#include "collector/col_log.h"
#include "collector/col_sys.h"
#include "collector/col_time.h"

#define SLOTS 256                  /* a power of two */
#define FILL (SLOTS * 3 / 4)       /* used slots (live and dropped) before a write-out */
#define DROPPED 1                  /* an address no block has: a released slot */

struct held {
	uint64_t addr;                 /* 0: empty; DROPPED: released */
	uint64_t size;
	uint64_t time_ns;              /* the allocation's */
	uint32_t stack_id;
	uint32_t reserved;
};

struct col_data_blocks {
	_Atomic uint64_t gen;          /* odd while the owner changes the table */
	uint64_t epoch;                /* of every block held */
	uint32_t used;                 /* slots not empty */
	struct held slot[SLOTS];
};

static _Atomic uint64_t epoch;   /* clock and counter signals so far, all threads */

void col_data_epoch_tick_sigsafe(void)
{
	atomic_fetch_add_explicit(&epoch, 1, memory_order_seq_cst);
}

static uint32_t home(uint64_t addr)
{
	return (uint32_t)(((addr >> 4) * 0x9E3779B97F4A7C15ull) >> 56) & (SLOTS - 1);
}

static void put_block(struct col_thread *t, const struct held *h)
{
	struct exp_data_block d = { .tid = (uint32_t)t->tid, .time_ns = h->time_ns, .addr = h->addr,
				    .size = h->size, .stack_id = h->stack_id };
	col_write_sigsafe(t, EXP_FILE_HWC, EXP_REC_DATA_BLOCK, &d, sizeof(d));
}

/* Write the held blocks of table b (through w's files) and empty it. */
static void write_out(struct col_thread *w, struct col_data_blocks *b)
{
	if (!b->used)                     /* every slot empty: nothing to write or clear */
		return;
	for (uint32_t i = 0; i < SLOTS; i++)
		if (b->slot[i].addr > DROPPED)
			put_block(w, &b->slot[i]);
	memset(b->slot, 0, sizeof(b->slot));
	b->used = 0;
}

/* t's table, made at its first block; NULL if no memory (then every block
 * is written at once). */
static struct col_data_blocks *table(struct col_thread *t)
{
	if (t->data_blocks)
		return t->data_blocks;
	void *p = col_sys_mmap(NULL, sizeof(struct col_data_blocks), PROT_READ | PROT_WRITE,
			       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		return NULL;
	t->data_blocks = p;
	return p;
}

/* Before a change: a new epoch writes the held blocks out. */
static void begin(struct col_thread *t, struct col_data_blocks *b)
{
	atomic_store_explicit(&b->gen, b->gen + 1, memory_order_relaxed);
	atomic_thread_fence(memory_order_release);
	uint64_t now = atomic_load_explicit(&epoch, memory_order_seq_cst);
	if (now != b->epoch) {
		write_out(t, b);
		b->epoch = now;
	}
}

static void end(struct col_data_blocks *b)
{
	atomic_store_explicit(&b->gen, b->gen + 1, memory_order_release);
}

void col_data_block_alloc(struct col_thread *t, uint64_t addr, uint64_t size, uint32_t stack_id)
{
	struct col_data_blocks *b = table(t);
	struct held h = { addr, size, col_now_ns_sigsafe(), stack_id, 0 };

	if (!b || addr <= DROPPED) {
		put_block(t, &h);
		return;
	}
	begin(t, b);
	if (b->used >= FILL)
		write_out(t, b);
	uint32_t i = home(addr);
	while (b->slot[i].addr > DROPPED)
		i = (i + 1) & (SLOTS - 1);
	b->used += b->slot[i].addr == 0;
	b->slot[i] = h;
	end(b);
}

void col_data_block_free(struct col_thread *t, uint64_t addr)
{
	struct col_data_blocks *b = t->data_blocks;

	if (b && addr > DROPPED) {
		begin(t, b);
		for (uint32_t i = home(addr), n = 0; n < SLOTS && b->slot[i].addr; i = (i + 1) & (SLOTS - 1), n++)
			if (b->slot[i].addr == addr) {   /* born and gone in one epoch: no sample saw it */
				b->slot[i].addr = DROPPED;
				end(b);
				return;
			}
		end(b);
	}
	struct held h = { addr, 0, col_now_ns_sigsafe(), 0, 0 };
	put_block(t, &h);
}

void col_data_blocks_flush_sigsafe(struct col_thread *t)
{
	struct col_data_blocks *b = t->data_blocks;

	if (b && b->used) {
		begin(t, b);
		end(b);
	}
}

void col_data_blocks_write_out(struct col_thread *t)
{
	struct col_data_blocks *b = t->data_blocks;

	if (!b)
		return;
	begin(t, b);
	write_out(t, b);
	end(b);
}

void col_data_blocks_thread_end(struct col_thread *t)
{
	struct col_data_blocks *b = t->data_blocks;

	if (!b)
		return;
	col_data_blocks_write_out(t);
	t->data_blocks = NULL;
	col_sys_munmap(b, sizeof(*b));
}

void col_data_blocks_others_at_end(struct col_thread *self, struct col_thread *other)
{
	static struct col_data_blocks copy;   /* the ending thread's, one at a time */
	struct col_data_blocks *b = other->data_blocks;

	if (!b)
		return;
	uint64_t g = atomic_load_explicit(&b->gen, memory_order_acquire);
	if (g & 1)
		goto lost;
	memcpy(&copy, b, sizeof(copy));
	atomic_thread_fence(memory_order_acquire);
	if (atomic_load_explicit(&b->gen, memory_order_relaxed) != g)
		goto lost;
	if (copy.epoch != atomic_load(&epoch))   /* else no sample since: not needed */
		write_out(self, &copy);
	return;
lost:
	col_log_sigsafe("warning", "--data: a thread's heap blocks held back were being changed at the "
				   "process's end: not written (samples in them are <Unknown: anonymous>)");
}

void col_data_blocks_drop_after_fork(struct col_thread *t)
{
	if (t->data_blocks)
		col_sys_munmap(t->data_blocks, sizeof(struct col_data_blocks));
	t->data_blocks = NULL;
}
