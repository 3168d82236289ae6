/* SPDX-License-Identifier: MIT
 *
 * col_files.c — the experiment's files of this process (see col_files.h).
 *
 * Opened at start (col_init.c) and again in a fork child (col_descend.c);
 * records are appended from any thread and from the signal handler, through
 * the thread's own cursor (format/exp_write.h).  The counters live in
 * counters.dat, mapped shared, so they survive a SIGKILL; if it cannot be
 * mapped they are kept in memory and lost with the process.  Sigsafe file
 * (col_write_sigsafe runs in the signal handler).
 */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "collector/col_files.h"
#include "collector/col_log.h"
#include "collector/col_state.h"
#include "collector/col_sys.h"
#include "collector/col_time.h"
#include "format/exp_launch.h"

static uint64_t local_counters[EXP_CTR_COUNT_];

/* Map counters.dat; if it cannot be, the counters live in memory, lost with
 * the process, and the log says so. */
static int open_counters(void)
{
	int fd = col_sys_openat(col_proc.dirfd, EXP_COUNTERS_NAME, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	struct exp_file_header h;

	if (fd < 0) {
		col_proc.counters = (_Atomic uint64_t *)local_counters;
		col_log_error_sigsafe(EXP_COUNTERS_NAME, errno, "loss counters kept in memory only");
		return -1;
	}
	memset(&h, 0, sizeof(h));
	memcpy(h.magic, EXP_MAGIC, 8);
	h.version = EXP_FORMAT_VERSION;
	h.block_bytes = 4096;
	h.header_bytes = EXP_HEADER_BYTES;
	h.pid = (uint32_t)col_proc.pid;
	h.mono_ns = col_proc.start_ns;
	int rc = col_sys_fallocate(fd, 0, 0, EXP_COUNTERS_BYTES) == 0 &&
		 col_sys_pwrite(fd, &h, sizeof(h), 0) == sizeof(h) ? 0 : -1;
	void *p = rc == 0 ? col_sys_mmap(NULL, EXP_COUNTERS_BYTES, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0)
			  : MAP_FAILED;
	int e = errno;
	col_sys_close(fd);
	if (p == MAP_FAILED)
		col_log_error_sigsafe(EXP_COUNTERS_NAME, e, "loss counters kept in memory only");
	col_proc.counters = p == MAP_FAILED ? (_Atomic uint64_t *)local_counters
					    : (_Atomic uint64_t *)((char *)p + EXP_HEADER_BYTES);
	return p == MAP_FAILED ? -1 : 0;
}

/* Does this process open the record file of `kind` at start?  (A new file
 * kind is opened here when its option asks for it, or on first use.) */
static bool wanted(enum exp_file_kind k)
{
	switch (k) {
	case EXP_FILE_STACKS:
	case EXP_FILE_MAPS:
	case EXP_FILE_THREADS: return true;
	case EXP_FILE_SAMPLES: return col_proc.opt.hz != 0;
	case EXP_FILE_HEAP: return col_proc.opt.heap;
	case EXP_FILE_SYNC: return col_proc.opt.sync_ns != -1;
	case EXP_FILE_IO: return col_proc.opt.io;
	case EXP_FILE_MPI: return col_proc.opt.mpi;
	default: return false;     /* arcs.dat: on first use (col_api.c) */
	}
}

int col_open_experiment(void)
{
	for (int i = 0; i < EXP_FILE_COUNT_; i++)
		col_proc.file[i].fd = -1;
	col_proc.dirfd = col_sys_openat(AT_FDCWD, col_proc.dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC, 0);
	if (col_proc.dirfd < 0)
		return -errno;
	col_proc.log_fd = col_sys_openat(col_proc.dirfd, EXP_LOG_NAME,
					 O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
	open_counters();
	for (int k = 1; k < EXP_FILE_COUNT_; k++) {
		const char *name = exp_file_name((enum exp_file_kind)k);
		if (!name || !wanted((enum exp_file_kind)k))
			continue;
		int rc = exp_writer_open(&col_proc.file[k], col_proc.dirfd, name, (enum exp_file_kind)k,
					 (uint32_t)col_proc.pid);
		if (rc < 0) {
			col_log_error_sigsafe(name, rc, "not collecting");
			return rc;
		}
	}
	return 0;
}

void col_close_files(void)
{
	for (int i = 0; i < EXP_FILE_COUNT_; i++)
		exp_writer_close(&col_proc.file[i]);
	if (col_proc.log_fd >= 0)
		col_sys_close(col_proc.log_fd);
	if (col_proc.dirfd >= 0)
		col_sys_close(col_proc.dirfd);
	col_proc.log_fd = col_proc.dirfd = -1;
}

void col_log_start(const char *created_by)
{
	char exe[1024];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);

	exe[n > 0 ? n : 0] = 0;
	col_log_u64_sigsafe("pid", (uint64_t)col_proc.pid);
	col_log_u64_sigsafe("ppid", (uint64_t)getppid());
	col_log_sigsafe("exe", exe);
	col_log_sigsafe("lineage", col_proc.lineage[0] ? col_proc.lineage : "founder");
	col_log_sigsafe("created-by", created_by);
	if (col_proc.rank >= 0)
		col_log_u64_sigsafe("rank", (uint64_t)col_proc.rank);
	if (col_proc.rank_from)
		col_log_sigsafe("rank.from", col_proc.rank_from);
	col_log_u64_sigsafe("start.mono_ns", col_proc.start_ns);
	/* What the process ran before the collector started: not sampled. */
	col_log_u64_sigsafe("cpu.start_ns", col_process_cputime_ns_sigsafe());
	if (col_proc.opt.hz)
		col_log_u64_sigsafe("clock.hz", col_proc.opt.hz);
	col_log_u64_sigsafe("max-frames", col_proc.opt.max_frames);
}

int col_write_sigsafe(struct col_thread *t, enum exp_file_kind file, uint32_t type,
		      const void *rec, uint32_t len)
{
	if (exp_record_append_sigsafe(&col_proc.file[file], &t->cursor[file], type, rec, len) == 0)
		return 0;
	col_count_sigsafe(file == EXP_FILE_SAMPLES ? EXP_CTR_LOST_BUFFER : EXP_CTR_LOST_EVENTS, 1);
	return -1;
}
