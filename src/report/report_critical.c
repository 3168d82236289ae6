/* SPDX-License-Identifier: MIT
 *
 * report_critical.c — `tally report --critical-path`: the functions on the
 * critical path across threads (model_critical.c), by their time on it
 * (inclusive: a function's callees' time is its; and exclusive),
 * with Amdahl's bound on the path: making a function twice as fast
 * shortens the run by at most half its time on the path (less if another
 * chain of work then becomes the longest).  Largest first.
 */
#include <stdlib.h>

#include "report/report.h"

static int cmp_ns(const void *a, const void *b)
{
	const struct model_crit *x = a, *y = b;

	if (x->ns != y->ns)
		return x->ns < y->ns ? 1 : -1;
	return x->func < y->func ? -1 : x->func > y->func;
}

/* Why a wait of each kind can be on the path with no waker known (its time
 * stays the waiter's): the view says so for each kind that has any. */
static const struct {
	const char *what, *why;
} unknown_causes[MODEL_CRIT_KINDS] = {
	[EXP_SYNC_MUTEX] = { "mutex", "its first contention, or a holder the history lost" },
	[EXP_SYNC_RWLOCK_RD] = { "rwlock (read)", "rwlocks' holders are not recorded" },
	[EXP_SYNC_RWLOCK_WR] = { "rwlock (write)", "rwlocks' holders are not recorded" },
	[EXP_SYNC_COND] = { "condition variable", "no signal by another thread within it: a timeout, "
						  "or a signaller past the wakers' table" },
	[EXP_SYNC_SEM] = { "semaphore", "no post by another thread within it: a timeout, or a poster "
					"past the wakers' table" },
	[EXP_SYNC_BARRIER] = { "barrier", "initialized before tally's library was loaded, or past its "
					  "table (the log's sync.barriers)" },
	[EXP_SYNC_JOIN] = { "join", "no thread ended within it" },
	[EXP_SYNC_JAVA_MONITOR] = { "Java monitor", "monitors' holders are not recorded" },
	[EXP_SYNC_FUTEX] = { "futex", "no wake by another thread of this process within it: a "
				      "timeout, or a wake by another process" },
	[EXP_SYNC_CHILD] = { "child process", "no child process of the experiment ended within it: a child "
						"not recorded (outside mode, or lost), a wait that failed, "
						"or a recorded child whose end was not (it called _exit "
						"or was killed) and whose last record came before the "
						"wait: it may have ended then, or run on unrecorded" },
	[MODEL_CRIT_SHARED] = { "process-shared object", "an object in private memory, or released by no "
							 "recorded thread within the wait (a process not "
							 "recorded, a release glibc made inside a call "
							 "tally does not see, or a layout not as known): "
							 "its holder or waker may be another process, not "
							 "followed" },
	[MODEL_CRIT_CHILD_DONE] = { "child process, ended before", "the child it reaped had ended (its "
								   "end recorded) before the wait began: "
								   "the parent ran until then, and "
								   "the wait itself was the kernel's "
								   "reaping" },
	[MODEL_CRIT_READ] = { "pipe/socket read", "its writer's thread was not recorded (a process lost, "
						  "or a thread that started after the write's end)" },
	[MODEL_CRIT_WRITE] = { "write into a full channel", "its reader's thread was not recorded (a process "
							   "lost, or a thread that started after the read's end)" },
	[MODEL_CRIT_FD_WAIT] = { "poll/select/epoll", "no write by another thread into its "
						  "descriptors within it: a timeout, a signal, a write "
						  "by a process not recorded, or a descriptor no flow "
						  "follows" },
};

/* One line per kind of wait on the path with no known waker; then the
 * reaping of a child that had already ended, whose cause is known (it is
 * not in the total of the unknown: rev-model finding 11). */
static void unknown_waits(struct report_doc *d, const struct model *m)
{
	uint64_t all = 0;

	for (size_t k = 0; k < MODEL_CRIT_KINDS; k++)
		if (k != MODEL_CRIT_CHILD_DONE)
			all += m->crit_unknown_ns[k];
	if (all) {
		report_note(d, "Waits on the path whose waker is not known (the waiter's time): %.3f s.", all / 1e9);
		for (size_t k = 0; k < MODEL_CRIT_KINDS; k++)
			if (m->crit_unknown_ns[k] && k != MODEL_CRIT_CHILD_DONE)
				report_note(d, "  %s %.3f s: %s.",
					    unknown_causes[k].what ? unknown_causes[k].what : "other",
					    m->crit_unknown_ns[k] / 1e9,
					    unknown_causes[k].why ? unknown_causes[k].why : "not known");
	}
	uint64_t done = m->crit_unknown_ns[MODEL_CRIT_CHILD_DONE];
	if (done)
		report_note(d, "Waits on the path with no waker, their cause known (the waiter's time): %s %.3f s: %s.",
			    unknown_causes[MODEL_CRIT_CHILD_DONE].what, done / 1e9, unknown_causes[MODEL_CRIT_CHILD_DONE].why);
}

void report_critical(struct report_doc *d, const struct model *m, const struct report_opts *o)
{
	char buf[4096];

	if (!m->crit_procs || !m->ncrit) {
		report_note(d, "No critical path: record with -s (the path follows joins, the "
			       "holders of mutexes, the signallers of condition variables and "
			       "semaphores and the last arrivals at barriers from the end of the main "
			       "thread; with -i too, the writers into pipes, FIFOs, sockets and eventfds, "
			       "and into the descriptors of waits in poll, select and epoll).");
		return;
	}
	struct model_crit *r = malloc(m->ncrit * sizeof(*r));
	if (!r) {
		report_doc_fail(d, "the critical path");
		return;
	}
	for (size_t i = 0; i < m->ncrit; i++)
		r[i] = m->crit[i];
	qsort(r, m->ncrit, sizeof(*r), cmp_ns);
	report_note(d, "Critical path: %.3f s, the main thread's wall time %.3f s%s%s.", m->crit_path_ns / 1e9,
		    m->crit_wall_ns / 1e9, m->crit_procs > 1 ? " (experiments summed)" : "",
		    m->crit_cut ? "; the walk was cut short (a loop in the records)" : "");
	if (m->crit_stretch > 0 && m->crit_sched_threads)
		report_note(d, "Without --states: a running stretch's samples stand for at most their CPU "
			       "times their thread's ratio of CPU and wait for a CPU (the kernel's schedstat "
			       "at its end, or its running wall time if it never slept) to sampled CPU; the "
			       "rest is <off CPU> (asleep or blocked where no tracer looked: --states says "
			       "where)%s.",
			    m->crit_guess_threads ? "; for threads without either (no schedstat here, still running "
						    "at the end, or recorded by an older tally), as below" : "");
	if (m->crit_stretch > 0 && m->crit_guess_threads)
		report_note(d, "Without --states: a running stretch's samples stand for at most their CPU "
			       "times twice their thread's ratio of running wall time to CPU (at most 4 "
			       "times their process's, %s%.1f); the rest is <not sampled> (off the CPU, or not seen).",
			    m->crit_crossed ? "up to " : "", m->crit_stretch);
	if (m->crit_crossed)
		report_note(d, "The path crosses into %u other process%s of the experiment (through pipes, sockets, "
			       "FIFOs, waits for a child and process-shared mutexes and futexes).", m->crit_crossed, m->crit_crossed > 1 ? "es" : "");
	if (m->crit_outlived)
		report_note(d, "%u process%s ended after the main thread (by up to %.3f s): the path covers the "
			       "main thread's life, and their time after its end is on no path.",
			    m->crit_outlived, m->crit_outlived > 1 ? "es" : "", m->crit_outlived_ns / 1e9);
	unknown_waits(d, m);
	struct report_table *t = report_table_new("critical_path", "Critical path");
	report_col(t, "path", "Path s", COL_SEC);
	report_col(t, "path_pct", "%", COL_PCT);
	report_col(t, "path_excl", "Excl. s", COL_SEC);
	report_col(t, "waiting", "Waiting s", COL_SEC);
	report_col(t, "twice_as_fast", "2x faster: at most -s", COL_SEC);
	report_col(t, "name", "Name", COL_STR);
	for (size_t i = 0; i < m->ncrit && (!o->limit || i < o->limit); i++) {
		report_row(t);
		report_u64(t, r[i].ns);
		report_pct(t, report_pct_of(r[i].ns, m->crit_path_ns));
		report_u64(t, r[i].excl_ns);
		report_u64(t, r[i].wait_ns);
		report_u64(t, r[i].ns / 2);
		report_str(t, model_func_label(m, r[i].func, buf, sizeof(buf)));
	}
	free(r);
	report_table_emit(d, t);
}
