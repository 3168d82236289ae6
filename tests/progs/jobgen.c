/* jobgen.c — writes a synthetic MPI job of many ranks, for the scale test
 * (tests/e2e/test_mpi.sh) and `make bench` (bench/sections/90-mpi.sh):
 * what `mpirun -np RANKS tally record -m -o DIR -- app` would leave, made
 * without running RANKS processes.  Built by the Makefile (it writes with
 * tally's own format writer, src/format/exp_write.c).
 *
 *   jobgen DIR RANKS [SAMPLES]
 *
 * DIR/rankR.exp for R in 0..RANKS-1, each with its log (mpi.rank, mpi.size),
 * one thread, this program's own code as its load object (so stacks have
 * real names), SAMPLES clock samples (default 2000) spread over eight
 * distinct stacks of gen_* functions, and MPI calls: rank R sends
 * (R % 7 + 1) x 1000 bytes to rank R+1 from gen_exchange, receives from R-1,
 * and waits (R % 4) ms in MPI_Barrier.  Rank R's samples weigh 1 + R % 4
 * ms each.  The same stacks in every rank: the analyzer's memory should
 * grow with distinct stacks, not with ranks.  Prints the job's totals
 * (cpu_ns, mpi.bytes.sent, mpi.time_ns) for the tests to compare.
 */
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "format/exp_mpi_ops.h"
#include "format/exp_write.h"

#define MS 1000000ull

/* Functions whose addresses make the stacks: never called. */
#define GEN(name)                                                            \
	__attribute__((noinline, used)) void name(void);                     \
	__attribute__((noinline, used)) void name(void) { __asm__ volatile("nop; nop; nop; nop; nop; nop; nop; nop"); }
GEN(gen_main)
GEN(gen_solve)
GEN(gen_exchange)
GEN(gen_leaf_0)
GEN(gen_leaf_1)
GEN(gen_leaf_2)
GEN(gen_leaf_3)

struct text {
	uint64_t start, end, bias;
	uint8_t build_id[EXP_BUILD_ID_MAX];
	uint8_t build_id_len;
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
		if (ph->p_type != PT_NOTE)
			continue;
		const char *p = (const char *)(info->dlpi_addr + ph->p_vaddr), *end = p + ph->p_memsz;
		while (p + sizeof(ElfW(Nhdr)) <= end) {
			const ElfW(Nhdr) *n = (const void *)p;
			const char *desc = p + sizeof(*n) + ((n->n_namesz + 3) & ~3u);
			if (n->n_type == NT_GNU_BUILD_ID && n->n_descsz <= EXP_BUILD_ID_MAX) {
				memcpy(t->build_id, desc, n->n_descsz);
				t->build_id_len = (uint8_t)n->n_descsz;
			}
			p = desc + ((n->n_descsz + 3) & ~3u);
		}
	}
	return 1;
}

struct out {
	struct exp_file_writer w;
	struct exp_cursor c;
};

static void open_file(struct out *o, int dirfd, const char *name, enum exp_file_kind kind,
		      uint32_t pid)
{
	memset(o, 0, sizeof(*o));
	if (exp_writer_open(&o->w, dirfd, name, kind, pid) < 0) {
		fprintf(stderr, "jobgen: %s: %s\n", name, strerror(errno));
		exit(2);
	}
}

static void put(struct out *o, uint32_t type, const void *rec, uint32_t len)
{
	if (exp_record_append_sigsafe(&o->w, &o->c, type, rec, len) < 0) {
		fprintf(stderr, "jobgen: no space\n");
		exit(2);
	}
}

static void close_file(struct out *o)
{
	exp_cursor_release_sigsafe(&o->c);
	exp_writer_close(&o->w);
}

/* Stack `id`: pcs leaf first (return addresses inside the functions). */
static void put_stack(struct out *o, uint32_t id, void (*const *fns)(void), int n)
{
	struct {
		struct exp_stack s;
		uint64_t pcs[8];
	} r = { .s = { .stack_id = id, .nframes = (uint16_t)n } };

	for (int i = 0; i < n; i++)
		r.pcs[i] = (uint64_t)(uintptr_t)fns[i] + 4;
	r.s.flags = EXP_STACK_LEAF_IS_RETADDR;
	put(o, EXP_REC_STACK, &r, (uint32_t)(sizeof(r.s) + 8u * (unsigned)n));
}

static void write_rank(const char *dir, int rank, int ranks, int samples, const struct text *t,
		       uint64_t *cpu, uint64_t *sent, uint64_t *mpi_ns)
{
	char path[4200];
	uint32_t pid = 100000u + (uint32_t)rank;
	uint64_t t0 = 1000 * MS, weight = (1 + (uint64_t)(rank % 4)) * MS;

	snprintf(path, sizeof(path), "%s/rank%d.exp", dir, rank);
	if (mkdir(path, 0755) != 0 && errno != EEXIST) {
		fprintf(stderr, "jobgen: %s: %s\n", path, strerror(errno));
		exit(2);
	}
	int dirfd = open(path, O_RDONLY | O_DIRECTORY);
	FILE *log = fopen(strcat(path, "/log.txt"), "w");
	if (dirfd < 0 || !log) {
		fprintf(stderr, "jobgen: %s: %s\n", path, strerror(errno));
		exit(2);
	}
	uint64_t end = t0 + (uint64_t)samples * weight + 10 * MS;
	fprintf(log, "tally.format: %d\ntarget: %s\ncommand: %s\npid: %u\nppid: 1\nexe: %s\n"
		"lineage: founder\ncreated-by: tally record\nstart.mono_ns: %llu\nhost: node%d\n"
		"mpi.rank: %d\nmpi.size: %d\nmpi.init.mono_ns: %llu\nend.mono_ns: %llu\n"
		"exit.status: 0\n",
		EXP_FORMAT_VERSION, t->path, t->path, pid, t->path, (unsigned long long)t0, rank / 32,
		rank, ranks, (unsigned long long)t0, (unsigned long long)end);
	fclose(log);

	struct out maps, stacks, samplesf, threads, mpi;
	open_file(&maps, dirfd, "maps.dat", EXP_FILE_MAPS, pid);
	struct {
		struct exp_map m;
		char path[4096];
	} map = { .m = { .flags = EXP_MAP_MAIN, .time_ns = t0 - MS, .start = t->start,
			 .end = t->end, .bias = t->bias, .build_id_len = t->build_id_len } };
	memcpy(map.m.build_id, t->build_id, t->build_id_len);
	strcpy(map.path, t->path);
	put(&maps, EXP_REC_MAP, &map, (uint32_t)((sizeof(map.m) + strlen(t->path) + 1 + 7) & ~7u));
	close_file(&maps);

	/* Stacks 1..8: main;solve;leaf_k and main;exchange;leaf_k; 9: main;exchange. */
	static void (*const leaves[4])(void) = { gen_leaf_0, gen_leaf_1, gen_leaf_2, gen_leaf_3 };
	open_file(&stacks, dirfd, "stacks.dat", EXP_FILE_STACKS, pid);
	for (int k = 0; k < 8; k++) {
		void (*const fns[3])(void) = { leaves[k % 4], k < 4 ? gen_solve : gen_exchange, gen_main };
		put_stack(&stacks, (uint32_t)k + 1, fns, 3);
	}
	void (*const caller[2])(void) = { gen_exchange, gen_main };
	put_stack(&stacks, 9, caller, 2);
	close_file(&stacks);

	open_file(&samplesf, dirfd, "samples.dat", EXP_FILE_SAMPLES, pid);
	for (int i = 0; i < samples; i++) {
		struct exp_sample s = { .tid = pid, .time_ns = t0 + (uint64_t)i * weight,
					.stack_id = (uint32_t)(i % 8) + 1, .cpu = 0xffff,
					.weight_ns = weight };
		put(&samplesf, EXP_REC_SAMPLE, &s, sizeof(s));
		*cpu += weight;
	}
	close_file(&samplesf);

	open_file(&threads, dirfd, "threads.dat", EXP_FILE_THREADS, pid);
	struct exp_thread_start ts = { .tid = pid, .time_ns = t0 };
	struct exp_thread_end te = { .tid = pid, .time_ns = end, .cpu_ns = (uint64_t)samples * weight,
				     .samples = (uint64_t)samples };
	strcpy(ts.name, "gen");
	put(&threads, EXP_REC_THREAD_START, &ts, sizeof(ts));
	put(&threads, EXP_REC_THREAD_END, &te, sizeof(te));
	close_file(&threads);

	open_file(&mpi, dirfd, "mpi.dat", EXP_FILE_MPI, pid);
	struct exp_mpi_comm world = { .tid = pid, .time_ns = t0, .id = 0, .size = (uint32_t)ranks,
				      .rank = rank };
	put(&mpi, EXP_REC_MPI_COMM, &world, sizeof(world));
	uint64_t at = end - 5 * MS, bytes = (uint64_t)(rank % 7 + 1) * 1000;
	int from = (rank + ranks - 1) % ranks;
	struct exp_mpi calls[3] = {
		{ .op = EXP_MPI_SEND, .bytes_sent = bytes, .dest = (rank + 1) % ranks,
		  .source = EXP_MPI_PEER_NONE, .tag = 1, .sends = 1, .dur_ns = 20000 },
		{ .op = EXP_MPI_RECV, .bytes_recv = (uint64_t)(from % 7 + 1) * 1000,
		  .dest = EXP_MPI_PEER_NONE, .source = from, .tag = 1, .recvs = 1, .dur_ns = 30000 },
		{ .op = EXP_MPI_BARRIER, .dest = EXP_MPI_PEER_NONE, .source = EXP_MPI_PEER_NONE,
		  .tag = -1, .dur_ns = (uint64_t)(rank % 4) * MS },
	};
	for (int i = 0; i < 3; i++) {
		calls[i].tid = pid;
		calls[i].time_ns = at + (uint64_t)i * MS;
		calls[i].stack_id = 9;
		put(&mpi, EXP_REC_MPI, &calls[i], sizeof(calls[i]));
		*mpi_ns += calls[i].dur_ns;
	}
	*sent += bytes;
	close_file(&mpi);
	close(dirfd);
}

int main(int argc, char **argv)
{
	struct text t = { 0 };

	if (argc < 3 || atoi(argv[2]) < 1) {
		fprintf(stderr, "usage: jobgen DIR RANKS [SAMPLES]\n");
		return 64;
	}
	int ranks = atoi(argv[2]), samples = argc > 3 ? atoi(argv[3]) : 2000;
	if (!realpath("/proc/self/exe", t.path) || !dl_iterate_phdr(find_text, &t)) {
		fprintf(stderr, "jobgen: cannot find its own code\n");
		return 2;
	}
	if (mkdir(argv[1], 0755) != 0 && errno != EEXIST) {
		fprintf(stderr, "jobgen: %s: %s\n", argv[1], strerror(errno));
		return 2;
	}
	uint64_t cpu = 0, sent = 0, mpi_ns = 0;
	for (int r = 0; r < ranks; r++)
		write_rank(argv[1], r, ranks, samples, &t, &cpu, &sent, &mpi_ns);
	printf("ranks %d cpu_ns %llu mpi.bytes.sent %llu mpi.time_ns %llu\n", ranks,
	       (unsigned long long)cpu, (unsigned long long)sent, (unsigned long long)mpi_ns);
	return 0;
}
