/* SPDX-License-Identifier: MIT
 *
 * test_col_stacktable.c — the collector's stack table (col_stacks.c) names
 * the cause of each stack it could not share: 33 one-frame stacks whose keys
 * all start at one slot of the first level (4,096 slots, so 32 taken: far
 * from full) are a cluster, not a full table (stacks.crowded, not
 * stacks.not-deduplicated).  No experiment is open: the records are lost as
 * such, the table's bookkeeping is what is checked.
 */
#include <stdint.h>

#include "collector/col_stacks.h"
#include "collector/col_state.h"
#include "testhelp.h"

static uint64_t counters[EXP_CTR_COUNT_];

/* col_stacks.c's key of a one-frame stack without flags: its suffix hash
 * (mix of the seed and the pc, low bit set).  A copy: if the table's hash
 * changes, no cluster forms and the check below says so. */
static uint64_t one_frame_key(uint64_t pc)
{
	uint64_t h = 0x243f6a8885a308d3ull ^ pc;

	h *= 0x9e3779b97f4a7c15ull;
	return (h ^ (h >> 29)) | 1;
}

static void cluster_is_not_a_full_table(void)
{
	static struct col_thread t;
	uint64_t pcs[33];
	int found = 0;

	for (uint64_t pc = 0x400000; found < 33 && pc < 0x400000 + (64u << 20); pc++)
		if ((one_frame_key(pc) & 4095) == 101)   /* keys are odd */
			pcs[found++] = pc;
	CHECK(found == 33);
	col_stacks_init();
	for (int i = 0; i < found; i++)
		col_stack_intern_sigsafe(&t, &pcs[i], 1, 0);
	CHECKF(counters[EXP_CTR_STACK_CROWDED] == 1 && counters[EXP_CTR_STACK_TABLE_FULL] == 0,
	       "crowded %llu, table full %llu (want 1, 0: the 33rd key found its 32 slots taken, "
	       "the table holding 32 of 4,096; 0, 0 means this test's copy of the hash is stale)",
	       (unsigned long long)counters[EXP_CTR_STACK_CROWDED],
	       (unsigned long long)counters[EXP_CTR_STACK_TABLE_FULL]);
}

int main(void)
{
	col_proc.counters = (_Atomic uint64_t *)counters;
	col_proc.log_fd = -1;
	col_proc.dirfd = -1;
	RUN(cluster_is_not_a_full_table);
	TEST_EXIT();
}
