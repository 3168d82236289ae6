/* jitty: dynamically generated code, as a JIT makes it.  It copies a loop
 * (jit_loop, 33 bytes of x86-64) into an executable page and calls it from
 * driver(), which main calls: 3/4 of the time is in the copied code, 1/4 in
 * plain(), a compiled function.  The code is made known to the profiler
 *   api       through tally.h's tally_func_load, with a line table (line 10
 *             for the set-up, 20 for the loop), then tally_func_unload;
 *   perfmap   by a line of /tmp/perf-PID.map (removed at exit by the test);
 *   jitdump   by a JIT_CODE_LOAD record in ./jit-PID.dump, mapped as JITs
 *             map it for perf (the file stays, for the test to remove);
 *   none      not at all (<Unknown>, but with its callers).
 * Frame pointers stay off: the copied code has neither CFI nor a frame.
 * $JITTY_NAME, if set, names the code instead of jit_loop (api, perfmap)
 * and $JITTY_THREAD the main thread (test_security.sh: escape sequences).
 * usage: jitty api|perfmap|none [scale] */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stdint.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "tally.h"

static const unsigned char loop_code[] = {
	0x48, 0x89, 0xf8,                         /* 0x00 mov rax, rdi */
	0x48, 0x85, 0xff,                         /* 0x03 test rdi, rdi */
	0x74, 0x18,                               /* 0x06 je 0x20 */
	0x48, 0xba, 0x2d, 0x7f, 0x95, 0x4c, 0x2d, 0xf4, 0x51, 0x58, /* movabs rdx, K */
	0x48, 0x0f, 0xaf, 0xc2,                   /* 0x12 imul rax, rdx */
	0x48, 0x83, 0xc0, 0x01,                   /* 0x16 add rax, 1 */
	0x48, 0x83, 0xef, 0x01,                   /* 0x1a sub rdi, 1 */
	0x75, 0xf2,                               /* 0x1e jne 0x12 */
	0xc3,                                     /* 0x20 ret */
};

typedef unsigned long (*loop_fn)(unsigned long);
static volatile unsigned long sink;

/* Weak: the program runs (and links) without libtally too. */
int tally_func_load(const char *, const void *, size_t, const struct tally_line *) __attribute__((weak));
int tally_func_unload(const void *) __attribute__((weak));

__attribute__((noinline)) static void plain(unsigned long n)
{
	unsigned long x = sink;
	for (unsigned long i = 0; i < n; i++) {
		x = x * 6364136223846793005UL + 1;
		__asm__ volatile("" : "+r"(x));
	}
	sink = x;
}

__attribute__((noinline)) static void driver(loop_fn f, unsigned long n)
{
	for (int r = 0; r < 40; r++) {
		sink += f(3 * n);
		plain(n);
	}
}

static uint64_t now_ns(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

/* jit-PID.dump with one JIT_CODE_LOAD of `code`, mapped executable (perf
 * finds the file by that mapping). */
static int write_jitdump(const void *code)
{
	char path[64];
	struct { uint32_t magic, version, total_size, elf_mach, pad1, pid; uint64_t timestamp, flags; } h = {
		0x4A695444, 1, sizeof(h), 62, 0, (uint32_t)getpid(), now_ns(), 0 };
	struct { uint32_t id, total_size; uint64_t timestamp; uint32_t pid, tid;
		 uint64_t vma, code_addr, code_size, code_index; } r = {
		0, (uint32_t)(sizeof(r) + sizeof("jit_loop") + sizeof(loop_code)), now_ns(),
		(uint32_t)getpid(), (uint32_t)syscall(SYS_gettid), (uint64_t)(uintptr_t)code,
		(uint64_t)(uintptr_t)code, sizeof(loop_code), 1 };

	snprintf(path, sizeof(path), "jit-%d.dump", (int)getpid());
	FILE *f = fopen(path, "w+");
	if (!f || fwrite(&h, sizeof(h), 1, f) != 1 || fwrite(&r, sizeof(r), 1, f) != 1 ||
	    fwrite("jit_loop", sizeof("jit_loop"), 1, f) != 1 || fwrite(loop_code, sizeof(loop_code), 1, f) != 1 ||
	    fflush(f) != 0)
		return -1;
	return mmap(NULL, 4096, PROT_READ | PROT_EXEC, MAP_PRIVATE, fileno(f), 0) == MAP_FAILED ? -1 : 0;
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "api";
	double scale = argc > 2 ? atof(argv[2]) : 1.0;
	unsigned char *page = mmap(NULL, 4096, PROT_READ | PROT_WRITE | PROT_EXEC,
				   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	const char *name = getenv("JITTY_NAME") ? getenv("JITTY_NAME") : "jit_loop";

	if (page == MAP_FAILED)
		return 1;
	if (getenv("JITTY_THREAD"))
		prctl(PR_SET_NAME, getenv("JITTY_THREAD"));
	memcpy(page + 64, loop_code, sizeof(loop_code));     /* not at the page start */
	loop_fn f = (loop_fn)(void *)(page + 64);
	if (!strcmp(mode, "api") && tally_func_load) {
		static const struct tally_line lines[] = { { 0x00, 10 }, { 0x12, 20 }, { 0x20, 30 }, { 0, 0 } };
		tally_func_load(name, page + 64, sizeof(loop_code), lines);
	} else if (!strcmp(mode, "jitdump")) {
		if (write_jitdump(page + 64))
			return 1;
	} else if (!strcmp(mode, "perfmap")) {
		char path[64];
		snprintf(path, sizeof(path), "/tmp/perf-%d.map", (int)getpid());
		FILE *m = fopen(path, "w");
		if (!m)
			return 1;
		fprintf(m, "%lx %zx %s\n", (unsigned long)(page + 64), sizeof(loop_code), name);
		fclose(m);
	}
	printf("pid %d\n", (int)getpid());
	driver(f, (unsigned long)(1000000 * scale));
	if (!strcmp(mode, "api") && tally_func_unload)
		tally_func_unload(page + 64);
	return 0;
}
