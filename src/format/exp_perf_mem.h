/* SPDX-License-Identifier: MIT
 *
 * exp_perf_mem.h — precise memory-access samples as the kernel writes them
 * (docs/dataspace.md, "Recording precise samples"): the PERF_RECORD_SAMPLE
 * records of a precise event (Intel `mem-loads`/`mem-stores` with
 * precise_ip, AMD's IBS op) in the event's ring buffer, with the sample
 * fields PERF_SAMPLE_IP | TID | TIME | ADDR | DATA_SRC, in that order (man
 * perf_event_open: the fields come in the order of their bits); and the data
 * source (perf_mem_data_src) as the level that served the access, the one
 * vocabulary of levels the model and the reports use.
 *
 * Used by the collector in its signal handler (col_counters.c: no malloc,
 * no stdio), by the model (the level names) and by the unit test, which
 * feeds it crafted ring buffers.  Linked into both, like exp_events.c.
 */
#ifndef TALLY_EXP_PERF_MEM_H
#define TALLY_EXP_PERF_MEM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The sample fields a precise memory event is opened with. */
#define EXP_PERF_MEM_SAMPLE_TYPE 0x800fu    /* IP 0x1 | TID 0x2 | TIME 0x4 | ADDR 0x8 | DATA_SRC 0x8000 */

/* One PERF_RECORD_SAMPLE of such an event. */
struct exp_perf_mem_sample {
	uint64_t ip;               /* the instruction that made the access (precise) */
	uint32_t pid, tid;
	uint64_t time_ns;          /* the event's clock (CLOCK_MONOTONIC when use_clockid) */
	uint64_t addr;             /* the data address; 0: none given */
	uint64_t data_src;         /* union perf_mem_data_src, as the kernel wrote it */
	uint16_t misc;             /* the record header's misc (PERF_RECORD_MISC_USER ...) */
};

/* Parse the body of one PERF_RECORD_SAMPLE (the bytes after its 8-byte
 * header) written with `sample_type`, into *out (fields not in sample_type
 * are 0).  Only the bits of EXP_PERF_MEM_SAMPLE_TYPE are understood.
 * Returns 0; -1 when sample_type has another bit (its field's size is not
 * known here) or the body is shorter than its fields.  Sigsafe. */
int exp_perf_mem_parse(uint64_t sample_type, const void *body, size_t len, struct exp_perf_mem_sample *out);

/* The next record of a ring's data area (`size` bytes, a power of two) at
 * *tail, below `head` (data_head, read with acquire): its header type and
 * misc, and up to `cap` bytes of its body copied into `body` (the ring may
 * wrap inside it), its whole body length in *body_len.  Returns 1 and moves
 * *tail past the record; 0 when no whole record is left; -1 when the ring
 * is damaged (a record shorter than its header or reaching past head): the
 * caller drops the rest (sets its tail to head).  Sigsafe. */
int exp_perf_ring_next(const uint8_t *data, uint64_t size, uint64_t *tail, uint64_t head, uint32_t *type,
		       uint16_t *misc, void *body, size_t cap, size_t *body_len);

/* The level that served an access, from its data source. */
enum exp_mem_level {
	EXP_MEM_UNKNOWN,           /* not given (N/A), or a level not in this list */
	EXP_MEM_L1,
	EXP_MEM_LFB,               /* a line fill buffer: the line was on its way */
	EXP_MEM_L2,
	EXP_MEM_LLC,               /* the last-level cache (L3) */
	EXP_MEM_DRAM,              /* local memory */
	EXP_MEM_REMOTE,            /* another node's cache or memory */
	EXP_MEM_UNCACHED,          /* I/O, uncached memory */
	EXP_MEM_LEVELS
};

/* The level of a data source: the level number when the PMU gives one
 * (mem_lvl_num), else the first hit bit of mem_lvl. */
enum exp_mem_level exp_mem_level_of(uint64_t data_src);

/* Was the access a store (mem_op STORE)? */
bool exp_mem_is_store(uint64_t data_src);

/* A level's name in reports ("L1", "LFB", "L2", "LLC", "DRAM", "remote",
 * "uncached", "unknown") and its column key ("l1", ...). */
const char *exp_mem_level_name(enum exp_mem_level l);
const char *exp_mem_level_key(enum exp_mem_level l);

#endif
