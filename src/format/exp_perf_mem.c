/* SPDX-License-Identifier: MIT
 *
 * exp_perf_mem.c — precise memory-access samples in a perf ring buffer and
 * their data source's level (see exp_perf_mem.h).  Linked into both `tally`
 * and the collector; what the collector calls is sigsafe (no malloc, no
 * stdio, no locks).
 */
#include <linux/perf_event.h>
#include <string.h>

#include "format/exp_perf_mem.h"

_Static_assert(EXP_PERF_MEM_SAMPLE_TYPE == (PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME |
					    PERF_SAMPLE_ADDR | PERF_SAMPLE_DATA_SRC),
	       "the sample fields of a precise memory event");

int exp_perf_mem_parse(uint64_t sample_type, const void *body, size_t len, struct exp_perf_mem_sample *out)
{
	const uint8_t *p = body, *end = p + len;
	uint64_t u;

	memset(out, 0, sizeof(*out));
	if (sample_type & ~(uint64_t)EXP_PERF_MEM_SAMPLE_TYPE)
		return -1;
	/* The fields in the order of their bits, each 8 bytes. */
	static const uint64_t order[] = { PERF_SAMPLE_IP, PERF_SAMPLE_TID, PERF_SAMPLE_TIME, PERF_SAMPLE_ADDR,
					  PERF_SAMPLE_DATA_SRC };
	for (size_t i = 0; i < sizeof(order) / sizeof(order[0]); i++) {
		if (!(sample_type & order[i]))
			continue;
		if (end - p < 8)
			return -1;
		memcpy(&u, p, 8);
		p += 8;
		switch (order[i]) {
		case PERF_SAMPLE_IP: out->ip = u; break;
		case PERF_SAMPLE_TID: out->pid = (uint32_t)u; out->tid = (uint32_t)(u >> 32); break;
		case PERF_SAMPLE_TIME: out->time_ns = u; break;
		case PERF_SAMPLE_ADDR: out->addr = u; break;
		case PERF_SAMPLE_DATA_SRC: out->data_src = u; break;
		}
	}
	return 0;
}

/* Copy `len` bytes at ring offset `pos` (which may wrap). */
static void ring_copy(const uint8_t *data, uint64_t size, uint64_t pos, void *out, size_t len)
{
	uint64_t at = pos & (size - 1);
	size_t first = len < size - at ? len : (size_t)(size - at);

	memcpy(out, data + at, first);
	memcpy((uint8_t *)out + first, data, len - first);
}

int exp_perf_ring_next(const uint8_t *data, uint64_t size, uint64_t *tail, uint64_t head, uint32_t *type,
		       uint16_t *misc, void *body, size_t cap, size_t *body_len)
{
	struct perf_event_header h;

	if (head <= *tail || head - *tail < sizeof(h))
		return 0;
	if (!size || (size & (size - 1)) || head - *tail > size)
		return -1;
	ring_copy(data, size, *tail, &h, sizeof(h));
	if (h.size < sizeof(h) || h.size > head - *tail)
		return -1;
	size_t n = h.size - sizeof(h);
	ring_copy(data, size, *tail + sizeof(h), body, n < cap ? n : cap);
	*type = h.type;
	*misc = h.misc;
	*body_len = n;
	*tail += h.size;
	return 1;
}

enum exp_mem_level exp_mem_level_of(uint64_t data_src)
{
	uint64_t num = (data_src >> PERF_MEM_LVLNUM_SHIFT) & 0xf;
	bool remote = (data_src >> PERF_MEM_REMOTE_SHIFT) & 1;
	uint64_t lvl = (data_src >> PERF_MEM_LVL_SHIFT) & 0x3fff;

	switch (num) {
	case PERF_MEM_LVLNUM_L1: return remote ? EXP_MEM_REMOTE : EXP_MEM_L1;
	case PERF_MEM_LVLNUM_L2: return remote ? EXP_MEM_REMOTE : EXP_MEM_L2;
	case PERF_MEM_LVLNUM_L3:
	case PERF_MEM_LVLNUM_L4: return remote ? EXP_MEM_REMOTE : EXP_MEM_LLC;
	case PERF_MEM_LVLNUM_LFB: return EXP_MEM_LFB;
	case PERF_MEM_LVLNUM_RAM:
	case PERF_MEM_LVLNUM_PMEM:
	case PERF_MEM_LVLNUM_CXL: return remote ? EXP_MEM_REMOTE : EXP_MEM_DRAM;
	case PERF_MEM_LVLNUM_IO: return EXP_MEM_UNCACHED;
	default: break;   /* 0 (an older kernel), ANY_CACHE, NA: the level bits say more */
	}
	if (!(lvl & PERF_MEM_LVL_HIT) || (lvl & PERF_MEM_LVL_NA))
		return EXP_MEM_UNKNOWN;
	if (lvl & PERF_MEM_LVL_L1)
		return EXP_MEM_L1;
	if (lvl & PERF_MEM_LVL_LFB)
		return EXP_MEM_LFB;
	if (lvl & PERF_MEM_LVL_L2)
		return EXP_MEM_L2;
	if (lvl & PERF_MEM_LVL_L3)
		return EXP_MEM_LLC;
	if (lvl & PERF_MEM_LVL_LOC_RAM)
		return EXP_MEM_DRAM;
	if (lvl & (PERF_MEM_LVL_REM_RAM1 | PERF_MEM_LVL_REM_RAM2 | PERF_MEM_LVL_REM_CCE1 | PERF_MEM_LVL_REM_CCE2))
		return EXP_MEM_REMOTE;
	if (lvl & (PERF_MEM_LVL_IO | PERF_MEM_LVL_UNC))
		return EXP_MEM_UNCACHED;
	return EXP_MEM_UNKNOWN;
}

bool exp_mem_is_store(uint64_t data_src)
{
	return ((data_src >> PERF_MEM_OP_SHIFT) & 0x1f) & PERF_MEM_OP_STORE;
}

/* The levels' vocabulary, in enum order: report name, column key. */
static const struct {
	const char *name, *key;
} levels[EXP_MEM_LEVELS] = {
	[EXP_MEM_UNKNOWN] = { "unknown", "unknown" }, [EXP_MEM_L1] = { "L1", "l1" },
	[EXP_MEM_LFB] = { "LFB", "lfb" },             [EXP_MEM_L2] = { "L2", "l2" },
	[EXP_MEM_LLC] = { "LLC", "llc" },             [EXP_MEM_DRAM] = { "DRAM", "dram" },
	[EXP_MEM_REMOTE] = { "remote", "remote" },    [EXP_MEM_UNCACHED] = { "uncached", "uncached" },
};

const char *exp_mem_level_name(enum exp_mem_level l)
{
	return (unsigned)l < EXP_MEM_LEVELS ? levels[l].name : levels[EXP_MEM_UNKNOWN].name;
}

const char *exp_mem_level_key(enum exp_mem_level l)
{
	return (unsigned)l < EXP_MEM_LEVELS ? levels[l].key : levels[EXP_MEM_UNKNOWN].key;
}
