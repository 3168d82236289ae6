/* SPDX-License-Identifier: MIT
 *
 * col_api.c — what libtally-mcount.so asks of the collector (the tally__
 * functions: an internal interface between our two libraries, not for
 * programs).
 *
 * The mcount runtime keeps its per-thread arc tables in the experiment's
 * arcs.dat, created here on first use.  A program linked with -ltally-mcount
 * but started without `tally record` gets an experiment of its own,
 * tally.N.exp in the current directory, as gprof writes gmon.out there.
 * Called from normal context (the runtime's slow path), any thread.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "collector/col_control.h"
#include "collector/col_dyn.h"
#include "collector/col_export.h"
#include "collector/col_fds.h"
#include "collector/col_files.h"
#include "collector/col_init.h"
#include "collector/col_log.h"
#include "collector/col_real.h"
#include "collector/col_stacks.h"
#include "collector/col_state.h"
#include "collector/col_sys.h"
#include "collector/col_time.h"
#include "format/exp_launch.h"
#include "tally.h"

static atomic_flag arcs_lock = ATOMIC_FLAG_INIT;

COL_API int tally__collecting(void)
{
	col_ensure_init();
	return col_proc.active;
}

COL_API int tally__recording(void)
{
	return col_proc.active && !atomic_load_explicit(&col_proc.stopped, memory_order_relaxed) &&
	       !col_control_paused_sigsafe(0);
}

COL_API void *tally__arc_table(uint32_t nslots, uint32_t flags, uint64_t *mapped)
{
	struct exp_file_writer *w = &col_proc.file[EXP_FILE_ARCS];
	uint64_t len = sizeof(struct exp_arc_table) + (uint64_t)nslots * sizeof(struct exp_arc);
	size_t got;

	if (!col_proc.active || len > EXP_REC_LEN_MAX)
		return NULL;
	while (atomic_flag_test_and_set_explicit(&arcs_lock, memory_order_acquire))
		;
	if (!exp_writer_ready(w) && !atomic_load(&w->full) && col_writer_open(EXP_FILE_ARCS) < 0)
		atomic_store(&w->full, 1);
	atomic_flag_clear_explicit(&arcs_lock, memory_order_release);

	struct exp_arc_table *t = exp_large_reserve_sigsafe(w, (uint32_t)len, &got);
	if (!t)
		return NULL;
	t->tid = (uint32_t)col_sys_gettid();
	t->nslots = nslots;
	t->flags = flags;
	t->time_ns = col_now_ns_sigsafe();
	/* Empty slots are valid: the table is a record from now on. */
	exp_record_publish_sigsafe(t, EXP_REC_ARC_TABLE, (uint32_t)len);
	*mapped = got;
	return t;
}

COL_API void tally__arc_table_release(void *table, uint64_t mapped)
{
	exp_large_release_sigsafe(table, (size_t)mapped);
}

COL_API int64_t tally__trace_option(const char *which)
{
	col_ensure_init();
	if (!col_ready())
		return INT64_MIN;         /* starting up (an allocation of our own) */
	if (!col_proc.active)
		return -1;
	if (!strcmp(which, "heap"))     /* --data alone: the blocks' bounds only */
		return col_proc.opt.heap || col_proc.opt.data ? 1 : -1;
	if (!strcmp(which, "io"))
		return col_proc.opt.io ? 1 : -1;
	if (!strcmp(which, "mpi"))
		return col_proc.opt.mpi ? 1 : -1;
	if (!strcmp(which, "sync"))
		return col_proc.opt.sync_ns;
	if (!strcmp(which, "sync.holders"))
		return col_proc.opt.sync_ns != -1 && col_proc.opt.sync_holders ? 1 : -1;
	return -1;
}

COL_API int tally__trace_event(int kind, uint32_t type, void *rec, uint32_t len, uint64_t ra,
			       uint64_t sp, uint64_t fp)
{
	struct col_thread *t;
	uint32_t *words = rec;

	if (atomic_load_explicit(&col_proc.stopped, memory_order_relaxed)) {
		col_count_sigsafe(EXP_CTR_LOST_LIMIT, 1);     /* the size limit was reached */
		return -1;
	}
	if (col_control_paused_sigsafe(0) || !(t = col_enter()))
		return -1;
	col_stamp_record_sigsafe(t, words);
	if (ra)
		words[4] = col_stack_from(t, ra, sp, fp);
	int rc = -1;
	if (kind > 0 && kind < EXP_FILE_COUNT_ && len >= 24)
		rc = col_write_sigsafe(t, (enum exp_file_kind)kind, type, rec, len);
	col_leave(t);
	return rc;
}

COL_API uint32_t tally__trace_wait_begins(int kind, uint64_t ra, uint64_t sp, uint64_t fp)
{
	struct col_thread *t;

	if (kind <= 0 || kind >= EXP_FILE_COUNT_ || atomic_load_explicit(&col_proc.stopped, memory_order_relaxed) ||
	    col_control_paused_sigsafe(0) || !(t = col_enter()))
		return 0;
	col_write_room_sigsafe(t, (enum exp_file_kind)kind, 64);
	uint32_t id = col_stack_from(t, ra, sp, fp);
	col_leave(t);
	return id;
}

COL_API uint32_t tally__trace_stack(uint64_t ra, uint64_t sp, uint64_t fp, uint32_t *tid)
{
	struct col_thread *t;

	*tid = 0;
	if (atomic_load_explicit(&col_proc.stopped, memory_order_relaxed) ||
	    col_control_paused_sigsafe(0) || !(t = col_enter()))
		return 0;
	*tid = (uint32_t)t->tid;
	uint32_t id = col_stack_from(t, ra, sp, fp);
	col_leave(t);
	return id;
}

COL_API uint64_t tally__now(void)
{
	return col_now_ns_sigsafe();
}

COL_API void tally__count(int counter, uint64_t n)
{
	if (counter >= 0 && counter < EXP_CTR_COUNT_)
		col_count_sigsafe((enum exp_counter)counter, n);
}

COL_API void tally__log(const char *key, const char *value)
{
	col_log_sigsafe(key, value);
}

COL_API long tally__read_file(const char *path, char *buf, unsigned long len)
{
	return (long)col_fds_read(path, buf, (size_t)len);
}

COL_API long tally__read_file_each(const char *path, char *buf, unsigned long len,
				   int (*chunk)(void *arg, const char *buf, unsigned long n), void *arg)
{
	return col_fds_read_each(path, buf, (size_t)len, (int (*)(void *, const char *, size_t))chunk, arg);
}

COL_API void tally__on_thread_end(void (*fn)(void))
{
	for (size_t i = 0; i < sizeof(col_proc.thread_end) / sizeof(col_proc.thread_end[0]); i++) {
		void (*none)(void) = NULL;
		if (atomic_compare_exchange_strong(&col_proc.thread_end[i], &none, fn))
			return;
	}
}

COL_API void tally__on_futex(long (*fn)(long nr, const long a[6], uint64_t ra, uint64_t sp, uint64_t fp))
{
	atomic_store(&col_proc.futex_call, fn);
}

COL_API void tally__lost_arcs(uint64_t n)
{
	col_count_sigsafe(EXP_CTR_ARCS_LOST, n);
}

/* ---- include/tally.h --------------------------------------------------- */

COL_API int tally_collecting(void)
{
	col_ensure_init();
	return col_proc.active;
}

COL_API int tally_pause(void)
{
	return col_proc.active && !col_control_set_sigsafe(EXP_PAUSE_API, true, col_now_ns_sigsafe());
}

COL_API int tally_resume(void)
{
	return col_proc.active && col_control_set_sigsafe(EXP_PAUSE_API, false, col_now_ns_sigsafe());
}

COL_API void tally_marker(const char *name)
{
	char line[256];
	char num[24];

	if (!col_proc.active || !name)
		return;
	col_fmt_u64_sigsafe(num, col_now_ns_sigsafe());
	snprintf(line, sizeof(line), "%s %s", num, name);
	col_log_sigsafe("marker", line);
}

COL_API int tally_func_load(const char *name, const void *addr, size_t size,
			    const struct tally_line *lines)
{
	uint32_t pairs[256][2];
	uint32_t n = 0;

	col_ensure_init();
	if (!col_proc.active || !name || !addr || !size)
		return -1;
	for (; lines && n < 256 && lines[n].line; n++) {
		pairs[n][0] = lines[n].offset;
		pairs[n][1] = lines[n].line;
	}
	return col_dyn_func(EXP_DYN_API, col_now_ns_sigsafe(), (uint64_t)(uintptr_t)addr, size, name,
			    pairs, n, NULL);
}

COL_API int tally_func_unload(const void *addr)
{
	return col_proc.active ? col_dyn_unload((uint64_t)(uintptr_t)addr) : -1;
}

COL_API int tally__standalone_start(const char *why)
{
	char rel[64], dir[4096], cmd[2048];
	static atomic_flag once = ATOMIC_FLAG_INIT;

	if (col_proc.active)
		return 1;
	if (atomic_flag_test_and_set(&once) || getenv(EXP_ENV_EXP))
		return col_proc.active;
	if (exp_dir_create_next(rel, sizeof(rel)) != 0 || !realpath(rel, dir))
		return 0;
	/* The head of the log, as `tally record` would write it. */
	int fd = col_sys_openat(AT_FDCWD, "/proc/self/cmdline", O_RDONLY | O_CLOEXEC, 0);
	ssize_t n = fd >= 0 ? col_sys_read(fd, cmd, sizeof(cmd) - 1) : 0;
	if (fd >= 0)
		col_sys_close(fd);
	for (ssize_t i = 0; i < n - 1; i++)
		if (!cmd[i])
			cmd[i] = ' ';
	cmd[n > 0 ? n : 0] = 0;
	char head[2600];
	int len = snprintf(head, sizeof(head), "tally.format: %d\ncommand: %s\nstarted-by: %s\n",
			   EXP_FORMAT_VERSION, cmd, why);
	char logpath[4200];
	snprintf(logpath, sizeof(logpath), "%s/%s", dir, EXP_LOG_NAME);
	fd = col_sys_openat(AT_FDCWD, logpath, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
	if (fd >= 0) {
		col_sys_write(fd, head, (size_t)len);
		col_sys_close(fd);
	}
	if (col_start_here(dir) != 0)
		return 0;
	char msg[4200];
	len = snprintf(msg, sizeof(msg), "tally: recording this run in %s\n", rel);
	col_sys_write(2, msg, (size_t)len);
	return 1;
}
