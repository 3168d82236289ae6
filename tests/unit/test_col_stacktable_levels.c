/* SPDX-License-Identifier: MIT
 *
 * test_col_stacktable_levels.c — the collector's stack table (col_stacks.c)
 * keeps every stack it stored findable as it grows: 10,000 one-frame stacks
 * fill its first level (4,096 slots) and its second (16,384) past half, so
 * three levels are mapped and the keys of each are copied into the next;
 * each stack interned again gets its first id back and writes no node.
 * And the intern that maps a level does not copy the level before in one go
 * (it would in the signal handler): right after it lookups search two
 * levels, and one level again a bounded number of interns later.
 * And a key claimed in a level that the copy passes before its id is
 * published (its thread held between the two while the next level is
 * mapped and copied) is still found: its stack is not stored twice.
 * The records go to a stacks.dat in a directory of its own.
 */
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "collector/col_stacks.h"
#include "collector/col_state.h"
#include "testhelp.h"

#define STACKS 10000

static uint64_t counters[EXP_CTR_COUNT_];

static void every_stack_found_after_growth(void)
{
	static struct col_thread t;
	static uint32_t first[STACKS];
	char dir[] = "/tmp/tally-unit.XXXXXX";
	uint64_t pc0 = 0x400000;

	if (!mkdtemp(dir))
		SKIP("no directory for stacks.dat under /tmp");
	col_proc.dirfd = open(dir, O_RDONLY | O_DIRECTORY);
	CHECK(col_proc.dirfd >= 0);
	col_stacks_init();
	int written = 0;
	for (int i = 0; i < STACKS; i++) {
		uint64_t pc = pc0 + 16u * (uint64_t)i;
		first[i] = col_stack_intern_sigsafe(&t, &pc, 1, 0);
		written += first[i] != 0;
	}
	CHECKF(written == STACKS, "%d of %d stacks stored", written, STACKS);
	uint64_t one = pc0 + 16u * STACKS;
	uint32_t before = col_stack_intern_sigsafe(&t, &one, 1, 0);
	int same = 0;
	for (int i = 0; i < STACKS; i++) {
		uint64_t pc = pc0 + 16u * (uint64_t)i;
		same += col_stack_intern_sigsafe(&t, &pc, 1, 0) == first[i];
	}
	uint64_t next = one + 16;
	uint32_t after = col_stack_intern_sigsafe(&t, &next, 1, 0);
	CHECKF(same == STACKS, "%d of %d stacks found again under their first id", same, STACKS);
	CHECKF(after == before + 1, "%u nodes written by interning them again (want 0)",
	       after - before - 1);
	close(col_proc.dirfd);
	char path[64];
	snprintf(path, sizeof(path), "%s/stacks.dat", dir);
	unlink(path);
	rmdir(dir);
}

/* Level 0 (4,096 slots) maps level 1 at its 2,048th key; the copy of its
 * 4,096 slots, two passes of 256 per intern, ends 32 interns later. */
static void copy_spread_over_interns(void)
{
	static struct col_thread t;
	char dir[] = "/tmp/tally-unit.XXXXXX";
	uint64_t pc0 = 0x500000;
	int i = 0;

	if (!mkdtemp(dir))
		SKIP("no directory for stacks.dat under /tmp");
	col_proc.dirfd = open(dir, O_RDONLY | O_DIRECTORY);
	CHECK(col_proc.dirfd >= 0);
	col_stacks_init();
	for (; i < 2048; i++) {
		uint64_t pc = pc0 + 16u * (uint64_t)i;
		col_stack_intern_sigsafe(&t, &pc, 1, 0);
	}
	CHECKF(col_stacks_levels_searched() == 2,
	       "%d levels searched right after the map (want 2: the copy not done in one go)",
	       col_stacks_levels_searched());
	int more = 0;
	for (; col_stacks_levels_searched() > 1 && more < 1000; i++, more++) {
		uint64_t pc = pc0 + 16u * (uint64_t)i;
		col_stack_intern_sigsafe(&t, &pc, 1, 0);
	}
	CHECKF(more == 32, "copy done after %d more interns (want 32)", more);
	close(col_proc.dirfd);
	char path[64];
	snprintf(path, sizeof(path), "%s/stacks.dat", dir);
	unlink(path);
	rmdir(dir);
}

/* Thread `held` claims the key of stack X in level 0 (its 2,047th key);
 * while it is held before publishing X's id, thread `other` interns the
 * 2,048th key, which maps level 1, and interns on until the copy's two
 * passes are done and lookups search level 1 alone.  X must be found
 * there afterwards under its first id. */
static struct col_thread held, other;
static uint64_t other_pc;
static int copy_done_while_held;

/* Level 0's slots (LEVEL0_BITS 12 in col_stacks.c) and the key count at
 * which it maps level 1 (half full); the hook's interns are bounded well
 * past the map and the 32-intern copy, so a regression fails, never hangs. */
#define LEVEL0_SLOTS 4096
#define LEVEL0_GROWS_AT (LEVEL0_SLOTS / 2)
#define HOOK_INTERNS_MAX 1000

static void hold_until_copied(void)
{
	col_stacks_claimed_hook = NULL;
	int saw_two = 0;
	for (int n = 0; n < HOOK_INTERNS_MAX; n++) {
		col_stack_intern_sigsafe(&other, &other_pc, 1, 0);
		other_pc += 16;
		if (col_stacks_levels_searched() > 1)
			saw_two = 1;
		else if (saw_two)
			break;
	}
	copy_done_while_held = saw_two && col_stacks_levels_searched() == 1;
}

static void key_claimed_before_the_copy_is_found_after(void)
{
	char dir[] = "/tmp/tally-unit.XXXXXX";
	uint64_t pc0 = 0x600000;

	if (!mkdtemp(dir))
		SKIP("no directory for stacks.dat under /tmp");
	col_proc.dirfd = open(dir, O_RDONLY | O_DIRECTORY);
	CHECK(col_proc.dirfd >= 0);
	col_stacks_init();
	int i = 0;
	for (; i < LEVEL0_GROWS_AT - 2; i++) {
		uint64_t pc = pc0 + 16u * (uint64_t)i;
		col_stack_intern_sigsafe(&other, &pc, 1, 0);
	}
	CHECKF(col_stacks_levels_searched() == 1, "%d levels before the 2,048th key",
	       col_stacks_levels_searched());
	other_pc = pc0 + 16u * (uint64_t)(i + 1);
	uint64_t x = pc0 + 16u * (uint64_t)i;
	col_stacks_claimed_hook = hold_until_copied;
	uint32_t first = col_stack_intern_sigsafe(&held, &x, 1, 0);
	col_stacks_claimed_hook = NULL;
	CHECKF(copy_done_while_held,
	       "level 1 not mapped and copied within %d interns while X was held "
	       "(%d levels searched)", HOOK_INTERNS_MAX,
	       col_stacks_levels_searched());
	uint64_t probe = other_pc + 16;
	uint32_t before = col_stack_intern_sigsafe(&other, &probe, 1, 0);
	uint32_t again = col_stack_intern_sigsafe(&held, &x, 1, 0);
	probe += 16;
	uint32_t after = col_stack_intern_sigsafe(&other, &probe, 1, 0);
	CHECKF(first && again == first, "X interned again: id %u, first %u (stored twice)", again, first);
	CHECKF(after == before + 1, "%u nodes written by interning X again (want 0)", after - before - 1);
	close(col_proc.dirfd);
	char path[64];
	snprintf(path, sizeof(path), "%s/stacks.dat", dir);
	unlink(path);
	rmdir(dir);
}

int main(void)
{
	col_proc.counters = (_Atomic uint64_t *)counters;
	col_proc.log_fd = -1;
	RUN(every_stack_found_after_growth);
	RUN(copy_spread_over_interns);
	RUN(key_claimed_before_the_copy_is_found_after);
	TEST_EXIT();
}
