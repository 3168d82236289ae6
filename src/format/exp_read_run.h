/* SPDX-License-Identifier: MIT
 *
 * exp_read_run.h — decoding SAMPLE_RUN records (format version 4) into
 * samples, and the stacks they name into a trie of the reader's own.
 *
 * A run encodes each stack as the change from the previous one; the reader
 * rebuilds every stack and stores each distinct one once, as nodes (a pc and
 * the node of its callers), found by a hash of the stack's frames kept as it
 * changes: a sample whose stack was seen before costs one lookup, a new one
 * a binary search for its longest stored prefix and one node per new frame.
 * Two stacks whose 64-bit hashes collide would be merged (about 10^-7 with
 * millions of distinct stacks).  The look-up of a sample's stack waits
 * until EXP_RUN_LAG - 1 more samples are decoded, its hash slot prefetched
 * meanwhile: it was a cache miss per sample, half of the decoding's time.  Used by the
 * loader (exp_read_data.c).
 */
#ifndef TALLY_EXP_READ_RUN_H
#define TALLY_EXP_READ_RUN_H

#include <stddef.h>
#include <stdint.h>

#include "format/exp_read.h"

/* A sample's stack_id with this bit is a node of the run trie (the rest of
 * the id), until exp_data's loader gives the nodes their stack ids. */
#define EXP_RUN_LOCAL 0x80000000u

/* Samples decoded ahead of their stack's look-up (its hash slot prefetched
 * meanwhile). */
#define EXP_RUN_LAG 4

struct exp_run_trie {
	size_t n, cap;                 /* nodes 1..n (0: none) */
	uint64_t *pc;
	uint32_t *parent;
	uint16_t *flags;
	size_t slots, used;            /* hash table: key -> node */
	uint64_t *keys;
	uint32_t *ids;
	uint64_t *dict;                /* scratch: a run's dictionary */
	size_t dict_cap;
	/* scratch, EXP_RUN_LAG of each: the sample being decoded and those
	 * before it whose look-ups wait (exp_read_run.c) */
	uint64_t stack[EXP_RUN_LAG][EXP_MAX_FRAMES];       /* the stack, root first */
	uint64_t hash[EXP_RUN_LAG][EXP_MAX_FRAMES + 1];    /* hash[i]: of stack[0..i) */
};

/* Decode run record `r` of file `path`, appending its samples to
 * (*samples, *nsamples, *cap) with stack ids EXP_RUN_LOCAL | node.
 * Returns 0, -ENOMEM or -EXP_ECORRUPT with err filled. */
int exp_run_decode(struct exp_run_trie *t, const char *path, const struct exp_rec *r,
		   struct exp_sample **samples, size_t *nsamples, size_t *cap,
		   struct exp_error *err);

void exp_run_trie_free(struct exp_run_trie *t);

#endif
