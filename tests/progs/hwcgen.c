/* hwcgen.c — writes a synthetic experiment of counter samples, as a machine
 * with a precise PMU (Intel PEBS, AMD IBS) would leave after
 * `tally record -c cycles -c instructions -c cache-misses ...`: this
 * machine has none, so the record and report paths of hardware counters
 * and dataspace profiling (docs/dataspace.md) are tested on these files.
 * Built by the Makefile with tally's own format writer.
 *
 *   hwcgen DIR
 *
 * DIR holds one process whose load object is this program (so that code
 * and data addresses have real names): counters 0 cycles, 1 instructions
 * (COUNTER_SAMPLEs), 2 cache-misses (precise: DATA_SAMPLEs with data
 * addresses).  Known by construction, printed for the test:
 *   gen_hot:  3000 cycles samples, 1500 instructions samples (IPC 0.5)
 *   gen_cold: 1000 cycles samples, 3000 instructions samples (IPC 3)
 *   cache-misses: 600 samples in gen_grid (500 from gen_hot, 100 from
 *   gen_cold), 300 in gen_counter (gen_cold: a scalar, so <Scalars>), 40
 *   in gen_table (a static array of structures, gen_hot: all on .hot), 50 in a heap block malloc'd by gen_alloc, 30 on the stack,
 *   20 without an address, 10 in anonymous memory, 20 (gen_cold) in a block
 *   of 3000 bytes known by its DATA_BLOCK record alone (`record --data`
 *   without -H: named by its size class); each sample 1000 misses.
 *   Data sources (DATA_SAMPLE_SRC, as the collector writes them): of
 *   gen_grid's 500 from gen_hot, 400 served by L1 and 100 by DRAM; all 300
 *   of gen_counter's stores by the L3; the rest have none (DATA_SAMPLE).
 * Every sample of a counter weighs its period.
 */
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <link.h>
#include <linux/perf_event.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "format/exp_write.h"

#define MS 1000000ull
#define CYCLE_PERIOD 1000003ull
#define MISS_PERIOD 1000ull
#define PID 4242u
#define HEAP_BLOCK 0x5500000000ull     /* where the fake malloc returned 4096 bytes */
#define DATA_BLOCK_AT 0x5600000000ull  /* a block of 3000 bytes as --data records it */

double gen_grid[65536];                /* .bss, 512 KiB */
long gen_counter = 1;                  /* .data */
/* a file-static array of structures (.data): its samples on .hot */
static struct gen_entry { int hot, cold; } gen_table[50] = { { 1, 0 } };

/* Functions whose addresses make the stacks: never called. */
#define GEN(name)                                                            \
	__attribute__((noinline, used)) void name(void);                     \
	__attribute__((noinline, used)) void name(void) { __asm__ volatile("nop; nop; nop; nop; nop; nop; nop; nop"); }
GEN(gen_main)
GEN(gen_hot)
GEN(gen_cold)
GEN(gen_alloc)

struct text {
	uint64_t start, end, bias;
	char path[4096];
};

static int find_text(struct dl_phdr_info *info, size_t size, void *arg)
{
	struct text *t = arg;
	(void)size;
	if (info->dlpi_name[0])            /* the executable comes first, unnamed */
		return 0;
	t->bias = info->dlpi_addr;
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		if (ph->p_type == PT_LOAD && (ph->p_flags & PF_X)) {
			t->start = info->dlpi_addr + ph->p_vaddr;
			t->end = t->start + ph->p_memsz;
		}
	}
	return 1;
}

struct out {
	struct exp_file_writer w;
	struct exp_cursor c;
};

static void open_file(struct out *o, int dirfd, const char *name, enum exp_file_kind kind)
{
	memset(o, 0, sizeof(*o));
	if (exp_writer_open(&o->w, dirfd, name, kind, PID) < 0) {
		fprintf(stderr, "hwcgen: %s: %s\n", name, strerror(errno));
		exit(2);
	}
}

static void put(struct out *o, uint32_t type, const void *rec, uint32_t len)
{
	if (exp_record_append_sigsafe(&o->w, &o->c, type, rec, len) < 0) {
		fprintf(stderr, "hwcgen: no space\n");
		exit(2);
	}
}

static void close_file(struct out *o)
{
	exp_cursor_release_sigsafe(&o->c);
	exp_writer_close(&o->w);
}

/* Stack `id`: pcs leaf first; the leaf is a sampled pc (inside the
 * function) unless `retaddr`. */
static void put_stack(struct out *o, uint32_t id, void (*const *fns)(void), int n, bool retaddr)
{
	struct {
		struct exp_stack s;
		uint64_t pcs[4];
	} r = { .s = { .stack_id = id, .nframes = (uint16_t)n, .flags = retaddr ? EXP_STACK_LEAF_IS_RETADDR : 0 } };

	for (int i = 0; i < n; i++)
		r.pcs[i] = (uint64_t)(uintptr_t)fns[i] + 4;
	put(o, EXP_REC_STACK, &r, (uint32_t)(sizeof(r.s) + 8u * (unsigned)n));
}

static void def(struct out *o, uint16_t index, const char *name, uint32_t type, uint64_t config,
		uint64_t period, uint16_t flags)
{
	struct exp_counter_def d = { .index = index, .flags = flags, .type = type, .config = config,
				     .period = period };
	strncpy(d.name, name, sizeof(d.name) - 1);
	put(o, EXP_REC_COUNTER_DEF, &d, sizeof(d));
}

static uint64_t t_now = 1000 * MS;

static void counter_samples(struct out *o, uint16_t index, uint32_t stack, int n, uint64_t period)
{
	for (int i = 0; i < n; i++) {
		struct exp_counter_sample s = { .tid = PID, .time_ns = t_now += 100000, .stack_id = stack,
						.index = index, .count = period };
		put(o, EXP_REC_COUNTER_SAMPLE, &s, sizeof(s));
	}
}

/* n samples; with a data source (data_src != 0) as DATA_SAMPLE_SRC, the
 * record the collector writes, else as DATA_SAMPLE. */
static void data_samples_from(struct out *o, uint32_t stack, void (*fn)(void), int n, uint64_t addr,
			      uint64_t step, uint16_t flags, uint64_t data_src)
{
	for (int i = 0; i < n; i++) {
		struct exp_data_sample_src s = { .s = {
			.tid = PID, .time_ns = t_now += 100000, .stack_id = stack, .index = 2, .flags = flags,
			.pc = (uint64_t)(uintptr_t)fn + 4, .addr = addr + (uint64_t)i * step, .count = MISS_PERIOD,
		}, .data_src = data_src };
		if (data_src)
			put(o, EXP_REC_DATA_SAMPLE_SRC, &s, sizeof(s));
		else
			put(o, EXP_REC_DATA_SAMPLE, &s.s, sizeof(s.s));
	}
}

static void data_samples(struct out *o, uint32_t stack, void (*fn)(void), int n, uint64_t addr,
			 uint64_t step, uint16_t flags)
{
	data_samples_from(o, stack, fn, n, addr, step, flags, 0);
}

/* Data sources as the kernel composes them: a load served by L1 or local
 * DRAM (with the level number, as Intel's PEBS on a recent kernel), a store
 * that hit the L3 (level bits only, as an older kernel). */
#define SRC_LOAD_L1 (PERF_MEM_OP_LOAD << PERF_MEM_OP_SHIFT | \
		     (uint64_t)(PERF_MEM_LVL_HIT | PERF_MEM_LVL_L1) << PERF_MEM_LVL_SHIFT | \
		     (uint64_t)PERF_MEM_LVLNUM_L1 << PERF_MEM_LVLNUM_SHIFT)
#define SRC_LOAD_DRAM (PERF_MEM_OP_LOAD << PERF_MEM_OP_SHIFT | \
		       (uint64_t)(PERF_MEM_LVL_HIT | PERF_MEM_LVL_LOC_RAM) << PERF_MEM_LVL_SHIFT | \
		       (uint64_t)PERF_MEM_LVLNUM_RAM << PERF_MEM_LVLNUM_SHIFT)
#define SRC_STORE_L3 (PERF_MEM_OP_STORE << PERF_MEM_OP_SHIFT | \
		      (uint64_t)(PERF_MEM_LVL_HIT | PERF_MEM_LVL_L3) << PERF_MEM_LVL_SHIFT)

int main(int argc, char **argv)
{
	struct text t = { 0 };
	char path[4200];

	if (argc != 2) {
		fprintf(stderr, "usage: hwcgen DIR\n");
		return 64;
	}
	if (!realpath("/proc/self/exe", t.path) || !dl_iterate_phdr(find_text, &t)) {
		fprintf(stderr, "hwcgen: cannot find its own code\n");
		return 2;
	}
	if (mkdir(argv[1], 0755) != 0) {
		fprintf(stderr, "hwcgen: %s: %s\n", argv[1], strerror(errno));
		return 2;
	}
	int dirfd = open(argv[1], O_RDONLY | O_DIRECTORY);
	snprintf(path, sizeof(path), "%s/log.txt", argv[1]);
	FILE *log = fopen(path, "w");
	if (dirfd < 0 || !log) {
		fprintf(stderr, "hwcgen: %s: %s\n", path, strerror(errno));
		return 2;
	}
	uint64_t end = t_now + 10000 * MS;
	fprintf(log, "tally.format: %d\ntarget: %s\ncommand: %s\npid: %u\nppid: 1\nexe: %s\n"
		"lineage: founder\ncreated-by: tally record\nstart.mono_ns: %llu\ncounter: cycles\n"
		"counter: instructions\ncounter: cache-misses\nend.mono_ns: %llu\nexit.status: 0\n",
		EXP_FORMAT_VERSION, t.path, t.path, PID, t.path, (unsigned long long)t_now,
		(unsigned long long)end);
	fclose(log);

	struct out maps, stacks, threads, heap, hwc;
	open_file(&maps, dirfd, "maps.dat", EXP_FILE_MAPS);
	struct {
		struct exp_map m;
		char path[4096];
	} map = { .m = { .flags = EXP_MAP_MAIN, .time_ns = t_now - MS, .start = t.start, .end = t.end,
			 .bias = t.bias } };
	strcpy(map.path, t.path);
	put(&maps, EXP_REC_MAP, &map, (uint32_t)((sizeof(map.m) + strlen(t.path) + 1 + 7) & ~7u));
	close_file(&maps);

	/* 1: main;hot  2: main;cold  3: main;alloc (the caller of malloc) */
	open_file(&stacks, dirfd, "stacks.dat", EXP_FILE_STACKS);
	void (*const hot[2])(void) = { gen_hot, gen_main }, (*const cold[2])(void) = { gen_cold, gen_main };
	void (*const alloc[2])(void) = { gen_alloc, gen_main };
	put_stack(&stacks, 1, hot, 2, false);
	put_stack(&stacks, 2, cold, 2, false);
	put_stack(&stacks, 3, alloc, 2, true);
	close_file(&stacks);

	open_file(&threads, dirfd, "threads.dat", EXP_FILE_THREADS);
	struct exp_thread_start ts = { .tid = PID, .time_ns = t_now };
	struct exp_thread_end te = { .tid = PID, .time_ns = end };
	strcpy(ts.name, "hwcgen");
	put(&threads, EXP_REC_THREAD_START, &ts, sizeof(ts));
	put(&threads, EXP_REC_THREAD_END, &te, sizeof(te));
	close_file(&threads);

	open_file(&heap, dirfd, "heap.dat", EXP_FILE_HEAP);
	struct exp_heap h = { .tid = PID, .time_ns = t_now + MS, .stack_id = 3, .op = EXP_HEAP_MALLOC,
			      .size = 4096, .addr = HEAP_BLOCK };
	put(&heap, EXP_REC_HEAP, &h, sizeof(h));
	close_file(&heap);
	t_now += 2 * MS;

	open_file(&hwc, dirfd, "hwc.dat", EXP_FILE_HWC);
	def(&hwc, 0, "cycles", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES, CYCLE_PERIOD, EXP_COUNTER_KERNEL);
	def(&hwc, 1, "instructions", PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS, CYCLE_PERIOD, EXP_COUNTER_KERNEL);
	def(&hwc, 2, "cache-misses", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CACHE_MISSES, MISS_PERIOD,
	    EXP_COUNTER_PRECISE);
	counter_samples(&hwc, 0, 1, 3000, CYCLE_PERIOD);
	counter_samples(&hwc, 0, 2, 1000, CYCLE_PERIOD);
	counter_samples(&hwc, 1, 1, 1500, CYCLE_PERIOD);
	counter_samples(&hwc, 1, 2, 3000, CYCLE_PERIOD);
	data_samples_from(&hwc, 1, gen_hot, 400, (uint64_t)(uintptr_t)gen_grid, 1000, 0, SRC_LOAD_L1);
	data_samples_from(&hwc, 1, gen_hot, 100, (uint64_t)(uintptr_t)&gen_grid[4000], 1000, 0, SRC_LOAD_DRAM);
	data_samples(&hwc, 2, gen_cold, 100, (uint64_t)(uintptr_t)&gen_grid[1], 8, 0);
	data_samples_from(&hwc, 2, gen_cold, 300, (uint64_t)(uintptr_t)&gen_counter, 0, EXP_DATA_STORE,
			  SRC_STORE_L3);
	data_samples(&hwc, 1, gen_hot, 40, (uint64_t)(uintptr_t)gen_table, sizeof(gen_table[0]), 0);
	data_samples(&hwc, 1, gen_hot, 50, HEAP_BLOCK, 64, 0);
	data_samples(&hwc, 1, gen_hot, 30, 0x7ffc00001000ull, 8, EXP_DATA_STACK);
	data_samples(&hwc, 1, gen_hot, 20, 0, 0, EXP_DATA_ADDR_UNKNOWN);
	data_samples(&hwc, 1, gen_hot, 10, 0x10000, 64, 0);
	struct exp_data_block blk = { .tid = PID, .time_ns = t_now += 100000, .addr = DATA_BLOCK_AT, .size = 3000 };
	put(&hwc, EXP_REC_DATA_BLOCK, &blk, sizeof(blk));
	data_samples(&hwc, 2, gen_cold, 20, DATA_BLOCK_AT, 128, 0);
	close_file(&hwc);
	close(dirfd);
	printf("cycles %llu instructions %llu cache-misses %llu\n", 4000 * CYCLE_PERIOD, 4500 * CYCLE_PERIOD,
	       1070 * MISS_PERIOD);
	return gen_table[0].hot == 1 ? 0 : 1;
}
