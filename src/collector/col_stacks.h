/* SPDX-License-Identifier: MIT
 *
 * col_stacks.h — call stacks stored once (STACK_NODE records), referred to
 * by id from samples and traced events.
 */
#ifndef TALLY_COL_STACKS_H
#define TALLY_COL_STACKS_H

#include <stdint.h>

#include "collector/col_objset.h"
#include "collector/col_state.h"

/* A new, empty table (start, and a fork child's new experiment). */
void col_stacks_init(void);
/* How many levels lookups search now: 2 while a new level is being filled
 * by the copy (col_stacks.c), else 1 (tests). */
int col_stacks_levels_searched(void);
/* Tests: called between a stack node's claim of its key and the publish of
 * its id (a thread held there while levels are mapped and copied).  NULL
 * in the collector. */
extern void (*col_stacks_claimed_hook)(void);

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

/* The first of the COL_TRACED_MEMO_WAYS memo entries where (ra, sp) may
 * be, by a hash of both, mixed through (the top bits of one multiply kept
 * two call sites of one caller, a few hundred bytes apart, in the same
 * entry in most runs of `dd bs=1`: each evicted the other, and every read
 * and write was unwound and interned again).  A set holds several stacks of
 * one (ra, sp) because of allocation wrappers: every allocation through a
 * program's xmalloc has one (ra, sp) per stack depth, whatever called
 * xmalloc; with a pair of entries per set and 16 in all, those callers took
 * turns in them (cc1 under `make`: a third of its heap events found in the
 * memo, the rest unwound and interned again, 9 in 10 of them stacks
 * interned before; docs/tracing.md). */
static inline uint32_t col_traced_memo_set(uint64_t ra, uint64_t sp)
{
	uint64_t h = (ra ^ (sp << 7)) * 0x9e3779b97f4a7c15ull;

	h ^= h >> 31;
	h *= 0xbf58476d1ce4e5b9ull;
	h ^= h >> 29;
	return (uint32_t)(h & (COL_TRACED_MEMO - COL_TRACED_MEMO_WAYS));
}

/* A stack met before: its caller's frame is where it was (same return
 * address, same CFA by the same rule) and every outer return address still
 * in its place -- the check the walk makes before it reuses outer frames,
 * so the stack is the one the walk would find.  The entry of (ra, sp, fp)
 * in t's memo for object-set `generation`, or NULL.  The key's stack
 * pointer stands for the caller's CFA: the rule that gives the CFA at ra
 * adds a constant to it, or to the frame pointer, which such an entry
 * (COL_TRACED_BY_FP) compares too.  Inline: every traced event with a
 * stack asks (its call and return were a tenth of the lookup's
 * instructions). */
static inline struct col_traced_memo *col_traced_memo_find(struct col_thread *t, uint64_t ra, uint64_t sp,
							   uint64_t fp, uint64_t generation)
{
	uint32_t set = col_traced_memo_set(ra, sp);
	const struct col_traced_key *k = &t->traced_keys[set];

	for (uint32_t i = 0; i < COL_TRACED_MEMO_WAYS; i++) {
		if (k[i].ra != ra || (k[i].sp & ~COL_TRACED_BY_FP) != sp)
			continue;
		struct col_traced_memo *m = &t->traced_memo[set + i];
		if (m->generation == generation && (!(k[i].sp & COL_TRACED_BY_FP) || m->fp == fp) &&
		    col_unwind_words_hold_sigsafe(&t->unwind, m->word, m->nwords))
			return m;
	}
	return NULL;
}

/* col_stack_from's walk, for a stack the memo did not have: its id, and
 * the memo entry made for it in *memo (NULL: none). */
uint32_t col_stack_walk_traced(struct col_thread *t, uint64_t ra, uint64_t sp, uint64_t fp,
			       struct col_traced_memo **memo);

/* col_stack_from, with the thread's memo entry that holds the stack in
 * *memo (NULL: none), whose `aux` the caller may keep what it derives from
 * the stack in (NULL when the entry is made or remade). */
static inline uint32_t col_stack_from_memo(struct col_thread *t, uint64_t ra, uint64_t sp, uint64_t fp,
					   struct col_traced_memo **memo)
{
	const struct col_object_set *set = col_objects_current_sigsafe();

	if (__builtin_expect(set != NULL, 1) &&
	    (*memo = col_traced_memo_find(t, ra, sp, fp, set->generation)) != NULL)
		return (*memo)->id;
	return col_stack_walk_traced(t, ra, sp, fp, memo);
}

/* Empty every aux of t's memo (what the caller kept there is gone). */
void col_stacks_forget_aux(struct col_thread *t);

#endif
