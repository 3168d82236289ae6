/* SPDX-License-Identifier: MIT
 *
 * col_init.c — starting the collector in a process: options, the experiment
 * directory and its files, the main thread, and the end of the process.
 *
 * `tally record` runs the target with LD_PRELOAD=libtally-collector.so and
 *   TALLY_EXP      the experiment directory to write (absolute)
 *   TALLY_OPTIONS  hz=N,heap=0|1,sync=NS|-1,io=0|1,follow=0|1,frames=N
 * Our constructor, or whichever interposer runs first, calls
 * col_ensure_init().  A process that inherited the variables from a parent
 * process writes a sub-experiment instead (col_descend.c decides its name).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "collector/col_descend.h"
#include "collector/col_internal.h"
#include "collector/col_objects.h"
#include "collector/col_sys.h"

struct col_process col_proc = { .dirfd = -1, .log_fd = -1 };

static _Atomic int init_state;          /* 0 not yet, 1 running, 2 done */
static uint64_t local_counters[EXP_CTR_COUNT_];

void col_count_sigsafe(enum exp_counter c, uint64_t n)
{
	_Atomic uint64_t *ctr = col_proc.counters;

	if (ctr)
		atomic_fetch_add_explicit(&ctr[c], n, memory_order_relaxed);
}

static uint64_t parse_u64(const char *s)
{
	return strtoull(s, NULL, 10);
}

static void parse_options(const char *s, struct col_options *o)
{
	o->hz = 1000;
	o->heap = false;
	o->sync_ns = -1;
	o->io = false;
	o->follow = true;
	o->max_frames = EXP_MAX_FRAMES;
	while (s && *s) {
		const char *eq = strchr(s, '='), *end = strchr(s, ',');
		if (!end)
			end = s + strlen(s);
		if (eq && eq < end) {
			size_t k = (size_t)(eq - s);
			const char *v = eq + 1;
			if (k == 2 && !strncmp(s, "hz", 2))
				o->hz = (uint32_t)parse_u64(v);
			else if (k == 4 && !strncmp(s, "heap", 4))
				o->heap = *v == '1';
			else if (k == 4 && !strncmp(s, "sync", 4))
				o->sync_ns = strtoll(v, NULL, 10);
			else if (k == 2 && !strncmp(s, "io", 2))
				o->io = *v == '1';
			else if (k == 6 && !strncmp(s, "follow", 6))
				o->follow = *v == '1';
			else if (k == 6 && !strncmp(s, "frames", 6))
				o->max_frames = (uint32_t)parse_u64(v);
		}
		s = *end ? end + 1 : end;
	}
	if (o->max_frames < 1 || o->max_frames > EXP_MAX_FRAMES)
		o->max_frames = EXP_MAX_FRAMES;
	if (o->hz > 100000)
		o->hz = 100000;
}

static int open_counters(void)
{
	int fd = col_sys_openat(col_proc.dirfd, "counters.dat", O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	struct exp_file_header h;

	if (fd < 0)
		return -errno;
	memset(&h, 0, sizeof(h));
	memcpy(h.magic, EXP_MAGIC, 8);
	h.version = EXP_FORMAT_VERSION;
	h.block_bytes = 4096;
	h.header_bytes = EXP_HEADER_BYTES;
	h.pid = (uint32_t)col_proc.pid;
	h.mono_ns = col_proc.start_ns;
	int rc = fallocate(fd, 0, 0, EXP_COUNTERS_BYTES) == 0 &&
		 col_sys_pwrite(fd, &h, sizeof(h), 0) == sizeof(h) ? 0 : -1;
	void *p = rc == 0 ? mmap(NULL, EXP_COUNTERS_BYTES, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0)
			  : MAP_FAILED;
	col_sys_close(fd);
	col_proc.counters = p == MAP_FAILED ? (_Atomic uint64_t *)local_counters
					    : (_Atomic uint64_t *)((char *)p + EXP_HEADER_BYTES);
	return p == MAP_FAILED ? -1 : 0;
}

/* Open this process's files in col_proc.dir.  Returns 0 or -errno. */
int col_open_experiment(void)
{
	static const struct { enum exp_file_kind kind; const char *name; } files[] = {
		{ EXP_FILE_SAMPLES, "samples.dat" }, { EXP_FILE_STACKS, "stacks.dat" },
		{ EXP_FILE_MAPS, "maps.dat" },       { EXP_FILE_THREADS, "threads.dat" },
		{ EXP_FILE_HEAP, "heap.dat" },       { EXP_FILE_SYNC, "sync.dat" },
		{ EXP_FILE_IO, "io.dat" },
	};

	for (int i = 0; i < EXP_FILE_COUNT_; i++)
		col_proc.file[i].fd = -1;
	col_proc.dirfd = col_sys_openat(AT_FDCWD, col_proc.dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC, 0);
	if (col_proc.dirfd < 0)
		return -errno;
	col_proc.log_fd = col_sys_openat(col_proc.dirfd, "log.txt",
					 O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
	open_counters();
	for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		enum exp_file_kind k = files[i].kind;
		if ((k == EXP_FILE_SAMPLES && !col_proc.opt.hz) ||
		    (k == EXP_FILE_HEAP && !col_proc.opt.heap) ||
		    (k == EXP_FILE_SYNC && col_proc.opt.sync_ns == -1) ||
		    (k == EXP_FILE_IO && !col_proc.opt.io))
			continue;
		int rc = exp_writer_open(&col_proc.file[k], col_proc.dirfd, files[i].name, k,
					 (uint32_t)col_proc.pid);
		if (rc < 0) {
			col_log_sigsafe("error", files[i].name);
			return rc;
		}
	}
	return 0;
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
	col_log_u64_sigsafe("start.mono_ns", col_proc.start_ns);
	if (col_proc.opt.hz)
		col_log_u64_sigsafe("clock.hz", col_proc.opt.hz);
	col_log_u64_sigsafe("max-frames", col_proc.opt.max_frames);
}

/* Start collecting in this process, from the inherited environment. */
static void start(void)
{
	const char *dir = getenv("TALLY_EXP");

	if (!dir || !*dir || col_proc.active)
		return;
	col_proc.pid = getpid();
	col_time_init();
	col_proc.start_ns = col_now_ns_sigsafe();
	parse_options(getenv("TALLY_OPTIONS"), &col_proc.opt);
	/* Passed on to exec'd programs even when they get a cleaned environment. */
	const char *v = getenv("LD_PRELOAD");
	snprintf(col_proc.preload, sizeof(col_proc.preload), "%s", v ? v : "");
	v = getenv("TALLY_OPTIONS");
	snprintf(col_proc.options, sizeof(col_proc.options), "%s", v ? v : "");
	if (col_descend_place(dir) != 0)
		return;
	if (!col_proc.opt.follow)
		col_descend_stop_following();
	if (col_open_experiment() != 0)
		return;
	col_stacks_init();
	col_proc.active = true;
	if (col_proc.opt.hz)
		col_clock_install_handler();
	col_thread_attach(0, 0);
	col_log_start(col_proc.lineage[0] ? "exec" : "tally record");
	col_objects_init();
	col_descend_install();
}

int col_start_here(const char *dir)
{
	static atomic_flag once = ATOMIC_FLAG_INIT;

	if (col_proc.active)
		return 0;
	if (atomic_flag_test_and_set(&once))
		return -1;
	setenv("TALLY_EXP", dir, 1);
	start();
	return col_proc.active ? 0 : -1;
}

bool col_ready(void)
{
	return atomic_load_explicit(&init_state, memory_order_acquire) == 2;
}

void col_ensure_init(void)
{
	int expected = 0;

	if (atomic_load_explicit(&init_state, memory_order_acquire) == 2)
		return;
	if (!atomic_compare_exchange_strong(&init_state, &expected, 1))
		return;     /* done, or running in this thread (a nested call) or another */
	start();
	atomic_store_explicit(&init_state, 2, memory_order_release);
}

__attribute__((constructor(101))) static void col_constructor(void)
{
	col_ensure_init();
}

__attribute__((destructor)) static void col_destructor(void)
{
	if (!col_proc.active || col_proc.pid != getpid())
		return;
	col_log_u64_sigsafe("end.mono_ns", col_now_ns_sigsafe());
	col_thread_detach();
}
