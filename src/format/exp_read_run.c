/* SPDX-License-Identifier: MIT
 *
 * exp_read_run.c — decoding SAMPLE_RUN records (see exp_read_run.h; the
 * encoding is in exp_records.h).
 *
 * Trusts nothing: every varint is bounded by the record's `used` bytes and
 * by 10 bytes, every dictionary index and pop by what precedes it, every
 * stack by EXP_MAX_FRAMES; a bad one is one line naming the file, the
 * record's offset and the sample.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "format/exp_data.h"
#include "format/exp_read_run.h"

#define SEED 0x243f6a8885a308d3ull

static uint64_t mix(uint64_t h, uint64_t v)
{
	h ^= v;
	h *= 0x9e3779b97f4a7c15ull;
	return (h ^ (h >> 29)) | 1;
}

/* The key of a stack's leaf node with flags (differs from any frame's). */
static uint64_t mix_flags(uint64_t h, uint16_t flags)
{
	return mix(h * 0xff51afd7ed558ccdull, flags);
}

static uint32_t lookup(const struct exp_run_trie *t, uint64_t key)
{
	if (!t->slots)
		return 0;
	for (size_t i = key & (t->slots - 1);; i = (i + 1) & (t->slots - 1)) {
		if (t->keys[i] == key)
			return t->ids[i];
		if (!t->keys[i])
			return 0;
	}
}

static void put(struct exp_run_trie *t, uint64_t key, uint32_t id)
{
	size_t i = key & (t->slots - 1);

	while (t->keys[i])
		i = (i + 1) & (t->slots - 1);
	t->keys[i] = key;
	t->ids[i] = id;
	t->used++;
}

static int grow_table(struct exp_run_trie *t)
{
	size_t n = t->slots ? t->slots * 2 : 4096;
	uint64_t *keys = exp_big_alloc(n * sizeof(*keys), true), *old_keys = t->keys;
	uint32_t *ids = exp_big_alloc(n * sizeof(*ids), false), *old_ids = t->ids;
	size_t old = t->slots;

	if (!keys || !ids) {
		free(keys);
		free(ids);
		return -ENOMEM;
	}
	t->keys = keys;
	t->ids = ids;
	t->slots = n;
	t->used = 0;
	for (size_t i = 0; i < old; i++)
		if (old_keys[i])
			put(t, old_keys[i], old_ids[i]);
	free(old_keys);
	free(old_ids);
	return 0;
}

/* A new node under `key`: its id, or 0 when out of memory. */
static uint32_t add_node(struct exp_run_trie *t, uint64_t key, uint64_t pc, uint32_t parent,
			 uint16_t flags)
{
	if (t->n + 1 >= t->cap) {
		size_t cap = t->cap ? t->cap * 2 : 1024;
		uint64_t *pcs = exp_big_realloc(t->pc, t->cap * sizeof(*pcs), cap * sizeof(*pcs));
		if (pcs)
			t->pc = pcs;
		uint32_t *par = exp_big_realloc(t->parent, t->cap * sizeof(*par), cap * sizeof(*par));
		if (par)
			t->parent = par;
		uint16_t *fl = exp_big_realloc(t->flags, t->cap * sizeof(*fl), cap * sizeof(*fl));
		if (fl)
			t->flags = fl;
		if (!pcs || !par || !fl || cap >= EXP_RUN_LOCAL)
			return 0;
		t->cap = cap;
	}
	if (2 * (t->used + 1) > t->slots && grow_table(t) != 0)
		return 0;
	uint32_t id = (uint32_t)++t->n;
	t->pc[id] = pc;
	t->parent[id] = parent;
	t->flags[id] = flags;
	put(t, key, id);
	return id;
}

/* The node of stack[0..depth) (hashes: hash[0..depth]) with `flags`,
 * added with the nodes of its callers that are missing.  0 when out of
 * memory. */
static uint32_t intern(struct exp_run_trie *t, const uint64_t *stack, const uint64_t *hash,
		       uint32_t depth, uint16_t flags)
{
	uint64_t full = flags ? mix_flags(hash[depth], flags) : hash[depth];
	uint32_t id = lookup(t, full);

	if (id)
		return id;
	/* The longest stored prefix shorter than the stack: every prefix of a
	 * stored stack is stored, so "stored" turns from yes to no once. */
	uint32_t lo = 0, hi = depth - 1;     /* prefix lo is stored; hi may be */
	while (lo < hi) {
		uint32_t mid = lo + (hi - lo + 1) / 2;
		if (lookup(t, hash[mid]))
			lo = mid;
		else
			hi = mid - 1;
	}
	uint32_t parent = lo ? lookup(t, hash[lo]) : 0;
	for (uint32_t i = lo + 1; i < depth; i++)
		if (!(parent = add_node(t, hash[i], stack[i - 1], parent, 0)))
			return 0;
	return add_node(t, full, stack[depth - 1], parent, flags);
}

/* Prefetch the hash slot of a stack with these flags (lookup's first). */
static void prefetch(const struct exp_run_trie *t, const uint64_t *hash, uint32_t depth,
		     uint16_t flags)
{
	if (!t->slots)
		return;
	uint64_t full = flags ? mix_flags(hash[depth], flags) : hash[depth];
	size_t i = full & (t->slots - 1);
	exp_prefetch(&t->keys[i]);
	exp_prefetch(&t->ids[i]);
}

/* A decoded sample whose stack is still to be looked up: in the scratch
 * buffer of its place in the ring, stored as sample `at`. */
struct pending {
	bool set;
	uint16_t flags;
	uint32_t depth;
	size_t at;
};

/* Give the sample pending in buffer `buf` its stack's node.  0, or -ENOMEM. */
static int settle(struct exp_run_trie *t, struct exp_sample *samples, struct pending *pd,
		  unsigned buf)
{
	if (!pd[buf].set)
		return 0;
	pd[buf].set = false;
	uint32_t id = intern(t, t->stack[buf], t->hash[buf], pd[buf].depth, pd[buf].flags);
	if (!id)
		return -ENOMEM;
	samples[pd[buf].at].stack_id = EXP_RUN_LOCAL | id;
	return 0;
}

/* Settle every pending sample, oldest first (the order the trie's nodes
 * are numbered in does not depend on the lag), from buffer `next` on. */
static int settle_all(struct exp_run_trie *t, struct exp_sample *samples, struct pending *pd,
		      unsigned next)
{
	for (unsigned k = 0; k < EXP_RUN_LAG; k++)
		if (settle(t, samples, pd, (next + k) % EXP_RUN_LAG))
			return -ENOMEM;
	return 0;
}

struct bytes {
	const uint8_t *p, *end;
	bool bad;
};

static uint64_t get_u_slow(struct bytes *b)
{
	uint64_t v = 0;

	for (unsigned shift = 0; shift < 64; shift += 7) {
		if (b->p >= b->end || (shift == 63 && *b->p > 1)) {
			b->bad = true;
			return 0;
		}
		uint8_t c = *b->p++;
		v |= (uint64_t)(c & 0x7f) << shift;
		if (!(c & 0x80))
			return v;
	}
	b->bad = true;
	return 0;
}

/* A varint; most are one byte (pops, pushes, dictionary codes). */
static inline uint64_t get_u(struct bytes *b)
{
	if (b->p < b->end && !(*b->p & 0x80))
		return *b->p++;
	return get_u_slow(b);
}

static uint64_t unzigzag(uint64_t z)
{
	return (z >> 1) ^ -(z & 1);
}

static int corrupt(struct exp_error *err, const char *path, const struct exp_rec *r, size_t nth,
		   const char *why)
{
	return exp_corrupt(err, path, r->offset, "sample run, sample %zu: %s", nth, why);
}

int exp_run_decode(struct exp_run_trie *t, const char *path, const struct exp_rec *r,
		   struct exp_sample **samples, size_t *nsamples, size_t *cap,
		   struct exp_error *err)
{
	struct exp_sample_run h;

	if (r->len < sizeof(h))
		return exp_corrupt(err, path, r->offset, "sample run of %u bytes", r->len);
	memcpy(&h, r->p, sizeof(h));
	if (h.used > r->len - sizeof(h))
		return exp_corrupt(err, path, r->offset, "sample run uses %u bytes of %zu", h.used,
				   r->len - sizeof(h));
	if (t->dict_cap < h.used) {
		uint64_t *d = realloc(t->dict, h.used * sizeof(*d));
		if (!d)
			return -ENOMEM;
		t->dict = d;
		t->dict_cap = h.used;
	}
	struct bytes b = { (const uint8_t *)r->p + sizeof(h), (const uint8_t *)r->p + sizeof(h) + h.used,
			   false };
	uint32_t depth = 0;
	size_t ndict = 0;
	uint64_t time = h.time_ns, weight = 0, cpu = 0xffff;
	unsigned cur = 0;                  /* scratch buffer of this sample */
	struct pending pd[EXP_RUN_LAG] = { 0 };
	const char *why = NULL;
	size_t nth = 0;
	int rc;

	t->hash[cur][0] = SEED;
	for (; b.p < b.end; nth++) {
		uint64_t head = get_u(&b), push = get_u(&b);
		if (b.bad) {
			why = "ends inside its stack";
			break;
		}
		if ((head >> 3) > depth) {
			why = "drops more frames than the previous stack has";
			break;
		}
		depth -= (uint32_t)(head >> 3);
		if (push > EXP_MAX_FRAMES - depth || depth + push == 0) {
			why = depth + push ? "stack deeper than 1024 frames" : "empty stack";
			break;
		}
		/* The previous samples' buffers stay as they were, for their
		 * look-ups: this one starts from a copy of what it keeps of the
		 * last one, in the buffer of the oldest, looked up now. */
		if (nth) {
			unsigned prev = cur;
			cur = (cur + 1) % EXP_RUN_LAG;
			if (settle(t, *samples, pd, cur))
				return -ENOMEM;
			memcpy(t->stack[cur], t->stack[prev], depth * sizeof(**t->stack));
			memcpy(t->hash[cur], t->hash[prev], (depth + 1) * sizeof(**t->hash));
		}
		uint64_t *stack = t->stack[cur], *hash = t->hash[cur];
		for (uint64_t k = 0; k < push; k++) {
			uint64_t code = get_u(&b), pc;
			if (code & 1) {
				if ((code >> 1) >= ndict) {
					why = "pc from beyond the dictionary";
					break;
				}
				pc = t->dict[code >> 1];
			} else {
				pc = code ? (depth ? stack[depth - 1] : 0) + unzigzag((code >> 1) - 1)
					  : get_u(&b);
				t->dict[ndict++] = pc;       /* ndict <= bytes read < used */
			}
			if (b.bad) {
				why = "ends inside its stack";
				break;
			}
			stack[depth] = pc;
			hash[depth + 1] = mix(hash[depth], pc);
			depth++;
		}
		if (why)
			break;
		time += unzigzag(get_u(&b));
		weight += unzigzag(get_u(&b));
		if (head & 4)
			cpu = get_u(&b);
		if (b.bad || cpu > 0xffff) {
			why = b.bad ? "ends inside its times" : "cpu out of range";
			break;
		}
		prefetch(t, hash, depth, (uint16_t)(head & 3));
		if (exp_grow(samples, cap, *nsamples, sizeof(**samples)))
			return -ENOMEM;
		(*samples)[*nsamples] = (struct exp_sample){
			.tid = h.tid, .time_ns = time, .stack_id = 0,
			.cpu = (uint16_t)cpu, .weight_ns = weight,
		};
		pd[cur] = (struct pending){ true, (uint16_t)(head & 3), depth, (*nsamples)++ };
	}
	if ((rc = settle_all(t, *samples, pd, (cur + 1) % EXP_RUN_LAG)) != 0)
		return rc;
	return why ? corrupt(err, path, r, nth, why) : 0;
}

void exp_run_trie_free(struct exp_run_trie *t)
{
	free(t->pc);
	free(t->parent);
	free(t->flags);
	free(t->keys);
	free(t->ids);
	free(t->dict);
	memset(t, 0, sizeof(*t));
}
