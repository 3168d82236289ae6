/* SPDX-License-Identifier: MIT
 *
 * test_col_datablocks.c — --data's held-back heap blocks (col_datablocks.c)
 * at the ends that two threads may meet: a thread about to exec writes its
 * blocks out while the process's end, in another thread, copies the tables
 * of the threads still live (col_thread_end_others), that one's among
 * them.  The copy must always find the table mapped.
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>

#include "collector/col_datablocks.h"
#include "collector/col_state.h"
#include "testhelp.h"

#define ROUNDS 200000

static struct col_thread *execer, *ender;
static _Atomic int running;
static _Atomic unsigned long copies;

/* The process's end, over and over, while the other thread goes on. */
static void *end_of_process(void *unused)
{
	(void)unused;
	while (atomic_load(&running)) {
		col_data_blocks_others_at_end(ender, execer);
		atomic_fetch_add(&copies, 1);
	}
	return NULL;
}

/* A block allocated and released in one epoch holds a slot until the
 * table is written out; the exec path's write-out then runs while the
 * process's end copies the table.  Before the exec path kept the table,
 * it unmapped it there, and the copy read unmapped memory (SIGSEGV). */
static void exec_write_out_while_process_ends(void)
{
	pthread_t th;

	execer = col_thread_new_sigsafe(1001);
	ender = col_thread_new_sigsafe(1002);
	CHECK(execer && ender);
	if (!execer || !ender)
		return;
	atomic_store(&running, 1);
	CHECK(pthread_create(&th, NULL, end_of_process, NULL) == 0);
	for (uint64_t i = 0; i < ROUNDS; i++) {
		uint64_t addr = 0x10000 + 64 * (i % 1024);
		col_data_block_alloc(execer, addr, 48, 0);
		col_data_block_free(execer, addr);
		col_data_blocks_write_out(execer);
	}
	atomic_store(&running, 0);
	pthread_join(th, NULL);
	printf("  %d write-outs, %lu copies meanwhile\n", ROUNDS, atomic_load(&copies));
	CHECK(execer->data_blocks != NULL);        /* kept: the thread is still live */
	col_data_blocks_thread_end(execer);        /* it leaves: unmapped */
	CHECK(execer->data_blocks == NULL);
}

int main(void)
{
	RUN(exec_write_out_while_process_ends);
	TEST_EXIT();
}
