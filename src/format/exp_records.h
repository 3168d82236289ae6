/* SPDX-License-Identifier: MIT
 *
 * exp_records.h — the on-disk layout of a tally experiment (format version 6;
 * version 4 wrote heap tracing as HEAP and HEAP_FREE records per event, not
 * HEAP_SUMS, HEAP_LIVE and HEAP_STATE tables; version 3 wrote SAMPLE records
 * instead of SAMPLE_RUN, version 2 had no MIRROR records, version 1 no
 * STACK_NODE records; all are read).
 *
 * Shared by every writer (collector, mcount runtime, `tally record`) and by the
 * reader.  docs/experiment-format.md is the same specification in prose; the
 * two and EXP_FORMAT_VERSION change in the same commit.
 *
 * An experiment is a directory.  Each kind of event lives in its own *record
 * file* (samples.dat, stacks.dat, maps.dat, threads.dat, heap.dat, sync.dat,
 * io.dat, arcs.dat), plus counters.dat (a fixed table of loss counters updated
 * in place) and log.txt (human-readable).
 *
 * Record file layout (all integers little-endian):
 *
 *   offset 0: struct exp_file_header (64 bytes), then records.
 *   The file is a sequence of blocks of `block_bytes` (a power of two, at
 *   least 4096).  Block 0 starts with the header.  A writer owns a block while
 *   it appends records to it; records are 8-byte aligned and start with a
 *   32-bit word  (type << 24) | length_bytes  (length includes the word, is a
 *   multiple of 8 and at least 8).  A zero word means "no more records in this
 *   block": the rest of the block is zero.  A record never crosses a block
 *   boundary, except a record written at the start of a block, which may span
 *   several whole blocks (arc tables); reading resumes at the next block
 *   boundary after such a record.
 *
 * Every file is valid at every instant: a writer fills the payload first and
 * publishes the header word last with a release store, so a reader (running
 * concurrently, or after the writer was SIGKILLed) sees complete records and
 * zeros, never a partial record.  Unknown record types are skipped by length,
 * which is how the format is extended without breaking old readers; changing
 * an existing layout bumps EXP_FORMAT_VERSION.
 */
#ifndef TALLY_EXP_RECORDS_H
#define TALLY_EXP_RECORDS_H

#include <stdint.h>

#include "format/exp_cost.h"

#define EXP_MAGIC "TALLYEXP"
#define EXP_FORMAT_VERSION 10
#define EXP_FORMAT_OLDEST 1        /* the oldest version this reader reads */
#define EXP_HEADER_BYTES 64
#define EXP_BLOCK_BYTES 16384u
#define EXP_MAX_FRAMES 1024        /* deepest stack a record may hold */
#define EXP_BUILD_ID_MAX 20

/* Which data a record file holds (exp_file_header.kind). */
enum exp_file_kind {
	EXP_FILE_SAMPLES = 1,      /* clock samples */
	EXP_FILE_STACKS = 2,       /* distinct call stacks */
	EXP_FILE_MAPS = 3,         /* load-object map over time */
	EXP_FILE_THREADS = 4,      /* thread start / end */
	EXP_FILE_HEAP = 5,         /* heap tracing */
	EXP_FILE_SYNC = 6,         /* synchronization waits */
	EXP_FILE_IO = 7,           /* I/O tracing */
	EXP_FILE_ARCS = 8,         /* -pg / -finstrument-functions arc tables */
	EXP_FILE_DYN = 10,         /* dynamically generated code and its bytes */
	EXP_FILE_STATES = 11,      /* thread states off the CPU (--states) */
	EXP_FILE_HWC = 12,         /* counter overflow samples (-c), data addresses */
	EXP_FILE_MPI = 13,         /* MPI calls (-m, libtally-mpi.so) */
	EXP_FILE_CODE = 14,        /* dynamic code (JIT-compiled methods, stubs) and Java methods */
	EXP_FILE_KERNEL = 15,      /* kernel call chains of samples taken in the kernel (tally record) */
	EXP_FILE_COUNT_ = 16
};

/* Record types (top 8 bits of the record word). 0 is never a type. */
enum exp_rec_type {
	EXP_REC_SAMPLE = 1,
	EXP_REC_STACK = 2,
	EXP_REC_MAP = 3,
	EXP_REC_UNMAP = 4,
	EXP_REC_THREAD_START = 5,
	EXP_REC_THREAD_END = 6,
	EXP_REC_HEAP = 7,
	EXP_REC_SYNC = 8,
	EXP_REC_IO = 9,
	EXP_REC_FD_NAME = 10,
	EXP_REC_ARC_TABLE = 11,
	EXP_REC_HEAP_FREE = 12,
	EXP_REC_STACK_NODE = 13,
	EXP_REC_MIRROR = 14,
	EXP_REC_THREAD_COST = 15,
	EXP_REC_SAMPLE_RUN = 16,
	EXP_REC_HEAP_SUMS = 17,
	EXP_REC_HEAP_LIVE = 18,
	EXP_REC_HEAP_STATE = 19,
	EXP_REC_PROC_SAMPLE = 20,
	EXP_REC_DYN_FUNC = 25,
	EXP_REC_DYN_UNLOAD = 26,
	EXP_REC_STATE = 30,
	EXP_REC_CPU_SPLIT = 31,
	EXP_REC_COUNTER_DEF = 32,
	EXP_REC_COUNTER_SAMPLE = 33,
	EXP_REC_COUNTER_END = 34,
	EXP_REC_DATA_SAMPLE = 35,
	EXP_REC_DATA_REGS = 36,
	EXP_REC_DATA_BLOCK = 37,
	EXP_REC_DATA_FRAMES = 38,
	EXP_REC_DATA_FILE = 39,
	EXP_REC_MPI = 40,
	EXP_REC_MPI_COMM = 41,
	EXP_REC_JAVA_METHOD = 45,
	EXP_REC_JIT_CODE = 46,
	EXP_REC_JIT_UNLOAD = 47,
	EXP_REC_THREAD_NAME = 48,
	EXP_REC_SYNC_HELD = 49,
	EXP_REC_KERNEL_INFO = 50,
	EXP_REC_KERNEL_SAMPLE = 51,
	EXP_REC_KERNEL_SYM = 52,
	EXP_REC_KERNEL_SWITCH = 53,
	EXP_REC_SYNC_WAKE = 56,
	EXP_REC_FD_FLOW = 57,
	EXP_REC_FD_WAIT = 58,
	EXP_REC_FD_WATCH = 59,
	EXP_REC_JIT_INLINE = 62,
	EXP_REC_DATA_SAMPLE_SRC = 63,
	EXP_REC_THREAD_SCHED = 64,
	EXP_REC_THREAD_SWITCHES = 65,
	EXP_REC_SYNC_KEY = 66,
};

#define EXP_REC_WORD(type, len) (((uint32_t)(type) << 24) | (uint32_t)(len))
#define EXP_REC_TYPE(word) ((word) >> 24)
#define EXP_REC_LEN(word) ((word) & 0xffffffu)
#define EXP_REC_LEN_MAX 0xfffff8u   /* the longest record: 24 bits, a multiple of 8 */

/* File header, 64 bytes at offset 0 of every record file.
 *  off size field
 *    0    8 magic "TALLYEXP" (doubles as the endianness probe)
 *    8    4 version         EXP_FORMAT_VERSION
 *   12    4 kind            enum exp_file_kind
 *   16    4 block_bytes     block size of this file
 *   20    4 header_bytes    64
 *   24    4 pid             process that writes the file
 *   28    4 reserved        0
 *   32    8 mono_ns         CLOCK_MONOTONIC at creation
 *   40    8 real_ns         CLOCK_REALTIME at creation
 *   48    8 slots           a run's root counters.dat: process slots claimed
 *                           in processes.dat (format 9); else 0
 *   56    8 reserved        0                                               */
struct exp_file_header {
	char magic[8];
	uint32_t version;
	uint32_t kind;
	uint32_t block_bytes;
	uint32_t header_bytes;
	uint32_t pid;
	uint32_t reserved0;
	uint64_t mono_ns;
	uint64_t real_ns;
	uint64_t slots;            /* root counters.dat: EXP_SLOTS_NAME's slots claimed */
	uint64_t reserved1;
};

/* EXP_REC_SAMPLE, 32 bytes: one clock-profiling sample.
 *   0 4 word     type 1, length 32
 *   4 4 tid      thread id (gettid)
 *   8 8 time_ns  CLOCK_MONOTONIC when the sample was taken
 *  16 4 stack_id EXP_REC_STACK id of the call stack
 *  20 2 cpu      processor the thread ran on (0xffff: unknown)
 *  22 2 flags    reserved, 0
 *  24 8 weight_ns CPU time this sample stands for: the thread's task clock
 *               advanced by this much since its previous sample             */
struct exp_sample {
	uint32_t word;
	uint32_t tid;
	uint64_t time_ns;
	uint32_t stack_id;
	uint16_t cpu;
	uint16_t flags;
	uint64_t weight_ns;
};

/* EXP_REC_SAMPLE_RUN, 24 + capacity bytes: clock samples of one thread, each
 * encoded as the change from the previous one (format version 4; the
 * collector writes no SAMPLE records any more).  The record is published
 * empty, taking the rest of its block, and filled in place: the writer
 * appends a sample's bytes, then stores `used` with release order, so a
 * reader decodes exactly `used` bytes.  Compaction cuts the record to them.
 *   0 4 word     type 16, length 24 + capacity
 *   4 4 tid
 *   8 8 time_ns  base time (CLOCK_MONOTONIC)
 *  16 4 used     bytes of samples after the header
 *  20 4 reserved 0
 *  24 .. samples, each (uN: LEB128 varint; sN: zigzag then LEB128):
 *     u  head     pop << 3 | cpu_changed << 2 | flags (EXP_STACK_TRUNCATED,
 *                 EXP_STACK_BROKEN); pop: frames of the previous sample's
 *                 stack to drop, leaf side
 *     u  push     frames to add, root side first, then for each one:
 *     u  code     odd: the pc of dictionary entry code >> 1; even, > 0: a pc
 *                 `ref` + zigzag⁻¹(code / 2 - 1), where ref is the frame
 *                 under it (its caller) or 0; 0: a pc as a u follows.  Every
 *                 pc not from the dictionary is appended to it, in order
 *     s  dtime    time_ns minus the previous sample's (the first: base)
 *     s  dweight  weight_ns minus the previous sample's (the first: 0)
 *     u  cpu      only if cpu_changed (the first sample's previous: 0xffff)
 * The first sample's previous stack is empty.  Every run stands alone.      */
struct exp_sample_run {
	uint32_t word;
	uint32_t tid;
	uint64_t time_ns;
	uint32_t used;
	uint32_t reserved;
	uint8_t data[];
};

/* EXP_REC_STACK, 16 + 8 * nframes bytes: a distinct call stack, stored once.
 *   0 4 word
 *   4 4 stack_id  >= 1, unique within the experiment (process)
 *   8 2 nframes   <= EXP_MAX_FRAMES
 *  10 2 flags     EXP_STACK_*
 *  12 4 reserved  0
 *  16 8*n pcs     leaf first.  pcs[0] is the interrupted pc unless
 *                 EXP_STACK_LEAF_IS_RETADDR; every other pc is a return
 *                 address (symbolize pc - 1).                               */
struct exp_stack {
	uint32_t word;
	uint32_t stack_id;
	uint16_t nframes;
	uint16_t flags;
	uint32_t reserved;
	uint64_t pcs[];
};
#define EXP_STACK_TRUNCATED 0x1       /* deeper than the collector's limit */
#define EXP_STACK_BROKEN 0x2          /* the unwind stopped on a bad frame */
#define EXP_STACK_LEAF_IS_RETADDR 0x4 /* traced event: pcs[0] is a return address */
#define EXP_STACK_KERNEL 0x8          /* in memory only (format/exp_read_kernel.c): the
                                         leaf frames are kernel pcs (kernel.dat), above
                                         the user stack */

/* EXP_REC_STACK_NODE, 24 bytes: one frame of the stack trie.  The stack it
 * denotes is `pc`, then the stack `parent_id` denotes (0: none).  Stacks that
 * share their outer frames share the nodes for them; a stack is written as
 * the nodes of its frames not yet in the trie.  Ids are those of STACK records
 * (one space); a node's parent always has a smaller id.  `flags` (EXP_STACK_*)
 * apply to the whole stack when the node is the one a sample or event names.
 *   0 4 word; 4 4 stack_id; 8 4 parent_id; 12 2 flags; 14 2 reserved;
 *  16 8 pc                                                                  */
struct exp_stack_node {
	uint32_t word;
	uint32_t stack_id;
	uint32_t parent_id;
	uint16_t flags;
	uint16_t reserved;
	uint64_t pc;
};

/* EXP_REC_MIRROR, 16 bytes, only as the first record of a block: this block
 * (a writer's staging block) holds the records of block `block`, which is
 * to be skipped wherever it is found.  The writer copies the staging block
 * there when it is full and only then zeroes it, so the records are in the
 * file at every instant, in one of the two places: the staging block wins.
 * In the copy, `block` names the block itself and means nothing.
 *   0 4 word; 4 4 reserved; 8 8 block (index: file offset / block_bytes)    */
struct exp_mirror {
	uint32_t word;
	uint32_t reserved;
	uint64_t block;
};

/* EXP_REC_MAP, 64 + path bytes: an executable mapping appeared.
 *   0 4 word
 *   4 4 flags        EXP_MAP_*
 *   8 8 time_ns      mapped no later than this (CLOCK_MONOTONIC)
 *  16 8 start        first address of the executable segment
 *  24 8 end          one past its last address
 *  32 8 bias         runtime address - ELF virtual address
 *  40 1 build_id_len 0..20
 *  41 20 build_id
 *  61 3 reserved
 *  64 .. path        NUL-terminated, zero-padded to a multiple of 8         */
struct exp_map {
	uint32_t word;
	uint32_t flags;
	uint64_t time_ns;
	uint64_t start;
	uint64_t end;
	uint64_t bias;
	uint8_t build_id_len;
	uint8_t build_id[EXP_BUILD_ID_MAX];
	uint8_t reserved[3];
	char path[];
};
#define EXP_MAP_MAIN 0x1     /* the executable itself */
#define EXP_MAP_VDSO 0x2     /* the kernel's vDSO (archived as archive/<build-id in hex>) */

/* EXP_REC_UNMAP, 32 bytes: the mapping that started at `start` is gone.
 *   0 4 word; 4 4 reserved; 8 8 time_ns; 16 8 start; 24 8 end               */
struct exp_unmap {
	uint32_t word;
	uint32_t reserved;
	uint64_t time_ns;
	uint64_t start;
	uint64_t end;
};

/* EXP_REC_THREAD_START, 48 bytes.
 *   0 4 word; 4 4 tid; 8 8 time_ns;
 *  16 8 start_routine  address passed to pthread_create (0: main thread)
 *  24 4 creator_tid    thread that created it (0: none)
 *  28 4 reserved
 *  32 16 name          NUL-padded                                           */
struct exp_thread_start {
	uint32_t word;
	uint32_t tid;
	uint64_t time_ns;
	uint64_t start_routine;
	uint32_t creator_tid;
	uint32_t reserved;
	char name[16];
};

/* EXP_REC_THREAD_END, 32 bytes.
 *   0 4 word; 4 4 tid; 8 8 time_ns;
 *  16 8 cpu_ns    CPU time the kernel accounted to the thread (user + system)
 *  24 8 samples   clock samples the thread recorded                         */
struct exp_thread_end {
	uint32_t word;
	uint32_t tid;
	uint64_t time_ns;
	uint64_t cpu_ns;
	uint64_t samples;
};

/* EXP_REC_THREAD_SCHED, 40 bytes, in threads.dat when a thread ends: the
 * kernel's scheduler accounting of it (/proc/TID/schedstat), read with or
 * without --states, so that its life splits into CPU, waiting for a CPU
 * and off the CPU (life less the two).  Absent where the kernel has no
 * schedstat (CONFIG_SCHED_INFO) or it could not be read.
 *   0 4 word; 4 4 tid; 8 8 time_ns (when read);
 *  16 8 cpu_ns        time on a CPU (schedstat's first field)
 *  24 8 run_delay_ns  time runnable, waiting for a CPU (its second)
 *  32 8 slices        times it ran on a CPU (its third)                    */
struct exp_thread_sched {
	uint32_t word;
	uint32_t tid;
	uint64_t time_ns;
	uint64_t cpu_ns;
	uint64_t run_delay_ns;
	uint64_t slices;
};

/* EXP_REC_THREAD_SWITCHES, 40 bytes, in threads.dat when a thread ends
 * (for one still running at the process's end, by the ending thread from
 * /proc/TID/status): its context switches, the kernel's (getrusage
 * RUSAGE_THREAD).  A thread with no voluntary one
 * never slept: its life less its CPU was all waiting for a CPU.  A new
 * type, not a longer THREAD_END: an older reader skips it.
 *   0 4 word; 4 4 tid; 8 8 time_ns (when read);
 *  16 8 voluntary     times it left the CPU to sleep or block (ru_nvcsw),
 *                     since its start routine began (not tally's set-up)
 *  24 8 involuntary   times it was preempted (ru_nivcsw), all its life
 *  32 8 start_wait_ns from its pthread_create call to its THREAD_START (0:
 *                     not known): its first wait for a CPU, which its
 *                     schedstat's run delay holds but its life does not */
struct exp_thread_switches {
	uint32_t word;
	uint32_t tid;
	uint64_t time_ns;
	uint64_t voluntary;
	uint64_t involuntary;
	uint64_t start_wait_ns;
};

/* EXP_REC_THREAD_COST, 40 + 4 * nbuckets bytes (padded to 8), in threads.dat
 * when a thread ends: what the collector cost that thread.  collector_ns is
 * the CPU time spent in the collector on the thread (signal handlers, thread
 * set-up, object scans), none of which is in any sample's weight.  The
 * histogram counts handler runs by duration (ns, TSC), in the buckets of
 * format/exp_cost.h; counts[i] is bucket first_bucket + i.  after_end_ns:
 * the part of collector_ns spent in the thread's end after its THREAD_END
 * (so not in that record's cpu_ns); 0 before it was written (then the end's
 * CPU held it).
 *   0 4 word; 4 4 tid; 8 8 collector_ns; 16 8 handlers (runs timed);
 *  24 8 max_ns (the longest run); 32 2 first_bucket; 34 2 nbuckets;
 *  36 4 after_end_ns; 40 4*n counts                                         */
struct exp_thread_cost {
	uint32_t word;
	uint32_t tid;
	uint64_t collector_ns;
	uint64_t handlers;
	uint64_t max_ns;
	uint16_t first_bucket;
	uint16_t nbuckets;
	uint32_t after_end_ns;
	uint32_t counts[];
};

/* EXP_REC_HEAP, 48 bytes: one allocation or release (before version 5; since,
 * only a Java object sampled by the JVM, EXP_HEAP_JAVA).
 *   0 4 word; 4 4 tid; 8 8 time_ns;
 *  16 4 stack_id; 20 2 op (enum exp_heap_op); 22 2 reserved
 *  24 8 size      bytes requested (0 for free)
 *  32 8 addr      address returned (allocations) or released (free)
 *  40 8 old_addr  realloc: the block it replaced (0 otherwise)              */
struct exp_heap {
	uint32_t word;
	uint32_t tid;
	uint64_t time_ns;
	uint32_t stack_id;
	uint16_t op;
	uint16_t reserved;
	uint64_t size;
	uint64_t addr;
	uint64_t old_addr;
};
enum exp_heap_op {
	EXP_HEAP_MALLOC = 1, EXP_HEAP_CALLOC, EXP_HEAP_REALLOC, EXP_HEAP_FREE,
	EXP_HEAP_MEMALIGN, EXP_HEAP_NEW, EXP_HEAP_DELETE,
	EXP_HEAP_JAVA,           /* a Java object sampled by the JVM (addr all ones, not
	                            followed; size: the bytes it stands for; old_addr:
	                            its own size) */
};

/* EXP_REC_HEAP_FREE, 24 bytes (before version 5): a block released (free, delete, realloc to
 * zero).  No stack: only the address matters, to find what was never freed.
 *   0 4 word; 4 4 tid; 8 8 time_ns; 16 8 addr                               */
struct exp_heap_free {
	uint32_t word;
	uint32_t tid;
	uint64_t time_ns;
	uint64_t addr;
};

/* Heap tracing since version 5 (collector/col_heap.c): three kinds of
 * large records, each published empty and then updated in place through a
 * shared mapping, so that they are right at every instant (SIGKILL too).
 * A table whose slots are all in use is followed by a larger one.
 *
 * EXP_REC_HEAP_SUMS, 16 + 32 * nslots bytes: a thread's allocations (all
 * but free) summed by stack.  A slot with count 0 is empty.  A thread may
 * have several tables (each new one takes the stacks the full one had no
 * room for), and a table may go on to a thread that starts after its own
 * ended (its slots name their thread): a stack's totals are the sums over
 * them.
 *   0 4 word; 4 4 tid (the first thread's); 8 4 nslots; 12 4 reserved;
 *   then the slots:
 *   0 4 stack_id; 4 4 tid (0: the table's); 8 8 count; 16 8 bytes requested;
 *  24 8 first_ns  the time of the stack's first allocation in the table    */
struct exp_heap_sums {
	uint32_t word;
	uint32_t tid;
	uint32_t nslots;
	uint32_t reserved;
};
struct exp_heap_sum {
	uint32_t stack_id;
	uint32_t tid;
	uint64_t count;
	uint64_t bytes;
	uint64_t first_ns;
};

/* EXP_REC_HEAP_LIVE, 24 + 24 * nslots bytes: the blocks allocated and not
 * released, one stripe of them (by a hash of the address's region), or one
 * thread's (since format 6: stripe >= the collector's stripe count; a
 * thread that ends leaves its table to another).  A slot with address 0 is
 * empty; with address EXP_HEAP_LIVE_TOMB (format 6), its block released.  A stripe's table is replaced by a larger copy of the
 * next generation; the live blocks are those of each stripe's complete
 * table of the highest generation (an address in two slots of it, from a
 * move cut short, counts once).
 *   0 4 word; 4 2 stripe; 6 2 nstripes; 8 4 gen; 12 4 nslots;
 *  16 4 complete (1: the table holds the whole stripe); 20 4 reserved;
 *  then the slots: 0 8 addr; 8 8 size; 16 4 stack_id; 20 4 tid             */
struct exp_heap_live_table {
	uint32_t word;
	uint16_t stripe;
	uint16_t nstripes;
	uint32_t gen;
	uint32_t nslots;
	uint32_t complete;
	uint32_t reserved;
};
#define EXP_HEAP_LIVE_TOMB 1u        /* a released block's slot (never an address) */
struct exp_heap_live {
	uint64_t addr;
	uint64_t size;
	uint32_t stack_id;
	uint32_t tid;
};

/* EXP_REC_HEAP_STATE, 72 bytes, one per process: the live bytes now and at
 * their peak, with the allocation that reached it; releases of blocks whose
 * allocation was not seen (made before tracing began); blocks allocated
 * again while live (their release was not seen); blocks not tracked as live
 * (their stripe's table at its largest: their leak is not known).
 *   0 4 word; 4 4 reserved; 8 8 live_bytes; 16 8 peak_bytes;
 *  24 8 peak_time_ns; 32 4 peak_stack; 36 4 peak_tid; 40 8 unpaired_frees;
 *  48 8 reuses; 56 8 untracked; 64 8 reserved2                              */
struct exp_heap_state {
	uint32_t word;
	uint32_t reserved;
	uint64_t live_bytes;
	uint64_t peak_bytes;
	uint64_t peak_time_ns;
	uint32_t peak_stack;
	uint32_t peak_tid;
	uint64_t unpaired_frees;
	uint64_t reuses;
	uint64_t untracked;
	uint64_t reserved2;
};

/* EXP_REC_SYNC, 40 bytes: a wait above the threshold, written at the grant.
 *   0 4 word; 4 4 tid; 8 8 time_ns (grant)
 *  16 4 stack_id; 20 2 op (enum exp_sync_op); 22 2 flags (EXP_SYNC_F_*;
 *                 0 before they were written)
 *  24 8 wait_ns   request to grant
 *  32 8 object    address of the mutex / condvar / ... waited on           */
struct exp_sync {
	uint32_t word;
	uint32_t tid;
	uint64_t time_ns;
	uint32_t stack_id;
	uint16_t op;
	uint16_t flags;
	uint64_t wait_ns;
	uint64_t object;
};
enum exp_sync_op {
	EXP_SYNC_MUTEX = 1, EXP_SYNC_RWLOCK_RD, EXP_SYNC_RWLOCK_WR, EXP_SYNC_COND,
	EXP_SYNC_SEM, EXP_SYNC_BARRIER, EXP_SYNC_JOIN,
	EXP_SYNC_JAVA_MONITOR,   /* a contended Java monitor (synchronized) entered */
	EXP_SYNC_FUTEX,          /* FUTEX_WAIT through syscall(): the futex word's address */
	EXP_SYNC_CHILD,          /* wait, waitpid, wait3, wait4, waitid: the pid reaped
	                            (0: none, a failure or a child still running) */
};
/* The object is process-shared (a pthread mutex, condition variable,
 * barrier or semaphore made so; a futex wait without FUTEX_PRIVATE_FLAG):
 * its holder or waker may be another process. */
#define EXP_SYNC_F_SHARED 1u
/* A wait for a child inside system() (EXP_SYNC_CHILD, object 0: glibc's
 * waitpid there is its own, and the pid is not known): the child is the
 * one of this process that started within the wait. */
#define EXP_SYNC_F_SYSTEM 2u

/* EXP_REC_SYNC_HELD, 48 bytes: who held the object during part of a wait
 * (lock-holder blame, tally record -s): written by the waiter right after
 * the wait's SYNC record, one per holder, the parts adding up to its wait_ns.
 *   0 4 word; 4 4 tid (the waiter)
 *   8 8 time_ns    the wait's grant: its SYNC record's time_ns (the join key,
 *                  with tid and object)
 *  16 4 stack_id   the holder's stack when it took the object; 0: not known
 *  20 4 holder_tid 0: not known (then `why` says why)
 *  24 8 held_ns    the part of the wait during which that holder held it
 *  32 8 object     the object's address (the SYNC record's)
 *  40 2 why        enum exp_held_why: EXP_HELD_KNOWN, or why not known
 *  42 6 reserved   0
 * Added in format 5 without a version bump: older readers skip the type. */
struct exp_sync_held {
	uint32_t word;
	uint32_t tid;
	uint64_t time_ns;
	uint32_t stack_id;
	uint32_t holder_tid;
	uint64_t held_ns;
	uint64_t object;
	uint16_t why;
	uint16_t reserved[3];
};
enum exp_held_why {
	EXP_HELD_KNOWN = 0,        /* holder_tid and stack_id say who */
	EXP_HELD_UNTRACKED = 1,    /* the object's first contention: its holders were
	                              not yet being recorded */
	EXP_HELD_OVERFLOW = 2,     /* more holders during the wait than the object's
	                              history keeps (the oldest part) */
	EXP_HELD_TABLE_FULL = 3,   /* the table of contended objects was full */
	EXP_HELD_WHY_COUNT_
};

/* EXP_REC_SYNC_WAKE, 40 bytes: who woke a condition variable or semaphore
 * wait (tally record -s; tracers/sync_wakers.c): the thread that last
 * signalled or posted the object between the wait's request and its grant.
 * Written by the waiter right after the wait's SYNC record.
 *   0 4 word; 4 4 tid (the waiter)
 *   8 8 time_ns    the wait's grant: its SYNC record's time_ns (the join key,
 *                  with tid and object)
 *  16 8 object     the object's address (the SYNC record's)
 *  24 4 waker_tid  the thread that signalled or posted it
 *  28 4 reserved   0
 *  32 8 wake_ns    when (CLOCK_MONOTONIC)
 * Added in format 5 without a version bump: older readers skip the type. */
struct exp_sync_wake {
	uint32_t word;
	uint32_t tid;
	uint64_t time_ns;
	uint64_t object;
	uint32_t waker_tid;
	uint32_t reserved;
	uint64_t wake_ns;
};

/* EXP_REC_SYNC_KEY, 56 bytes: what names a process-shared object in every
 * process (tally record -s; tracers/sync_shared.c): the file its address
 * is mapped from, MAP_SHARED (a file, a POSIX shared memory object, or
 * shared anonymous memory, whose inode the kernel makes), and the offset in
 * it, from /proc/self/maps.  Two roles:
 *   WAIT     written by a waiter right after a SYNC record flagged
 *            EXP_SYNC_F_SHARED: joined to it by (tid, time_ns, object)
 *   RELEASE  a mutex or rwlock unlocked while it had waiters (a mutex
 *            let go inside a condition wait too), a semaphore posted or a
 *            condition variable signalled with waiters, a barrier's round
 *            completed (at that arrival), or a futex wake that woke one:
 *            time_ns is the moment, tid the thread; a wait on
 *            the same key in any process, granted after it, may be its
 *   0 4 word; 4 4 tid; 8 8 time_ns
 *  16 8 object  the address here
 *  24 8 dev     the mapping's device, major << 32 | minor
 *  32 8 ino     its inode
 *  40 8 offset  the object's offset in the file
 *  48 2 role    enum exp_sync_key_role
 *  50 6 reserved 0
 * Added in format 9 without a version bump: older readers skip the type. */
struct exp_sync_key {
	uint32_t word;
	uint32_t tid;
	uint64_t time_ns;
	uint64_t object;
	uint64_t dev;
	uint64_t ino;
	uint64_t offset;
	uint16_t role;
	uint16_t reserved[3];
};
enum exp_sync_key_role {
	EXP_SYNC_KEY_WAIT = 1,
	EXP_SYNC_KEY_RELEASE = 2,
};

/* EXP_REC_IO, 48 bytes: one I/O call, or a run of alike calls.
 *   0 4 word; 4 4 tid; 8 8 time_ns (call start)
 *  16 4 stack_id; 20 2 op (enum exp_io_op); 22 2 flags (EXP_IO_*)
 *  24 4 fd; 28 4 calls   calls the record stands for (0, as older writers
 *                        wrote it: 1): one-character stdio calls from one
 *                        call site are gathered
 *  32 8 bytes     bytes moved (negative: the call failed, -errno)
 *  40 8 dur_ns    time spent in the call(s)                                 */
struct exp_io {
	uint32_t word;
	uint32_t tid;
	uint64_t time_ns;
	uint32_t stack_id;
	uint16_t op;
	uint16_t flags;
	int32_t fd;
	uint32_t calls;
	int64_t bytes;
	uint64_t dur_ns;
};
/* The record is the second side of a call already counted by the record
 * before it (the source of sendfile, copy_file_range, splice, tee; bytes a
 * stdio call moved for the inline getc/putc before it): bytes, no call. */
#define EXP_IO_SAME_CALL 0x1
/* The record sums `calls` stdio calls from one stack on a file or terminal
 * whose bytes stayed in the stream's buffer (no system call): time_ns is
 * the first one's start, dur_ns their time summed.  Written out of time
 * order (when a call on fd reached the kernel, or the thread ended).  Came
 * with format 10: a version-9 reader would take it for one call. */
#define EXP_IO_BUFFERED 0x2
enum exp_io_op {
	EXP_IO_OPEN = 1, EXP_IO_CLOSE, EXP_IO_READ, EXP_IO_WRITE, EXP_IO_SYNC,
	EXP_IO_SEEK, EXP_IO_OTHER,
};

/* EXP_REC_FD_NAME, 24 + name bytes: descriptor `fd` now names `name`.
 *   0 4 word; 4 4 tid; 8 8 time_ns; 16 4 fd; 20 4 reserved;
 *  24 .. name (NUL-terminated, zero-padded to 8)                           */
struct exp_fd_name {
	uint32_t word;
	uint32_t tid;
	uint64_t time_ns;
	int32_t fd;
	uint32_t reserved;
	char name[];
};

/* EXP_REC_FD_FLOW, 40 bytes: what descriptor `fd` reads from and writes
 * into, for the critical path (tally record -i; tracers/io_flow.c): a
 * read on a descriptor whose `rx` is another's `tx` waits for that one's
 * writes.  Written at the descriptor's first read or write after it was
 * named (EXP_REC_FD_NAME), for the kinds below only.
 *   0 4 word; 4 4 tid
 *   8 8 time_ns    from (the first read's or write's start)
 *  16 4 fd
 *  20 2 kind       enum exp_flow_kind
 *  22 2 reserved   0
 *  24 8 rx         the channel its reads take from (a hash, never 0)
 *  32 8 tx         the channel its writes go into (a hash; 0 only for a
 *                  datagram socket that has not sent yet)
 * A pipe or FIFO, and an eventfd, is one channel both ways (rx = tx); a
 * connected socket has two, one each way: its tx is its peer's rx.
 * Added in format 5 without a version bump: older readers skip the type. */
struct exp_fd_flow {
	uint32_t word;
	uint32_t tid;
	uint64_t time_ns;
	int32_t fd;
	uint16_t kind;
	uint16_t reserved;
	uint64_t rx;
	uint64_t tx;
};
enum exp_flow_kind {
	EXP_FLOW_PIPE = 1,         /* a pipe or FIFO: its inode */
	EXP_FLOW_UNIX = 2,         /* a connected unix socket: its inode and its peer's */
	EXP_FLOW_INET = 3,         /* a connected IP socket: its address and its peer's */
	EXP_FLOW_EVENTFD = 4,      /* an eventfd: its id */
	EXP_FLOW_DGRAM = 5,        /* an IP datagram socket: its port (rx), the port it
	                              sends to (tx; 0 before it sent) */
	EXP_FLOW_KIND_COUNT_
};

/* EXP_REC_FD_WAIT, 32 + 4 * nfds bytes (padded to 8): a wait in poll,
 * ppoll, select, pselect, epoll_wait, epoll_pwait or epoll_pwait2 that
 * lasted at least IO_WAIT_MIN_NS (tally record -i; tracers/io_wait.c), with
 * the descriptors it waited on to read: the critical path goes from it to
 * the thread whose write into one of their channels (FD_FLOW) ended it.
 *   0 4 word; 4 4 tid; 8 8 time_ns (the call's start)
 *  16 4 stack_id
 *  20 2 flags      EXP_WAIT_*
 *  22 2 nfds       descriptors that follow
 *  24 8 dur_ns     the time in the call
 *  32 .. fds       int32 each: the descriptors waited on for reading (an
 *                  epoll wait: its epoll descriptor alone, whose interest
 *                  list the FD_WATCH records say); with EXP_WAIT_WRITES,
 *                  one waited on for writing alone (POLLOUT) as ~fd
 *                  (negative: an older reader finds no channel for it)
 * Added in format 7 without a version bump: older readers skip the type. */
struct exp_fd_wait {
	uint32_t word;
	uint32_t tid;
	uint64_t time_ns;
	uint32_t stack_id;
	uint16_t flags;
	uint16_t nfds;
	uint64_t dur_ns;
	int32_t fds[];
};
#define EXP_WAIT_EPOLL 0x1       /* fds[0] is an epoll descriptor */
#define EXP_WAIT_CUT 0x2         /* more descriptors than the record keeps */
#define EXP_WAIT_WRITES 0x4      /* a negative fds[k] is ~fd, waited on for writing */
#define EXP_WAIT_FDS_MAX 256     /* descriptors one FD_WAIT keeps */

/* EXP_REC_FD_WATCH, 32 bytes: epoll_ctl (tally record -i): descriptor `fd`
 * enters, changes in or leaves epoll descriptor `epfd`'s interest list.
 *   0 4 word; 4 4 tid; 8 8 time_ns
 *  16 4 epfd; 20 4 fd
 *  24 2 op         EPOLL_CTL_ADD 1, DEL 2, MOD 3 (as the kernel's)
 *  26 2 reserved   0
 *  28 4 events     the events asked for (EPOLLIN 0x1 ...)
 * Added in format 7 without a version bump: older readers skip the type. */
struct exp_fd_watch {
	uint32_t word;
	uint32_t tid;
	uint64_t time_ns;
	int32_t epfd;
	int32_t fd;
	uint16_t op;
	uint16_t reserved;
	uint32_t events;
};

/* EXP_REC_DYN_FUNC, 48 + name + lines + code bytes, in dyn.dat: a function
 * of dynamically generated code (the Sun analyzer's dynamic functions), with a copy
 * of its instructions (the Sun analyzer's dyntext) so that it can be disassembled
 * after the process is gone.  A record longer than a block starts at a
 * block boundary, as arc tables do.
 *   0 4 word
 *   4 4 flags     EXP_DYN_* : where it was learnt, EXP_DYN_TRUNCATED
 *   8 8 time_ns   there no later than this (0: since the start)
 *  16 8 addr      its first instruction
 *  24 8 size      bytes of code
 *  32 4 name_len  bytes of the name, NUL included (the field is padded to 8)
 *  36 4 nlines    line table entries
 *  40 4 code_len  bytes of code copied (< size if EXP_DYN_TRUNCATED)
 *  44 4 reserved
 *  48 .. name; then nlines x { u32 offset, u32 line } (offsets ascending:
 *        code from offset on is that line); then code_len bytes, padded to 8 */
struct exp_dyn_func {
	uint32_t word;
	uint32_t flags;
	uint64_t time_ns;
	uint64_t addr;
	uint64_t size;
	uint32_t name_len;
	uint32_t nlines;
	uint32_t code_len;
	uint32_t reserved;
};
#define EXP_DYN_API 1            /* tally_func_load (include/tally.h) */
#define EXP_DYN_PERFMAP 2        /* a line of /tmp/perf-PID.map, read at exit */
#define EXP_DYN_JITDUMP 3        /* a JIT_CODE_LOAD record of jit-PID.dump */
#define EXP_DYN_SOURCE_MASK 0xff
#define EXP_DYN_TRUNCATED 0x100  /* not all of its code could be copied */

/* EXP_REC_DYN_UNLOAD, 24 bytes: the function at `addr` is gone.
 *   0 4 word; 4 4 reserved; 8 8 time_ns; 16 8 addr                          */
struct exp_dyn_unload {
	uint32_t word;
	uint32_t reserved;
	uint64_t time_ns;
	uint64_t addr;
};

/* EXP_REC_ARC_TABLE, 32 + 32 * nslots bytes, starts at a block boundary:
 * one thread's open-addressing table of call-graph arcs, updated in place
 * while the thread runs.  A slot with frompc 0 is empty; a writer fills
 * selfpc and the counters before it publishes frompc.
 *   0 4 word; 4 4 tid; 8 4 nslots (a power of two); 12 4 flags (EXP_ARCS_*)
 *  16 8 time_ns   table created
 *  24 4 call_ns   EXP_ARCS_CYG_NET: the runtime's own time per call (an
 *                 enter and an exit) made inside an activation, and
 *  28 4 own_ns    the part of its own enter and exit inside an activation's
 *                 interval, both taken out of every incl_ns; else 0
 *  32 .. slots    struct exp_arc[nslots]                                    */
struct exp_arc {
	uint64_t frompc;     /* call site: return address in the caller */
	uint64_t selfpc;     /* callee: its entry, or the pc of its mcount call */
	uint64_t count;      /* traversals */
	uint64_t incl_ns;    /* -finstrument-functions: time from entry to exit */
};
struct exp_arc_table {
	uint32_t word;
	uint32_t tid;
	uint32_t nslots;
	uint32_t flags;
	uint64_t time_ns;
	uint32_t call_ns;
	uint32_t own_ns;
	struct exp_arc slots[];
};
#define EXP_ARCS_MCOUNT 0x1      /* selfpc is inside the callee (after its prologue) */
#define EXP_ARCS_FENTRY 0x2      /* selfpc is the callee's first instruction (+5) */
#define EXP_ARCS_CYG 0x4         /* -finstrument-functions: selfpc is the entry, incl_ns valid */
#define EXP_ARCS_CYG_NET 0x8     /* incl_ns without the runtime's own time (call_ns, own_ns) */

/* EXP_REC_MPI, 72 bytes: one MPI call (libtally-mpi.so, `tally record -m`),
 * written when it returns.  Bytes follow the Sun collector's model: what the
 * call's arguments name (a receive counts its buffer's length), and for the
 * collectives with a root, as if the root sent to (received from) every
 * member, itself included (docs/tracing.md has the table).  A nonblocking
 * start (MPI_Isend) carries the bytes; the call that completes it (MPI_Wait,
 * a successful MPI_Test) carries the time waited and the peer.
 *   0 4 word; 4 4 tid; 8 8 time_ns (call start)
 *  16 4 stack_id  the caller's stack
 *  20 2 op        enum exp_mpi_op (format/exp_mpi_ops.h)
 *  22 2 flags     EXP_MPI_*
 *  24 8 dur_ns    time in the call
 *  32 8 bytes_sent
 *  40 8 bytes_recv
 *  48 4 dest      MPI_COMM_WORLD rank sent to; EXP_MPI_PEER_* when not one
 *  52 4 source    MPI_COMM_WORLD rank received from; EXP_MPI_PEER_*
 *  56 4 tag       the message tag (-1: none, or MPI_ANY_TAG unresolved)
 *  60 4 comm      communicator id: 0 MPI_COMM_WORLD, 1 MPI_COMM_SELF, others
 *                 numbered as first seen (EXP_REC_MPI_COMM)
 *  64 4 sends     messages sent, by the same model (a completion: send
 *                 requests completed)
 *  68 4 recvs     messages received (a completion: receive requests)       */
struct exp_mpi {
	uint32_t word;
	uint32_t tid;
	uint64_t time_ns;
	uint32_t stack_id;
	uint16_t op;
	uint16_t flags;
	uint64_t dur_ns;
	uint64_t bytes_sent;
	uint64_t bytes_recv;
	int32_t dest;
	int32_t source;
	int32_t tag;
	uint32_t comm;
	uint32_t sends;
	uint32_t recvs;
};
#define EXP_MPI_FORTRAN 0x1      /* called through the Fortran bindings */
#define EXP_MPI_FAILED 0x2       /* returned an error code */
#define EXP_MPI_COMPLETES 0x4    /* completed nonblocking requests (wait, test) */
#define EXP_MPI_PEER_NONE (-1)   /* no peer: nothing sent / received */
#define EXP_MPI_PEER_MANY (-2)   /* several peers (collectives, waitall) */
#define EXP_MPI_PEER_UNKNOWN (-3) /* MPI_ANY_SOURCE unresolved, untranslated */
#define EXP_MPI_COMM_NONE 0xffffffffu /* no communicator, or not known */

/* EXP_REC_MPI_COMM, 40 bytes: a communicator seen for the first time.
 *   0 4 word; 4 4 tid; 8 8 time_ns; 16 4 id (as in EXP_REC_MPI.comm);
 *  20 4 size; 24 4 rank (this process's); 28 4 flags (EXP_MPI_COMM_*);
 *  32 4 remote_size (intercommunicators); 36 4 reserved                    */
struct exp_mpi_comm {
	uint32_t word;
	uint32_t tid;
	uint64_t time_ns;
	uint32_t id;
	uint32_t size;
	int32_t rank;
	uint32_t flags;
	uint32_t remote_size;
	uint32_t reserved;
};
#define EXP_MPI_COMM_INTER 0x1

/* ---- dynamic code and Java (code.dat) ------------------------------------ *
 *
 * A frame of a sample's stack (SAMPLE_RUN, STACK, STACK_NODE) whose pc has
 * bit 63 set is a *Java frame*, not an address: the JVM's AsyncGetCallTrace
 * gave it.  Bits 0-46 hold the method's jmethodID (named by a JAVA_METHOD
 * record), bits 47-62 the bytecode index + 4 (EXP_JAVA_BCI_*: 1 a native
 * method, 3 no index; a larger index is clamped).  Java frames come first in
 * a stack (leaf first), before its machine frames: a JVM thread's sample is
 * its Java stack then the native one.  A Java frame with method 0 is a marker
 * first in the Java part: the thread is a Java thread, and its bits 47-62 say
 * why it has no Java frame (EXP_JAVA_NO_*).  Since version 7, when that is
 * the JVM's refusal (1-10), Java frames of no bytecode index may follow it:
 * the methods the collector read from the interpreter frames of the machine
 * stack, leaf first, the first interpreter frames in order (before, the
 * marker was alone).                                                        */
#define EXP_JAVA_FRAME (1ull << 63)
#define EXP_JAVA_METHOD_MASK ((1ull << 47) - 1)
#define EXP_JAVA_BCI_SHIFT 47
#define EXP_JAVA_BCI_NATIVE 1            /* field value: a native method */
#define EXP_JAVA_BCI_NONE 3              /* field value: no bytecode index */
#define EXP_JAVA_BCI_BIAS 4              /* field = bci + 4 */
#define EXP_JAVA_IS_FRAME(pc) (((pc) & EXP_JAVA_FRAME) != 0)
#define EXP_JAVA_METHOD_OF(pc) ((pc) & EXP_JAVA_METHOD_MASK)
#define EXP_JAVA_FIELD_OF(pc) ((unsigned)(((pc) >> EXP_JAVA_BCI_SHIFT) & 0xffff))
/* Why a Java thread's sample has no Java frame (marker field): 0, the thread
 * runs no Java code now (starting, or in the JVM only); 1-10, the JVM could
 * not walk its stack: AsyncGetCallTrace's code negated (1 no class-load
 * events, 2 GC active, 3 unknown frame outside Java, 4 not walkable outside
 * Java, 5 unknown Java frame, 6 not walkable in Java, 7 unknown state, 8
 * thread exiting, 9 in deoptimization, 10 safepoint); 11 the Java part did
 * not fit in the stack. */
enum exp_java_none {
	EXP_JAVA_NO_JAVA_CODE = 0,
	EXP_JAVA_NO_WALK_MAX = 10,
	EXP_JAVA_NO_ROOM = 11,
};

/* EXP_REC_JAVA_METHOD, 40 + 8 n + strings bytes: the name of a Java method
 * whose jmethodID appeared in a frame, written by the JVMTI agent.
 *   0 4 word
 *   4 4 flags      EXP_JAVA_METHOD_*
 *   8 8 method     the jmethodID (as in Java frames)
 *  16 2 class_len  bytes of the class signature ("Lpkg/Class;"), NUL included
 *  18 2 name_len   bytes of the method name ("run"), NUL included
 *  20 2 sig_len    bytes of the signature ("(I[Ljava/lang/String;)V"), NUL incl.
 *  22 2 src_len    bytes of the source file name ("Class.java"; 1: unknown)
 *  24 4 nlines     line table entries
 *  28 4 reserved   0
 *  32 8 time_ns    when it was named
 *  40 8*n lines    { u32 start_bci; u32 line }, by start_bci
 *  ..  strings     class, name, signature, source file, each NUL-terminated,
 *                  then zeros to a multiple of 8                            */
struct exp_java_method {
	uint32_t word;
	uint32_t flags;
	uint64_t method;
	uint16_t class_len;
	uint16_t name_len;
	uint16_t sig_len;
	uint16_t src_len;
	uint32_t nlines;
	uint32_t reserved;
	uint64_t time_ns;
	uint32_t lines[];          /* pairs: start_bci, line */
};
#define EXP_JAVA_METHOD_NATIVE 0x1    /* a native method (its code is C) */
#define EXP_JAVA_METHOD_LINES_CUT 0x2 /* the line table was longer than a record holds */
#define EXP_JAVA_METHOD_UNNAMED 0x4   /* the JVM could not name it (class unloaded):
                                         no strings but NULs */

/* EXP_REC_JIT_CODE, 48 + name + 8 n bytes: code generated at run time
 * appeared at [start, start + size): a JIT-compiled method, a stub of the
 * JVM (its interpreter, call stubs, adapters), or any other generator's.
 *   0 4 word
 *   4 2 kind       EXP_JIT_*
 *   6 2 name_len   bytes of the name, NUL included
 *   8 8 time_ns    there no later than this
 *  16 8 start
 *  24 8 size
 *  32 8 method     EXP_JIT_JAVA: the jmethodID it compiles; 0 otherwise
 *  40 4 nlines     line table entries after the name (EXP_JIT_JAVA: the
 *                  compiled method's own source lines, from tally's agent;
 *                  an entry covers its offset up to the next's, a call
 *                  is described at its return address, as HotSpot does)
 *  44 4 reserved   0
 *  48 ..  name     NUL-terminated, zeros to a multiple of 8 ("pkg.Class.m(int)",
 *                  "Interpreter", "vtable stub")
 *  .. 8*n lines    { u32 offset from start; u32 line }, by offset
 * A later JIT_CODE at the same start replaces an earlier one; a JIT_UNLOAD
 * ends it.                                                                  */
struct exp_jit_code {
	uint32_t word;
	uint16_t kind;
	uint16_t name_len;
	uint64_t time_ns;
	uint64_t start;
	uint64_t size;
	uint64_t method;
	uint32_t nlines;
	uint32_t reserved;
	char name[];
};
enum exp_jit_kind {
	EXP_JIT_JAVA = 1,          /* a Java method compiled by the JVM */
	EXP_JIT_JVM_STUB = 2,      /* code the JVM generated for itself */
	EXP_JIT_OTHER = 3,         /* any other code generator's */
};

/* EXP_REC_JIT_INLINE, 16 + entries bytes, after the JIT_CODE record of a
 * compiled Java method (kind EXP_JIT_JAVA): what the JIT inlined where, so
 * that a frame recovered from that code (its return address, or a leaf pc)
 * shows the inlined methods' frames (from JVMTI's compile_info, HotSpot's
 * PcDescs; only places where something was inlined).  One code's entries
 * may take several records, each applying to the latest JIT_CODE of
 * `start` before it.
 *   0 4 word
 *   4 4 npcs       entries that follow
 *   8 8 start      the compiled code's start (its JIT_CODE record's)
 *  16 .. entries   { u32 offset from start (a call's: its return address);
 *                    u32 nframes (2..EXP_JIT_INLINE_DEPTH_MAX);
 *                    nframes x { u64 method (jmethodID); u32 line (0: not
 *                    known); u32 reserved 0 } }, innermost first, the
 *                  compiled method itself last; by offset.                  */
struct exp_jit_inline {
	uint32_t word;
	uint32_t npcs;
	uint64_t start;
};
struct exp_jit_inline_pc {
	uint32_t offset;
	uint32_t nframes;
};
struct exp_jit_inline_frame {
	uint64_t method;
	uint32_t line;
	uint32_t reserved;
};
#define EXP_JIT_INLINE_DEPTH_MAX 64

/* EXP_REC_JIT_UNLOAD, 32 bytes: the dynamic code at `start` is gone.
 *   0 4 word; 4 4 reserved; 8 8 time_ns; 16 8 start; 24 8 method (EXP_JIT_JAVA) */
struct exp_jit_unload {
	uint32_t word;
	uint32_t reserved;
	uint64_t time_ns;
	uint64_t start;
	uint64_t method;
};

/* EXP_REC_PROC_SAMPLE, 72 bytes, in threads.dat: the process at one instant
 * (`tally record --process-samples S`, every S seconds of wall time, taken
 * by the first clock sample after each period, and at the end):
 *   0 4 word; 4 4 tid (the thread that took it); 8 8 time_ns;
 *  16 8 rss_bytes (resident, /proc/self/statm); 24 8 minflt; 32 8 majflt;
 *  40 8 nvcsw; 48 8 nivcsw (getrusage RUSAGE_SELF: every thread so far);
 *  56 8 heap_live_bytes (-H: the live heap bytes; EXP_PROC_NO_HEAP without);
 *  64 8 cpu_ns (CLOCK_PROCESS_CPUTIME_ID)                                 */
struct exp_proc_sample {
	uint32_t word;
	uint32_t tid;
	uint64_t time_ns;
	uint64_t rss_bytes;
	uint64_t minflt, majflt;
	uint64_t nvcsw, nivcsw;
	uint64_t heap_live_bytes;
	uint64_t cpu_ns;
};
#define EXP_PROC_NO_HEAP UINT64_MAX

/* EXP_REC_THREAD_NAME, 24 + name bytes, in threads.dat: thread `tid` is now
 * called `name` (pthread_setname_np; a Java thread's name from the JVM).
 *   0 4 word; 4 4 tid; 8 8 time_ns; 16 4 flags (EXP_THREAD_NAME_*);
 *  20 4 reserved; 24 .. name, NUL-terminated, zeros to a multiple of 8      */
struct exp_thread_name {
	uint32_t word;
	uint32_t tid;
	uint64_t time_ns;
	uint32_t flags;
	uint32_t reserved;
	char name[];
};
#define EXP_THREAD_NAME_JAVA 0x1      /* the name of a java.lang.Thread (full length) */
#define EXP_THREAD_NAME_MAX 128       /* bytes of a name, NUL included */

/* kernel.dat, in the founder's directory only, written by `tally record`
 * (cli_kernel.c) from perf events it opens on the program, one per CPU,
 * inherited by every thread and process the program creates: a task-clock
 * sampling the same period as the collector's clock, in kernel mode only,
 * with the kernel's call chain.  The analyzer gives each clock sample the
 * kernel samples of its thread since the thread's previous clock sample,
 * each `period_ns` of its weight (exp_read_kernel.c).  With --states, also
 * a context-switch event per CPU (period 1, the kernel's call chain): each
 * switch out of the CPU is a KERNEL_SWITCH record, which the analyzer puts
 * above the user stack of the STATE interval it began.
 *
 * EXP_REC_KERNEL_INFO, 32 bytes, written last: the events' period and what
 * the kernel lost.
 *   0 4 word; 4 4 flags (EXP_KERNEL_INFO_*); 8 8 period_ns; 16 8 lost
 *   (samples the kernel dropped: its ring buffer was full); 24 8
 *   switches_lost (the same for KERNEL_SWITCH records; 0 before they were
 *   written: the field was reserved)                                       */
struct exp_kernel_info {
	uint32_t word;
	uint32_t flags;
	uint64_t period_ns;
	uint64_t lost;
	uint64_t switches_lost;
};
#define EXP_KERNEL_INFO_SWITCHES 0x1  /* the context-switch event was opened:
					 KERNEL_SWITCH records follow */

/* EXP_REC_KERNEL_SAMPLE, 24 + 8 * nframes bytes: one tick in kernel mode.
 *   0 4 word; 4 4 pid; 8 4 tid; 12 2 nframes (<= EXP_KERNEL_MAX_FRAMES);
 *  14 2 reserved; 16 8 time_ns (CLOCK_MONOTONIC);
 *  24 8*n pcs, leaf first: the interrupted kernel pc, then return addresses
 * EXP_REC_KERNEL_SWITCH has the same layout: a switch of thread tid out of
 * its CPU at time_ns (the kernel's chain from the scheduler down to the
 * system call or interrupt that got there: schedule, anon_pipe_read,
 * vfs_read, ksys_read...); new in format 6's readers, skipped by older ones. */
struct exp_kernel_sample {
	uint32_t word;
	uint32_t pid;
	uint32_t tid;
	uint16_t nframes;
	uint16_t reserved;
	uint64_t time_ns;
	uint64_t pcs[];
};
#define EXP_KERNEL_MAX_FRAMES 128
/* Kernel addresses (x86-64): the upper half. */
#define EXP_KERNEL_ADDR_MIN 0xffff800000000000ull

/* EXP_REC_KERNEL_SYM, 24 + name bytes: a kernel function some sample's pc
 * falls in (copied from /proc/kallsyms at the end of the run, so that the
 * experiment reports on another machine).
 *   0 4 word; 4 4 reserved; 8 8 addr; 16 8 size (to the next symbol);
 *  24 .. name, NUL-terminated, zeros to a multiple of 8                     */
struct exp_kernel_sym {
	uint32_t word;
	uint32_t reserved;
	uint64_t addr;
	uint64_t size;
	char name[];
};
/* EXP_REC_STATE, 48 bytes, in states.dat (--states): one interval a thread
 * spent off the CPU, from the context switch that took it off to the one
 * that put it back (PERF_RECORD_SWITCH times, CLOCK_MONOTONIC).
 *   0 4 word; 4 4 tid
 *   8 8 off_ns       switched out
 *  16 8 on_ns        switched back in
 *  24 8 runnable_ns  of on_ns - off_ns, the part spent runnable, waiting for a
 *                    CPU: all of it when preempted; after a wake-up, the
 *                    latency to the CPU (the thread's schedstat run_delay);
 *                    the rest was blocked
 *  32 4 stack_id     the user stack at which it left the CPU (stacks.dat); 0:
 *                    none taken (EXP_STATE_NO_STACK)
 *  36 2 flags        EXP_STATE_*
 *  38 2 reserved     0
 *  40 8 reserved     0                                                      */
struct exp_state {
	uint32_t word;
	uint32_t tid;
	uint64_t off_ns;
	uint64_t on_ns;
	uint64_t runnable_ns;
	uint32_t stack_id;
	uint16_t flags;
	uint16_t reserved0;
	uint64_t reserved1;
};
#define EXP_STATE_PREEMPTED 0x1   /* switched out while runnable (involuntary) */
#define EXP_STATE_SYSCALL 0x2     /* the stack's leaf follows a syscall instruction */
#define EXP_STATE_NO_STACK 0x4    /* no stack at the switch: stack_id is the thread's
				     next clock sample's, or 0 */
#define EXP_STATE_WAKE_SPREAD 0x8 /* runnable_ns is a share of a run_delay that
				     several intervals had together */
#define EXP_STATE_FAULTED 0x10  /* the thread's page faults grew since its last
				     look (its previous clock sample or such
				     resume): a block outside a system call may
				     have been a fault's; without: a stop */
#define EXP_STATE_FROM_ATTACH 0x20 /* off_ns is the attach, not the switch-out: the
				     thread was off the CPU already (tally record -p;
				     its stack and reason read from /proc) */
#define EXP_STATE_TO_END 0x40     /* on_ns is the end of the attach's window, not a
				     switch-in: the thread was still off the CPU */
#define EXP_STATE_COLLECTOR 0x80  /* off_ns fell inside the collector's own signal
				     handler (a record write that waited for the
				     disk): tally's time, not the program's */

/* EXP_REC_CPU_SPLIT, 32 bytes, in states.dat: the thread's user and system
 * CPU time so far (the kernel's, getrusage RUSAGE_THREAD), written with each
 * clock sample; the clock samples between two splits of a thread share that
 * window's system fraction.
 *   0 4 word; 4 4 tid; 8 8 time_ns (the clock sample's); 16 8 user_ns;
 *  24 8 system_ns                                                           */
struct exp_cpu_split {
	uint32_t word;
	uint32_t tid;
	uint64_t time_ns;
	uint64_t user_ns;
	uint64_t system_ns;
};

/* EXP_REC_COUNTER_DEF, 64 bytes, in hwc.dat: counter `index` of this
 * process (`tally record -c`), written once at the collector's start.
 *   0 4 word; 4 2 index (0..EXP_MAX_COUNTERS-1); 6 2 flags (EXP_COUNTER_*)
 *   8 4 type (PERF_TYPE_*); 12 4 reserved; 16 8 config; 24 8 period
 *  32 32 name (as given: "cycles", "page-faults", "r01c2"; NUL-padded)       */
struct exp_counter_def {
	uint32_t word;
	uint16_t index;
	uint16_t flags;
	uint32_t type;
	uint32_t reserved;
	uint64_t config;
	uint64_t period;
	char name[32];
};
#define EXP_MAX_COUNTERS 8
#define EXP_COUNTER_KERNEL 0x1    /* counts in the kernel too (else user mode only) */
#define EXP_COUNTER_PRECISE 0x2   /* precise_ip: the sample's pc is the event's own */

/* EXP_REC_COUNTER_SAMPLE, 32 bytes, in hwc.dat: an overflow of counter
 * `index` on thread `tid`, with the user stack where it was taken.
 *   0 4 word; 4 4 tid; 8 8 time_ns; 16 4 stack_id; 20 2 index;
 *  22 2 reserved; 24 8 count (events since the thread's previous sample of
 *  this counter: the counter's value read in the handler, so coalesced
 *  overflows lose nothing)                                                  */
struct exp_counter_sample {
	uint32_t word;
	uint32_t tid;
	uint64_t time_ns;
	uint32_t stack_id;
	uint16_t index;
	uint16_t reserved;
	uint64_t count;
};

/* EXP_REC_COUNTER_END, 32 bytes, in hwc.dat: counter `index` of thread `tid`
 * when the thread ended: its total, and how much of it came after its last
 * sample (in no sample: the Sun analyzer's "counts accrued after the last overflow").
 *   0 4 word; 4 4 tid; 8 8 time_ns; 16 2 index; 18 6 reserved;
 *  24 8 total                                                               */
struct exp_counter_end {
	uint32_t word;
	uint32_t tid;
	uint64_t time_ns;
	uint16_t index;
	uint16_t reserved[3];
	uint64_t total;
};

/* EXP_REC_DATA_SAMPLE, 48 bytes, in hwc.dat: a precise memory-access sample
 * (dataspace profiling, docs/dataspace.md): counter `index` overflowed on an
 * access to `addr` by the instruction at `pc` (PERF_SAMPLE_ADDR with
 * precise_ip: Intel PEBS, AMD IBS).  No PMU here writes them; the layout,
 * the reader and `tally report --data-objects` are tested with synthetic
 * samples.
 *   0 4 word; 4 4 tid; 8 8 time_ns; 16 4 stack_id (stack of the access, leaf
 *  = pc); 20 2 index; 22 2 flags (EXP_DATA_*); 24 8 pc; 32 8 addr;
 *  40 8 count (events the sample stands for)                                */
struct exp_data_sample {
	uint32_t word;
	uint32_t tid;
	uint64_t time_ns;
	uint32_t stack_id;
	uint16_t index;
	uint16_t flags;
	uint64_t pc;
	uint64_t addr;
	uint64_t count;
};
/* EXP_REC_DATA_SAMPLE_SRC, 56 bytes, in hwc.dat: a DATA_SAMPLE with the
 * level that served the access, as the collector writes precise samples
 * (`tally record --data` where the PMU has a precise memory event:
 * docs/dataspace.md).  A new type rather than a longer DATA_SAMPLE, so
 * that an older reader skips it and says so (no version change).
 *   0 48 a DATA_SAMPLE's fields, its word this type's;
 *  48 8 data_src  the kernel's union perf_mem_data_src (PERF_SAMPLE_DATA_SRC):
 *                 the level (format/exp_perf_mem.h), load or store, TLB, snoop */
struct exp_data_sample_src {
	struct exp_data_sample s;
	uint64_t data_src;
};
#define EXP_DATA_STORE 0x1        /* the access was a store (else a load) */
#define EXP_DATA_ADDR_UNKNOWN 0x2 /* the PMU gave no address for this sample */
#define EXP_DATA_STACK 0x4        /* addr is in the sampled thread's stack */

/* EXP_REC_DATA_REGS, 192 bytes, in hwc.dat: the interrupted registers of one
 * clock sample, written only with `tally record --data` (docs/dataspace.md,
 * "Data objects from clock samples"), in the same handler run as the sample
 * (same tid and time_ns, and its weight).  The analyzer decodes the
 * instruction at regs[16] (the pc) and computes the address it accesses.
 *   0 4 word; 4 4 tid; 8 8 time_ns; 16 8 weight_ns (the sample's CPU time);
 *  24 4 flags (EXP_DREGS_*); 28 4 reserved;
 *  32 8 fs_base   the thread's %fs base (its thread pointer: TLS)
 *  40 8 stack_lo, 48 8 stack_hi   the thread's stack bounds, as the
 *                 collector knows them (0, 0: unknown)
 *  56 8*17 regs   rax rdx rcx rbx rsi rdi rbp rsp r8..r15, then rip         */
struct exp_data_regs {
	uint32_t word;
	uint32_t tid;
	uint64_t time_ns;
	uint64_t weight_ns;
	uint32_t flags;
	uint32_t reserved;
	uint64_t fs_base;
	uint64_t stack_lo, stack_hi;
	uint64_t regs[17];
};
#define EXP_DREGS_NREGS 17
#define EXP_DREGS_RIP 16
#define EXP_DREGS_DEFERRED 0x1    /* taken at the end of a traced call: the registers are tally's */

/* EXP_REC_DATA_BLOCK, 40 bytes, in hwc.dat: a heap block allocated or
 * released, written only with both --data and -H, so that a sampled data
 * address is named by the block live at the sample's time (heap.dat's
 * tables keep only the blocks live at the end).  A realloc is a release of
 * the old block, then an allocation.
 *   0 4 word; 4 4 tid; 8 8 time_ns; 16 8 addr; 24 8 size (0: released);
 *  32 4 stack_id (of the allocation; 0 for a release); 36 4 reserved        */
struct exp_data_block {
	uint32_t word;
	uint32_t tid;
	uint64_t time_ns;
	uint64_t addr;
	uint64_t size;
	uint32_t stack_id;
	uint32_t reserved;
};

/* EXP_REC_DATA_FRAMES, 24 + 16 * nframes bytes, in hwc.dat, right after the
 * DATA_REGS of the same sample (same tid and time_ns), with --data only:
 * the innermost frames of the sample's unwind with each frame's CFA, so
 * that a stack address is named by the frame it lies in (frame i spans
 * [CFA of frame i-1, CFA of frame i); frame 0 from its %rsp).  Since
 * format 6, by the rule for new types (older readers skip it).
 *   0 4 word; 4 4 tid; 8 8 time_ns; 16 4 nframes (at most
 *   EXP_DATA_FRAMES_MAX); 20 4 reserved;
 *  24 16*nframes  (pc, cfa): the frame's pc as in the stack (frame 0 the
 *                 interrupted pc, then return addresses) and its CFA (the
 *                 caller's %rsp after the return; 0: unknown, as for a
 *                 signal trampoline or the walk's last frame)            */
struct exp_data_frames {
	uint32_t word;
	uint32_t tid;
	uint64_t time_ns;
	uint32_t nframes;
	uint32_t reserved;
	uint64_t pairs[];
};
#define EXP_DATA_FRAMES_MAX 64

/* EXP_REC_DATA_FILE, 48 + path bytes, in hwc.dat, with --data only: the
 * program mapped a file (mmap of a descriptor, not anonymous) or unmapped
 * a range, so that a sampled address in it is named `<File: path>`.
 * Since format 6, by the rule for new types (older readers skip it).
 *   0 4 word; 4 4 flags (EXP_DATA_FILE_*); 8 8 time_ns;
 *  16 8 addr; 24 8 len      the range mapped or unmapped
 *  32 8 offset              in the file (a mapping)
 *  40 8 reserved
 *  48 .. path               a mapping's: NUL-terminated, zero-padded to a
 *                           multiple of 8 ("" if /proc/self/fd said none) */
struct exp_data_file {
	uint32_t word;
	uint32_t flags;
	uint64_t time_ns;
	uint64_t addr;
	uint64_t len;
	uint64_t offset;
	uint64_t reserved;
};
#define EXP_DATA_FILE_UNMAP 0x1   /* munmap: the range is released */

/* counters.dat: a 64-byte header like the record files (kind 0), then
 * EXP_CTR_COUNT_ little-endian u64 counters updated in place with atomic
 * adds.  Every loss has a counter; the report header shows the nonzero ones. */
enum exp_counter {
	EXP_CTR_SAMPLES,          /* clock samples written */
	EXP_CTR_LOST_REENTRY,     /* signal arrived while the collector was busy */
	EXP_CTR_LOST_BUFFER,      /* no space: a block could not be claimed */
	EXP_CTR_UNWIND_BROKEN,    /* stacks cut short by an unreadable frame */
	EXP_CTR_UNWIND_TRUNCATED, /* stacks deeper than the limit */
	EXP_CTR_STACK_TABLE_FULL, /* stacks written without de-duplication: the table full */
	EXP_CTR_FOREIGN_SIGNALS,  /* profiling signals passed on to the target's handler */
	EXP_CTR_NO_THREAD_STATE,  /* samples in threads the collector did not set up */
	EXP_CTR_COLLECTOR_NS,     /* ns of CPU the collector used on the program's threads */
	EXP_CTR_UNSAMPLED_THREADS,/* threads that ran for periods without a sample (a blocked signal) */
	EXP_CTR_UNSAMPLED_NS,     /* ns of CPU those threads used after their last sample */
	EXP_CTR_LOST_EVENTS,      /* trace events dropped (no space) */
	EXP_CTR_ARCS_LOST,        /* arcs dropped: a table could not grow */
	EXP_CTR_FORKS,            /* descendants created (names _fN) */
	EXP_CTR_EXECS,            /* exec'd images of this process (names _xN) */
	/* 15-16: issue 7's; 17-20: the collector's descriptors and the size limit. */
	EXP_CTR_FDS_REPLACED = 17, /* our descriptors found replaced behind our back, reopened */
	EXP_CTR_LOST_LIMIT = 18,  /* samples and events not recorded: the size limit was reached */
	EXP_CTR_BYTES = 19,       /* founder's: bytes the whole experiment claimed (for the limit) */
	EXP_CTR_LIMIT_NS = 20,    /* founder's: CLOCK_MONOTONIC when the size limit was reached (0: not) */
	EXP_CTR_STATES_LOST = 21,  /* context-switch records the kernel dropped (ring buffer full) */
	EXP_CTR_STATES_NO_STACK = 22, /* off-CPU intervals whose stack was not taken at the switch */
	EXP_CTR_COUNTER_LOST = 23, /* counter overflows whose sample was dropped (reentry, no space) */
	EXP_CTR_MPI_UNTRACKED = 24, /* MPI requests completed whose start was not traced */
	EXP_CTR_MPI_UNKNOWN_PEER = 25, /* MPI peers not translated to MPI_COMM_WORLD ranks */
	EXP_CTR_JAVA_UNNAMED = 26, /* Java methods sampled that could not be named (class
	                              unloaded first, or the table of methods full) */
	EXP_CTR_JAVA_LOST = 27,   /* Java frames or JVM events not recorded (a method id
	                              beyond 47 bits, a JVM callback inside the collector) */
	EXP_CTR_DYN_LOST = 28,    /* dynamic functions whose code was not copied whole */
	EXP_CTR_LOST_NOFILE = 29, /* samples and events not recorded: the program held every
	                              descriptor its limit allows when a block was claimed */
	EXP_CTR_TRACED_UNWOUND = 30, /* traced events whose stack was walked: not found in the
	                              thread's memo of traced stacks (col_stacks.c) */
	EXP_CTR_STACK_CROWDED = 31, /* stacks written without de-duplication: their key's
	                              32 slots were taken, the table not full (col_stacks.c) */
	EXP_CTR_COUNT_ = 32
};
#define EXP_COUNTERS_BYTES (EXP_HEADER_BYTES + 8 * 32)

/* A descendant's process file, ROOT/LINEAGE.proc beside its (optional)
 * directory ROOT/LINEAGE.exp (format version 8): its log, its counters and
 * its threads' records in one file, made with one open and one write, so
 * that a short process (a shell's /bin/true) makes one file, not a
 * directory and three files.  Its other record files, if any, are made in
 * LINEAGE.exp at their first record.
 *  off size
 *    0   64 file header as a record file's, kind EXP_PROC_KIND
 *   64  256 the counters, as in counters.dat (the same offsets: updated in
 *           place through a shared mapping)
 *  320    7 zero
 *  327    1 '\n' (the log's lines start at the beginning of a line)
 *  328  ... items appended with one write(2) each (O_APPEND: whole, never
 *           mixed): a log line, "key: value\n" (its first byte never NUL),
 *           or a record: a NUL byte, one record of threads.dat (its word:
 *           type and length, a multiple of 8, at most EXP_PROC_REC_MAX),
 *           a '\n'.  A last item cut short (a full disk) is damage. */
#define EXP_PROC_KIND 15
#define EXP_PROC_HEAD_BYTES (EXP_COUNTERS_BYTES + 8)
#define EXP_PROC_REC_MAX 1024

/* The run's process slots, ROOT/processes.dat (format 9): descendants'
 * process files, one slot each, so that a short process creates no file
 * (an inode made costs 40-1,100 us of CPU on this ext4 without a journal,
 * where opening a file that exists costs a few).
 *  off          size
 *    0            64 file header, kind EXP_SLOTS_KIND, block_bytes EXP_SLOT_BYTES
 *  S * (k + 1)     S slot k (S = EXP_SLOT_BYTES), k taken by an atomic add on
 *                    the `slots` word of the root's counters.dat header:
 *                    a process file's head (kind EXP_PROC_KIND, its counters
 *                    mapped shared), its first item the log line
 *                    "lineage: LINEAGE" (written with the head), then its
 *                    items, each written whole with one pwrite(2) at a place
 *                    claimed by an atomic add; the rest of the slot is zero.
 * An item that does not fit, and every item after it, goes to the process's
 * own process file ROOT/LINEAGE.proc (made then; its counters unused): the
 * two are one process, the slot's items first.  A slot's head never
 * written (a process killed as it started) is all zero: no process. */
#define EXP_SLOTS_KIND 16
#define EXP_SLOT_BYTES 16384
#define EXP_SLOT_LINEAGE_KEY "lineage: "

/* Every record threads.dat holds, at its largest, fits one item of the
 * process file (the collector refuses a longer one at run time, counted as
 * lost: a record kind added to threads.dat gets its line here). */
_Static_assert(sizeof(struct exp_thread_start) <= EXP_PROC_REC_MAX, "THREAD_START outgrew the process file");
_Static_assert(sizeof(struct exp_thread_end) <= EXP_PROC_REC_MAX, "THREAD_END outgrew the process file");
_Static_assert(sizeof(struct exp_thread_sched) <= EXP_PROC_REC_MAX, "THREAD_SCHED outgrew the process file");
_Static_assert(sizeof(struct exp_thread_switches) <= EXP_PROC_REC_MAX, "THREAD_SWITCHES outgrew the process file");
_Static_assert(sizeof(struct exp_proc_sample) <= EXP_PROC_REC_MAX, "PROC_SAMPLE outgrew the process file");
_Static_assert(((sizeof(struct exp_thread_cost) + 4 * EXP_COST_BUCKETS + 7) & ~7ul) <= EXP_PROC_REC_MAX,
	       "THREAD_COST with every bucket outgrew the process file");
_Static_assert(((sizeof(struct exp_thread_name) + EXP_THREAD_NAME_MAX + 7) & ~7ul) <= EXP_PROC_REC_MAX,
	       "THREAD_NAME with the longest name outgrew the process file");

#endif
