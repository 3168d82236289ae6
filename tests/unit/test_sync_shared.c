/* SPDX-License-Identifier: MIT
 *
 * test_sync_shared.c — the process-wide table of shared mappings
 * (tracers/sync_shared.c, compiled in here with the collector's calls
 * stubbed; the maps file is the real one):
 * - a fork while another thread reads /proc/self/maps leaves the child a
 *   table it fills again at its first miss, not one marked "being read"
 *   forever (the build before read the file at every lookup of a range new
 *   to the thread, for the child's life: 6 reads for 6 ranges);
 * - a shared range unmapped since the table was read, its address taken by
 *   a larger private mapping, gives an object there no key (the build
 *   before gave it the old shared memory's key).
 */
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "testhelp.h"

static _Atomic int reads, hold, in_read;

long tally__read_file_each(const char *path, char *buf, unsigned long len,
			   int (*chunk)(void *arg, const char *buf, unsigned long n), void *arg);
long tally__read_file_each(const char *path, char *buf, unsigned long len,
			   int (*chunk)(void *arg, const char *buf, unsigned long n), void *arg)
{
	atomic_fetch_add(&reads, 1);
	atomic_store(&in_read, 1);
	while (atomic_load(&hold))
		sched_yield();
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	ssize_t n;
	while ((n = read(fd, buf, len)) > 0)
		if (chunk(arg, buf, (unsigned long)n))
			break;
	close(fd);
	return n < 0 ? -1 : 0;
}

#include "tracers/sync_shared.c"

void tally__count(int counter, uint64_t n)
{
	(void)counter, (void)n;
}

void tally__log(const char *key, const char *value)
{
	(void)key, (void)value;
}

int tally__trace_event(int kind, uint32_t type, void *rec, uint32_t len, uint64_t ra, uint64_t sp, uint64_t fp)
{
	(void)kind, (void)type, (void)rec, (void)len, (void)ra, (void)sp, (void)fp;
	return 0;
}

#define NSHARED 6
static char *shared[NSHARED];       /* shared anonymous pages, a gap between */

static void map_shared(void)
{
	char *p = mmap(NULL, 2 * NSHARED * 4096, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	for (int i = 0; i < NSHARED; i++)
		shared[i] = mmap(p + 2 * i * 4096, 4096, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS | MAP_FIXED,
				 -1, 0);
}

static void *key_of(void *object)
{
	struct exp_sync_key k;

	return sync_shared_key(object, &k) ? object : NULL;
}

static void fork_mid_read_child_reads_once(void)
{
	pthread_t th;

	atomic_store(&hold, 1);
	CHECK(pthread_create(&th, NULL, key_of, shared[0] + 64) == 0);
	while (!atomic_load(&in_read))
		sched_yield();
	pid_t pid = fork();
	if (pid == 0) {
		/* Only this thread here: the read under way never ends. */
		atomic_store(&hold, 0);
		atomic_store(&reads, 0);
		int bad = 0;
		for (int i = 0; i < NSHARED; i++) {
			struct exp_sync_key k;
			bad += !sync_shared_key(shared[i] + 64, &k) || k.offset != 64;
		}
		_exit(bad ? 100 : atomic_load(&reads));
	}
	CHECK(pid > 0);
	int status = 0;
	CHECK(waitpid(pid, &status, 0) == pid);
	atomic_store(&hold, 0);
	void *got = NULL;
	pthread_join(th, &got);
	CHECK(got == shared[0] + 64);
	CHECKF(WIFEXITED(status) && WEXITSTATUS(status) == 1,
	       "the child read /proc/self/maps %d times for %d ranges (100: a wrong key)",
	       WIFEXITED(status) ? WEXITSTATUS(status) : -1, NSHARED);
}

static void unmapped_range_gives_no_key(void)
{
	pthread_t th;
	void *got = NULL;

	/* The table holds shared[3] (read whole by the thread above). */
	CHECK(pthread_create(&th, NULL, key_of, shared[3] + 64) == 0);
	pthread_join(th, &got);
	CHECK(got == shared[3] + 64);
	/* Unmapped, its address taken by a larger private mapping (an arena):
	 * the gaps either side with it. */
	CHECK(munmap(shared[3], 4096) == 0);
	CHECK(mmap(shared[3] - 4096, 3 * 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1,
		   0) == shared[3] - 4096);
	/* A thread that never met it: its own ranges empty. */
	CHECK(pthread_create(&th, NULL, key_of, shared[3] + 64) == 0);
	pthread_join(th, &got);
	CHECKF(got == NULL, "a private page at a shared range's old address got the shared key");
}

int main(void)
{
	map_shared();
	RUN(fork_mid_read_child_reads_once);
	RUN(unmapped_range_gives_no_key);
	TEST_EXIT();
}
