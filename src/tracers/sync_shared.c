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
 * The mapping found is kept per thread (one range: a program's shared
 * objects are mostly in one mapping), so /proc/self/maps is read once per
 * thread and mapping, not per wait.  What it cannot know: a range unmapped
 * and mapped again at the same address from another file keeps its first
 * key in a thread that looked it up before; an object in private memory
 * (a mutex made process-shared but never shared) has no key, and its
 * waits keep the holders and wakers of its own process.  Any thread, never
 * in a signal handler.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <string.h>
#include <sys/syscall.h>

#include "tracers/sync_shared.h"
#include "tracers/tracer.h"

/* One line of /proc/self/maps, what the key needs of it. */
struct range {
	uint64_t start, end;       /* [start, end) */
	uint64_t dev, ino, offset; /* dev: major << 32 | minor; offset of start in the file */
	bool shared;               /* MAP_SHARED ('s') */
};

static __thread struct range last __attribute__((tls_model("initial-exec")));

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

/* The line of /proc/self/maps whose range holds addr, into *r: 0, or -1
 * (none, or the file could not be read).  Through the real system calls:
 * no tracer sees tally's own reads. */
static int lookup(uint64_t addr, struct range *r)
{
	char buf[4096], line[256];
	size_t used = 0;
	int found = -1;
	long fd = REAL(syscall)(SYS_openat, AT_FDCWD, "/proc/self/maps", O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return -1;
	for (;;) {
		long n = REAL(syscall)(SYS_read, fd, buf, sizeof(buf));
		if (n <= 0)
			break;
		for (long i = 0; i < n && found; i++) {
			if (buf[i] != '\n') {
				if (used < sizeof(line) - 1)
					line[used++] = buf[i];
				continue;
			}
			line[used] = 0;
			used = 0;
			if (!parse(line, r) && addr >= r->start && addr < r->end)
				found = 0;
		}
		if (!found)
			break;
	}
	REAL(syscall)(SYS_close, fd);
	return found;
}

/* The key of object: 0 and *k's dev, ino and offset set, or -1 (not in a
 * shared mapping, or not found). */
static int key_of(const void *object, struct exp_sync_key *k)
{
	uint64_t addr = (uint64_t)(uintptr_t)object;
	int saved = errno;

	if (!(addr >= last.start && addr < last.end) && lookup(addr, &last)) {
		last.start = last.end = 0;
		errno = saved;
		return -1;
	}
	errno = saved;
	if (!last.shared)
		return -1;
	k->object = addr;
	k->dev = last.dev;
	k->ino = last.ino;
	k->offset = last.offset + (addr - last.start);
	return 0;
}

void sync_shared_waited(const void *object, const struct exp_sync *rec)
{
	struct exp_sync_key k = { .time_ns = rec->time_ns, .role = EXP_SYNC_KEY_WAIT };

	if (!key_of(object, &k))
		tally__trace_event(EXP_FILE_SYNC, EXP_REC_SYNC_KEY, &k, sizeof(k), 0, 0, 0);
}

void sync_shared_released(const void *object, uint64_t t_ns)
{
	struct exp_sync_key k = { .time_ns = t_ns, .role = EXP_SYNC_KEY_RELEASE };
	int saved = errno;

	if (!key_of(object, &k))
		tally__trace_event(EXP_FILE_SYNC, EXP_REC_SYNC_KEY, &k, sizeof(k), 0, 0, 0);
	errno = saved;
}
