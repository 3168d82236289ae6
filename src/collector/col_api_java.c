/* SPDX-License-Identifier: MIT
 *
 * col_api_java.c — what tally's JVMTI agent (libtally-jvmti.so, src/jvmti/)
 * asks of the collector: the tally__java_* functions of col_export.h.  The
 * agent calls them from the JVM's threads, in its JVMTI events (thread
 * start, compiled code, object allocation) and from its naming thread;
 * all are normal context.
 */
#include <errno.h>
#include <stdatomic.h>
#include <string.h>

#include "collector/col_control.h"
#include "collector/col_export.h"
#include "collector/col_files.h"
#include "collector/col_init.h"
#include "collector/col_java.h"
#include "collector/col_log.h"
#include "collector/col_real.h"
#include "collector/col_stacks.h"
#include "collector/col_state.h"
#include "collector/col_thread.h"
#include "collector/col_time.h"

static atomic_flag code_lock = ATOMIC_FLAG_INIT;

COL_API int tally__java_start(void *asgct)
{
	col_ensure_init();
	if (!col_proc.active || !col_proc.opt.java || !asgct)
		return 0;
	if (col_java_start(asgct) != 0) {
		col_log_error_sigsafe("java method table", errno, "no Java stacks");
		return 0;
	}
	col_log_sigsafe("java", "Java stacks from AsyncGetCallTrace");
	return 1;
}

COL_API void tally__java_anchor(int64_t env_offset, uint64_t sp_offset, uint64_t pc_offset)
{
	col_java_anchor(env_offset, sp_offset, pc_offset);
}

COL_API void tally__java_thread(void *env)
{
	col_java_thread(col_thread_self_sigsafe(), env);
}

COL_API int tally__java_write(uint32_t type, const void *rec, uint32_t len)
{
	struct exp_file_writer *w = &col_proc.file[EXP_FILE_CODE];
	struct col_thread *t;

	if (!col_proc.active)
		return -1;
	while (atomic_flag_test_and_set_explicit(&code_lock, memory_order_acquire))
		;
	if (!exp_writer_ready(w) && !atomic_load(&w->full) && col_writer_open(EXP_FILE_CODE) < 0)
		atomic_store(&w->full, 1);
	atomic_flag_clear_explicit(&code_lock, memory_order_release);
	if (!(t = col_enter())) {
		col_count_sigsafe(EXP_CTR_JAVA_LOST, 1);
		return -1;
	}
	int rc = col_write_sigsafe(t, EXP_FILE_CODE, type, rec, len);
	col_leave(t);
	return rc;
}

COL_API void tally__java_interpreter(uint64_t lo, uint64_t hi)
{
	if (col_proc.active)
		col_java_interpreter(lo, hi);
}

COL_API void tally__java_method_ptr(uint64_t method_ptr, uint64_t method_id)
{
	if (col_proc.active)
		col_java_method_ptr(method_ptr, method_id);
}

COL_API void tally__java_interp_layout(uint64_t const_method_offset, uint64_t const_method_size,
				       uint64_t code_size_offset)
{
	col_java_interp_layout(const_method_offset, const_method_size, code_size_offset);
}

COL_API void tally__java_seen(const uint64_t *frames, int n)
{
	if (col_proc.active && col_java_prepare() == 0)
		col_java_seen_sigsafe(frames, n);
}

COL_API uint64_t tally__java_unnamed(size_t *pos)
{
	return col_java_unnamed(pos);
}

COL_API void tally__java_named(uint64_t method)
{
	col_java_named(method);
}

COL_API void tally__thread_name(const char *name, int java)
{
	if (name)
		col_thread_name(name, java ? EXP_THREAD_NAME_JAVA : 0);
}

COL_API int tally__java_event(int kind, uint32_t type, void *rec, uint32_t len,
			      const uint64_t *frames, int n)
{
	uint32_t *words = rec;
	struct col_thread *t;

	if (!col_proc.active || col_control_paused_sigsafe(0) ||
	    (kind != EXP_FILE_HEAP && kind != EXP_FILE_SYNC) || len < 24 || n < 1 ||
	    n > EXP_MAX_FRAMES || !(t = col_enter()))
		return -1;
	col_stamp_record_sigsafe(t, words);
	col_java_seen_sigsafe(frames, n);
	words[4] = col_stack_intern_sigsafe(t, frames, (uint32_t)n, 0);
	int rc = words[4] ? col_write_sigsafe(t, (enum exp_file_kind)kind, type, rec, len) : -1;
	col_leave(t);
	return rc;
}
