/* SPDX-License-Identifier: MIT
 *
 * col_control.c — recording off and on: col_proc.paused holds one bit per
 * reason (enum exp_pause_reason) and recording is on when none is set.
 * Every reader of the state (the clock's handler, the states and counter
 * handlers, the tracers through col_api.c) asks col_control_paused_sigsafe,
 * which also applies what became due since the last look:
 *   - --delay and --duration: times from the launch (TALLY_OPTIONS
 *     launch=), as at most two edges, the next one in `edge_ns`; whoever
 *     first sees it due applies it (compare-and-swap), at the edge's time;
 *   - --control: the shared control page (format/exp_launch.h) of the
 *     founder's directory; a new `seq` is applied by whoever sees it first.
 * The toggle signal's handler flips its bit directly; tally_pause() and
 * tally_resume() set and clear theirs (col_api.c).  Each change is a log
 * line "control: TIME_NS off|on REASON CPU_NS" (the analyzer's gaps).
 *
 * Called from the clock's signal handler, from interposers on any thread,
 * and once at start-up (col_control_init).  No locks, no allocation.
 * Workload: with nothing watched, two relaxed loads of one line per sample
 * or traced event, inline (col_control.h); a clock read while an edge is
 * pending.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <string.h>
#include <sys/mman.h>

#include "collector/col_control.h"
#include "collector/col_files.h"
#include "collector/col_log.h"
#include "collector/col_signal.h"
#include "collector/col_state.h"
#include "collector/col_sys.h"
#include "collector/col_time.h"

static uint64_t delay_end_ns;            /* launch + --delay; 0: none */
static uint64_t duration_end_ns;         /* delay_end + --duration; 0: none */
static _Atomic uint64_t edge_ns;         /* the next of the two still to apply; 0: none */
static _Atomic bool over;                /* --duration has ended */
static struct exp_control_page *page;    /* --control: mapped at start, never unmapped */
static _Atomic uint32_t page_seen;       /* the page's seq last applied */
static _Atomic bool sig_released;        /* the program took the toggle signal */

bool col_control_set_sigsafe(enum exp_pause_reason why, bool off, uint64_t time_ns)
{
	int bit = 1 << why;
	int old = off ? atomic_fetch_or(&col_proc.paused, bit) : atomic_fetch_and(&col_proc.paused, ~bit);
	bool was = (old & bit) != 0;
	char line[64];

	if (was != off) {
		int n = col_fmt_u64_sigsafe(line, time_ns);
		const char *tail = off ? " off " : " on ";
		const char *name = exp_pause_name(why);
		size_t t = strlen(tail), k = strlen(name);
		memcpy(line + n, tail, t);
		memcpy(line + n + t, name, k);
		n += (int)(t + k);
		line[n++] = ' ';
		col_fmt_u64_sigsafe(line + n, col_process_cputime_ns_sigsafe());
		col_log_sigsafe(EXP_LOG_CONTROL, line);
	}
	return was;
}

/* Apply the --delay / --duration edges due at `now`. */
static void apply_edges(uint64_t now)
{
	for (;;) {
		uint64_t e = atomic_load(&edge_ns);
		if (!e || now < e)
			return;
		uint64_t next = e == delay_end_ns && duration_end_ns > e ? duration_end_ns : 0;
		if (!atomic_compare_exchange_strong(&edge_ns, &e, next))
			continue;                  /* another thread applied it */
		if (e == delay_end_ns)
			col_control_set_sigsafe(EXP_PAUSE_DELAY, false, e);
		if (e == duration_end_ns) {
			atomic_store(&over, true);
			col_control_set_sigsafe(EXP_PAUSE_DURATION, true, e);
		}
	}
}

/* Apply a change of the control page not yet applied. */
static void apply_page(void)
{
	uint32_t seq = atomic_load_explicit(&page->seq, memory_order_acquire);
	uint32_t seen = atomic_load_explicit(&page_seen, memory_order_relaxed);

	if (seq == seen || !atomic_compare_exchange_strong(&page_seen, &seen, seq))
		return;
	col_control_set_sigsafe(EXP_PAUSE_CONTROL, atomic_load(&page->off) != 0,
				atomic_load(&page->time_ns));
}

bool col_control_paused_watched_sigsafe(uint64_t now_ns)
{
	if (atomic_load_explicit(&edge_ns, memory_order_relaxed))
		apply_edges(now_ns ? now_ns : col_now_ns_sigsafe());
	if (page)
		apply_page();
	return atomic_load_explicit(&col_proc.paused, memory_order_relaxed) != 0;
}

bool col_control_over_sigsafe(void)
{
	return atomic_load_explicit(&over, memory_order_relaxed);
}

/* The toggle signal: flips its bit; once the program has a handler of its
 * own for it, the signal is passed on to that instead. */
static void on_toggle(int sig, siginfo_t *si, void *uc)
{
	int saved_errno = errno;

	if (atomic_load(&sig_released)) {
		col_signal_forward(sig, si, uc);
	} else {
		bool off = !(atomic_load(&col_proc.paused) & (1 << EXP_PAUSE_SIGNAL));
		col_control_set_sigsafe(EXP_PAUSE_SIGNAL, off, col_now_ns_sigsafe());
	}
	errno = saved_errno;
}

void col_control_signal_set(int sig)
{
	struct sigaction *a = col_signal_disposition(sig);
	char line[128];

	if (!col_proc.opt.toggle_sig || sig != (int)col_proc.opt.toggle_sig ||
	    !((a->sa_flags & SA_SIGINFO) ? a->sa_sigaction != NULL
					 : a->sa_handler != SIG_DFL && a->sa_handler != SIG_IGN) ||
	    atomic_exchange(&sig_released, true))
		return;
	int n = col_fmt_u64_sigsafe(line, col_now_ns_sigsafe());
	const char *tail = " the program set a handler of its own for the toggle signal: it is "
			   "the program's from then on, and recording no longer toggles";
	memcpy(line + n, tail, strlen(tail) + 1);
	col_log_sigsafe("control.signal-taken", line);
	col_control_set_sigsafe(EXP_PAUSE_SIGNAL, false, col_now_ns_sigsafe());
}

/* Map the founder's control page; NULL (logged) if it cannot be. */
static struct exp_control_page *map_page(void)
{
	/* Mapped aside when other threads of the program may open meanwhile
	 * (an attached process). */
	int err;
	struct exp_control_page *p = col_files_map_founder(EXP_CONTROL_NAME, sizeof(struct exp_control_page), &err);
	if (!p || p->magic != EXP_CONTROL_MAGIC) {
		col_log_error_sigsafe(EXP_CONTROL_NAME, p ? EINVAL : err, "--control has no effect in this process");
		if (p)
			col_sys_munmap(p, sizeof(struct exp_control_page));
		return NULL;
	}
	return p;
}

void col_control_init(void)
{
	const struct exp_launch_options *o = &col_proc.opt;
	uint64_t now = col_proc.start_ns;

	if (o->launch_ns && (o->delay_ns || o->duration_ns)) {
		delay_end_ns = (uint64_t)o->launch_ns + (uint64_t)o->delay_ns;
		duration_end_ns = o->duration_ns ? delay_end_ns + (uint64_t)o->duration_ns : 0;
		if (o->delay_ns && now < delay_end_ns) {
			col_control_set_sigsafe(EXP_PAUSE_DELAY, true, now);
			atomic_store(&edge_ns, delay_end_ns);
			atomic_store(&col_proc.control_watch, true);
		} else if (duration_end_ns && now < duration_end_ns) {
			atomic_store(&edge_ns, duration_end_ns);
			atomic_store(&col_proc.control_watch, true);
		} else if (duration_end_ns) {
			atomic_store(&over, true);
			col_control_set_sigsafe(EXP_PAUSE_DURATION, true, now);
		}
	}
	if (o->toggle_sig && o->toggle_sig < NSIG) {
		struct sigaction sa, prev;
		memset(&sa, 0, sizeof(sa));
		sa.sa_sigaction = on_toggle;
		sa.sa_flags = SA_SIGINFO | SA_RESTART;
		sigemptyset(&sa.sa_mask);
		if (col_signal_owned((int)o->toggle_sig))
			col_log_sigsafe("warning", "--toggle-signal: the collector uses that signal itself: no toggling");
		else if (col_sigaction_real((int)o->toggle_sig, &sa, &prev) != 0)
			col_log_error_sigsafe("--toggle-signal", errno, "no toggling");
		else
			col_signal_take((int)o->toggle_sig, &prev);
	}
	if (o->control && (page = map_page()) != NULL) {
		uint32_t seq = atomic_load_explicit(&page->seq, memory_order_acquire);
		atomic_store(&page_seen, seq);
		atomic_store(&col_proc.control_watch, true);
		if (atomic_load(&page->off))
			col_control_set_sigsafe(EXP_PAUSE_CONTROL, true, now);
	}
}

void col_control_log_state(void)
{
	int bits = atomic_load(&col_proc.paused);

	for (int r = 0; r < EXP_PAUSE_COUNT_; r++)
		if (bits & (1 << r)) {
			atomic_fetch_and(&col_proc.paused, ~(1 << r));
			col_control_set_sigsafe((enum exp_pause_reason)r, true, col_proc.start_ns);
		}
}
