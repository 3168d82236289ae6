/* SPDX-License-Identifier: MIT
 *
 * test_out_debugframe.c — the outside mode's .debug_frame reader
 * (src/outside/out_debugframe.c) on real executables.
 *
 * tests/progs/df_frames.c is built -static (or -static-pie) with
 * -fno-asynchronous-unwind-tables -fno-unwind-tables, so that its own
 * functions' CFI is only in .debug_frame, in each form a toolchain writes
 * it: GCC's version 1 CIEs (the form read before), a static PIE, 64-bit
 * DWARF (-gdwarf64 -fno-dwarf2-cfi-asm: with the CFI left to gas,
 * -gdwarf64 alone still writes it 32-bit), the section compressed by the
 * linker (zlib or zstd, SHF_COMPRESSED), a CIE with augmentation "S" (a hand-
 * written signal frame), and clang's version 4 CIEs where clang is
 * installed.  Each case first checks that the executable has the form it
 * is named for, then runs it: the program writes its registers and stack
 * three calls deep.  The test loads the executable as the outside mode does
 * (out_objects.c) at the address it ran at, and unwinds the dump with the
 * collector's unwinder: leaf, mid, hop, main, then on to _start, nothing
 * broken.  Without the form read, the walk breaks at leaf (its code keeps
 * no frame pointer).
 */
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <stdarg.h>
#include <stdint.h>
#include <sys/stat.h>
#include <unistd.h>

#include "collector/col_objset.h"
#include "collector/col_unwind.h"
#include "outside/out_objects.h"
#include "testhelp.h"

static char tmp[PATH_MAX], progs[PATH_MAX];

/* What df_frames.c writes before its stack. */
struct dump {
	uint64_t rip, rsp, rbp, rbx, r12, r13, r14, r15;
	uint64_t ehdr, len;
};

/* What a case asks of its executable's .debug_frame. */
enum form { PLAIN, PIE, DWARF64, ZLIB, ZSTD, SIGNAL, VERSION4 };

static int sh(const char *fmt, ...)
{
	char cmd[2048];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(cmd, sizeof(cmd), fmt, ap);
	va_end(ap);
	return system(cmd);
}

static uint8_t *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	uint8_t *b = NULL;
	long n;

	if (!f)
		return NULL;
	if (fseek(f, 0, SEEK_END) == 0 && (n = ftell(f)) > 0 && fseek(f, 0, SEEK_SET) == 0 &&
	    (b = malloc((size_t)n)) && fread(b, 1, (size_t)n, f) != (size_t)n) {
		free(b);
		b = NULL;
	}
	*len = b ? (size_t)n : 0;
	fclose(f);
	return b;
}

/* Does the ELF image `e` have the form asked?  Reads its headers only. */
static int has_form(const uint8_t *e, size_t len, enum form form, char *why, size_t whylen)
{
	const Elf64_Ehdr *eh = (const Elf64_Ehdr *)e;
	if (len < sizeof(*eh) || eh->e_shoff + (uint64_t)eh->e_shnum * sizeof(Elf64_Shdr) > len) {
		snprintf(why, whylen, "no section headers");
		return 0;
	}
	const Elf64_Shdr *s = (const Elf64_Shdr *)(e + eh->e_shoff);
	const char *names = (const char *)e + s[eh->e_shstrndx].sh_offset;
	for (int i = 0; i < eh->e_shnum; i++) {
		if (strcmp(names + s[i].sh_name, ".debug_frame"))
			continue;
		const uint8_t *d = e + s[i].sh_offset;
		uint32_t first;
		memcpy(&first, d, 4);
		int ok;
		switch (form) {
		case PIE: ok = eh->e_type == ET_DYN; break;
		case DWARF64: ok = first == 0xffffffffu; break;
		case ZLIB:
		case ZSTD: {
			Elf64_Chdr ch;
			memcpy(&ch, d, sizeof(ch));
			ok = (s[i].sh_flags & SHF_COMPRESSED) && ch.ch_type == (form == ZLIB ? 1u : 2u);
			break;
		}
		case SIGNAL: ok = !(s[i].sh_flags & SHF_COMPRESSED) && memmem(d, s[i].sh_size, "\x01S\0", 3); break;
		case VERSION4: ok = first != 0xffffffffu && d[8] == 4; break;
		default: ok = eh->e_type == ET_EXEC && first != 0xffffffffu && d[8] == 1; break;
		}
		snprintf(why, whylen, "its .debug_frame is not of that form (type %d, flags %#lx, %08x %02x)",
			 eh->e_type, (unsigned long)s[i].sh_flags, first, d[8]);
		return ok;
	}
	snprintf(why, whylen, "no .debug_frame");
	return 0;
}

/* The address range of each function the walk must name, from nm. */
struct fn {
	const char *name;
	uint64_t lo, hi;
};

static int find_functions(const char *exe, uint64_t bias, struct fn *fns, int n)
{
	char cmd[PATH_MAX + 64], line[512];
	snprintf(cmd, sizeof(cmd), "nm -S --defined-only %s", exe);
	FILE *p = popen(cmd, "r");
	int found = 0;

	if (!p)
		return 0;
	while (fgets(line, sizeof(line), p)) {
		unsigned long long a, z;
		char type, name[256];
		if (sscanf(line, "%llx %llx %c %255s", &a, &z, &type, name) != 4)
			continue;
		for (int i = 0; i < n; i++)
			if (!strcmp(name, fns[i].name) && !fns[i].hi) {
				fns[i].lo = a + bias;
				fns[i].hi = a + z + bias;
				found++;
			}
	}
	pclose(p);
	return found == n;
}

static const char *name_of(const struct fn *fns, int n, uint64_t pc)
{
	for (int i = 0; i < n; i++)
		if (pc >= fns[i].lo && pc < fns[i].hi)
			return fns[i].name;
	return "?";
}

/* Build df_frames.c with `flags`, check its form, run it, and unwind its
 * dump as the outside mode would. */
static void walk_case(const char *name, const char *cc, const char *flags, enum form form)
{
	char exe[PATH_MAX], dumpf[PATH_MAX], why[256];
	snprintf(exe, sizeof(exe), "%s/%s", tmp, name);
	snprintf(dumpf, sizeof(dumpf), "%s/%s.dump", tmp, name);

	if (sh("%s -O2 -g -fno-asynchronous-unwind-tables -fno-unwind-tables %s -o %s %s/df_frames.c "
	       "2>%s.cc.err", cc, flags, exe, progs, exe) != 0)
		SKIP("cannot build it (no static libc, or the compiler or flag is missing)");
	size_t elen, dlen;
	uint8_t *elf = slurp(exe, &elen);
	CHECK(elf != NULL);
	if (!elf)
		return;
	CHECKF(has_form(elf, elen, form, why, sizeof(why)), "%s: %s", name, why);
	CHECKF(sh("%s %s", exe, dumpf) == 0, "%s did not run", exe);
	uint8_t *dump = slurp(dumpf, &dlen);
	struct dump d;
	CHECK(dump && dlen >= sizeof(d));
	if (!dump || dlen < sizeof(d)) {
		free(elf);
		free(dump);
		return;
	}
	memcpy(&d, dump, sizeof(d));
	CHECK(dlen == sizeof(d) + d.len);

	/* Its executable segments, where it ran. */
	const Elf64_Ehdr *eh = (const Elf64_Ehdr *)elf;
	const Elf64_Phdr *ph = (const Elf64_Phdr *)(elf + eh->e_phoff);
	uint64_t lo = UINT64_MAX;
	for (int i = 0; i < eh->e_phnum; i++)
		if (ph[i].p_type == PT_LOAD && (ph[i].p_vaddr & ~0xfffull) < lo)
			lo = ph[i].p_vaddr & ~0xfffull;
	uint64_t bias = d.ehdr - lo;
	struct stat st;
	CHECK(stat(exe, &st) == 0);
	struct out_objects objs = { 0 };
	for (int i = 0; i < eh->e_phnum; i++) {
		if (ph[i].p_type != PT_LOAD || !(ph[i].p_flags & PF_X))
			continue;
		uint64_t start = ph[i].p_vaddr & ~0xfffull, end = (ph[i].p_vaddr + ph[i].p_memsz + 0xfff) & ~0xfffull;
		CHECK(out_objects_add(&objs, exe, start + bias, end - start, ph[i].p_offset & ~0xfffull,
				      (uint64_t)st.st_dev, (uint64_t)st.st_ino) != NULL);
	}
	col_objects_publish(out_objects_set(&objs));

	static struct col_unwind_ctx ctx;
	memset(&ctx, 0, sizeof(ctx));
	uint32_t short_copy = 0;
	ctx.stack_lo = d.rsp;
	ctx.stack_hi = d.rsp + d.len;
	ctx.stack_copy = dump + sizeof(d);
	ctx.copy_short = &short_copy;
	ctx.first_sigframe = -1;
	struct col_regs regs = { .valid = 0 };
	const struct { int reg; uint64_t v; } set[] = {
		{ UW_RIP, d.rip }, { UW_RSP, d.rsp }, { UW_RBP, d.rbp }, { UW_RBX, d.rbx },
		{ UW_R12, d.r12 }, { UW_R13, d.r13 }, { UW_R14, d.r14 }, { UW_R15, d.r15 },
	};
	for (size_t i = 0; i < sizeof(set) / sizeof(set[0]); i++) {
		regs.r[set[i].reg] = set[i].v;
		regs.valid |= 1u << set[i].reg;
	}
	uint64_t pcs[64];
	int truncated = 0, broken = 0;
	int n = col_unwind_sigsafe(&ctx, &regs, pcs, 64, &truncated, &broken);

	struct fn fns[] = { { "leaf", 0, 0 }, { "mid", 0, 0 }, { "hop", 0, 0 }, { "main", 0, 0 },
			    { "_start", 0, 0 } };
	int nf = (int)(sizeof(fns) / sizeof(fns[0]));
	CHECK(find_functions(exe, bias, fns, nf));
	char walked[1024] = "";
	for (int i = 0; i < n; i++)
		snprintf(walked + strlen(walked), sizeof(walked) - strlen(walked), "%s%s@%#llx",
			 i ? " <- " : "", name_of(fns, nf, i ? pcs[i] - 1 : pcs[i]),
			 (unsigned long long)pcs[i]);
	CHECKF(n >= 5 && !broken && !truncated && !short_copy, "%s: %d frames%s: %s", name, n,
	       broken ? ", broken" : "", walked);
	const char *want[] = { "leaf", "mid", "hop", "main" };
	for (int i = 0; i < 4 && i < n; i++)
		CHECKF(!strcmp(name_of(fns, nf, i ? pcs[i] - 1 : pcs[i]), want[i]), "%s: frame %d: %s",
		       name, i, walked);
	CHECKF(n > 0 && !strcmp(name_of(fns, nf, pcs[n - 1] - 1), "_start"), "%s: last frame: %s", name,
	       walked);
	/* the set stays allocated for the unwinder (out_objects.c): once it
	 * is no longer published, the test frees it */
	col_objects_publish(NULL);
	free((void *)objs.set);
	out_objects_free(&objs);
	free(dump);
	free(elf);
}

static void gcc_version1(void)
{
	walk_case("v1", "gcc", "-static", PLAIN);
}

static void static_pie(void)
{
	walk_case("pie", "gcc", "-static-pie", PIE);
}

static void dwarf64(void)
{
	walk_case("dwarf64", "gcc", "-static -gdwarf64 -fno-dwarf2-cfi-asm", DWARF64);
}

static void compressed_zlib(void)
{
	walk_case("zlib", "gcc", "-static -Wl,--compress-debug-sections=zlib", ZLIB);
}

static void compressed_zstd(void)
{
	if (sh("ld --help 2>/dev/null | grep -q 'compress-debug-sections=.*zstd'") != 0)
		SKIP("this linker cannot compress debug sections with zstd");
	walk_case("zstd", "gcc", "-static -Wl,--compress-debug-sections=zstd", ZSTD);
}

static void compressed_pie_dwarf64(void)
{
	walk_case("all", "gcc", "-static-pie -gdwarf64 -fno-dwarf2-cfi-asm -Wl,--compress-debug-sections=zlib",
		  ZLIB);
}

static void augmented_signal_frame(void)
{
	walk_case("signal", "gcc", "-static -DHOP", SIGNAL);
}

static void clang_version4(void)
{
	if (sh("command -v clang >/dev/null 2>&1") != 0)
		SKIP("clang is not installed");
	walk_case("clang", "clang", "-static", VERSION4);
}

static int find_progs(void)
{
	char src[PATH_MAX], exe[PATH_MAX] = ".", cand[3][PATH_MAX + 32], probe[PATH_MAX + 64];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);

	if (n > 0)
		exe[n] = 0;
	snprintf(src, sizeof(src), "%s", __FILE__);
	snprintf(cand[0], sizeof(cand[0]), "tests/progs");
	snprintf(cand[1], sizeof(cand[1]), "%s/../progs", dirname(src));
	snprintf(cand[2], sizeof(cand[2]), "%s/../../tests/progs", dirname(exe));
	for (int i = 0; i < 3; i++) {
		snprintf(probe, sizeof(probe), "%s/df_frames.c", cand[i]);
		if (access(probe, R_OK) == 0 && realpath(cand[i], progs))
			return 1;
	}
	return 0;
}

int main(void)
{
	snprintf(tmp, sizeof(tmp), "/tmp/tally-test-debugframe.XXXXXX");
	if (!mkdtemp(tmp) || !find_progs()) {
		printf("[Failed] setup: %s\n", errno ? strerror(errno) : "tests/progs/df_frames.c not found");
		return 1;
	}
	RUN(gcc_version1);
	RUN(static_pie);
	RUN(dwarf64);
	RUN(compressed_zlib);
	RUN(compressed_zstd);
	RUN(compressed_pie_dwarf64);
	RUN(augmented_signal_frame);
	RUN(clang_version4);
	sh("rm -rf %s", tmp);
	TEST_EXIT();
}
