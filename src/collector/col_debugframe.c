/* SPDX-License-Identifier: MIT
 *
 * col_debugframe.c — the CFI of a loaded object's .debug_frame, made
 * readable by the unwinder (col_debugframe.h).
 *
 * Code built with -fno-asynchronous-unwind-tables -fno-unwind-tables (some
 * Fortran, hand-built objects) keeps its CFI in .debug_frame alone, a
 * section the loader does not map: the unwinder, which reads .eh_frame
 * through the object's search table, would walk such code by frame
 * pointers.  At the scan that finds a new object (col_objects.c, never in
 * a handler), its file's section headers are read; when it has a
 * .debug_frame, the section is mapped, converted into .eh_frame's form by
 * format/elf_cfi.c (the outside mode's conversion), and a new search table
 * made of the copy's FDEs and the object's own table.  The table's
 * entries are 32-bit offsets from it, so the copy and the table are placed
 * in one anonymous mapping within 2 GiB of the object's code and CFI
 * (below the object: above a main program lies its heap's room); the
 * unwinder reads it as the object's second readable range (cfi2_lo,
 * cfi2_hi of col_objset.h).  The file is opened aside (col_fds_use): no
 * number of the program's is taken.  A compressed section is not read,
 * and each outcome but "none" is one line in the log.
 *
 * When the object goes (dlclose: the scan after it, col_debugframe_drop),
 * its copy's pages are given back (MADV_DONTNEED) but its range stays
 * mapped, read-only, in a pool: a signal handler that loaded the snapshot
 * before the scan may still read it, and reads zeros there, never a
 * fault (nothing tells when every such handler has ended: the snapshots
 * themselves are never freed, col_objset.h).  The next copy that fits in
 * a pooled range within 2 GiB below its object takes it, so a program
 * that loads and unloads libraries keeps as many ranges as it holds at
 * once, not one per load.  A refill cannot change what such a handler
 * reads: each range's first word is the number of its fill (FILL_HEAD
 * bytes before the copy), written last, after the copy and its table, and
 * kept in the object (cfi2_fill); the unwinder reads it before and after
 * a row, as a seqlock's reader, and takes no row from a range whose
 * number is not its object's (0 while the pages are given back).
 */
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "collector/col_debugframe.h"
#include "collector/col_fds.h"
#include "collector/col_log.h"
#include "collector/col_sys.h"
#include "format/elf_cfi.h"

#define SECTIONS_MAX 4096              /* section headers looked at */
#define NAMES_MAX 8192                 /* bytes of .shstrtab read */
#define PAGE 4096ull
#define NEAR (1ull << 31)              /* the table's reach */
#define FILL_HEAD 16                   /* a range's fill number, then the copy */

/* The last fill's number: one per copy made, never 0.  Under the scan lock. */
static uint64_t fills;

/* What the file's look found (filled by look, aside). */
struct look {
	const char *path;
	const uint8_t *map;            /* the section's pages, mapped */
	uint64_t map_len, off;         /* their length; the section's start in them */
	uint64_t len;                  /* the section's */
	int compressed;
};

/* look's buffers (10 KB): not on its stack, which is col_fds_use's 8 KB
 * helper stack when it runs aside (there they overflowed it: every java
 * run died of SIGSEGV at its first scan).  Scans are serialized by
 * col_objects.c's scan lock, and look runs only under it. */
static Elf64_Shdr look_sh[32];
static char look_names[NAMES_MAX];

static ssize_t pread_all(int fd, void *buf, size_t n, uint64_t off)
{
	return (ssize_t)col_syscall(SYS_pread64, fd, buf, n, (off_t)off);
}

/* Raw system calls only (col_fds_use): find .debug_frame in the file's
 * section headers and map its pages.  0 (with or without one), or -errno. */
static int look(void *arg)
{
	struct look *k = arg;
	Elf64_Ehdr eh;
	Elf64_Shdr *sh = look_sh;
	char *names = look_names;
	int fd = col_sys_openat(AT_FDCWD, k->path, O_RDONLY | O_CLOEXEC, 0);

	if (fd < 0)
		return -errno;
	int rc = 0;
	if (pread_all(fd, &eh, sizeof(eh), 0) != (ssize_t)sizeof(eh) || memcmp(eh.e_ident, ELFMAG, SELFMAG) ||
	    eh.e_ident[EI_CLASS] != ELFCLASS64 || eh.e_shentsize != sizeof(Elf64_Shdr) || !eh.e_shoff ||
	    eh.e_shnum == 0 || eh.e_shnum > SECTIONS_MAX || eh.e_shstrndx >= eh.e_shnum)
		goto out;
	Elf64_Shdr str;
	if (pread_all(fd, &str, sizeof(str), eh.e_shoff + (uint64_t)eh.e_shstrndx * sizeof(str)) !=
	    (ssize_t)sizeof(str))
		goto out;
	size_t nlen = str.sh_size < sizeof(look_names) - 1 ? str.sh_size : sizeof(look_names) - 1;
	ssize_t got = pread_all(fd, names, nlen, str.sh_offset);
	if (got <= 0)
		goto out;
	names[got] = 0;
	for (unsigned i = 0; i < eh.e_shnum; i += 32) {
		unsigned n = eh.e_shnum - i < 32 ? eh.e_shnum - i : 32;
		if (pread_all(fd, sh, n * sizeof(sh[0]), eh.e_shoff + (uint64_t)i * sizeof(sh[0])) !=
		    (ssize_t)(n * sizeof(sh[0])))
			goto out;
		for (unsigned j = 0; j < n; j++) {
			const Elf64_Shdr *s = &sh[j];
			if (s->sh_name >= (uint64_t)got)
				continue;
			const char *name = names + s->sh_name;
			if (!strcmp(name, ".zdebug_frame")) {
				k->compressed = 1;
				continue;
			}
			if (strcmp(name, ".debug_frame") || s->sh_type != SHT_PROGBITS || !s->sh_size)
				continue;
			if (s->sh_flags & SHF_COMPRESSED) {
				k->compressed = 1;
				continue;
			}
			if (s->sh_size > ELF_CFI_MAX_BYTES)
				continue;
			uint64_t start = s->sh_offset & ~(PAGE - 1);
			k->off = s->sh_offset - start;
			k->map_len = k->off + s->sh_size;
			void *m = col_sys_mmap(NULL, k->map_len, PROT_READ, MAP_PRIVATE, fd, (off_t)start);
			if (m == MAP_FAILED) {
				rc = -errno;
				goto out;
			}
			k->map = m;
			k->len = s->sh_size;
			goto out;
		}
	}
out:
	col_sys_close(fd);
	return rc;
}

/* The copies' ranges, in use or pooled (their object gone, pages given
 * back).  Under col_objects.c's scan lock, as every caller is.  A range
 * past the table's room is not pooled: it stays as before, never reused. */
#define RANGES_MAX 256
static struct range {
	uint64_t at, len;
	bool pooled;
} ranges[RANGES_MAX];
static uint32_t nranges;

static void keep_range(uint64_t at, uint64_t len)
{
	if (nranges < RANGES_MAX)
		ranges[nranges++] = (struct range){ at, len, false };
}

/* A pooled range of at least `len` bytes ending at most at `below` and
 * reaching no further than 2 GiB from `far`, made writable: its length in
 * *got; or NULL. */
static uint8_t *from_pool(uint64_t below, uint64_t far, uint64_t len, uint64_t *got)
{
	for (uint32_t i = 0; i < nranges; i++) {
		struct range *r = &ranges[i];
		if (!r->pooled || r->len < len || r->at + r->len > below || far - r->at >= NEAR - r->len)
			continue;
		if (col_syscall(SYS_mprotect, r->at, r->len, PROT_READ | PROT_WRITE) != 0)
			return NULL;
		r->pooled = false;
		*got = r->len;
		return (uint8_t *)(uintptr_t)r->at;
	}
	return NULL;
}

/* The range at `at` back to the pool: read-only, its pages given back
 * (a reader finds zeros).  True if it was one of the table's. */
static bool to_pool(uint64_t at)
{
	for (uint32_t i = 0; i < nranges; i++) {
		struct range *r = &ranges[i];
		if (r->at != at || r->pooled)
			continue;
		col_syscall(SYS_mprotect, r->at, r->len, PROT_READ);
		col_syscall(SYS_madvise, r->at, r->len, MADV_DONTNEED);
		r->pooled = true;
		return true;
	}
	return false;
}

void col_debugframe_drop(uint64_t cfi2_lo)
{
	if (cfi2_lo)
		to_pool(cfi2_lo);
}

/* An anonymous mapping of `len` bytes (rounded up to pages; its length in
 * *got) ending at most at `below` and reaching no further than 2 GiB from
 * `far`, a pooled range first; or NULL. */
static uint8_t *map_near(uint64_t below, uint64_t far, uint64_t len, uint64_t *got)
{
	len = (len + PAGE - 1) & ~(PAGE - 1);
	uint8_t *pooled = from_pool(below, far, len, got);
	if (pooled)
		return pooled;
	*got = len;
	for (uint64_t step = 1; step <= 64; step++) {
		uint64_t gap = step << 20;                    /* 1 MiB, 2 MiB, ... below */
		if (below < len + gap + (1ull << 16))
			break;
		uint64_t want = (below - len - gap) & ~(PAGE - 1);
		void *m = col_sys_mmap((void *)(uintptr_t)want, len, PROT_READ | PROT_WRITE,
				       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (m == MAP_FAILED)
			return NULL;
		uint64_t at = (uint64_t)(uintptr_t)m;
		if (at + len <= below && far - at < NEAR - len) {
			keep_range(at, len);
			return m;
		}
		col_sys_munmap(m, len);                       /* placed elsewhere: again lower */
	}
	return NULL;
}

static void log_outcome(const char *path, const char *what)
{
	char line[600];
	size_t n = strnlen(path, 400);

	memcpy(line, path, n);
	line[n] = 0;
	strcat(line, ": ");
	strcat(line, what);
	col_log_sigsafe("unwind.debug_frame", line);
}

bool col_debugframe_add(struct col_object *o, const char *path, uint64_t obj_lo, uint64_t obj_hi)
{
	struct look k = { .path = path };

	if (!path[0] || path[0] != '/' || col_fds_use(look, &k) < 0 || !k.map) {
		if (k.compressed)
			log_outcome(path, "compressed, not read: its code is walked by frame pointers");
		return false;
	}
	uint64_t room = elf_cfi_copy_room(k.len), old = o->fde_table ? o->fde_count : 0;
	uint64_t pairs = elf_cfi_pair_room(room);
	uint64_t table_at = (FILL_HEAD + room + 15) & ~15ull;
	uint64_t len = table_at + 12 + 8 * (old + pairs);
	uint64_t cies_len = elf_cfi_cie_room(k.len) * sizeof(struct elf_cfi_cie);
	void *cies = col_sys_mmap(NULL, cies_len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	uint64_t far = obj_hi > o->ro_hi ? obj_hi : o->ro_hi;
	uint64_t mapped = 0;
	uint8_t *m = cies != MAP_FAILED ? map_near(obj_lo, far, len, &mapped) : NULL;
	bool ok = false;

	if (m) {
		uint64_t at = (uint64_t)(uintptr_t)m, hdr = at + table_at;
		uint64_t clen = elf_cfi_from_debug_frame(k.map + k.off, k.len, at + FILL_HEAD, o->bias,
							 m + FILL_HEAD, cies);
		struct elf_cfi_pair *v = (struct elf_cfi_pair *)(m + table_at + 12);
		uint64_t n = clen ? elf_cfi_pairs(m + FILL_HEAD, clen, at + FILL_HEAD, hdr, v) : 0;
		/* The object's own table, moved to this one's place. */
		uint64_t old_hdr = o->eh_hdr ? (uint64_t)(uintptr_t)o->eh_hdr : 0;
		for (uint64_t i = 0; i < old && n; i++) {
			int32_t loc, fde;
			memcpy(&loc, o->fde_table + 8 * i, 4);
			memcpy(&fde, o->fde_table + 8 * i + 4, 4);
			int64_t l = (int64_t)(old_hdr + (uint64_t)(int64_t)loc - hdr);
			int64_t f = (int64_t)(old_hdr + (uint64_t)(int64_t)fde - hdr);
			if (l == (int32_t)l && f == (int32_t)f)
				v[n++] = (struct elf_cfi_pair){ (int32_t)l, (int32_t)f };
		}
		if (n) {
			elf_cfi_sort(v, n);
			elf_cfi_write_hdr(m + table_at, at + FILL_HEAD, hdr, v, (uint32_t)n);
			/* The number last: a reader holding an older snapshot's
			 * object sees another (col_unwind.c, cfi2_still). */
			o->cfi2_fill = ++fills;
			__atomic_store_n((uint64_t *)m, o->cfi2_fill, __ATOMIC_RELEASE);
			col_syscall(SYS_mprotect, m, mapped, PROT_READ);
			o->cfi2_lo = at;
			o->cfi2_hi = hdr + 12 + 8 * n;
			o->eh_hdr = m + table_at;
			o->fde_table = o->eh_hdr + 12;
			o->fde_count = n;
			ok = true;
			char what[96] = "read: ";
			col_fmt_u64_sigsafe(what + strlen(what), n - old);
			strcat(what, " of its FDEs beside the object's table");
			log_outcome(path, what);
		} else {
			if (!to_pool((uint64_t)(uintptr_t)m))
				col_sys_munmap(m, mapped);
			log_outcome(path, "no FDE could be converted: its code is walked by frame pointers");
		}
	} else {
		log_outcome(path, "no room within 2 GiB of the object: its code is walked by frame pointers");
	}
	if (cies != MAP_FAILED)
		col_sys_munmap(cies, cies_len);
	col_sys_munmap((void *)(uintptr_t)k.map, k.map_len);
	return ok;
}
