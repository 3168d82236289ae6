/* SPDX-License-Identifier: MIT
 *
 * col_psample.c — process samples over time (see col_psample.h): the Sun
 * analyzer's periodic "sample data".  No thread or timer of our own: the
 * first clock sample after each period takes one (so a process that sleeps
 * through periods has none for them: its memory and counts hardly change
 * meanwhile), and the process's start and end take one each.  The values:
 * resident memory from /proc/self/statm (read with raw system calls),
 * faults and context switches from getrusage(RUSAGE_SELF), the live heap
 * from col_heap.c under -H, the process's CPU clock.  Sigsafe file: called
 * from the clock's signal handler (col_sample.c) and from col_init.c.
 * Cost: ~10 us a sample, once a second by default.
 */
#include <fcntl.h>
#include <sys/auxv.h>
#include <sys/resource.h>
#include <unistd.h>

#include "collector/col_control.h"
#include "collector/col_fds.h"
#include "collector/col_files.h"
#include "collector/col_heap.h"
#include "collector/col_psample.h"
#include "collector/col_state.h"
#include "collector/col_sys.h"
#include "collector/col_time.h"

static _Atomic uint64_t next_ns;         /* when the next sample is due; 0: not started */

struct statm {
	char buf[128];
	long n;
};

/* Read /proc/self/statm into r (in the helper of col_fds_aside, whose
 * /proc/self shares the program's memory: the same counts). */
static int read_statm(void *p)
{
	struct statm *r = p;
	int fd = col_sys_openat(AT_FDCWD, "/proc/self/statm", O_RDONLY | O_CLOEXEC, 0);

	if (fd < 0)
		return -errno;
	r->n = col_sys_read(fd, r->buf, sizeof(r->buf) - 1);
	col_sys_close(fd);
	return 0;
}

/* Resident bytes from /proc/self/statm's second field; 0 if unreadable.
 * Read aside (col_fds_aside) while the program runs: an open here, once a
 * second in whatever thread the signal finds, would take the program's
 * lowest free number for an instant, and another thread's open()
 * meanwhile would get another.  In place at the process's start (nothing
 * of the program runs yet; a clone there would cost every process). */
static uint64_t rss_bytes_sigsafe(bool aside)
{
	struct statm r = { .n = -1 };

	if (aside)
		col_fds_use(read_statm, &r);
	else
		read_statm(&r);
	if (r.n <= 0)
		return 0;
	r.buf[r.n] = 0;
	const char *p = r.buf;
	while (*p && *p != ' ')
		p++;
	uint64_t pages = 0;
	for (p++; *p >= '0' && *p <= '9'; p++)
		pages = pages * 10 + (uint64_t)(*p - '0');
	return pages * (uint64_t)getauxval(AT_PAGESZ);
}

static void take(struct col_thread *t, uint64_t now_ns, bool aside)
{
	struct rusage ru;
	struct exp_proc_sample s = {
		.tid = (uint32_t)t->tid, .time_ns = now_ns, .rss_bytes = rss_bytes_sigsafe(aside),
		.heap_live_bytes = col_heap_live_sigsafe(), .cpu_ns = col_process_cputime_ns_sigsafe(),
	};

	if (col_syscall(SYS_getrusage, RUSAGE_SELF, &ru) == 0) {
		s.minflt = (uint64_t)ru.ru_minflt;
		s.majflt = (uint64_t)ru.ru_majflt;
		s.nvcsw = (uint64_t)ru.ru_nvcsw;
		s.nivcsw = (uint64_t)ru.ru_nivcsw;
	}
	col_write_sigsafe(t, EXP_FILE_THREADS, EXP_REC_PROC_SAMPLE, &s, sizeof(s));
}

void col_psample_tick_sigsafe(struct col_thread *t, uint64_t now_ns)
{
	uint64_t due = atomic_load_explicit(&next_ns, memory_order_relaxed);
	uint64_t period = (uint64_t)col_proc.opt.psample_ns;

	if (!due || now_ns < due || !period)
		return;
	/* Behind by more than a period (the process slept): the next is a
	 * period from now, not a burst of the missed ones. */
	uint64_t next = now_ns - due < period ? due + period : now_ns + period;
	if (atomic_compare_exchange_strong(&next_ns, &due, next))
		take(t, now_ns, true);
}

void col_psample_now_sigsafe(struct col_thread *t, uint64_t now_ns)
{
	uint64_t period = (uint64_t)col_proc.opt.psample_ns;

	if (!period || !t)
		return;
	uint64_t due = atomic_load(&next_ns);
	/* Armed even when recording is off at the start (--delay, a run
	 * started off): the ticks then resume with the recording; unarmed,
	 * such a run had no sample but its last. */
	if (!due)
		atomic_compare_exchange_strong(&next_ns, &due, now_ns + period);
	if (!col_control_paused_sigsafe(now_ns))
		take(t, now_ns, due != 0);    /* the start's in place */
}
