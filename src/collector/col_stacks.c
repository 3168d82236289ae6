/* SPDX-License-Identifier: MIT
 *
 * col_stacks.c — each distinct call stack is written once to stacks.dat and
 * referred to by id.
 *
 * Called from the signal handler and from tracing interposers, in any thread.
 * A lock-free open-addressing table maps a 64-bit hash of (pcs, flags) to the
 * stack's id: a slot is claimed by compare-and-swap of its key, the STACK
 * record is written, then the id is published with a release store.  A
 * thread that finds a claimed slot whose id is not yet published writes its
 * own copy (a duplicate id is harmless: the reader merges stacks by content).
 * A collision of two different stacks on all 64 bits would merge them; at a
 * million distinct stacks the chance is about 1 in 10^7 (docs/collector.md).
 */
#include <string.h>
#include <sys/mman.h>

#include "collector/col_internal.h"
#include "collector/col_objects.h"

#define TABLE_BITS 20
#define TABLE_SLOTS (1u << TABLE_BITS)
#define MAX_PROBES 32

struct slot {
	_Atomic uint64_t key;          /* hash | 1; 0 = free */
	_Atomic uint32_t id;           /* 0 until the STACK record is published */
	uint32_t pad;
};

static struct slot *table;
static _Atomic uint32_t next_id = 1;

void col_stacks_init(void)
{
	void *p = mmap(NULL, TABLE_SLOTS * sizeof(struct slot), PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);

	if (table)
		munmap(table, TABLE_SLOTS * sizeof(struct slot));
	table = p == MAP_FAILED ? NULL : p;
	atomic_store(&next_id, 1);
}

static uint64_t hash_stack(const uint64_t *pcs, uint32_t n, uint16_t flags)
{
	uint64_t h = 0x243f6a8885a308d3ull ^ ((uint64_t)flags << 48) ^ n;

	for (uint32_t i = 0; i < n; i++) {
		h ^= pcs[i];
		h *= 0x9e3779b97f4a7c15ull;
		h ^= h >> 29;
	}
	return h | 1;
}

static uint32_t write_stack(struct col_thread *t, const uint64_t *pcs, uint32_t n,
			    uint16_t flags)
{
	uint32_t len = (uint32_t)(sizeof(struct exp_stack) + 8u * n);
	struct exp_stack *s = exp_record_reserve_sigsafe(&col_proc.file[EXP_FILE_STACKS],
							 &t->cursor[EXP_FILE_STACKS], len);
	if (!s) {
		col_count_sigsafe(EXP_CTR_LOST_BUFFER, 1);
		return 0;
	}
	uint32_t id = atomic_fetch_add(&next_id, 1);
	s->stack_id = id;
	s->nframes = (uint16_t)n;
	s->flags = flags;
	memcpy(s->pcs, pcs, 8u * n);
	exp_record_publish_sigsafe(s, EXP_REC_STACK, len);
	return id;
}

uint32_t col_stack_intern_sigsafe(struct col_thread *t, const uint64_t *pcs,
				  uint32_t n, uint16_t flags)
{
	uint64_t h = hash_stack(pcs, n, flags);

	if (!table)
		return write_stack(t, pcs, n, flags);
	for (uint32_t probe = 0; probe < MAX_PROBES; probe++) {
		struct slot *s = &table[(h + probe) & (TABLE_SLOTS - 1)];
		uint64_t k = atomic_load_explicit(&s->key, memory_order_acquire);
		if (k == 0) {
			uint64_t zero = 0;
			if (atomic_compare_exchange_strong(&s->key, &zero, h)) {
				uint32_t id = write_stack(t, pcs, n, flags);
				atomic_store_explicit(&s->id, id, memory_order_release);
				return id;
			}
			k = zero;
		}
		if (k == h) {
			uint32_t id = atomic_load_explicit(&s->id, memory_order_acquire);
			return id ? id : write_stack(t, pcs, n, flags);
		}
	}
	col_count_sigsafe(EXP_CTR_STACK_TABLE_FULL, 1);
	return write_stack(t, pcs, n, flags);
}

uint16_t col_stack_flags_sigsafe(int truncated, int broken)
{
	uint16_t flags = 0;

	if (truncated) {
		flags |= EXP_STACK_TRUNCATED;
		col_count_sigsafe(EXP_CTR_UNWIND_TRUNCATED, 1);
	}
	if (broken) {
		flags |= EXP_STACK_BROKEN;
		col_count_sigsafe(EXP_CTR_UNWIND_BROKEN, 1);
	}
	return flags;
}

static uint32_t intern_traced(struct col_thread *t, int n, int skip, int truncated, int broken)
{
	uint16_t flags = EXP_STACK_LEAF_IS_RETADDR | col_stack_flags_sigsafe(truncated, broken);

	return col_stack_intern_sigsafe(t, t->frames + skip, (uint32_t)(n - skip), flags);
}

uint32_t col_stack_here(struct col_thread *t)
{
	int truncated, broken;

	col_regs_capture(&t->regs);
	int n = col_unwind_sigsafe(&t->unwind, &t->regs, t->frames, (int)col_proc.opt.max_frames,
				   &truncated, &broken);
	const struct col_object_set *set = col_objects_current_sigsafe();
	int skip = 0;
	while (skip < n && col_objects_is_self_sigsafe(set, t->frames[skip] - 1))
		skip++;
	return intern_traced(t, n, skip, truncated, broken);
}

uint32_t col_stack_from(struct col_thread *t, uint64_t ra, uint64_t sp, uint64_t fp)
{
	int truncated, broken;

	t->regs.r[UW_RIP] = ra;
	t->regs.r[UW_RSP] = sp;
	t->regs.r[UW_RBP] = fp;
	t->regs.valid = (1u << UW_RIP) | (1u << UW_RSP) | (1u << UW_RBP);
	int n = col_unwind_traced_sigsafe(&t->unwind, &t->regs, &t->traced, t->frames,
					  (int)col_proc.opt.max_frames, &truncated, &broken);
	/* One interposer calling another (reallocarray -> realloc). */
	const struct col_object_set *set = col_objects_current_sigsafe();
	int skip = 0;
	while (skip < n && col_objects_is_self_sigsafe(set, t->frames[skip] - 1))
		skip++;
	return intern_traced(t, n, skip, truncated, broken);
}
