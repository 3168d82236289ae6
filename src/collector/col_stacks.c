/* SPDX-License-Identifier: MIT
 *
 * col_stacks.c — call stacks stored once, as a trie: each stack is written
 * as STACK_NODE records (one frame and the id of the stack of its callers)
 * for the frames that are not in the experiment yet, and referred to by id.
 *
 * Called from the signal handler and from tracing interposers, in any thread.
 * A lock-free open-addressing table maps a 64-bit hash of each stored stack's
 * outer part ("suffix": frames k..n, root side) to its node's id.  Every
 * suffix of a stored stack is stored too, so "is this suffix stored?" only
 * ever turns from no to yes as k grows toward the root, and the longest
 * stored suffix of a new stack is found by binary search.  Deep stacks that
 * differ near the leaf (an interpreter, recursion) then cost 24 bytes per new
 * frame instead of 8 per frame of every distinct stack.
 *
 * The table grows with the stacks actually seen: levels of 2^12, 2^14, ...
 * 2^22 slots, each mapped (MAP_NORESERVE) when the one before is half full
 * (a 64 MiB table reserved up front took a third of a program's address
 * space under `ulimit -v 100000`).  New keys go to the newest level.  Its
 * mapping publishes it at once (new keys go there) and starts a copy of the
 * published keys of the level before into it, done a chunk of 256 source
 * slots per stack interned that misses, in whatever context that is, the
 * signal handler included: at most 128 keys and as many first-touch page
 * faults of the new level per intern (copy_step), not the whole level (16 or
 * 64 MiB) in one handler.  While it runs lookups search both levels; once it
 * has made two passes (the second carries keys whose id was mid-publish at
 * the first) lookups search from the newest level down to it only (the
 * floor): one probe sequence, not one per level, each a cache miss in a table
 * of megabytes (cc1's stacks fill four levels; `lookup` was 3-4% of a compile
 * under -H, docs/benchmarks.md), and the levels below it are given back
 * (MADV_DONTNEED; a lookup still in one reads zeros: absent).  A key
 * claimed in an older level that the copy may have passed before its id was
 * published (a thread that read `top` before the new level's map, or held
 * between its claim and its publish) is claimed in the newest level too, by
 * its own thread (publish): so no key is lost to the floor, and its stack is
 * never stored twice for it.  The level that loses a race to map the next
 * one unmaps its copy.
 *
 * A slot is claimed by compare-and-swap of its key, the record written, then
 * the id published with a release store; a reader of a claimed slot whose id
 * is not yet published treats the suffix as absent (and may store a
 * duplicate node: harmless, the analyzer resolves each id by itself).  A
 * collision of two different suffixes on all 64 bits would merge them; with
 * millions of nodes the chance is about 10^-7 (docs/collector.md).
 * Sigsafe file.
 */
#include <errno.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>

#include "collector/col_log.h"
#include "collector/col_objset.h"
#include "collector/col_files.h"
#include "collector/col_stacks.h"
#include "collector/col_state.h"
#include "collector/col_sys.h"

#define LEVEL0_BITS 12             /* the first level: 4096 slots, 64 KiB */
#define LEVELS 6                   /* each 4 times the one before: up to 2^22 slots */
#define MAX_PROBES 32

struct slot {
	_Atomic uint64_t key;          /* hash | 1; 0 = free */
	_Atomic uint32_t id;           /* 0 until the record is published */
	uint32_t pad;
};

static struct slot *_Atomic level[LEVELS];
static _Atomic uint32_t level_used[LEVELS];   /* slots claimed in each */
static _Atomic int top = -1;                  /* the newest level mapped */
static _Atomic int bottom;                    /* the oldest level lookups search */
static _Atomic uint32_t next_id = 1;

void (*col_stacks_claimed_hook)(void);

static size_t level_slots(int l)
{
	return (size_t)1 << (LEVEL0_BITS + 2 * l);
}

/* The copy of the level below the newest into it, done in chunks of
 * COPY_CHUNK source slots, one chunk per stack interned that misses (in the
 * signal handler too: a chunk is at most COPY_CHUNK / 2 keys, each at most
 * one first-touch page of the new level, instead of the whole level at
 * once).  Positions 0..n-1 of the cursor are the first pass over the source,
 * n..2n-1 a second pass that carries the keys whose id was not yet
 * published at the first (a mid-publish key, often a hot new stack).  The
 * chunk that completes both moves `bottom` to the new level; positions
 * 2n..3n-1 then release the source's pages, one page (256 slots of 16
 * bytes) per chunk (MADV_DONTNEED: a lookup still reading one reads zeros,
 * "absent"): releasing all 16 MiB of level 4 at once took 1.4 ms. */
#define COPY_CHUNK 256

static _Atomic int copy_to = -1;             /* the level being filled, -1 if none */
static _Atomic size_t copy_cursor;           /* next position to take */
static _Atomic size_t copy_done;             /* positions copied */

/* Copy the keys of source slots [first, end) of level `from` into `to`. */
static void copy_slots(int from, int to, size_t first, size_t end)
{
	struct slot *src = atomic_load_explicit(&level[from], memory_order_acquire);
	struct slot *dst = atomic_load_explicit(&level[to], memory_order_acquire);
	size_t mask = level_slots(to) - 1;
	uint32_t copied = 0;

	for (size_t i = first; src && dst && i < end; i++) {
		/* Both sequentially consistent: against publish()'s store and
		 * load of `top` (a key not seen here is claimed anew there); an
		 * acquire load of the key could come before level_map's store
		 * of `top` in the C11 model (x86 and ARMv8 keep the order). */
		uint64_t key = atomic_load(&src[i].key);
		uint32_t id = key ? atomic_load(&src[i].id) : 0;
		if (!id)
			continue;
		for (uint32_t probe = 0; probe < MAX_PROBES; probe++) {
			struct slot *s = &dst[(key + probe) & mask];
			uint64_t k = 0;
			if (atomic_compare_exchange_strong(&s->key, &k, key)) {
				atomic_store_explicit(&s->id, id, memory_order_release);
				copied++;
				break;
			}
			if (k == key)
				break;             /* claimed there already */
		}
	}
	/* At most half of a level 4 times smaller: far below the half of
	 * the new one at which claim() maps the next (an exact count). */
	atomic_fetch_add(&level_used[to], copied);
}

/* Both passes are done: search from `to` down only. */
static void copy_finish(int to)
{
	int was = to - 1;

	atomic_compare_exchange_strong(&bottom, &was, to);
}

/* Give back the pages of source slots [first, end) of level `from`, once
 * lookups no longer search it (a page whose chunk ran before a slower
 * thread's last copy chunk ended stays resident). */
static void release_slots(int from, int to, size_t first, size_t end)
{
	struct slot *src = atomic_load_explicit(&level[from], memory_order_acquire);

	if (src && atomic_load_explicit(&bottom, memory_order_acquire) == to)
		col_syscall(SYS_madvise, src + first, (end - first) * sizeof(struct slot),
			    MADV_DONTNEED);
}

/* Do one chunk (all that is left when `all`) of the copy in progress. */
static void copy_step(bool all)
{
	int to = atomic_load_explicit(&copy_to, memory_order_acquire);

	if (to <= 0)
		return;
	size_t n = level_slots(to - 1);
	do {
		size_t at = atomic_fetch_add(&copy_cursor, COPY_CHUNK);
		if (at >= 3 * n)
			return;
		size_t first = at % n, end = first + COPY_CHUNK < n ? first + COPY_CHUNK : n;
		if (at < 2 * n)
			copy_slots(to - 1, to, first, end);
		else
			release_slots(to - 1, to, first, end);
		size_t done = atomic_fetch_add(&copy_done, COPY_CHUNK) + COPY_CHUNK;
		if (done == 2 * n)
			copy_finish(to);
		else if (done == 3 * n)
			atomic_store_explicit(&copy_to, -1, memory_order_release);
	} while (all);
}

/* Map level l (if no one else has) and start copying level l-1's keys into
 * it (copy_step); false if it cannot be mapped. */
static bool level_map(int l)
{
	size_t bytes = level_slots(l) * sizeof(struct slot);
	struct slot *p = col_sys_mmap(NULL, bytes, PROT_READ | PROT_WRITE,
				      MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	struct slot *none = NULL;

	if (p == MAP_FAILED)
		return false;
	if (!atomic_compare_exchange_strong(&level[l], &none, p)) {
		col_sys_munmap(p, bytes);          /* another thread mapped it first */
		return true;
	}
	/* A copy still running (not possible by count: it takes
	 * 2 * slots(l-2) / COPY_CHUNK interns, the level filling takes
	 * 2 * slots(l-2) claims) is finished here. */
	copy_step(true);
	/* `top` first, then the copy: a claimer in level l-1 that loads the
	 * old `top` after publishing its id has that id read by the copy
	 * (both sequentially consistent); one that loads the new `top`
	 * claims its key there too (publish). */
	int was = l - 1;
	atomic_compare_exchange_strong(&top, &was, l);
	if (l > 0) {
		atomic_store(&copy_cursor, 0);
		atomic_store(&copy_done, 0);
		atomic_store_explicit(&copy_to, l, memory_order_release);
	}
	return true;
}

int col_stacks_levels_searched(void)
{
	return atomic_load(&top) - atomic_load(&bottom) + 1;
}

void col_stacks_init(void)
{
	for (int l = 0; l < LEVELS; l++) {
		struct slot *p = atomic_exchange(&level[l], NULL);
		if (p)
			col_sys_munmap(p, level_slots(l) * sizeof(struct slot));
		atomic_store(&level_used[l], 0);
	}
	atomic_store(&top, -1);
	atomic_store(&bottom, 0);
	atomic_store(&copy_to, -1);
	if (!level_map(0))
		col_log_error_sigsafe("stack table", errno, "stacks stored without sharing");
	atomic_store(&next_id, 1);
}

static uint64_t mix(uint64_t h, uint64_t v)
{
	h ^= v;
	h *= 0x9e3779b97f4a7c15ull;
	return h ^ (h >> 29);
}

/* The id stored under `key`, 0 if none (or not yet published). */
static uint32_t lookup(uint64_t key)
{
	int low = atomic_load_explicit(&bottom, memory_order_acquire);

	for (int l = atomic_load_explicit(&top, memory_order_acquire); l >= low; l--) {
		struct slot *table = atomic_load_explicit(&level[l], memory_order_acquire);
		size_t mask = level_slots(l) - 1;
		for (uint32_t probe = 0; table && probe < MAX_PROBES; probe++) {
			struct slot *s = &table[(key + probe) & mask];
			uint64_t k = atomic_load_explicit(&s->key, memory_order_acquire);
			if (k == key)
				return atomic_load_explicit(&s->id, memory_order_acquire);
			if (k == 0)
				break;
		}
	}
	return 0;
}

/* Claim a slot for `key` in the newest level, mapping the next level when
 * this one is half full; NULL if it is taken already or none is free.  A
 * key that finds none is counted by cause (`counted`: not a re-claim of a
 * key indexed in an older level already, publish's): the table full (its
 * newest level past half full: no more levels, or the next could not be
 * mapped), or its MAX_PROBES slots taken in a level that is not (a
 * cluster). */
static struct slot *claim(uint64_t key, int *at, bool counted)
{
	int l = *at = atomic_load_explicit(&top, memory_order_acquire);
	struct slot *table = l >= 0 ? atomic_load_explicit(&level[l], memory_order_acquire) : NULL;

	if (!table) {                      /* none could be mapped (logged) */
		if (counted)
			col_count_sigsafe(EXP_CTR_STACK_TABLE_FULL, 1);
		return NULL;
	}
	size_t mask = level_slots(l) - 1;
	for (uint32_t probe = 0; probe < MAX_PROBES; probe++) {
		struct slot *s = &table[(key + probe) & mask];
		uint64_t k = atomic_load_explicit(&s->key, memory_order_acquire);
		if (k == 0) {
			uint64_t zero = 0;
			if (atomic_compare_exchange_strong(&s->key, &zero, key)) {
				if (atomic_fetch_add(&level_used[l], 1) + 1 != level_slots(l) / 2 ||
				    l + 1 >= LEVELS)
					return s;
				if (!level_map(l + 1))
					col_log_error_sigsafe("stack table", errno, "not grown: it fills up");
				/* The key stays here, which lookups search until
				 * the copy has carried it over (its second pass). */
				return s;
			}
			k = zero;
		}
		if (k == key)
			return NULL;
	}
	bool full = atomic_load_explicit(&level_used[l], memory_order_relaxed) >= level_slots(l) / 2;
	if (counted)
		col_count_sigsafe(full ? EXP_CTR_STACK_TABLE_FULL : EXP_CTR_STACK_CROWDED, 1);
	return NULL;
}

static uint32_t write_node(struct col_thread *t, uint64_t pc, uint32_t parent, uint16_t flags)
{
	col_file_ready_sigsafe(EXP_FILE_STACKS);
	struct exp_stack_node *r = exp_record_reserve_sigsafe(&col_proc.file[EXP_FILE_STACKS],
							      &t->cursor[EXP_FILE_STACKS], sizeof(*r));
	if (!r) {
		col_file_lost_sigsafe(EXP_FILE_STACKS, EXP_CTR_LOST_BUFFER);
		return 0;
	}
	uint32_t id = atomic_fetch_add(&next_id, 1);
	r->stack_id = id;
	r->parent_id = parent;
	r->flags = flags;
	r->pc = pc;
	exp_record_publish_sigsafe(r, EXP_REC_STACK_NODE, sizeof(*r));
	return id;
}

/* Publish `id` in slot s, claimed for `key` in level l.  If a newer level
 * is mapped by now, the copy into it may have read s before this store and
 * lookups may soon stop searching l (the floor): the key is claimed in the
 * newest level as well, and so on while levels keep coming.  The store and
 * the load of `top` are sequentially consistent, as the copy's read of the
 * id (copy_slots) and level_map's store of `top` before the copy starts:
 * either this load sees the new level or the copy sees the id.  A key
 * already in the newest level is left there (the copy's, or a duplicate
 * claimer's, which publishes itself).  A re-claim that finds no slot is
 * not counted: the key is indexed in level l (searched until the copy's
 * second pass), and the full and crowded counters say keys not indexed. */
static void publish(struct slot *s, int l, uint64_t key, uint32_t id)
{
	while (s) {
		atomic_store(&s->id, id);
		if (atomic_load(&top) <= l)
			return;
		s = claim(key, &l, false);
	}
}

/* Store a node and index it under `key` (if the key is free). */
static uint32_t add_node(struct col_thread *t, uint64_t key, uint64_t pc, uint32_t parent,
			 uint16_t flags)
{
	int l;
	struct slot *s = claim(key, &l, true);
	uint32_t id = write_node(t, pc, parent, flags);

	if (__builtin_expect(col_stacks_claimed_hook != NULL, 0))
		col_stacks_claimed_hook();
	if (s && id)
		publish(s, l, key, id);
	return id;
}

uint32_t col_stack_intern_sigsafe(struct col_thread *t, const uint64_t *pcs, uint32_t n,
				  uint16_t flags)
{
	uint64_t *h = t->suffix_hash;    /* h[k]: key of frames k..n-1 */

	if (n == 0)
		return 0;
	h[n] = 0x243f6a8885a308d3ull;
	for (uint32_t k = n; k-- > 0;)
		h[k] = mix(h[k + 1], pcs[k]) | 1;
	uint64_t full = flags ? (mix(h[0], flags) | 1) : h[0];
	bool table = atomic_load_explicit(&top, memory_order_relaxed) >= 0;
	uint32_t id = table ? lookup(full) : 0;
	if (id)
		return id;
	copy_step(false);
	/* The longest stored suffix: the smallest k with key h[k] present. */
	uint32_t lo = 1, hi = n, parent = 0;
	while (table && lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;
		if (lookup(h[mid]))
			hi = mid;
		else
			lo = mid + 1;
	}
	if (table && lo < n)
		parent = lookup(h[lo]);
	if (!parent)
		lo = n;                      /* nothing (published) to share */
	for (uint32_t j = lo; j-- > 1;) {
		parent = add_node(t, h[j], pcs[j], parent, 0);
		if (!parent)
			return 0;
	}
	return add_node(t, full, pcs[0], parent, flags);
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

/* Intern the traced stack in t->frames[0..n), without its leading frames in
 * tally's own code (the interposer; or one interposer calling another:
 * reallocarray -> realloc).  Traced events come in runs from the same place
 * (a loop that allocates): the thread's previous traced stack is compared
 * first, which is cheaper than hashing every frame. */
static uint32_t intern_traced(struct col_thread *t, int n, int truncated, int broken)
{
	const struct col_object_set *set = col_objects_current_sigsafe();
	int skip = 0;

	while (skip < n && col_objects_is_self_sigsafe(set, t->frames[skip] - 1))
		skip++;
	uint16_t flags = EXP_STACK_LEAF_IS_RETADDR | col_stack_flags_sigsafe(truncated, broken);
	uint32_t len = (uint32_t)(n - skip);

	if (t->memo_id && len == t->memo_n && flags == t->memo_flags &&
	    !memcmp(t->frames + skip, t->memo_pcs, len * 8u))
		return t->memo_id;
	uint32_t id = col_stack_intern_sigsafe(t, t->frames + skip, len, flags);
	if (id) {
		memcpy(t->memo_pcs, t->frames + skip, len * 8u);
		t->memo_n = len;
		t->memo_flags = flags;
		t->memo_id = id;
	}
	return id;
}

uint32_t col_stack_here(struct col_thread *t)
{
	int truncated, broken;

	col_regs_capture(&t->regs);
	int n = col_unwind_sigsafe(&t->unwind, &t->regs, t->frames, (int)col_proc.opt.max_frames,
				   &truncated, &broken);
	return intern_traced(t, n, truncated, broken);
}

/* The index of the entry where a stack of (ra, sp) goes: an empty one of
 * its set, else the one made longest ago (no store when one is found: an
 * event met before writes nothing here). */
static uint32_t traced_memo_slot(struct col_thread *t, uint64_t ra, uint64_t sp)
{
	uint32_t set = col_traced_memo_set(ra, sp), old = set;

	for (uint32_t i = set; i < set + COL_TRACED_MEMO_WAYS; i++) {
		if (!t->traced_keys[i].ra)
			return i;
		if ((int32_t)(t->traced_memo[i].used - t->traced_memo[old].used) < 0)
			old = i;
	}
	return old;
}

/* Remember the stack t->traced holds, whose interned id is `id`, under its
 * return address `ra`, stack pointer `sp` (and frame pointer `fp`, if the
 * rule of its CFA reads it): the stack words to check next time are those
 * that held each frame's return address (and the zero that ended it), as
 * the walk reuses outer frames (col_unwind.c reuse_from).  Stacks cut or
 * broken, deeper than the memo, whose CFA no cached rule gives, or ended
 * otherwise are not kept.  The entry, or NULL. */
static struct col_traced_memo *traced_remember(struct col_thread *t, uint64_t ra, uint64_t sp,
					       uint64_t fp, uint64_t generation, uint32_t id)
{
	const struct col_unwind_prev *p = &t->traced;
	uint32_t k = 0;
	uint64_t cfa;
	bool by_fp;

	if (!id || p->n < 2 || p->truncated || p->broken || !p->end || p->pcs[0] != ra || (sp & 7) ||
	    !col_unwind_cfa_cached_sigsafe(&t->unwind, generation, ra, sp, fp, &cfa, &by_fp) ||
	    cfa != p->cfa[0])
		return NULL;
	uint32_t need = (uint32_t)p->n - 1 + (p->end == 2);
	if (need > COL_TRACED_MEMO_WORDS)
		return NULL;
	uint32_t at = traced_memo_slot(t, ra, sp);
	struct col_traced_memo *m = &t->traced_memo[at];
	t->traced_keys[at].ra = 0;
	m->used = ++t->traced_memo_clock;
	m->aux = NULL;
	uint64_t last = 0;
	for (int i = 0; i + 1 < p->n; i++, k++) {
		if (p->cfa[i] - 8 <= last)
			return NULL;       /* not one stack (col_unwind_words_hold_sigsafe) */
		last = p->cfa[i] - 8;
		m->word[k] = (struct col_unwind_word){ last, p->pcs[i + 1] };
	}
	if (p->end == 2) {
		if (p->cfa[p->n - 1] - 8 <= last)
			return NULL;
		m->word[k++] = (struct col_unwind_word){ p->cfa[p->n - 1] - 8, 0 };
	}
	/* The return address is where x86-64's CFI almost always keeps it,
	 * at CFA - 8; a frame that keeps it elsewhere is not remembered.  The
	 * walk says whether each of its frames' was read there (ra_at_cfa):
	 * then only the end's 0 is read again, which a reused tail's walk did
	 * not read (every word again was ~200 instructions of each of cc1's
	 * walks under -H -s -i, for words the walk had just read). */
	uint32_t check = p->ra_at_cfa ? (p->end == 2) : k;
	if (!col_unwind_words_hold_sigsafe(&t->unwind, m->word + (k - check), check))
		return NULL;
	m->fp = fp;
	m->generation = generation;
	m->nwords = k;
	m->id = id;
	t->traced_keys[at].sp = sp | (by_fp ? COL_TRACED_BY_FP : 0);
	t->traced_keys[at].ra = ra;
	return m;
}

void col_stacks_forget_aux(struct col_thread *t)
{
	for (int i = 0; i < COL_TRACED_MEMO; i++)
		t->traced_memo[i].aux = NULL;
}

uint32_t col_stack_walk_traced(struct col_thread *t, uint64_t ra, uint64_t sp, uint64_t fp,
			       struct col_traced_memo **memo)
{
	const struct col_object_set *set = col_objects_current_sigsafe();
	int truncated, broken;

	*memo = NULL;
	col_count_sigsafe(EXP_CTR_TRACED_UNWOUND, 1);   /* rare: a walk costs far more */
	t->regs.r[UW_RIP] = ra;
	t->regs.r[UW_RSP] = sp;
	t->regs.r[UW_RBP] = fp;
	t->regs.valid = (1u << UW_RIP) | (1u << UW_RSP) | (1u << UW_RBP);
	int n = col_unwind_traced_sigsafe(&t->unwind, &t->regs, &t->traced, t->frames,
					  (int)col_proc.opt.max_frames, &truncated, &broken);
	uint32_t id = intern_traced(t, n, truncated, broken);
	if (set && !truncated && !broken && t->unwind.generation == set->generation)
		*memo = traced_remember(t, ra, sp, fp, set->generation, id);
	return id;
}

uint32_t col_stack_from(struct col_thread *t, uint64_t ra, uint64_t sp, uint64_t fp)
{
	struct col_traced_memo *memo;

	return col_stack_from_memo(t, ra, sp, fp, &memo);
}

uint32_t col_stack_interrupted_sigsafe(struct col_thread *t, const void *uc,
				       struct col_stack_memo *memo, uint64_t *leaf)
{
	int truncated, broken;

	col_regs_from_ucontext(uc, &t->regs);
	int n = col_unwind_sigsafe(&t->unwind, &t->regs, t->frames, (int)col_proc.opt.max_frames,
				   &truncated, &broken);
	if (n < 1) {
		t->frames[0] = t->regs.r[UW_RIP];
		n = 1;
	}
	*leaf = t->frames[0];
	uint16_t flags = col_stack_flags_sigsafe(truncated, broken);
	uint64_t h = mix((uint64_t)flags, (uint64_t)n);
	for (int i = 0; i < n; i++)
		h = mix(h, t->frames[i]);
	if (memo->id && memo->hash == h && memo->n == (uint32_t)n)
		return memo->id;
	uint32_t id = col_stack_intern_sigsafe(t, t->frames, (uint32_t)n, flags);
	if (id)
		*memo = (struct col_stack_memo){ h, (uint32_t)n, id };
	return id;
}
