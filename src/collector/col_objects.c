/* SPDX-License-Identifier: MIT
 *
 * col_objects.c — the load-object map over time, and the unwinder's view of
 * the loaded objects (see col_objects.h).
 *
 * Called at start-up, from the dlopen/dlclose interposers
 * (col_interpose_dlopen.c), at thread creation and after fork; never from a
 * signal handler.  A scan walks
 * dl_iterate_phdr, compares with the previous scan, writes MAP records for new
 * executable segments and UNMAP records for vanished ones, and publishes a new
 * sorted snapshot for the handler.  A spinlock serializes scans.
 *
 * The records wait for the process's first record file that holds pcs
 * (col_files_on_pcs): until then a scan only keeps each segment's map time,
 * and the whole map is written then, from whatever context made that file
 * (the signal handler's first sample, too: write_all is sigsafe), or by a
 * scan that finds a segment gone (its history is written first).  A process
 * that records no pc, most of a shell's short commands, makes no maps.dat:
 * an inode less, 0.1-0.3 ms of CPU on ext4.
 */
#include <dlfcn.h>
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <link.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "collector/col_debugframe.h"
#include "collector/col_fds.h"
#include "collector/col_files.h"
#include "collector/col_log.h"
#include "collector/col_mem.h"
#include "collector/col_objects.h"
#include "collector/col_objset.h"
#include "collector/col_state.h"
#include "collector/col_sys.h"
#include "collector/col_time.h"
#include "format/elf_peek.h"
#include "format/exp_launch.h"

#define FIRST_SEGMENTS 64           /* the first arrays' room; doubled as needed */

/* One executable segment as found by a scan. */
struct seen {
	struct col_object o;
	uint64_t name_hash;
	uint64_t map_ns;              /* its MAP record's time */
	uint64_t obj_lo, obj_hi;      /* the object's PT_LOAD segments, runtime addresses */
	bool fresh;                   /* not in the previous scan */
	bool cfi_looked;              /* its file looked at for a .debug_frame */
	uint32_t flags;               /* EXP_MAP_* */
	uint8_t build_id[EXP_BUILD_ID_MAX];
	uint8_t build_id_len;
	char path[512];
};

static atomic_flag scan_lock = ATOMIC_FLAG_INIT;
static struct seen *known, *scratch;   /* previous scan, this scan */
static uint32_t nknown, nscratch;      /* segments found (nscratch: even past cap) */
static uint32_t cap_known, cap_scratch;
static uint64_t last_scan_ns, generation;
static bool vdso_archived;
/* Under scan_lock: a scan of this process has run (known is its map); the
 * map's records are written (col_files_maps_wanted() or a segment gone). */
static _Atomic bool scanned, written;

static uint64_t hash_str(const char *s)
{
	uint64_t h = 1469598103934665603ull;

	while (*s)
		h = (h ^ (uint8_t)*s++) * 1099511628211ull;
	return h;
}

static void read_build_id(const struct dl_phdr_info *info, struct seen *s)
{
	for (int i = 0; i < info->dlpi_phnum && !s->build_id_len; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		if (ph->p_type != PT_NOTE)
			continue;
		size_t n = elf_notes_build_id((const uint8_t *)(info->dlpi_addr + ph->p_vaddr),
					      ph->p_memsz, s->build_id, EXP_BUILD_ID_MAX);
		s->build_id_len = (uint8_t)(n < EXP_BUILD_ID_MAX ? n : EXP_BUILD_ID_MAX);
	}
}

/* Locate .eh_frame_hdr's search table; leaves fde_table NULL if unusable. */
static void read_eh_frame_hdr(const struct dl_phdr_info *info, struct col_object *o)
{
	const ElfW(Phdr) *hdr_ph = NULL;

	for (int i = 0; i < info->dlpi_phnum; i++)
		if (info->dlpi_phdr[i].p_type == PT_GNU_EH_FRAME)
			hdr_ph = &info->dlpi_phdr[i];
	if (!hdr_ph || hdr_ph->p_memsz < 12)
		return;
	const uint8_t *h = (const uint8_t *)(info->dlpi_addr + hdr_ph->p_vaddr);
	/* version 1, eh_frame_ptr encoding, fde_count encoding, table encoding */
	if (h[0] != 1 || h[2] != 0x03 || h[3] != 0x3b)
		return;
	int32_t eh_frame_rel;
	memcpy(&eh_frame_rel, h + 4, 4);
	uint64_t eh_frame;
	if (h[1] == 0x1b)                  /* pcrel sdata4 */
		eh_frame = (uint64_t)(uintptr_t)(h + 4) + (uint64_t)(int64_t)eh_frame_rel;
	else if (h[1] == 0x3b)             /* datarel sdata4 */
		eh_frame = (uint64_t)(uintptr_t)h + (uint64_t)(int64_t)eh_frame_rel;
	else
		return;
	uint32_t count;
	memcpy(&count, h + 8, 4);
	if ((uint64_t)count * 8 > hdr_ph->p_memsz - 12)
		return;
	/* The readable segment holding .eh_frame bounds every CFI read. */
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		uint64_t lo = info->dlpi_addr + ph->p_vaddr, hi = lo + ph->p_memsz;
		if (ph->p_type == PT_LOAD && (ph->p_flags & PF_R) && eh_frame >= lo && eh_frame < hi) {
			o->ro_lo = lo;
			o->ro_hi = hi;
		}
	}
	if (!o->ro_hi || (uint64_t)(uintptr_t)h < o->ro_lo || (uint64_t)(uintptr_t)h >= o->ro_hi)
		return;
	o->eh_hdr = h;
	o->fde_table = h + 12;
	o->fde_count = count;
}

/* The vDSO's copy written by write_vdso: aside (col_fds_use) when other
 * threads of the program may open meanwhile (an attached process), so that
 * the open takes no number of the program's even for an instant. */
struct vdso_copy {
	const char *name;               /* in the experiment's directory */
	const void *image;
	size_t size;
};

/* Raw system calls only (col_fds_aside).  0, 1 if the write was short,
 * or -errno (-EEXIST: archived already). */
static int write_vdso(void *arg)
{
	const struct vdso_copy *v = arg;

	col_syscall(SYS_mkdirat, col_proc.dirfd, EXP_ARCHIVE_DIR, 0755);
	int fd = col_sys_openat(col_proc.dirfd, v->name, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0444);
	if (fd < 0)
		return -errno;
	int rc = col_sys_write(fd, v->image, v->size) != (ssize_t)v->size;
	col_sys_close(fd);
	return rc;
}

static void archive_vdso(const struct dl_phdr_info *info, const struct seen *s)
{
	char name[sizeof(EXP_ARCHIVE_DIR) + 2 * EXP_BUILD_ID_MAX + 1] = EXP_ARCHIVE_DIR "/";
	const ElfW(Ehdr) *eh = (const ElfW(Ehdr) *)info->dlpi_addr;

	if (vdso_archived || !s->build_id_len || col_proc.lineage[0])
		return;
	vdso_archived = true;
	if (memcmp(eh->e_ident, ELFMAG, SELFMAG) != 0)
		return;
	size_t size = eh->e_shoff + (size_t)eh->e_shnum * eh->e_shentsize;
	if (size > (1u << 20))
		return;
	exp_build_id_hex(s->build_id, s->build_id_len, name + sizeof(EXP_ARCHIVE_DIR));
	struct vdso_copy v = { name, eh, size };
	int rc = col_fds_use(write_vdso, &v);
	if (rc < 0 && rc != -EEXIST)
		col_log_error_sigsafe(name, -rc, "vDSO not archived");
	else if (rc > 0)
		col_log_sigsafe("warning", "could not archive the vDSO");
}

static int scan_one(struct dl_phdr_info *info, size_t size, void *arg)
{
	(void)size, (void)arg;
	struct seen base;
	memset(&base, 0, sizeof(base));
	base.o.bias = info->dlpi_addr;

	const char *name = info->dlpi_name;
	if (!name || !name[0]) {
		/* dl_iterate_phdr names the executable "". */
		ssize_t n = col_proc.exe[0] ? (ssize_t)strnlen(col_proc.exe, sizeof(base.path) - 1)
					    : readlink("/proc/self/exe", base.path, sizeof(base.path) - 1);
		if (col_proc.exe[0])
			memcpy(base.path, col_proc.exe, (size_t)n);     /* read at start */
		base.path[n > 0 ? n : 0] = 0;
		base.flags = EXP_MAP_MAIN;
	} else if (strncmp(name, "linux-vdso", 10) == 0 || strncmp(name, "linux-gate", 10) == 0) {
		strcpy(base.path, "[vdso]");
		base.flags = EXP_MAP_VDSO;
	} else if (name[0] != '/' && realpath(name, base.path)) {
		/* relative dlopen path, made absolute */
	} else {
		strncpy(base.path, name, sizeof(base.path) - 1);
	}
	read_build_id(info, &base);
	read_eh_frame_hdr(info, &base.o);
	base.obj_lo = UINT64_MAX;
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		uint64_t lo = info->dlpi_addr + ph->p_vaddr;
		if (ph->p_type != PT_LOAD)
			continue;
		base.obj_lo = lo < base.obj_lo ? lo : base.obj_lo;
		base.obj_hi = lo + ph->p_memsz > base.obj_hi ? lo + ph->p_memsz : base.obj_hi;
	}
	base.name_hash = hash_str(base.path);
	if (base.flags & EXP_MAP_VDSO)
		archive_vdso(info, &base);

	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		if (ph->p_type != PT_LOAD || !(ph->p_flags & PF_X) || nscratch++ >= cap_scratch)
			continue;                  /* past the room: counted, scanned again */
		struct seen *s = &scratch[nscratch - 1];
		*s = base;
		s->o.text_lo = info->dlpi_addr + ph->p_vaddr;
		s->o.text_hi = s->o.text_lo + ph->p_memsz;
	}
	return 0;
}

static bool same(const struct seen *a, const struct seen *b)
{
	return a->o.text_lo == b->o.text_lo && a->o.text_hi == b->o.text_hi &&
	       a->o.bias == b->o.bias && a->name_hash == b->name_hash;
}

static void write_map(struct col_thread *t, const struct seen *s, uint64_t time_ns)
{
	union {
		struct exp_map m;
		char buf[sizeof(struct exp_map) + sizeof(s->path) + 8];
	} u;
	size_t plen = strlen(s->path) + 1;
	uint32_t len = (uint32_t)((sizeof(struct exp_map) + plen + 7) & ~(size_t)7);

	memset(&u, 0, len);
	u.m.flags = s->flags;
	u.m.time_ns = time_ns;
	u.m.start = s->o.text_lo;
	u.m.end = s->o.text_hi;
	u.m.bias = s->o.bias;
	u.m.build_id_len = s->build_id_len;
	memcpy(u.m.build_id, s->build_id, s->build_id_len);
	memcpy(u.m.path, s->path, plen);
	col_write_sigsafe(t, EXP_FILE_MAPS, EXP_REC_MAP, &u, len);
}

static bool is_tallys(const struct seen *s)
{
	const char *base = strrchr(s->path, '/');
	uint64_t self = (uint64_t)(uintptr_t)&col_objects_init;

	return (self >= s->o.text_lo && self < s->o.text_hi) ||
	       !strncmp(base ? base + 1 : s->path, "libtally", 8);
}

/* The unwinder's CFI of segment `s`, this scan's scratch[i]: the previous
 * scan's for the same segment, the one an earlier segment of the same
 * object got in this scan, or, for a new object, its .debug_frame's
 * (col_debugframe.c) where it has one. */
static void cfi_of(struct seen *s, uint32_t i)
{
	const struct seen *from = NULL;

	for (uint32_t j = 0; j < nknown && !from; j++)
		if (same(s, &known[j]) && known[j].cfi_looked)
			from = &known[j];
	for (uint32_t j = 0; j < i && !from; j++)
		if (scratch[j].cfi_looked && scratch[j].name_hash == s->name_hash && scratch[j].o.bias == s->o.bias)
			from = &scratch[j];
	if (from) {
		s->o.eh_hdr = from->o.eh_hdr;
		s->o.fde_table = from->o.fde_table;
		s->o.fde_count = from->o.fde_count;
		s->o.ro_lo = from->o.ro_lo;
		s->o.ro_hi = from->o.ro_hi;
		s->o.cfi2_lo = from->o.cfi2_lo;
		s->o.cfi2_hi = from->o.cfi2_hi;
		s->o.cfi2_fill = from->o.cfi2_fill;
	} else if (!(s->flags & EXP_MAP_VDSO) && !is_tallys(s)) {
		col_debugframe_add(&s->o, s->path, s->obj_lo, s->obj_hi);
	}
	s->cfi_looked = true;
}

/* The .debug_frame copies of the previous scan's `old` segments that no
 * segment of the snapshot just published holds: their objects are gone
 * (col_debugframe_drop; a handler holding the older snapshot is safe). */
static void drop_gone_copies(const struct seen *old, uint32_t nold)
{
	for (uint32_t j = 0; j < nold; j++) {
		bool held = !old[j].o.cfi2_lo;
		for (uint32_t i = 0; i < nknown && !held; i++)
			held = known[i].o.cfi2_lo == old[j].o.cfi2_lo;
		if (!held)
			col_debugframe_drop(old[j].o.cfi2_lo);
	}
}

static int cmp_seen(const void *a, const void *b)
{
	const struct seen *x = a, *y = b;
	return x->o.text_lo < y->o.text_lo ? -1 : x->o.text_lo > y->o.text_lo;
}

static void publish(void)
{
	struct col_object_set *set = col_alloc(sizeof(*set) + nknown * sizeof(struct col_object));

	if (!set) {
		col_log_error_sigsafe("object snapshot", ENOMEM, "stacks in new objects are cut short");
		return;
	}
	set->generation = ++generation;
	set->n = nknown;
	set->nself = 0;
	for (uint32_t i = 0; i < nknown; i++) {
		set->obj[i] = known[i].o;
		/* Ours: the collector, and the other libtally-* (runtime, tracers). */
		set->obj[i].self = is_tallys(&known[i]);
		if (set->obj[i].self && set->nself < COL_SELF_MAX) {
			set->self_lo[set->nself] = known[i].o.text_lo;
			set->self_hi[set->nself++] = known[i].o.text_hi;
		}
	}
	col_objects_publish(set);
}

/* Make *arr hold at least `need` segments (its room in *cap, doubled from
 * FIRST_SEGMENTS): sized by what the program has loaded, nothing reserved.
 * False if it cannot grow. */
static bool room(struct seen **arr, uint32_t *cap, uint32_t need)
{
	if (*arr && *cap >= need)
		return true;
	uint32_t n = *cap ? *cap : FIRST_SEGMENTS;
	while (n < need)
		n *= 2;
	struct seen *p = col_sys_mmap(NULL, n * sizeof(struct seen), PROT_READ | PROT_WRITE,
				      MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		return false;
	if (*arr)
		col_sys_munmap(*arr, *cap * sizeof(struct seen));
	*arr = p;
	*cap = n;
	return true;
}

/* Write the whole map as known so far (the first records of maps.dat),
 * once, if a scan of this process has run and the map is wanted; a scan
 * holding the lock does it itself when it ends.  `t`: the calling thread's
 * state, inside collector code (or in the signal handler).  Sigsafe. */
static void write_all(struct col_thread *t)
{
	while (t && atomic_load(&scanned) && !atomic_load(&written)) {
		if (atomic_flag_test_and_set_explicit(&scan_lock, memory_order_acquire))
			return;      /* its holder looks again after letting go */
		if (atomic_load(&scanned) && !atomic_load(&written)) {
			for (uint32_t j = 0; j < nknown; j++)
				write_map(t, &known[j], known[j].map_ns);
			atomic_store(&written, true);
		}
		atomic_flag_clear_explicit(&scan_lock, memory_order_release);
	}
}

/* col_files_on_pcs: the first record file holding pcs is made (by the
 * calling thread, inside collector code or in the signal handler). */
static void pcs_coming(void)
{
	write_all(col_thread_self_sigsafe());
}

/* `held`: the calling thread, inside collector code already (the process's
 * start, col_objects_init): it stays so; else the scan holds it itself. */
static void scan(uint64_t map_ns, bool record_all, struct col_thread *held)
{
	uint64_t t0 = col_thread_cputime_ns_sigsafe();     /* CPU, not wall: preemption */
	struct col_thread *t = held ? held : col_enter();

	if (!t)
		return;      /* nothing could be recorded: keep the old view */
	while (atomic_flag_test_and_set_explicit(&scan_lock, memory_order_acquire))
		;
	uint64_t now = col_now_ns_sigsafe();
	nscratch = 0;
	if (room(&scratch, &cap_scratch, FIRST_SEGMENTS)) {
		dl_iterate_phdr(scan_one, NULL);
		if (nscratch > cap_scratch) {          /* more than the room: again, with room */
			uint32_t need = nscratch;
			nscratch = 0;
			if (room(&scratch, &cap_scratch, need))
				dl_iterate_phdr(scan_one, NULL);
		}
	}
	if (!scratch || nscratch > cap_scratch) {
		col_log_error_sigsafe("object map", ENOMEM, "loaded objects not recorded");
	} else {
		qsort(scratch, nscratch, sizeof(*scratch), cmp_seen);
		/* New segments (fresh) get this scan's map time, the
		 * others keep theirs. */
		bool gone = false;
		for (uint32_t i = 0; i < nscratch; i++) {
			bool found = false;
			for (uint32_t j = 0; j < nknown && !record_all && !found; j++)
				if ((found = same(&scratch[i], &known[j])))
					scratch[i].map_ns = known[j].map_ns;
			if (!found)
				scratch[i].map_ns = map_ns ? map_ns : last_scan_ns;
			scratch[i].fresh = !found;
			cfi_of(&scratch[i], i);
		}
		for (uint32_t j = 0; j < nknown && !record_all && !gone; j++) {
			bool found = false;
			for (uint32_t i = 0; i < nscratch && !found; i++)
				found = same(&scratch[i], &known[j]);
			gone = !found;
		}
		/* The map's first records: the map as it was, then what changed. */
		if (!atomic_load(&written) && (col_files_maps_wanted() || gone)) {
			for (uint32_t j = 0; j < nknown && !record_all; j++)
				write_map(t, &known[j], known[j].map_ns);
			atomic_store(&written, true);
		}
		for (uint32_t i = 0; i < nscratch && atomic_load(&written); i++)
			if (scratch[i].fresh)
				write_map(t, &scratch[i], scratch[i].map_ns);
		for (uint32_t j = 0; j < nknown && !record_all && atomic_load(&written); j++) {
			bool found = false;
			for (uint32_t i = 0; i < nscratch && !found; i++)
				found = same(&scratch[i], &known[j]);
			if (!found) {
				struct exp_unmap u = { 0, 0, now, known[j].o.text_lo, known[j].o.text_hi };
				col_write_sigsafe(t, EXP_FILE_MAPS, EXP_REC_UNMAP, &u, sizeof(u));
			}
		}
		struct seen *tmp = known;
		uint32_t cap = cap_known, nold = nknown;
		known = scratch;
		cap_known = cap_scratch;
		scratch = tmp;
		cap_scratch = cap;
		nknown = nscratch;
		last_scan_ns = now;
		atomic_store(&scanned, true);
		publish();
		drop_gone_copies(scratch, nold);
	}
	atomic_flag_clear_explicit(&scan_lock, memory_order_release);
	/* A file holding pcs made while the lock was held: its map now. */
	if (col_files_maps_wanted())
		write_all(t);
	col_cost_outside(t, col_thread_cputime_ns_sigsafe() - t0);    /* the collector's time */
	if (!held)
		col_leave(t);
}

void col_objects_init(struct col_thread *held)
{
	col_files_on_pcs(pcs_coming);
	scan(col_proc.start_ns, true, held);
}

void col_objects_rescan(uint64_t map_ns)
{
	scan(map_ns, false, NULL);
}

void col_objects_reset_after_fork(void)
{
	/* Held at the fork: another thread of the parent was scanning. */
	bool mid_scan = atomic_flag_test_and_set(&scan_lock);

	atomic_flag_clear(&scan_lock);
	atomic_store(&written, false);     /* the map starts again in new files */
	vdso_archived = true;   /* the founder archived it */
	/* The parent's map is the child's (a fork copies the address space):
	 * kept, each segment mapped at the child's start, and written with
	 * its first file holding pcs.  No scan: dl_iterate_phdr, a sort and a
	 * comparison in every child, most of which exec at once. */
	if (!mid_scan && atomic_load(&scanned)) {
		for (uint32_t j = 0; j < nknown; j++)
			known[j].map_ns = col_proc.start_ns;
		return;
	}
	scan(col_now_ns_sigsafe(), true, NULL);
}
