/* SPDX-License-Identifier: MIT
 *
 * exp_write_run.c — the encoder of SAMPLE_RUN records (see exp_write_run.h,
 * and exp_records.h for the encoding).
 *
 * Called from the collector's signal handler.  Sigsafe file: no stdio, no
 * malloc, no locks, no system calls but the cursor's when a run fills its
 * block.  A sample's bytes are written into the run past its `used` bytes,
 * which readers ignore, then published by a release store of `used`.
 */
#include <stdatomic.h>
#include <stdbool.h>
#include <string.h>

#include "format/exp_write_run.h"

#define DICT_PROBES 8
#define DICT_MAX (EXP_RUN_DICT_SLOTS / 2)     /* entries indexed per run */
#define VARINT_MAX 10
/* Bytes a sample of n new frames may take: five varints, and a code (1 byte
 * when the pc follows) and a pc for each frame. */
#define SAMPLE_MAX(n) (5u * VARINT_MAX + (n) * (VARINT_MAX + 1u))

static uint8_t *put_u(uint8_t *p, uint64_t v)
{
	while (v >= 0x80) {
		*p++ = (uint8_t)(v | 0x80);
		v >>= 7;
	}
	*p++ = (uint8_t)v;
	return p;
}

static uint64_t zigzag(uint64_t delta)
{
	return (delta << 1) ^ (uint64_t)((int64_t)delta >> 63);
}

/* The dictionary entry of `pc` in this run, or -1 after making it the next
 * entry (the caller writes it as a literal). */
static int64_t dict_find(struct exp_run_writer *rw, uint64_t pc)
{
	uint32_t h = (uint32_t)((pc * 0x9e3779b97f4a7c15ull) >> 54);
	uint32_t index = rw->ndict++;

	for (uint32_t probe = 0; probe < DICT_PROBES; probe++) {
		struct exp_run_dict_slot *s = &rw->dict[(h + probe) % EXP_RUN_DICT_SLOTS];
		if (s->gen != rw->gen) {
			if (index < DICT_MAX) {
				s->pc = pc;
				s->gen = rw->gen;
				s->index = index;
			}
			return -1;
		}
		if (s->pc == pc) {
			rw->ndict--;
			return s->index;
		}
	}
	return -1;
}

static uint8_t *put_pc(struct exp_run_writer *rw, uint8_t *p, uint64_t pc, uint64_t ref)
{
	int64_t index = dict_find(rw, pc);

	if (index >= 0)
		return put_u(p, ((uint64_t)index << 1) | 1);
	uint64_t z = zigzag(pc - ref);
	if (z < (1ull << 62))
		return put_u(p, (z + 1) << 1);
	return put_u(put_u(p, 0), pc);
}

static int start_run(struct exp_run_writer *rw, struct exp_file_writer *w, struct exp_cursor *c,
		     const struct exp_run_sample *s, uint32_t n)
{
	uint32_t len;
	uint32_t need = (uint32_t)(sizeof(struct exp_sample_run) + SAMPLE_MAX(n) + 7) & ~7u;
	struct exp_sample_run *r = exp_record_reserve_rest_sigsafe(w, c, need, &len);

	rw->rec = NULL;
	if (!r)
		return -1;
	r->tid = s->tid;
	r->time_ns = s->time_ns;
	r->used = 0;
	exp_record_publish_sigsafe(r, EXP_REC_SAMPLE_RUN, len);
	rw->rec = r;
	rw->cap = len - (uint32_t)sizeof(*r);
	rw->gen++;
	rw->ndict = 0;
	rw->depth = 0;
	rw->prev_cpu = 0xffff;
	rw->prev_time = s->time_ns;
	rw->prev_weight = 0;
	return 0;
}

int exp_run_append_sigsafe(struct exp_run_writer *rw, struct exp_file_writer *w,
			   struct exp_cursor *c, const struct exp_run_sample *s,
			   const uint64_t *pcs, uint32_t n)
{
	uint32_t keep = 0;

	while (keep < rw->depth && keep < n && rw->prev[keep] == pcs[n - 1 - keep])
		keep++;
	if (!rw->rec || rw->rec->tid != s->tid || rw->cap - rw->rec->used < SAMPLE_MAX(n - keep)) {
		if (start_run(rw, w, c, s, n) != 0)
			return -1;
		keep = 0;
	}
	uint8_t *start = rw->rec->data + rw->rec->used, *p = start;
	bool cpu_changed = s->cpu != rw->prev_cpu;
	p = put_u(p, (uint64_t)(rw->depth - keep) << 3 | (uint64_t)cpu_changed << 2 |
		     (s->flags & (EXP_STACK_TRUNCATED | EXP_STACK_BROKEN)));
	p = put_u(p, n - keep);
	for (uint32_t i = keep; i < n; i++) {
		uint64_t pc = pcs[n - 1 - i];
		p = put_pc(rw, p, pc, i ? rw->prev[i - 1] : 0);
		rw->prev[i] = pc;
	}
	rw->depth = n;
	p = put_u(p, zigzag(s->time_ns - rw->prev_time));
	p = put_u(p, zigzag(s->weight_ns - rw->prev_weight));
	if (cpu_changed)
		p = put_u(p, s->cpu);
	rw->prev_time = s->time_ns;
	rw->prev_weight = s->weight_ns;
	rw->prev_cpu = s->cpu;
	atomic_store_explicit((_Atomic uint32_t *)&rw->rec->used, rw->rec->used + (uint32_t)(p - start),
			      memory_order_release);
	return 0;
}

void exp_run_end_sigsafe(struct exp_run_writer *rw)
{
	rw->rec = NULL;
}
