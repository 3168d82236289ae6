/* SPDX-License-Identifier: MIT
 *
 * col_stacks.h — call stacks stored once (STACK_NODE records), referred to
 * by id from samples and traced events.
 */
#ifndef TALLY_COL_STACKS_H
#define TALLY_COL_STACKS_H

#include <stdint.h>

#include "collector/col_state.h"

/* A new, empty table (start, and a fork child's new experiment). */
void col_stacks_init(void);

/* Id of the stack `pcs[0..n)` with `flags`, writing its STACK_NODE records
 * the first time it is seen.  0 if it could not be written. */
uint32_t col_stack_intern_sigsafe(struct col_thread *t, const uint64_t *pcs,
				  uint32_t n, uint16_t flags);

/* The last stack a kind of event of a thread interned, to reuse its id. */
struct col_stack_memo {
	uint64_t hash;
	uint32_t n, id;
};

/* Unwind the context a signal interrupted (its ucontext) into t->frames and
 * intern it (the leaf is the interrupted pc), reusing memo's id when the
 * stack is the thread's previous one.  *leaf gets the pc.  0 if it could not
 * be written. */
uint32_t col_stack_interrupted_sigsafe(struct col_thread *t, const void *uc,
				       struct col_stack_memo *memo, uint64_t *leaf);

/* EXP_STACK_* flags of an unwind's outcome, counting the losses. */
uint16_t col_stack_flags_sigsafe(int truncated, int broken);

/* Unwind the caller of an interposer and intern its stack (skipping the
 * collector's own frames).  0 on failure. */
uint32_t col_stack_here(struct col_thread *t);

/* The same from the traced function's caller: its return address, stack
 * pointer (the traced function's CFA) and frame pointer. */
uint32_t col_stack_from(struct col_thread *t, uint64_t ra, uint64_t sp, uint64_t fp);

/* The same, with the thread's memo entry that holds the stack in *memo
 * (NULL: none), whose `aux` the caller may keep what it derives from the
 * stack in (NULL when the entry is made or remade). */
uint32_t col_stack_from_memo(struct col_thread *t, uint64_t ra, uint64_t sp, uint64_t fp,
			     struct col_traced_memo **memo);

/* Empty every aux of t's memo (what the caller kept there is gone). */
void col_stacks_forget_aux(struct col_thread *t);

#endif
