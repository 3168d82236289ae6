/* SPDX-License-Identifier: MIT
 *
 * sync_shared.c — the keys of process-shared objects (tally record -s), for
 * the critical path across processes (model_critical_waits.c).
 *
 * A PTHREAD_PROCESS_SHARED mutex or a futex word in shared memory has an
 * address per process; what names it in all of them is the file its page
 * is mapped from (MAP_SHARED: a file, a POSIX shared memory object under
 * /dev/shm, or shared anonymous memory, which the kernel backs with an
 * inode of its own, the same in a parent and its fork children) and the
 * object's offset in it: /proc/self/maps' device, inode and offset.  A
 * waiter writes its wait's key after its SYNC record (role WAIT), and a
 * thread that lets waiters go writes the key with the moment (role
 * RELEASE): a shared mutex unlocked while its lock word said it had
 * waiters, a futex wake without FUTEX_PRIVATE_FLAG that woke one.  The
 * analyzer joins them by key, across every process of the experiment.
 *
 * The mappings found are kept per thread (the last RANGES_KEPT, private
 * ones too: a futex wake without FUTEX_PRIVATE_FLAG on a word in private
 * memory asks as well), and every shared mapping of the last read in one
 * table for the process (SHARED_KEPT, a sequence lock: a reader never
 * waits; a reader that meets a read under way reads the file itself), so
 * /proc/self/maps is read once per process and new shared mapping, not
 * per thread, nor per wait: only an address in none of them (a private
 * range this thread has not met lately, or a mapping made since) reads
 * it again, whole (rev-collector 5, 6: each miss read it).  It is read aside
 * (tally__read_file_each: never at a number of the program's while other
 * threads may open); a read that fails (no descriptor left, even aside) is
 * a key not written: counted (events.lost) and logged once
 * (sync.shared_keys).  A range of the process's table is checked when a
 * thread takes it (still_mapped: gone, the file is read again); a fork
 * child forgets a table another thread was reading (shared_maps_after_fork).
 * What it cannot know: a range unmapped and mapped again at the same
 * address keeps its first key in a thread that looked it up before, and in
 * the process's table when the new mapping has exactly the same range; an
 * object in private memory
 * (a mutex made process-shared but never shared) has no key, and its
 * waits keep the holders and wakers of its own process.  Any thread, never
 * in a signal handler.
 */
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdbool.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "tracers/sync_shared.h"
#include "tracers/tracer.h"

/* One line of /proc/self/maps, what the key needs of it. */
struct range {
	uint64_t start, end;       /* [start, end) */
	uint64_t dev, ino, offset; /* dev: major << 32 | minor; offset of start in the file */
	bool shared;               /* MAP_SHARED ('s') */
};

/* The ranges looked up last by this thread, the oldest replaced: four, so
 * that static TLS stays small (a tracer library may be loaded late). */
#define RANGES_KEPT 4
static __thread struct range kept[RANGES_KEPT] __attribute__((tls_model("initial-exec")));
static __thread unsigned kept_next __attribute__((tls_model("initial-exec")));
static atomic_flag loss_logged = ATOMIC_FLAG_INIT;

/* The process's shared mappings at the last whole read, sorted by start
 * (as the file lists them).  seq is odd while a read rewrites them; a
 * reader copies what it finds and checks seq did not move.  Fields are
 * read and written with relaxed atomics, so the race is defined. */
#define SHARED_KEPT 1024
static struct {
	_Atomic uint64_t seq;
	_Atomic uint32_t n;
	struct { _Atomic uint64_t start, end, dev, ino, offset; } r[SHARED_KEPT];
} shared_maps;
static atomic_flag shared_maps_busy = ATOMIC_FLAG_INIT;

/* In a fork child only the forking thread is left: a whole read another
 * thread had under way (shared_maps_busy set, seq odd) never ends there,
 * and every lookup would read the file again for the child's life.  Its
 * half-written table is forgotten: the first miss reads the file whole. */
static void shared_maps_after_fork(void)
{
	uint64_t seq = atomic_load_explicit(&shared_maps.seq, memory_order_relaxed);

	if (seq & 1) {
		atomic_store_explicit(&shared_maps.n, 0, memory_order_relaxed);
		atomic_store_explicit(&shared_maps.seq, seq + 1, memory_order_release);
	}
	atomic_flag_clear(&shared_maps_busy);
}

__attribute__((constructor)) static void shared_maps_init(void)
{
	pthread_atfork(NULL, NULL, shared_maps_after_fork);
}

/* A hexadecimal number at *p, up to a character not a hex digit. */
static uint64_t hex(const char **p)
{
	uint64_t v = 0;

	for (;; (*p)++) {
		char c = **p;
		unsigned d = c >= '0' && c <= '9' ? (unsigned)(c - '0')
			   : c >= 'a' && c <= 'f' ? (unsigned)(c - 'a' + 10) : 16u;
		if (d == 16)
			return v;
		v = v << 4 | d;
	}
}

/* v in lowercase hexadecimal, no leading zeros (as the maps file), at p:
 * its length. */
static size_t hex_put(char *p, uint64_t v)
{
	char d[16];
	size_t n = 0, k = 0;

	do
		d[n++] = "0123456789abcdef"[v & 15];
	while ((v >>= 4) != 0);
	while (n)
		p[k++] = d[--n];
	return k;
}

/* "start-end perms offset major:minor inode ...": 0, or -1 malformed. */
static int parse(const char *l, struct range *r)
{
	r->start = hex(&l);
	if (*l++ != '-')
		return -1;
	r->end = hex(&l);
	if (*l++ != ' ' || !l[0] || !l[1] || !l[2] || !l[3])
		return -1;
	r->shared = l[3] == 's';
	l += 4;
	if (*l++ != ' ')
		return -1;
	r->offset = hex(&l);
	if (*l++ != ' ')
		return -1;
	uint64_t major = hex(&l);
	if (*l++ != ':')
		return -1;
	uint64_t minor = hex(&l);
	if (*l++ != ' ')
		return -1;
	r->dev = major << 32 | minor;
	r->ino = 0;
	for (; *l >= '0' && *l <= '9'; l++)
		r->ino = r->ino * 10 + (uint64_t)(*l - '0');
	return 0;
}

struct lookup {
	uint64_t addr;
	struct range *r;
	size_t used;
	bool found;
	bool whole;                /* every line, the shared ones into shared_maps */
	uint32_t nshared;
	char line[256];
};

/* Shared range x, the nshared'th of a whole read, into shared_maps. */
static void keep_shared(struct lookup *l, const struct range *x)
{
	if (l->nshared >= SHARED_KEPT)
		return;
	uint32_t i = l->nshared++;
	atomic_store_explicit(&shared_maps.r[i].start, x->start, memory_order_relaxed);
	atomic_store_explicit(&shared_maps.r[i].end, x->end, memory_order_relaxed);
	atomic_store_explicit(&shared_maps.r[i].dev, x->dev, memory_order_relaxed);
	atomic_store_explicit(&shared_maps.r[i].ino, x->ino, memory_order_relaxed);
	atomic_store_explicit(&shared_maps.r[i].offset, x->offset, memory_order_relaxed);
}

/* tally__read_file_each's chunk: the bytes of /proc/self/maps, line by line; 1 when
 * the line whose range holds addr is in *r.  Runs aside: no system call,
 * little stack. */
static int lookup_chunk(void *arg, const char *buf, size_t n)
{
	struct lookup *l = arg;

	for (size_t i = 0; i < n; i++) {
		if (buf[i] != '\n') {
			if (l->used < sizeof(l->line) - 1)
				l->line[l->used++] = buf[i];
			continue;
		}
		l->line[l->used] = 0;
		l->used = 0;
		struct range x;
		if (parse(l->line, &x))
			continue;
		if (l->whole && x.shared)
			keep_shared(l, &x);
		if (!l->found && l->addr >= x.start && l->addr < x.end) {
			*l->r = x;
			l->found = true;
			if (!l->whole)
				return 1;
		}
	}
	return 0;
}

/* A key lost: the maps file could not be read (`error`, an errno). */
static void key_lost(int error)
{
	char why[96];

	tally__count(EXP_CTR_LOST_EVENTS, 1);
	if (atomic_flag_test_and_set(&loss_logged))
		return;
	snprintf(why, sizeof(why), "/proc/self/maps unread (errno %d): process-shared waits and releases without key",
		 error);
	tally__log("sync.shared_keys", why);
}

/* The line of /proc/self/maps whose range holds addr, into *r: 0, or -1
 * (none, or the file could not be read: counted and logged).  Read whole,
 * its shared ranges into shared_maps, unless another thread is doing so
 * (then up to addr's line only: nobody waits). */
static int lookup(uint64_t addr, struct range *r)
{
	char buf[4096];
	struct lookup l = { .addr = addr, .r = r, .whole = !atomic_flag_test_and_set(&shared_maps_busy) };

	if (l.whole)
		atomic_fetch_add_explicit(&shared_maps.seq, 1, memory_order_acq_rel);     /* odd: rewriting */
	long rc = tally__read_file_each("/proc/self/maps", buf, sizeof(buf), lookup_chunk, &l);
	if (l.whole) {
		atomic_store_explicit(&shared_maps.n, rc < 0 ? 0 : l.nshared, memory_order_relaxed);
		atomic_fetch_add_explicit(&shared_maps.seq, 1, memory_order_release);     /* even: whole */
		atomic_flag_clear(&shared_maps_busy);
	}
	if (rc < 0)
		key_lost((int)-rc);
	return l.found ? 0 : -1;
}

/* The shared mapping of the last whole read that holds addr, into *r:
 * true if found (and not rewritten while it was read). */
static bool shared_map_of(uint64_t addr, struct range *r)
{
	uint64_t seq = atomic_load_explicit(&shared_maps.seq, memory_order_acquire);
	uint32_t lo = 0, hi = atomic_load_explicit(&shared_maps.n, memory_order_relaxed);

	if ((seq & 1) || hi > SHARED_KEPT)
		return false;
	while (lo < hi) {       /* the first whose end is above addr */
		uint32_t mid = lo + (hi - lo) / 2;
		if (atomic_load_explicit(&shared_maps.r[mid].end, memory_order_relaxed) <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo >= atomic_load_explicit(&shared_maps.n, memory_order_relaxed))
		return false;
	r->start = atomic_load_explicit(&shared_maps.r[lo].start, memory_order_relaxed);
	r->end = atomic_load_explicit(&shared_maps.r[lo].end, memory_order_relaxed);
	r->dev = atomic_load_explicit(&shared_maps.r[lo].dev, memory_order_relaxed);
	r->ino = atomic_load_explicit(&shared_maps.r[lo].ino, memory_order_relaxed);
	r->offset = atomic_load_explicit(&shared_maps.r[lo].offset, memory_order_relaxed);
	r->shared = true;
	atomic_thread_fence(memory_order_acquire);
	return atomic_load_explicit(&shared_maps.seq, memory_order_relaxed) == seq && addr >= r->start &&
	       addr < r->end;
}

/* Is shared range r (from the process's table) still mapped as it was
 * read?  A range unmapped since, whose address a private mapping took (a
 * malloc arena), would give a private object the old file's key.  Its
 * /proc/self/map_files/START-END entry is gone then: the kernel finds it
 * only while a mapping of exactly that range exists (file-backed, shared
 * memory's too, at the first look; a cached entry is kept for any mapping
 * of that exact range, so a private one of the very same range passes).
 * An lstat, no descriptor; the link itself is not followed (that needs
 * CAP_CHECKPOINT_RESTORE).  Where the kernel has no map_files (without
 * CONFIG_CHECKPOINT_RESTORE), trusted as before. */
static bool still_mapped(const struct range *r)
{
	static _Atomic int have_map_files = -1;
	char path[64] = "/proc/self/map_files/";
	struct stat st;
	size_t n = strlen(path);

	if (atomic_load_explicit(&have_map_files, memory_order_relaxed) < 0)
		atomic_store_explicit(&have_map_files,
				      syscall(SYS_newfstatat, AT_FDCWD, path, &st, AT_SYMLINK_NOFOLLOW) == 0,
				      memory_order_relaxed);
	if (!atomic_load_explicit(&have_map_files, memory_order_relaxed))
		return true;
	n += hex_put(path + n, r->start);
	path[n++] = '-';
	n += hex_put(path + n, r->end);
	path[n] = 0;
	return syscall(SYS_newfstatat, AT_FDCWD, path, &st, AT_SYMLINK_NOFOLLOW) == 0;
}

/* The kept range that holds addr, else the process's shared one, else the
 * one looked up, into the oldest's place; NULL if none. */
static const struct range *range_of(uint64_t addr)
{
	for (int i = 0; i < RANGES_KEPT; i++)
		if (addr >= kept[i].start && addr < kept[i].end)
			return &kept[i];
	struct range *r = &kept[kept_next % RANGES_KEPT];
	if (shared_map_of(addr, r) && still_mapped(r)) {
		kept_next++;
		return r;
	}
	if (lookup(addr, r)) {
		r->start = r->end = 0;
		return NULL;
	}
	kept_next++;
	return r;
}

bool sync_shared_key(const void *object, struct exp_sync_key *k)
{
	uint64_t addr = (uint64_t)(uintptr_t)object;
	int saved = errno;
	const struct range *r = range_of(addr);

	errno = saved;
	if (!r || !r->shared)
		return false;
	k->object = addr;
	k->dev = r->dev;
	k->ino = r->ino;
	k->offset = r->offset + (addr - r->start);
	return true;
}

void sync_shared_waited(struct exp_sync_key *k, const struct exp_sync *rec)
{
	k->time_ns = rec->time_ns;
	k->role = EXP_SYNC_KEY_WAIT;
	tally__trace_event(EXP_FILE_SYNC, EXP_REC_SYNC_KEY, k, sizeof(*k), 0, 0, 0);
}

void sync_shared_released(const void *object, uint64_t t_ns)
{
	struct exp_sync_key k = { .time_ns = t_ns, .role = EXP_SYNC_KEY_RELEASE };
	int saved = errno;

	if (sync_shared_key(object, &k))
		tally__trace_event(EXP_FILE_SYNC, EXP_REC_SYNC_KEY, &k, sizeof(k), 0, 0, 0);
	errno = saved;
}
