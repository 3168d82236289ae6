/* SPDX-License-Identifier: MIT
 *
 * test_perf_mem.c — precise memory samples as the kernel lays them out
 * (format/exp_perf_mem.h): crafted ring buffers of PERF_RECORD_SAMPLE
 * records with IP | TID | TIME | ADDR | DATA_SRC (man perf_event_open: an
 * 8-byte header, then the fields in the order of their bits), a record
 * that wraps around the ring's end, a PERF_RECORD_LOST between samples, a
 * damaged ring, a sample_type this parser cannot skip; and the data
 * sources Intel and AMD write, to their levels.
 */
#include <linux/perf_event.h>
#include <stdint.h>
#include <string.h>

#include "format/exp_perf_mem.h"
#include "testhelp.h"

#define RING 256   /* bytes: a power of two, small enough to wrap */

/* A data source as the kernel composes it (union perf_mem_data_src). */
static uint64_t src(uint64_t op, uint64_t lvl, uint64_t lvlnum, int remote)
{
	return op << PERF_MEM_OP_SHIFT | lvl << PERF_MEM_LVL_SHIFT | lvlnum << PERF_MEM_LVLNUM_SHIFT |
	       (uint64_t)remote << PERF_MEM_REMOTE_SHIFT;
}

/* Write a sample record at ring offset `pos` (wrapping); the new offset. */
static uint64_t put_sample(uint8_t *ring, uint64_t pos, uint64_t ip, uint32_t pid, uint32_t tid, uint64_t time,
			   uint64_t addr, uint64_t data_src)
{
	uint8_t rec[8 + 5 * 8];
	struct perf_event_header h = { PERF_RECORD_SAMPLE, PERF_RECORD_MISC_USER, sizeof(rec) };
	uint64_t f[5] = { ip, (uint64_t)tid << 32 | pid, time, addr, data_src };

	memcpy(rec, &h, 8);
	memcpy(rec + 8, f, sizeof(f));
	for (size_t i = 0; i < sizeof(rec); i++)
		ring[(pos + i) & (RING - 1)] = rec[i];
	return pos + sizeof(rec);
}

static uint64_t put_lost(uint8_t *ring, uint64_t pos, uint64_t lost)
{
	uint8_t rec[8 + 16];
	struct perf_event_header h = { PERF_RECORD_LOST, 0, sizeof(rec) };
	uint64_t f[2] = { 7, lost };

	memcpy(rec, &h, 8);
	memcpy(rec + 8, f, sizeof(f));
	for (size_t i = 0; i < sizeof(rec); i++)
		ring[(pos + i) & (RING - 1)] = rec[i];
	return pos + sizeof(rec);
}

static void samples_read_back_in_order(void)
{
	uint8_t ring[RING] = { 0 };
	uint64_t head = 0, tail = 0;
	uint64_t ds = src(PERF_MEM_OP_LOAD, PERF_MEM_LVL_HIT | PERF_MEM_LVL_L1, PERF_MEM_LVLNUM_L1, 0);

	head = put_sample(ring, head, 0x401234, 100, 101, 5000, 0x7ffd0010, ds);
	head = put_lost(ring, head, 3);
	head = put_sample(ring, head, 0x401240, 100, 102, 6000, 0x602000, 0);
	uint8_t body[64];
	uint32_t type;
	uint16_t misc;
	size_t n;
	struct exp_perf_mem_sample s;
	CHECK(exp_perf_ring_next(ring, RING, &tail, head, &type, &misc, body, sizeof(body), &n) == 1);
	CHECK(type == PERF_RECORD_SAMPLE && misc == PERF_RECORD_MISC_USER && n == 40);
	CHECK(exp_perf_mem_parse(EXP_PERF_MEM_SAMPLE_TYPE, body, n, &s) == 0);
	CHECK(s.ip == 0x401234 && s.pid == 100 && s.tid == 101 && s.time_ns == 5000 && s.addr == 0x7ffd0010);
	CHECK(s.data_src == ds && exp_mem_level_of(s.data_src) == EXP_MEM_L1 && !exp_mem_is_store(s.data_src));
	CHECK(exp_perf_ring_next(ring, RING, &tail, head, &type, &misc, body, sizeof(body), &n) == 1);
	uint64_t lost[2];
	memcpy(lost, body, sizeof(lost));
	CHECK(type == PERF_RECORD_LOST && n == 16 && lost[1] == 3);
	CHECK(exp_perf_ring_next(ring, RING, &tail, head, &type, &misc, body, sizeof(body), &n) == 1);
	CHECK(exp_perf_mem_parse(EXP_PERF_MEM_SAMPLE_TYPE, body, n, &s) == 0);
	CHECK(s.tid == 102 && s.addr == 0x602000 && exp_mem_level_of(s.data_src) == EXP_MEM_UNKNOWN);
	CHECK(tail == head);
	CHECK(exp_perf_ring_next(ring, RING, &tail, head, &type, &misc, body, sizeof(body), &n) == 0);
}

/* Offsets run on past the ring's size (the kernel's data_head never wraps):
 * a record that starts 20 bytes before the end is read whole. */
static void a_record_across_the_end_reads_whole(void)
{
	uint8_t ring[RING];
	uint64_t start = 3 * RING - 20, head, tail = start;
	uint64_t ds = src(PERF_MEM_OP_STORE, PERF_MEM_LVL_HIT | PERF_MEM_LVL_LOC_RAM, PERF_MEM_LVLNUM_RAM, 0);

	memset(ring, 0xee, sizeof(ring));
	head = put_sample(ring, start, 0xdeadbeef, 1, 2, 99, 0x1122334455667788ull, ds);
	uint8_t body[64];
	uint32_t type;
	uint16_t misc;
	size_t n;
	struct exp_perf_mem_sample s;
	CHECK(exp_perf_ring_next(ring, RING, &tail, head, &type, &misc, body, sizeof(body), &n) == 1);
	CHECK(exp_perf_mem_parse(EXP_PERF_MEM_SAMPLE_TYPE, body, n, &s) == 0);
	CHECK(s.ip == 0xdeadbeef && s.addr == 0x1122334455667788ull && s.time_ns == 99);
	CHECK(exp_mem_level_of(s.data_src) == EXP_MEM_DRAM && exp_mem_is_store(s.data_src));
	CHECK(tail == head);
}

/* A half-written ring (head inside a record), a record shorter than its
 * header, and one claiming more than the ring holds. */
static void damaged_rings_are_said(void)
{
	uint8_t ring[RING] = { 0 };
	uint64_t head = put_sample(ring, 0, 1, 2, 3, 4, 5, 6), tail = 0;
	uint8_t body[64];
	uint32_t type;
	uint16_t misc;
	size_t n;

	CHECK(exp_perf_ring_next(ring, RING, &tail, 4, &type, &misc, body, sizeof(body), &n) == 0);
	CHECK(exp_perf_ring_next(ring, RING, &tail, head - 8, &type, &misc, body, sizeof(body), &n) == -1);
	CHECK(tail == 0);
	struct perf_event_header h = { PERF_RECORD_SAMPLE, 0, 4 };
	memcpy(ring, &h, sizeof(h));
	CHECK(exp_perf_ring_next(ring, RING, &tail, head, &type, &misc, body, sizeof(body), &n) == -1);
	CHECK(exp_perf_ring_next(ring, RING, &tail, RING + 64, &type, &misc, body, sizeof(body), &n) == -1);
}

/* Fields parse by their bits: without TID and TIME the address is the
 * second field; a bit this parser does not know is refused, as is a body
 * shorter than its fields. */
static void sample_types_parse_by_their_bits(void)
{
	uint64_t body[5] = { 0x400000, 0xabc0, 0x10, 0, 0 };
	struct exp_perf_mem_sample s;

	CHECK(exp_perf_mem_parse(PERF_SAMPLE_IP | PERF_SAMPLE_ADDR | PERF_SAMPLE_DATA_SRC, body, 24, &s) == 0);
	CHECK(s.ip == 0x400000 && s.addr == 0xabc0 && s.data_src == 0x10 && s.tid == 0 && s.time_ns == 0);
	CHECK(exp_perf_mem_parse(EXP_PERF_MEM_SAMPLE_TYPE | PERF_SAMPLE_CALLCHAIN, body, 40, &s) == -1);
	CHECK(exp_perf_mem_parse(EXP_PERF_MEM_SAMPLE_TYPE, body, 32, &s) == -1);
}

/* What Intel's PEBS load-latency and AMD's IBS write: the level number when
 * the kernel gives one, else the hit bits; remote and uncached apart. */
static void data_sources_name_their_level(void)
{
	uint64_t ld = PERF_MEM_OP_LOAD, hit = PERF_MEM_LVL_HIT;

	CHECK(exp_mem_level_of(src(ld, hit | PERF_MEM_LVL_L2, 0, 0)) == EXP_MEM_L2);
	CHECK(exp_mem_level_of(src(ld, hit | PERF_MEM_LVL_L3, PERF_MEM_LVLNUM_L3, 0)) == EXP_MEM_LLC);
	CHECK(exp_mem_level_of(src(ld, hit | PERF_MEM_LVL_LFB, PERF_MEM_LVLNUM_LFB, 0)) == EXP_MEM_LFB);
	CHECK(exp_mem_level_of(src(ld, hit | PERF_MEM_LVL_REM_RAM1, PERF_MEM_LVLNUM_RAM, 1)) == EXP_MEM_REMOTE);
	CHECK(exp_mem_level_of(src(ld, hit | PERF_MEM_LVL_REM_CCE1, 0, 0)) == EXP_MEM_REMOTE);
	CHECK(exp_mem_level_of(src(ld, hit | PERF_MEM_LVL_UNC, 0, 0)) == EXP_MEM_UNCACHED);
	CHECK(exp_mem_level_of(src(ld, PERF_MEM_LVL_MISS | PERF_MEM_LVL_L1, 0, 0)) == EXP_MEM_UNKNOWN);
	CHECK(exp_mem_level_of(src(ld, PERF_MEM_LVL_NA, PERF_MEM_LVLNUM_NA, 0)) == EXP_MEM_UNKNOWN);
	CHECK(!strcmp(exp_mem_level_name(EXP_MEM_LLC), "LLC") && !strcmp(exp_mem_level_key(EXP_MEM_DRAM), "dram"));
	CHECK(!strcmp(exp_mem_level_name((enum exp_mem_level)99), "unknown"));
}

int main(void)
{
	RUN(samples_read_back_in_order);
	RUN(a_record_across_the_end_reads_whole);
	RUN(damaged_rings_are_said);
	RUN(sample_types_parse_by_their_bits);
	RUN(data_sources_name_their_level);
	TEST_EXIT();
}
