/* SPDX-License-Identifier: MIT
 *
 * test_symbols.c — unit tests of src/symbols/: compiles the programs of
 * tests/progs/sym_* with gcc/g++ into a temporary directory, then checks
 * what the symbolizer says about them against binutils (nm, objdump) and
 * against the sources: alias choice, @plt stubs (lazy, -z now, IBT),
 * <static>@0x... regions of a stripped library, DWARF lines, demangled C++,
 * separate debug files (build-id, .gnu_debuglink + CRC), the address space
 * over time (against a brute-force model), archives, and mutated ELF files.
 *
 * Run from anywhere; needs gcc, g++, binutils.  Leaves nothing behind.
 */
#include <errno.h>
#include <gelf.h>
#include <inttypes.h>
#include <libgen.h>
#include <limits.h>
#include <stdarg.h>
#include <stdint.h>
#include <sys/stat.h>
#include <unistd.h>

#include "symbols/sym.h"
#include "testhelp.h"

static char tmp[PATH_MAX];      /* the scratch directory */
static char progs[PATH_MAX];    /* tests/progs */

/* ---- helpers ------------------------------------------------------------ */

static const char *fmt_path(char *buf, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static const char *fmt_path(char *buf, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, PATH_MAX, fmt, ap);
	va_end(ap);
	return buf;
}

/* Run a shell command; true if it exits 0 (prints it when it does not). */
static bool sh(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

static bool sh(const char *fmt, ...)
{
	char cmd[4 * PATH_MAX];
	va_list ap;
	int rc;

	va_start(ap, fmt);
	vsnprintf(cmd, sizeof(cmd), fmt, ap);
	va_end(ap);
	rc = system(cmd);
	if (rc != 0)
		printf("  command failed (%d): %s\n", rc, cmd);
	return rc == 0;
}

static bool exists(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0;
}

static const struct sym_func *find_func(struct sym_object *o, const char *name)
{
	const struct sym_func *f;
	size_t n = sym_object_functions(o, &f);

	for (size_t i = 0; i < n; i++) {
		if (strcmp(f[i].name, name) == 0 ||
		    strcmp(f[i].link_name, name) == 0)
			return &f[i];
	}
	return NULL;
}

/* The first <static>@0x... region of `o`, or NULL. */
static const struct sym_func *static_region(struct sym_object *o)
{
	const struct sym_func *f;
	size_t n = sym_object_functions(o, &f);

	for (size_t i = 0; i < n; i++) {
		if ((f[i].flags & SYM_FUNC_STATIC) &&
		    strncmp(f[i].name, "<static>@0x", 11) == 0)
			return &f[i];
	}
	return NULL;
}

static struct sym_object *open_obj(const char *path)
{
	char err[512] = "";
	bool mismatch = true;
	struct sym_object *o = sym_object_get(path, NULL, 0, &mismatch, err,
					      sizeof(err));

	if (!o)
		printf("  cannot open %s: %s\n", path, err);
	else if (mismatch)
		printf("  %s: mismatch without a build-id\n", path);
	return o;
}

/* Build-id of `path`, read here with libelf (independently of the code
 * under test).  Returns its length, 0 if none. */
static size_t file_build_id(const char *path, uint8_t *out, size_t outlen)
{
	FILE *fp = fopen(path, "rb");
	Elf *elf;
	Elf_Scn *scn = NULL;
	size_t len = 0;

	if (!fp)
		return 0;
	elf_version(EV_CURRENT);
	elf = elf_begin(fileno(fp), ELF_C_READ, NULL);
	while (elf && !len && (scn = elf_nextscn(elf, scn)) != NULL) {
		GElf_Shdr sh;
		GElf_Nhdr nh;
		Elf_Data *d;
		size_t off = 0, no, doff;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_NOTE)
			continue;
		d = elf_getdata(scn, NULL);
		while (d && (off = gelf_getnote(d, off, &nh, &no, &doff)) > 0) {
			if (nh.n_type == NT_GNU_BUILD_ID && nh.n_descsz <= outlen) {
				memcpy(out, (char *)d->d_buf + doff, nh.n_descsz);
				len = nh.n_descsz;
				break;
			}
		}
	}
	elf_end(elf);
	fclose(fp);
	return len;
}

/* Address, size and file offset of the section holding `addr` in `path`. */
static bool file_section_of(const char *path, uint64_t addr, uint64_t *start,
			    uint64_t *size, uint64_t *offset)
{
	FILE *fp = fopen(path, "rb");
	Elf *elf;
	Elf_Scn *scn = NULL;
	bool found = false;

	if (!fp)
		return false;
	elf_version(EV_CURRENT);
	elf = elf_begin(fileno(fp), ELF_C_READ, NULL);
	while (elf && !found && (scn = elf_nextscn(elf, scn)) != NULL) {
		GElf_Shdr sh;

		if (gelf_getshdr(scn, &sh) && (sh.sh_flags & SHF_EXECINSTR) &&
		    addr >= sh.sh_addr && addr < sh.sh_addr + sh.sh_size) {
			*start = sh.sh_addr;
			*size = sh.sh_size;
			*offset = sh.sh_offset;
			found = true;
		}
	}
	elf_end(elf);
	fclose(fp);
	return found;
}

/* One line of `nm -S`. */
struct nm_sym {
	uint64_t addr, size;
	char type;
	char name[256];
};

/* Function symbols per `nm -S --defined-only ARGS` (types T t W i). */
static size_t nm_funcs(const char *args, struct nm_sym *out, size_t max)
{
	char cmd[2 * PATH_MAX], line[1024];
	size_t n = 0;
	FILE *p;

	snprintf(cmd, sizeof(cmd), "nm -S --defined-only %s", args);
	p = popen(cmd, "r");
	if (!p)
		return 0;
	while (fgets(line, sizeof(line), p) && n < max) {
		char *tok[5], *save = NULL;
		int k = 0;

		for (char *t = strtok_r(line, " \n", &save); t && k < 5;
		     t = strtok_r(NULL, " \n", &save))
			tok[k++] = t;
		/* "addr size type name"; zero-size symbols have no size */
		if (k != 4 || strlen(tok[2]) != 1 || !strchr("TtWi", tok[2][0]))
			continue;
		out[n].addr = strtoull(tok[0], NULL, 16);
		out[n].size = strtoull(tok[1], NULL, 16);
		out[n].type = tok[2][0];
		snprintf(out[n].name, sizeof(out[n].name), "%s", tok[3]);
		n++;
	}
	pclose(p);
	return n;
}

/* Line of tests/progs/`file` holding `text`, 0 if none. */
static int source_line(const char *file, const char *text)
{
	char path[PATH_MAX], line[1024];
	FILE *fp = fopen(fmt_path(path, "%s/%s", progs, file), "r");
	int n = 0, found = 0;

	while (fp && !found && fgets(line, sizeof(line), fp)) {
		n++;
		if (strstr(line, text))
			found = n;
	}
	if (fp)
		fclose(fp);
	return found;
}

static bool ends_with(const char *s, const char *suffix)
{
	size_t a = strlen(s), b = strlen(suffix);

	return a >= b && strcmp(s + a - b, suffix) == 0;
}

/* The test binaries, built once by build_all(). */
static char prog_lazy[PATH_MAX], prog_now[PATH_MAX], prog_ibt[PATH_MAX];
static char lib_full[PATH_MAX], lib_stripped[PATH_MAX], cxx_prog[PATH_MAX];
static bool built;

static bool build_all(void)
{
	const char *cc = "gcc -O2 -g -fno-omit-frame-pointer";

	fmt_path(prog_lazy, "%s/prog_lazy", tmp);
	fmt_path(prog_now, "%s/prog_now", tmp);
	fmt_path(prog_ibt, "%s/prog_ibt", tmp);
	fmt_path(lib_full, "%s/libsym.so", tmp);
	fmt_path(lib_stripped, "%s/libsym_stripped.so", tmp);
	fmt_path(cxx_prog, "%s/cxx_prog", tmp);
	return sh("%s -Wl,-z,lazy -o %s %s/sym_prog.c", cc, prog_lazy, progs) &&
	       sh("%s -Wl,-z,now -o %s %s/sym_prog.c", cc, prog_now, progs) &&
	       sh("%s -fcf-protection -Wl,-z,ibtplt -Wl,-z,lazy -o %s "
		  "%s/sym_prog.c", cc, prog_ibt, progs) &&
	       /* link address != file offset, as <static>@0x must use the latter */
	       sh("%s -fPIC -shared -Wl,-Ttext-segment=0x40000 -o %s %s/sym_lib.c",
		  cc, lib_full, progs) &&
	       sh("strip --strip-all -o %s %s", lib_stripped, lib_full) &&
	       sh("g++ -O2 -g -o %s %s/sym_cxx.cpp", cxx_prog, progs);
}

#define NEED_BUILD()                                                         \
	do {                                                                 \
		if (!built)                                                  \
			SKIP("test programs did not build");                 \
	} while (0)

/* ---- ELF symbols ---------------------------------------------------------- */

static void test_alias_choice(void)
{
	struct sym_object *o;
	const struct sym_func *f;

	NEED_BUILD();
	o = open_obj(prog_lazy);
	CHECK(o != NULL);
	if (!o)
		return;
	CHECK(strcmp(sym_object_name(o), "prog_lazy") == 0);
	CHECK(strcmp(sym_object_path(o), prog_lazy) == 0);
	f = find_func(o, "real_impl");
	CHECKF(f && f->aliases && strcmp(f->aliases, "__under_impl, alias_weak") == 0,
	       "aliases '%s'", f && f->aliases ? f->aliases : "(null)");
	CHECK(find_func(o, "alias_weak") == NULL);      /* only an alias */
	f = find_func(o, "zeta");
	CHECKF(f && f->aliases && strcmp(f->aliases, "alpha, alpha_zeta") == 0,
	       "aliases '%s'", f && f->aliases ? f->aliases : "(null)");
	f = find_func(o, "weak_pub");                   /* weak > local */
	CHECK(f && f->aliases && strcmp(f->aliases, "loc_impl") == 0);
	CHECK(f && !(f->flags & SYM_FUNC_LOCAL));
	f = find_func(o, "static_fn");
	CHECK(f && (f->flags & SYM_FUNC_LOCAL) && !f->aliases);
	f = find_func(o, "main");
	CHECK(f && f->flags == 0 && f->size > 1);
	if (f) {
		CHECK(sym_object_lookup(o, f->start) == f);
		CHECK(sym_object_lookup(o, f->start + f->size - 1) == f);
	}
	CHECK(sym_object_lookup(o, 0) == NULL);         /* not executable */
	CHECK(sym_object_lookup(o, UINT64_MAX) == NULL);
}

/* Every function symbol nm lists is the name or an alias of the function
 * at its address; every function's id is its index, in address order. */
static void test_matches_nm(void)
{
	static struct nm_sym syms[4096];
	const char *files[] = { prog_lazy, lib_full, cxx_prog };

	NEED_BUILD();
	for (size_t k = 0; k < 3; k++) {
		struct sym_object *o = open_obj(files[k]);
		const struct sym_func *all;
		size_t n = nm_funcs(files[k], syms, 4096), m;

		CHECK(o != NULL && n > 5);
		if (!o)
			continue;
		for (size_t i = 0; i < n; i++) {
			const struct sym_func *f = sym_object_lookup(o, syms[i].addr);
			const char *dem = sym_demangle(syms[i].name);
			bool named = f && f->start == syms[i].addr &&
				     (strcmp(f->link_name, syms[i].name) == 0 ||
				      strcmp(f->name, dem) == 0 ||
				      (f->aliases && strstr(f->aliases, dem)));

			CHECKF(named, "%s: %s at 0x%" PRIx64 " is %s", files[k],
			       syms[i].name, syms[i].addr, f ? f->name : "NULL");
		}
		m = sym_object_functions(o, &all);
		for (size_t i = 0; i < m; i++) {
			CHECK(all[i].id == i && all[i].size >= 1);
			CHECK(i == 0 || all[i].start >= all[i - 1].start + 1);
		}
	}
}

/* lookup agrees with a linear scan over the function list (innermost
 * function containing the address, else the one the padding follows). */
static void test_lookup_reference(void)
{
	const char *path = "/lib/x86_64-linux-gnu/libc.so.6";
	struct sym_object *o = exists(path) ? open_obj(path) : NULL;
	const struct sym_func *all;
	size_t n;
	uint64_t lo, hi, x = 88172645463325252ull;

	if (!o)
		SKIP("no libc.so.6 at the Debian path");
	n = sym_object_functions(o, &all);
	CHECK(n > 1000);
	if (n < 2)
		return;
	lo = all[0].start;
	hi = all[n - 1].start + all[n - 1].size;
	for (int q = 0; q < 3000; q++) {
		const struct sym_func *want = NULL, *got;
		uint64_t a;

		x ^= x << 13, x ^= x >> 7, x ^= x << 17;     /* xorshift64 */
		a = lo + x % (hi - lo);
		for (size_t i = 0; i < n; i++) {
			if (all[i].start <= a && a < all[i].start + all[i].size)
				want = &all[i];
		}
		got = sym_object_lookup(o, a);
		if (want)
			CHECKF(got == want, "0x%" PRIx64 ": %s, want %s", a,
			       got ? got->name : "NULL", want->name);
		else
			CHECKF(!got || got->start + got->size <= a,
			       "0x%" PRIx64 " in padding: %s", a, got->name);
	}
}

/* ---- PLT ------------------------------------------------------------------ */

/* Every `<X@plt>` of objdump -d [-C] is a PLT function named X@plt at that
 * address, and there are no others but the PLT0 region `@plt`. */
static void check_plt_vs_objdump(const char *path, bool demangle, size_t min)
{
	char cmd[2 * PATH_MAX], line[1024], name[512];
	struct sym_object *o = open_obj(path);
	const struct sym_func *all;
	size_t seen = 0, mine = 0, n;
	uint64_t addr;
	FILE *p;

	CHECK(o != NULL);
	if (!o)
		return;
	snprintf(cmd, sizeof(cmd), "objdump -d %s %s", demangle ? "-C" : "", path);
	p = popen(cmd, "r");
	CHECK(p != NULL);
	while (p && fgets(line, sizeof(line), p)) {
		const struct sym_func *f;
		char *lt = strchr(line, '<'), *gt = strrchr(line, '>');

		if (sscanf(line, "%" SCNx64 " <", &addr) != 1 || !lt || !gt ||
		    gt < lt || !strstr(line, ">:") || gt - lt < 6 ||
		    strncmp(gt - 4, "@plt", 4) != 0)
			continue;
		snprintf(name, sizeof(name), "%.*s", (int)(gt - lt - 1), lt + 1);
		f = sym_object_lookup(o, addr);
		CHECKF(f && f->start == addr && (f->flags & SYM_FUNC_PLT) &&
			       strcmp(f->name, name) == 0,
		       "%s: 0x%" PRIx64 " objdump says %s, we say %s", path,
		       addr, name, f ? f->name : "NULL");
		seen++;
	}
	if (p)
		pclose(p);
	n = sym_object_functions(o, &all);
	for (size_t i = 0; i < n; i++) {
		if ((all[i].flags & SYM_FUNC_PLT) && strcmp(all[i].name, "@plt"))
			mine++;
	}
	CHECKF(seen >= min && seen == mine, "%s: objdump %zu, we %zu", path,
	       seen, mine);
}

static void test_plt_lazy(void)
{
	const struct sym_func *f;
	struct sym_object *o;

	NEED_BUILD();
	check_plt_vs_objdump(prog_lazy, false, 4);
	o = open_obj(prog_lazy);
	f = o ? find_func(o, "puts@plt") : NULL;
	CHECK(f && f->size == 16 && strcmp(f->link_name, "puts@plt") == 0);
	/* PLT0, just before the first stub, is the artificial `@plt` */
	f = f ? sym_object_lookup(o, f->start - 16) : NULL;
	CHECK(f && strcmp(f->name, "@plt") == 0 && (f->flags & SYM_FUNC_PLT));
	f = o ? find_func(o, "__cxa_finalize@plt") : NULL;   /* .plt.got */
	CHECK(f && f->size == 8);
	CHECK(f && !sym_object_line(o, f->start, &(const char *){ NULL },
				    &(int){ 0 }));
}

static void test_plt_now(void)
{
	NEED_BUILD();
	check_plt_vs_objdump(prog_now, false, 4);
}

static void test_plt_ibt(void)
{
	struct sym_object *o;
	const struct sym_func *f;

	NEED_BUILD();
	check_plt_vs_objdump(prog_ibt, false, 4);
	o = open_obj(prog_ibt);
	f = o ? find_func(o, "puts@plt") : NULL;
	CHECK(f != NULL);
	if (f) {            /* the stub is in .plt.sec, starting with endbr64 */
		uint8_t b[4] = { 0 };

		CHECK(sym_object_read(o, f->start, b, 4) == 4);
		CHECK(b[0] == 0xf3 && b[1] == 0x0f && b[2] == 0x1e && b[3] == 0xfa);
	}
}

static void test_plt_cxx_demangled(void)
{
	NEED_BUILD();
	check_plt_vs_objdump(cxx_prog, true, 3);
}

/* ---- <static> regions ------------------------------------------------------ */

static void test_static_regions(void)
{
	static struct nm_sym dyn[512], full[512];
	const char *statics[] = { "s1", "s2", "s3" };
	const struct sym_func *got[3];
	uint64_t region[3];
	struct sym_object *o, *of;
	char args[PATH_MAX + 8];
	size_t nd, nf;

	NEED_BUILD();
	o = open_obj(lib_stripped);
	of = open_obj(lib_full);
	snprintf(args, sizeof(args), "-D %s", lib_stripped);
	nd = nm_funcs(args, dyn, 512);
	nf = nm_funcs(lib_full, full, 512);
	CHECK(o && of && nd >= 3 && nf >= 6);
	if (!o || !of)
		return;
	for (int k = 0; k < 3; k++) {
		uint64_t addr = 0, start = 0, size = 0, off = 0, rs, re;
		const struct sym_func *f = NULL;
		char want[128];

		got[k] = NULL;
		region[k] = 0;
		for (size_t i = 0; i < nf; i++) {
			if (strcmp(full[i].name, statics[k]) == 0)
				addr = full[i].addr;
		}
		CHECKF(addr != 0, "no %s in %s", statics[k], lib_full);
		if (!addr || !file_section_of(lib_stripped, addr, &start, &size, &off))
			continue;
		/* the expected region: the function's own, from its start (its
		 * unwind-table entry) to the next function or dynamic symbol */
		rs = addr;
		re = start + size;
		for (size_t i = 0; i < nd; i++)
			if (dyn[i].addr > addr && dyn[i].addr < re)
				re = dyn[i].addr;
		for (size_t i = 0; i < nf; i++)
			if (full[i].addr > addr && full[i].addr < re)
				re = full[i].addr;
		snprintf(want, sizeof(want), "<static>@0x%" PRIx64 " (libsym_stripped.so)",
			 rs - start + off);
		f = sym_object_lookup(o, addr);
		CHECKF(f && strcmp(f->name, want) == 0, "%s: %s, want %s",
		       statics[k], f ? f->name : "NULL", want);
		CHECK(f && (f->flags & SYM_FUNC_STATIC) && f->start == rs &&
		      f->size == re - rs);
		CHECK(f && sym_object_lookup(o, re - 1) == f);
		got[k] = f;
		region[k] = rs;
		f = sym_object_lookup(of, addr);      /* unstripped: real name */
		CHECK(f && strcmp(f->name, statics[k]) == 0 &&
		      (f->flags & SYM_FUNC_LOCAL));
	}
	/* one sym_func (one id) per region, a region per stripped function */
	CHECKF(region[0] != region[2], "test setup: s1 and s3 in one region");
	for (int a = 0; a < 3; a++) {
		for (int b = 0; b < 3; b++)
			CHECK((region[a] == region[b]) == (got[a] == got[b]));
	}
}

/* A file without section headers: its executable segment is one region. */
static void test_no_section_headers(void)
{
	char path[PATH_MAX];
	uint8_t bid[64];
	size_t bid_len;
	bool mismatch = true;
	char err[256];
	struct sym_object *o;
	const struct sym_func *f, *all;
	Elf64_Ehdr eh;
	FILE *fp;

	NEED_BUILD();
	fmt_path(path, "%s/prog_noshdr", tmp);
	if (!sh("cp %s %s", prog_lazy, path))
		return;
	bid_len = file_build_id(prog_lazy, bid, sizeof(bid));
	fp = fopen(path, "r+b");
	CHECK(fp && fread(&eh, sizeof(eh), 1, fp) == 1);
	if (!fp)
		return;
	eh.e_shoff = 0;
	eh.e_shnum = 0;
	eh.e_shstrndx = 0;
	CHECK(fseek(fp, 0, SEEK_SET) == 0 && fwrite(&eh, sizeof(eh), 1, fp) == 1);
	fclose(fp);
	o = sym_object_get(path, bid, bid_len, &mismatch, err, sizeof(err));
	CHECKF(o != NULL, "%s", err);
	if (!o)
		return;
	CHECK(bid_len > 0 && !mismatch);               /* from PT_NOTE */
	CHECK(sym_object_functions(o, &all) == 1);
	f = sym_object_lookup(o, all[0].start + 10);
	CHECK(f == &all[0] && (f->flags & SYM_FUNC_STATIC));
	CHECKF(f && strcmp(f->name, "<static>@0x1000 (prog_noshdr)") == 0,
	       "%s", f ? f->name : "NULL");
}

/* ---- DWARF lines, bytes ------------------------------------------------------ */

static void test_lines(void)
{
	int want = source_line("sym_prog.c", "SYM_MARKER_LINE"), line = 0;
	const char *file = NULL;
	const struct sym_func *f;
	struct sym_object *o;

	NEED_BUILD();
	CHECK(want > 0);
	o = open_obj(prog_now);
	f = o ? find_func(o, "sym_marker") : NULL;
	CHECK(f != NULL);
	if (!f)
		return;
	for (uint64_t a = f->start; a < f->start + f->size; a++) {
		bool ok = sym_object_line(o, a, &file, &line);

		CHECKF(ok && line == want && ends_with(file, "/sym_prog.c"),
		       "0x%" PRIx64 ": %s:%d, want sym_prog.c:%d", a,
		       ok ? file : "-", ok ? line : 0, want);
	}
	f = find_func(o, "main");
	CHECK(f && sym_object_line(o, f->start + f->size / 2, &file, &line) &&
	      line > want);
}

static void test_read(void)
{
	uint8_t buf[64], ref[64];
	const struct sym_func *f;
	uint64_t start, size, off;
	struct sym_object *o;
	FILE *fp;

	NEED_BUILD();
	o = open_obj(prog_lazy);
	f = o ? find_func(o, "main") : NULL;
	CHECK(f && file_section_of(prog_lazy, f->start, &start, &size, &off));
	if (!f)
		return;
	fp = fopen(prog_lazy, "rb");
	CHECK(fp && fseek(fp, (long)(off + f->start - start), SEEK_SET) == 0 &&
	      fread(ref, 1, sizeof(ref), fp) == sizeof(ref));
	if (fp)
		fclose(fp);
	CHECK(sym_object_read(o, f->start, buf, sizeof(buf)) == sizeof(buf));
	CHECK(memcmp(buf, ref, sizeof(buf)) == 0);
	/* stops at the end of the section; nothing outside one */
	CHECK(sym_object_read(o, start + size - 3, buf, sizeof(buf)) == 3);
	CHECK(sym_object_read(o, 0, buf, sizeof(buf)) == 0);
}

/* ---- C++ ------------------------------------------------------------------- */

static void test_demangle(void)
{
	const char *mangled = "_ZNK2ns6MatrixIdE8multiplyERKS1_";
	const char *want = "ns::Matrix<double>::multiply(ns::Matrix<double> const&) const";
	const char *d = sym_demangle(mangled), *plain = "main";
	struct sym_object *o;
	const struct sym_func *f;

	CHECKF(strcmp(d, want) == 0, "%s", d);
	CHECK(sym_demangle(mangled) == d);                 /* cached */
	CHECK(sym_demangle(plain) == plain);
	plain = "_Znot_really";
	CHECK(sym_demangle(plain) == plain);
	CHECK(strcmp(sym_demangle("_ZN4core3fmt5write17h0123456789abcdefE"),
		     "core::fmt::write") == 0);                /* Rust legacy */
	CHECK(strcmp(sym_demangle("_Z3foov.cold"), "foo() [clone .cold]") == 0);
	/* gfortran's body shared by ENTRY points: the procedure, marked. */
	CHECK(strcmp(sym_demangle("master.0.work_.isra.0"), "work_ [entry master] [clone .isra.0]") == 0);
	CHECK(strcmp(sym_demangle("master.12.solve_"), "solve_ [entry master]") == 0);
	CHECK(strcmp(sym_demangle("master.0"), "master [clone .0]") == 0);   /* a C clone */
	/* Go's package-qualified names are no clones (the outside mode). */
	CHECK(strcmp(sym_demangle("main.spinA"), "main.spinA") == 0);
	CHECK(strcmp(sym_demangle("runtime.mstart0"), "runtime.mstart0") == 0);
	CHECK(strcmp(sym_demangle("runtime.clone"), "runtime.clone") == 0);
	CHECK(strcmp(sym_demangle("f.clone.3"), "f [clone .clone.3]") == 0);
	CHECK(strcmp(sym_demangle("f.part.0.cold"), "f [clone .part.0] [clone .cold]") == 0);
	CHECK(strcmp(sym_demangle("get_indices.constprop.0"), "get_indices [clone .constprop.0]") == 0);
	NEED_BUILD();
	o = open_obj(cxx_prog);
	f = o ? find_func(o, want) : NULL;
	CHECK(f && strcmp(f->link_name, mangled) == 0 && f->size > 1);
	CHECK(f && sym_object_lookup(o, f->start + 1) == f);
}

/* ---- separate debug files -------------------------------------------------- */

static void test_debug_libc(void)
{
	const char *path = "/lib/x86_64-linux-gnu/libc.so.6";
	char dbg[PATH_MAX];
	uint8_t bid[64];
	size_t len = exists(path) ? file_build_id(path, bid, sizeof(bid)) : 0;
	const struct sym_func *f = NULL, *all;
	struct sym_object *o;
	const char *file;
	int line, n;
	size_t nf;

	if (len < 2)
		SKIP("no libc.so.6 with a build-id");
	n = snprintf(dbg, sizeof(dbg), "/usr/lib/debug/.build-id/%02x/", bid[0]);
	for (size_t i = 1; i < len; i++)
		n += snprintf(dbg + n, sizeof(dbg) - (size_t)n, "%02x", bid[i]);
	snprintf(dbg + n, sizeof(dbg) - (size_t)n, ".debug");
	if (!exists(dbg))
		SKIP("libc6-dbg is not installed");
	o = open_obj(path);
	CHECK(o != NULL);
	if (!o)
		return;
	nf = sym_object_functions(o, &all);
	for (size_t i = 0; i < nf && !f; i++) {
		if (strncmp(all[i].name, "msort_with_tmp", 14) == 0)
			f = &all[i];
	}
	CHECK(f && (f->flags & SYM_FUNC_LOCAL));
	CHECK(f && sym_object_lookup(o, f->start + f->size / 2) == f);
	CHECK(f && sym_object_line(o, f->start, &file, &line) &&
	      ends_with(file, "msort.c") && line > 0);
	f = find_func(o, "qsort_r");                       /* the exported name */
	CHECK(f && f->aliases && strstr(f->aliases, "__qsort_r"));
}

/* A stripped program finds its .symtab and DWARF through .gnu_debuglink:
 * in .debug/ checked by CRC (no build-id), next to it checked by build-id;
 * a debug file that does not match is ignored. */
static void test_debuglink(void)
{
	char p1[PATH_MAX], p2[PATH_MAX], p3[PATH_MAX], d[PATH_MAX];
	int want = source_line("sym_prog.c", "SYM_MARKER_LINE"), line;
	const struct sym_func *f;
	struct sym_object *o;
	const char *file;

	NEED_BUILD();
	fmt_path(p1, "%s/dl1/prog", tmp);
	fmt_path(p2, "%s/dl2/prog", tmp);
	fmt_path(p3, "%s/dl3/prog", tmp);
	fmt_path(d, "%s/dl1", tmp);
	CHECK(sh("mkdir -p %s/dl1/.debug %s/dl2 %s/dl3", tmp, tmp, tmp));
	/* no build-id: .debug/prog.debug, found by name, checked by CRC */
	CHECK(sh("cd %s && gcc -O2 -g -Wl,--build-id=none -o prog.full %s/sym_prog.c"
		 " && objcopy --only-keep-debug prog.full .debug/prog.debug"
		 " && strip --strip-all -o prog prog.full"
		 " && cd .debug && objcopy --add-gnu-debuglink=prog.debug ../prog",
		 d, progs));
	/* build-id: prog.debug next to it */
	CHECK(sh("cd %s/dl2 && cp %s prog.full && objcopy --only-keep-debug "
		 "prog.full prog.debug && strip --strip-all -o prog prog.full && "
		 "objcopy --add-gnu-debuglink=prog.debug prog", tmp, prog_now));
	/* build-id that differs: the debug file of another build */
	CHECK(sh("cd %s/dl3 && gcc -O1 -g -o other %s/sym_prog.c && "
		 "objcopy --only-keep-debug other prog.debug && "
		 "strip --strip-all -o prog %s && "
		 "objcopy --add-gnu-debuglink=prog.debug prog", tmp, progs,
		 prog_now));
	for (int k = 0; k < 2; k++) {
		o = open_obj(k ? p2 : p1);
		f = o ? find_func(o, "static_fn") : NULL;
		CHECKF(f && (f->flags & SYM_FUNC_LOCAL), "%s: no static_fn",
		       k ? p2 : p1);
		f = o ? find_func(o, "sym_marker") : NULL;
		CHECK(f && sym_object_line(o, f->start, &file, &line) &&
		      line == want);
	}
	o = open_obj(p3);
	CHECK(o && !find_func(o, "static_fn") && static_region(o));
	/* a CRC that no longer matches: the debug file is ignored */
	CHECK(sh("cd %s && cp -r dl1 dl4 && printf 'X' | dd of=dl4/.debug/prog.debug"
		 " bs=1 seek=100 conv=notrunc status=none", tmp));
	o = open_obj(fmt_path(p1, "%s/dl4/prog", tmp));
	f = o ? static_region(o) : NULL;
	CHECK(o && !find_func(o, "static_fn") && f);
	CHECK(f && !sym_object_line(o, f->start + f->size / 2, &file, &line));
}

/* ---- the address space over time ------------------------------------------- */

static int warnings;
static char last_warning[1024];

static void count_warning(const char *msg)
{
	warnings++;
	snprintf(last_warning, sizeof(last_warning), "%s", msg);
}

static void test_space_time(void)
{
	struct sym_space *s = sym_space_new();
	const uint64_t base = 0x7f0000000000ull, pc = base + 0x1234;
	struct sym_mapping *m;

	NEED_BUILD();
	CHECK(s != NULL);
	if (!s)
		return;
	sym_space_map(s, 100, base, base + 0x100000, base, lib_full, NULL, 0, 0);
	sym_space_unmap(s, 200, base);
	sym_space_map(s, 300, base, base + 0x100000, base, prog_now, NULL, 0, 0);
	m = sym_space_find(s, pc, 150);
	CHECK(m && strcmp(m->path, lib_full) == 0 && m->obj && m->obj_tried);
	CHECK(m && m->obj && strcmp(sym_object_name(m->obj), "libsym.so") == 0);
	CHECK(m && m->unmap_ns == 200 && m->map_ns == 100);
	m = sym_space_find(s, pc, 350);
	CHECK(m && strcmp(m->path, prog_now) == 0 && m->obj);
	CHECK((m = sym_space_find(s, pc, 220)) && strcmp(m->path, lib_full) == 0);
	CHECK((m = sym_space_find(s, pc, 280)) && strcmp(m->path, prog_now) == 0);
	CHECK((m = sym_space_find(s, pc, 50)) && strcmp(m->path, lib_full) == 0);
	CHECK((m = sym_space_find(s, pc, UINT64_MAX)) &&
	      strcmp(m->path, prog_now) == 0);
	CHECK(sym_space_find(s, base - 1, 150) == NULL);
	CHECK(sym_space_find(s, base + 0x100000, 150) == NULL);
	/* a function through the mapping's bias */
	m = sym_space_find(s, pc, 150);
	if (m && m->obj) {
		const struct sym_func *g1 = find_func(m->obj, "g1");
		struct sym_mapping *m2 = g1 ?
			sym_space_find(s, g1->start + 1 + m->bias, 150) : NULL;

		CHECK(g1 && m2 == m);
		CHECK(m2 && sym_object_lookup(m2->obj, g1->start + 1) == g1);
	}
	/* two alive at once: the latest mapped wins */
	sym_space_map(s, 400, base + 0x1000, base + 0x2000, base, lib_stripped,
		      NULL, 0, 0);
	CHECK((m = sym_space_find(s, pc, 500)) && strcmp(m->path, lib_stripped) == 0);
	CHECK((m = sym_space_find(s, base + 0x2000, 500)) &&
	      strcmp(m->path, prog_now) == 0);
	sym_space_free(s);
}

static void test_space_warnings(void)
{
	struct sym_space *s = sym_space_new();
	struct sym_mapping *m;

	sym_set_warning_handler(count_warning);
	warnings = 0;
	sym_space_map(s, 1, 0x1000, 0x2000, 0, "/nonexistent/libgone.so", NULL, 0, 0);
	sym_space_map(s, 2, 0x5000, 0x6000, 0, "/nonexistent/libgone.so", NULL, 0, 0);
	m = sym_space_find(s, 0x1800, 10);
	CHECK(m && !m->obj && m->obj_tried);
	m = sym_space_find(s, 0x5800, 10);
	CHECK(m && !m->obj);
	CHECKF(warnings == 1 && strstr(last_warning, "/nonexistent/libgone.so"),
	       "%d warnings, last '%s'", warnings, last_warning);
	sym_space_free(s);
	sym_set_warning_handler(NULL);
}

static void test_space_archive(void)
{
	char arch[PATH_MAX], cp[PATH_MAX], hex[160];
	uint8_t bid[64], bid2[64];
	size_t len, len2;
	struct sym_space *s;
	struct sym_mapping *m;

	NEED_BUILD();
	len = file_build_id(lib_full, bid, sizeof(bid));
	len2 = file_build_id(prog_now, bid2, sizeof(bid2));
	CHECK(len == 20 && len2 == 20);
	if (len != 20 || len2 != 20)
		return;
	for (size_t i = 0; i < len; i++)
		snprintf(hex + 2 * i, 3, "%02x", bid[i]);
	fmt_path(arch, "%s/archive", tmp);
	CHECK(sh("mkdir -p %s && cp %s %s/%s && cp %s %s/vdso.so", arch,
		 lib_full, arch, hex, lib_full, arch));
	sym_set_warning_handler(count_warning);
	warnings = 0;
	s = sym_space_new();
	sym_space_set_archive(s, arch);
	/* gone from its path: the archived copy, under the recorded name */
	sym_space_map(s, 1, 0x10000, 0x20000, 0x10000, "/gone/libsym.so", bid,
		      len, 0);
	/* changed at its path (prog_now has another build-id): archived copy */
	fmt_path(cp, "%s/libchanged.so", tmp);
	CHECK(sh("cp %s %s", prog_now, cp));
	sym_space_map(s, 1, 0x30000, 0x40000, 0x30000, cp, bid, len, 0);
	/* the vDSO, archived under its build-id */
	sym_space_map(s, 1, 0x50000, 0x60000, 0x50000, "[vdso]", bid, len, 2);
	/* changed, and not archived: used anyway, with a warning */
	sym_space_map(s, 1, 0x70000, 0x80000, 0x70000, lib_full, bid2, len2, 0);
	for (uint64_t a = 0x10000; a < 0x70000; a += 0x20000) {
		m = sym_space_find(s, a + 0x10, 5);
		CHECKF(m && m->obj && find_func(m->obj, "g2"), "0x%" PRIx64, a);
		CHECK(m && m->obj &&
		      strcmp(sym_object_path(m->obj), m->path) == 0);
	}
	CHECK(warnings == 0);
	m = sym_space_find(s, 0x70010, 5);
	CHECK(m && m->obj && find_func(m->obj, "g2"));
	CHECKF(warnings == 1 && strstr(last_warning, "build-id"), "%s",
	       last_warning);
	sym_space_free(s);
	/* the vDSO saved as vdso.so (no build-id recorded) */
	s = sym_space_new();
	sym_space_set_archive(s, arch);
	sym_space_map(s, 1, 0x50000, 0x60000, 0x50000, "[vdso]", NULL, 0, 2);
	m = sym_space_find(s, 0x50010, 5);
	CHECK(m && m->obj && find_func(m->obj, "g3") &&
	      strcmp(sym_object_name(m->obj), "[vdso]") == 0);
	sym_space_free(s);
	sym_set_warning_handler(NULL);
}

/* sym_space_find against a brute-force reading of sym.h's rule, on random
 * mappings over a few address ranges (a dlopen/dlclose loop); map and unmap
 * times are distinct, so a mapping is known by its map time. */
struct ref_map {
	uint64_t start, end, map_ns, unmap_ns;
};

static const struct ref_map *ref_find(const struct ref_map *ms, size_t n,
				      uint64_t pc, uint64_t t)
{
	const struct ref_map *best = NULL;
	uint64_t bestd = UINT64_MAX;
	bool best_future = false;

	for (size_t i = 0; i < n; i++) {       /* alive: latest mapped */
		const struct ref_map *m = &ms[i];

		if (m->start <= pc && pc < m->end &&
		    (t == UINT64_MAX || (m->map_ns <= t && t < m->unmap_ns)) &&
		    (!best || m->map_ns > best->map_ns))
			best = m;
	}
	if (best)
		return best;
	for (size_t i = 0; i < n; i++) {       /* else the nearest in time */
		const struct ref_map *m = &ms[i];
		bool future = m->map_ns > t;
		uint64_t d = future ? m->map_ns - t : t - m->unmap_ns;

		if (m->start > pc || pc >= m->end)
			continue;
		if (!best || d < bestd || (d == bestd && future && !best_future)) {
			best = m;
			bestd = d;
			best_future = future;
		}
	}
	return best;
}

static void test_space_reference(void)
{
	static struct ref_map ref[3000];
	struct sym_space *s = sym_space_new();
	uint64_t x = 0x9e3779b97f4a7c15ull, t = 10;
	size_t n, hits = 0;

	sym_set_warning_handler(count_warning);
	for (n = 0; n < 3000; n++) {
		uint64_t r;

		x ^= x << 13, x ^= x >> 7, x ^= x << 17;
		r = x;
		ref[n].start = 0x100000 * (r % 7) + (r >> 8) % 3 * 0x800;
		ref[n].end = ref[n].start + 0x1000 * (1 + (r >> 16) % 4);
		t += 4 + (r >> 24) % 5 * 4;               /* distinct, even */
		ref[n].map_ns = t;
		ref[n].unmap_ns = UINT64_MAX;
		sym_space_map(s, t, ref[n].start, ref[n].end, 0, "/nonexistent/x",
			      NULL, 0, 0);
		if ((r >> 32) % 8 != 0) {                   /* most go away */
			t += 2 + (r >> 40) % 2 * 4;
			ref[n].unmap_ns = t;
			sym_space_unmap(s, t, ref[n].start);
		}
	}
	for (int q = 0; q < 20000; q++) {
		const struct sym_mapping *got;
		const struct ref_map *want;
		uint64_t pc, qt;

		x ^= x << 13, x ^= x >> 7, x ^= x << 17;
		pc = 0x100000 * (x % 7) + (x >> 8) % 0x6000;
		qt = q % 50 == 0 ? UINT64_MAX : (x >> 24) % (t + 100);
		got = sym_space_find(s, pc, qt);
		want = ref_find(ref, n, pc, qt);
		hits += want != NULL;
		CHECKF((got == NULL) == (want == NULL) &&
			       (!got || (got->map_ns == want->map_ns &&
					 got->start == want->start)),
		       "pc 0x%" PRIx64 " t %" PRIu64 ": got map_ns %" PRIu64
		       " want %" PRIu64, pc, qt, got ? got->map_ns : 0,
		       want ? want->map_ns : 0);
		if (th_case_failed)
			break;                      /* one report is enough */
	}
	CHECK(hits > 5000);
	sym_space_free(s);
	sym_set_warning_handler(NULL);
}

/* ---- hostile input ---------------------------------------------------------- */

static void test_bad_files(void)
{
	char path[PATH_MAX], err[512];
	bool mm;

	err[0] = '\0';
	CHECK(sym_object_get("/nonexistent/x.so", NULL, 0, &mm, err,
			     sizeof(err)) == NULL);
	CHECK(strstr(err, "/nonexistent/x.so") != NULL);
	fmt_path(path, "%s/notelf", tmp);
	CHECK(sh("echo 'not an ELF file' > %s && : > %s.empty", path, path));
	err[0] = '\0';
	CHECK(sym_object_get(path, NULL, 0, &mm, err, sizeof(err)) == NULL);
	CHECK(strstr(err, "not an ELF") != NULL);
	CHECK(sym_object_get(strcat(path, ".empty"), NULL, 0, &mm, err,
			     sizeof(err)) == NULL);
	CHECK(sym_object_get(tmp, NULL, 0, &mm, err, sizeof(err)) == NULL);
	CHECK(sym_object_lookup(NULL, 0x1000) == NULL);
}

/* Mutated and truncated copies of real objects: whatever they yield, every
 * query stays inside the rules (ASan/UBSan builds check the memory side). */
static void test_mutated_elf(void)
{
	const char *srcs[] = { prog_lazy, lib_full, cxx_prog };
	uint64_t x = 0x2545f4914f6cdd1dull;
	char path[PATH_MAX];
	static uint8_t img[1 << 20];
	int opened = 0;

	NEED_BUILD();
	for (int round = 0; round < 240; round++) {
		FILE *fp = fopen(srcs[round % 3], "rb");
		size_t len = fp ? fread(img, 1, sizeof(img), fp) : 0;
		struct sym_object *o;
		const struct sym_func *all;
		char err[512];
		bool mm;
		size_t n;

		if (fp)
			fclose(fp);
		CHECK(len > 1000 && len < sizeof(img));
		if (len < 1000)
			return;
		for (int k = 0; k < 1 + round % 20; k++) {
			x ^= x << 13, x ^= x >> 7, x ^= x << 17;
			/* ELF header, the tail (section headers), anywhere */
			size_t at = k % 3 == 0 ? x % 64 :
				    k % 3 == 1 ? len - 1 - x % 4096 : x % len;

			img[at] ^= (uint8_t)(1u << (x >> 50) % 8);
		}
		if (round % 7 == 0)
			len = (size_t)(x >> 12) % len;
		fmt_path(path, "%s/mut%d", tmp, round);
		fp = fopen(path, "wb");
		CHECK(fp && fwrite(img, 1, len, fp) == len);
		if (fp)
			fclose(fp);
		o = sym_object_get(path, NULL, 0, &mm, err, sizeof(err));
		if (!o)
			continue;
		opened++;
		n = sym_object_functions(o, &all);
		for (size_t i = 0; i < n; i++) {
			const char *file;
			uint8_t buf[16];
			int line;

			CHECK(all[i].size >= 1 && all[i].name && all[i].id == i);
			CHECK(sym_object_lookup(o, all[i].start) != NULL);
			(void)sym_object_line(o, all[i].start, &file, &line);
			CHECK(sym_object_read(o, all[i].start, buf, 16) >= 1);
		}
	}
	CHECK(opened > 50);
	sym_objects_free();
}

/* ---- main ------------------------------------------------------------------- */

/* tests/progs: from the cwd, next to this file, or above the binary
 * (BUILD/tests/test_symbols). */
static bool find_progs(void)
{
	char exe[PATH_MAX] = ".", src[PATH_MAX], cand[3][PATH_MAX], probe[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);

	if (n > 0)
		exe[n] = '\0';
	snprintf(src, sizeof(src), "%s", __FILE__);
	snprintf(cand[0], PATH_MAX, "tests/progs");
	snprintf(cand[1], PATH_MAX, "%s/../progs", dirname(src));
	snprintf(cand[2], PATH_MAX, "%s/../../tests/progs", dirname(exe));
	for (int i = 0; i < 3; i++) {
		if (exists(fmt_path(probe, "%s/sym_prog.c", cand[i])) &&
		    realpath(cand[i], progs))
			return true;
	}
	return false;
}

int main(void)
{
	snprintf(tmp, sizeof(tmp), "/tmp/tally-test-symbols.XXXXXX");
	if (!mkdtemp(tmp) || !find_progs()) {
		printf("[Failed] setup: %s\n", errno ? strerror(errno) :
			"tests/progs/sym_prog.c not found");
		return 1;
	}
	built = build_all();
	RUN(test_alias_choice);
	RUN(test_matches_nm);
	RUN(test_lookup_reference);
	RUN(test_plt_lazy);
	RUN(test_plt_now);
	RUN(test_plt_ibt);
	RUN(test_plt_cxx_demangled);
	RUN(test_static_regions);
	RUN(test_no_section_headers);
	RUN(test_lines);
	RUN(test_read);
	RUN(test_demangle);
	RUN(test_debug_libc);
	RUN(test_debuglink);
	RUN(test_space_time);
	RUN(test_space_warnings);
	RUN(test_space_archive);
	RUN(test_space_reference);
	RUN(test_bad_files);
	RUN(test_mutated_elf);
	sym_objects_free();
	sh("rm -rf %s", tmp);
	if (!built)
		printf("[Failed] build of tests/progs/sym_*\n"), th_failed_cases++;
	TEST_EXIT();
}
