/* SPDX-License-Identifier: MIT
 *
 * report_overview.c — the head of every report: what ran, how long, how it
 * ended, what was recorded and lost, and the sampled CPU time and the
 * collector's beside the CPU time the kernel accounted for the process (the
 * check on every total: sampled + collector ≈ kernel).
 */
#include <math.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

#include "format/exp_cost.h"
#include "model/model_pauses.h"
#include "report/report.h"
#include "report/report_units.h"

static uint64_t log_u64(const struct exp_proc *p, const char *key, bool *found)
{
	const char *v = exp_proc_log(p, key);

	if (found)
		*found = v != NULL;
	return v ? strtoull(v, NULL, 10) : 0;
}

static void how_it_ended(struct report_doc *d, const struct exp_proc *p)
{
	const char *st = exp_proc_log(p, "exit.status");
	const char *sig = exp_proc_log(p, "exit.signal");
	const char *att = exp_proc_log(p, "attach.end");

	if (att)
		report_kv(d, "ended", "Ended", "%s (attached: tally record -p)", att);
	else if (st)
		report_kv(d, "ended", "Ended", "exit status %s", st);
	else if (sig)
		report_kv(d, "ended", "Ended", "killed by signal %s", sig);
	else if (p->end_ns)
		report_kv(d, "ended", "Ended", "exited (status not recorded)");
	else
		report_kv(d, "ended", "Ended", "unknown: no end was recorded (still running, or killed)");
}

/* The durations of the collector's signal handlers over every thread that
 * ended (THREAD_COST records): one text line, and numbers in JSON/CSV. */
static void handler_costs(struct report_doc *d, const struct exp_experiment *exps, size_t nexps)
{
	uint64_t hist[EXP_COST_BUCKETS] = { 0 }, runs = 0, max = 0;

	for (size_t i = 0; i < nexps; i++)
		for (size_t j = 0; j < exps[i].nprocs; j++)
			for (size_t t = 0; t < exps[i].procs[j].nthreads; t++) {
				const struct exp_thread_ev *th = &exps[i].procs[j].threads[t];
				if (!th->handler_hist)
					continue;
				for (unsigned b = 0; b < EXP_COST_BUCKETS; b++)
					hist[b] += th->handler_hist[b];
				runs += th->handlers;
				if (th->handler_max_ns > max)
					max = th->handler_max_ns;
			}
	if (!runs)
		return;
	/* A quantile is its histogram bucket's middle: never above the largest
	 * run the threads measured. */
	uint64_t q50 = exp_cost_quantile(hist, 500), q99 = exp_cost_quantile(hist, 990);
	double p50 = (double)(max && q50 > max ? max : q50) / 1e3, p99 = (double)(max && q99 > max ? max : q99) / 1e3;
	report_kv_num(d, "handler_runs", "Handler", (double)runs,
		      "p50 %.1f us, p99 %.1f us, max %.1f us (%llu runs, CPU time each)", p50, p99,
		      (double)max / 1e3, (unsigned long long)runs);
	report_kv_data(d, "handler_p50_us", p50);
	report_kv_data(d, "handler_p99_us", p99);
	report_kv_data(d, "handler_max_us", (double)max / 1e3);
}

/* The size limit (-L), when an experiment reached it: when, and at what. */
static void size_limit(struct report_doc *d, const struct exp_experiment *exps, size_t nexps)
{
	for (size_t i = 0; i < nexps; i++) {
		const struct exp_proc *f = &exps[i].procs[0];
		uint64_t at = f->counters[EXP_CTR_LIMIT_NS];
		if (!at)
			continue;
		bool ok;
		uint64_t limit = log_u64(f, "size-limit", &ok);
		double s = at > f->start_ns ? (double)(at - f->start_ns) / 1e9 : 0;
		report_kv_num(d, "size_limit_reached_s", "Size limit", s,
			      "%.1f MiB reached at %.3f s: sampling and tracing stopped there, and "
			      "frees after it were not seen (lost.size-limit; -L raises it)",
			      (double)limit / (1 << 20), s);
	}
}

/* What could not be read: damaged places, stacks cut by them, records of
 * unknown types (exp_data.h). */
static void damage(struct report_doc *d, const struct exp_experiment *e)
{
	struct exp_damage dmg;
	size_t cut = 0, unknown = 0;

	exp_experiment_damage(e, &dmg);
	for (size_t j = 0; j < e->nprocs; j++) {
		cut += e->procs[j].cut_stacks;
		unknown += e->procs[j].unknown_records;
	}
	if (dmg.places)
		report_kv_num(d, "damaged_places", "Damaged", (double)dmg.places,
			      "%llu place%s, %llu bytes unread (first: %s; `tally check` lists them)",
			      (unsigned long long)dmg.places, dmg.places == 1 ? "" : "s",
			      (unsigned long long)dmg.bytes, dmg.first);
	if (cut)
		report_kv_num(d, "cut_stacks", "Cut stacks", (double)cut,
			      "%zu (their outer frames were in damaged records: shown truncated)", cut);
	if (unknown)
		report_kv_num(d, "unknown_records", "Unknown records", (double)unknown,
			      "%zu skipped (of types this tally does not know: written by a newer one?)",
			      unknown);
}

/* The threads the collector could not sample, as its logs name them (one
 * line each: "TID NAME: N us of CPU after its last sample ..."). */
static void unsampled_threads(struct report_doc *d, const struct exp_experiment *exps, size_t nexps)
{
	for (size_t i = 0; i < nexps; i++)
		for (size_t j = 0; j < exps[i].nprocs; j++) {
			const struct exp_proc *p = &exps[i].procs[j];
			for (size_t k = 0; k < p->nlog; k++)
				if (!strcmp(p->log[k].key, "thread.unsampled"))
					report_kv(d, "unsampled_thread", "Unsampled thread", "%s%s%s",
						  p->lineage[0] ? p->lineage : "", p->lineage[0] ? ": " : "",
						  p->log[k].value);
		}
}

static int by_name(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* Is `name`, or an image or descendant of it (name_...), among the sorted
 * lineages? */
static bool lineage_seen(const char **sorted, size_t n, const char *name)
{
	size_t len = strlen(name), lo = 0, hi = n;

	while (lo < hi) {                    /* the first lineage >= name */
		size_t mid = lo + (hi - lo) / 2;
		if (strcmp(sorted[mid], name) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	/* name itself, else name_... comes after any name0..name9 (a digit
	 * sorts before '_'): look past those. */
	for (size_t i = lo; i < n && !strncmp(sorted[i], name, len); i++)
		if (sorted[i][len] == 0 || sorted[i][len] == '_')
			return true;
	return false;
}

/* Whether experiment e was recorded following its children: its options
 * line says follow=0 when not (one without the line: assume so). */
static bool followed(const struct exp_experiment *e)
{
	const char *opts = e->nprocs ? exp_proc_log(&e->procs[0], "options") : NULL;
	const char *f = opts ? strstr(opts, "follow=") : NULL;
	while (f && f != opts && f[-1] != ',')
		f = strstr(f + 1, "follow=");
	return !f || strncmp(f + 7, "0", 1) != 0 || (f[8] != ',' && f[8] != 0);
}

/* Whether process p's log has the collector's error for the child it would
 * have named `suffix` ("_fN: errno E (fork child not profiled)",
 * col_descend.c): that child was not followed, and the log says why. */
static bool naming_failed(const struct exp_proc *p, const char *suffix)
{
	size_t n = strlen(suffix);

	for (size_t i = 0; i < p->nlog; i++)
		if (!strcmp(p->log[i].key, "error") && !strncmp(p->log[i].value, suffix, n) &&
		    p->log[i].value[n] == ':' && strstr(p->log[i].value, "fork child not profiled"))
			return true;
	return false;
}

/* Fork children that left nothing.  Each number a process gave a child
 * (its descendants counter, EXP_CTR_FORKS) names a fork child _fN, or the
 * image a spawned or exec'ing child became, _fN_x1.  A fork child's files
 * wait for its first write (docs/collector.md): one that ended by _exit or
 * a signal before its first sample or write, or was still running at the
 * end without having written, left neither.  Not counted: every child of an
 * experiment recorded with follow off (the options line says follow=0: none
 * was meant to be recorded), a child whose name the collector failed to make
 * (its "_fN: errno ... (fork child not profiled)" error line, said in the
 * log), and a process the reader left out (said on its own line): its
 * lineage is among the seen, so a lost process that was not a fork child
 * (an exec's image, _xN) takes nothing off the count. */
static void unrecorded_fork_children(struct report_doc *d, const struct exp_experiment *exps, size_t nexps)
{
	uint64_t missing = 0;
	char name[512];

	for (size_t i = 0; i < nexps; i++) {
		const struct exp_experiment *e = &exps[i];
		if (!followed(e))
			continue;
		uint64_t here = 0;
		size_t nseen = e->nprocs;
		const char **sorted = malloc((e->nprocs + e->nlost_lineages + 1) * sizeof(*sorted));
		if (!sorted)
			return;
		for (size_t j = 0; j < e->nprocs; j++)
			sorted[j] = e->procs[j].lineage ? e->procs[j].lineage : "";
		for (size_t j = 0; j < e->nlost_lineages; j++)
			sorted[nseen++] = e->lost_lineages[j];
		qsort(sorted, nseen, sizeof(*sorted), by_name);
		for (size_t j = 0; j < e->nprocs; j++) {
			const struct exp_proc *p = &e->procs[j];
			uint64_t forks = p->has_counters ? p->counters[EXP_CTR_FORKS] : 0;
			for (uint64_t k = 1; k <= forks && k <= 1000000; k++) {
				int len = snprintf(name, sizeof(name), "%s_f%llu", p->lineage ? p->lineage : "",
						   (unsigned long long)k);
				if (len > 0 && (size_t)len < sizeof(name) && !lineage_seen(sorted, nseen, name) &&
				    !naming_failed(p, name + strlen(p->lineage ? p->lineage : "")))
					here++;
			}
		}
		free(sorted);
		missing += here;
	}
	if (missing)
		report_kv_num(d, "fork_children_unrecorded", "Fork children", (double)missing,
			      "%llu not recorded (each ended before its first sample or write)",
			      (unsigned long long)missing);
}

/* The statistical accuracy of sampled shares (the Sun analyzer's "statistical
 * accuracy"): a share p of n samples is a binomial proportion, standard
 * error sqrt(p(1-p)/n), largest at p = 1/2.  Said once for the whole
 * profile, in points of share, with a plain warning when it is so large
 * that the shares mean little. */
/* Kernel frames at the switches out of a CPU (--states --kernel): how many
 * of the intervals off the CPU got the kernel's stack, or why none did. */
static void kernel_switches(struct report_doc *d, const struct exp_experiment *e)
{
	const struct exp_proc *f = &e->procs[0];
	const char *why = exp_proc_log(f, "kernel.switches");
	uint64_t matched = 0, unmatched = 0;
	char lost[96] = "";

	if (!why)
		return;
	if (strncmp(why, "recorded", 8)) {
		report_kv(d, "kernel_switches", "Kernel at switches", "%s", why);
		return;
	}
	for (size_t j = 0; j < e->nprocs; j++) {
		matched += e->procs[j].kswitch_matched;
		unmatched += e->procs[j].kswitch_unmatched;
	}
	if (f->kinfo.switches_lost)
		snprintf(lost, sizeof(lost), "; %llu switches lost by the kernel (its ring was full)",
			 (unsigned long long)f->kinfo.switches_lost);
	report_kv_num(d, "kernel_switches", "Kernel at switches", (double)matched,
		      "%llu of %llu intervals off the CPU with the kernel's stack where the thread left it "
		      "(%llu switches recorded%s)", (unsigned long long)matched,
		      (unsigned long long)(matched + unmatched), (unsigned long long)f->kernel_switches, lost);
}

/* Kernel frames (kernel.dat, `tally record`): what was recorded and what
 * could not be joined to a clock sample, or why there are none. */
static void kernel_frames(struct report_doc *d, const struct exp_experiment *exps, size_t nexps)
{
	for (size_t i = 0; i < nexps; i++) {
		const struct exp_proc *f = &exps[i].procs[0];
		const char *why = exp_proc_log(f, "kernel.frames");
		if (!why)
			continue;
		if (strncmp(why, "recorded", 8)) {
			report_kv(d, "kernel_frames", "Kernel frames", "%s", why);
			continue;
		}
		uint64_t unmatched = 0;
		char lost[96] = "", alone[96] = "";
		for (size_t j = 0; j < exps[i].nprocs; j++)
			unmatched += exps[i].procs[j].kernel_unmatched;
		if (f->kinfo.lost)
			snprintf(lost, sizeof(lost), ", %llu lost by the kernel (its ring was full)",
				 (unsigned long long)f->kinfo.lost);
		if (unmatched)
			snprintf(alone, sizeof(alone), ", %llu with no clock sample after them in their thread",
				 (unsigned long long)unmatched);
		report_kv_num(d, "kernel_frames", "Kernel frames", (double)f->kernel_ticks,
			      "%llu ticks in kernel mode (object [kernel]; --no-kernel hides them)%s%s",
			      (unsigned long long)f->kernel_ticks, lost, alone);
		kernel_switches(d, &exps[i]);
	}
}

/* The outside mode (src/outside/: a statically linked program, sampled by
 * `tally record` with perf events): named, with what the kernel lost. */
static void outside_mode(struct report_doc *d, const struct exp_experiment *exps, size_t nexps)
{
	for (size_t i = 0; i < nexps; i++) {
		const struct exp_proc *f = &exps[i].procs[0];
		const char *mode = exp_proc_log(f, "collector.mode");
		const char *lost = exp_proc_log(f, "outside.lost");
		const char *kt = exp_proc_log(f, "outside.kernel_ticks");
		if (!mode)
			continue;
		report_kv(d, "collector_mode", "Collector", "%s (sampled by tally record with perf events; "
			  "docs/static.md)%s%s%s%s", mode, lost && strcmp(lost, "0") ? "; " : "",
			  lost && strcmp(lost, "0") ? lost : "",
			  lost && strcmp(lost, "0") ? " samples lost by the kernel (its ring was full)" : "",
			  kt && !strncmp(kt, "not sampled", 11) ?
			  "; ticks in the kernel not sampled (perf_event_paranoid >= 2 without root or "
			  "CAP_PERFMON): system time is in no sample" : "");
	}
}

/* Where `record --data` took its data addresses from (cli_datasrc.c's
 * decision in the log: a precise memory event, or clock samples and why). */
static void data_source(struct report_doc *d, const struct exp_experiment *exps, size_t nexps)
{
	for (size_t i = 0; i < nexps; i++) {
		const char *why = exps[i].nprocs ? exp_proc_log(&exps[i].procs[0], "data.source") : NULL;
		if (why)
			report_kv(d, "data_source", "Data objects from", "%s", why);
	}
}

static void sampling_error(struct report_doc *d, uint64_t n)
{
	if (!n)
		return;
	double worst = 50.0 / sqrt((double)n);
	report_kv_num(d, "sampling_error_pct", "Sampling error", worst,
		      "at most +-%.1f points on any share (1 s.d. of %llu sample%s)%s", worst,
		      (unsigned long long)n, n == 1 ? "" : "s",
		      worst > 5 ? ": too few samples for the shares to mean much (record longer "
				  "or at a higher -F)" : "");
}

/* A time of ns nanoseconds in text: "1.234 s", or with --human "45.6 ms". */
static const char *tstr(const struct report_doc *d, char *buf, double ns)
{
	if (report_doc_human(d))
		report_units_time(buf, 48, ns);
	else
		snprintf(buf, 48, "%.3f s", ns / 1e9);
	return buf;
}

/* A count or bytes in text: "6332459424", or with --human "6.33G". */
static const char *cstr(const struct report_doc *d, char *buf, double v)
{
	if (report_doc_human(d))
		report_units_count(buf, 48, v);
	else
		snprintf(buf, 48, "%.0f", v);
	return buf;
}

/* The processes whose clock fell back to POSIX CPU-time timers (the
 * collector's "clock.fallback: WHY" line, src/collector/col_clock.c): how
 * many, the first cause with what it usually means, and what it does to
 * the samples (the kernel's tick, not -F; their weights stay exact). */
static void clock_fallback(struct report_doc *d, const struct exp_experiment *exps, size_t nexps,
			   const char *hz)
{
	size_t n = 0, all = 0;
	const char *why = NULL;

	for (size_t i = 0; i < nexps; i++)
		for (size_t j = 0; j < exps[i].nprocs; j++, all++) {
			const char *w = exp_proc_log(&exps[i].procs[j], "clock.fallback");
			if (w && !n++)
				why = w;
		}
	if (!n)
		return;
	const char *hint = strstr(why, "seccomp") ? ""
			   : strstr(why, "errno 1") || strstr(why, "errno 13")
				   ? " (EPERM/EACCES: a seccomp filter, as Docker's default profile, or "
				     "kernel.perf_event_paranoid above 2)"
			   : strstr(why, "errno 38") ? " (ENOSYS: this kernel has no perf events)" : "";
	report_kv_num(d, "clock_fallback", "Clock fallback", (double)n,
		      "POSIX CPU-time timers in %zu of %zu process%s: %s%s; they fire at the kernel's tick, "
		      "not at %s Hz (fewer samples, each weighing the CPU time since the last)",
		      n, all, all > 1 ? "es" : "", why, hint, hz ? hz : "-F");
}

/* Is `key` on in the options line `opts` ("k=v,..."): present, and neither
 * 0 nor -1 (sync's "off": exp_launch.h)? */
static bool option_on(const char *opts, const char *key)
{
	size_t n = strlen(key);

	for (const char *o = opts; o && *o; o = strchr(o, ',') ? strchr(o, ',') + 1 : NULL)
		if (!strncmp(o, key, n) && o[n] == '=') {
			long v = strtol(o + n + 1, NULL, 10);
			return v != 0 && v != -1;
		}
	return false;
}

/* Threads made by a raw clone (the collector's "thread.raw" line) get
 * samples, start, end and cost only: no --states, counters or tracers'
 * events (col_rawthread.c: they share their creator's TLS, where those
 * find a thread's state).  Said once when the run asked for any. */
static void raw_threads_unserved(struct report_doc *d, const struct exp_experiment *exps, size_t nexps)
{
	size_t n = 0;
	char what[128] = "";

	for (size_t i = 0; i < nexps; i++)
		for (size_t j = 0; j < exps[i].nprocs; j++) {
			const struct exp_proc *p = &exps[i].procs[j];
			const char *opts = exp_proc_log(p, "options");
			if (!exp_proc_log(p, "thread.raw") || !opts)
				continue;
			bool states = option_on(opts, "states"), tracers = option_on(opts, "heap") ||
					 option_on(opts, "sync") || option_on(opts, "io") || option_on(opts, "mpi"),
			     /* -c is the run's, written once in its first process's log */
			     counters = exp_proc_log(&exps[i].procs[0], "counter.requested") != NULL;
			if (!states && !tracers && !counters)
				continue;
			if (!n++)
				snprintf(what, sizeof(what), "%s%s%s%s%s", states ? "--states" : "",
					 states && (counters || tracers) ? ", " : "", counters ? "-c counters" : "",
					 counters && tracers ? ", " : "", tracers ? "the tracers' events" : "");
		}
	if (n)
		/* n counts processes, as the key says: a process's log has one
		 * thread.raw line, not one a raw thread */
		report_kv_num(d, "raw_thread_processes_unserved", "Raw threads", (double)n,
			      "in %zu process%s: samples only, %s not recorded in them (threads made by a raw "
			      "clone share their creator's TLS, where those find a thread)",
			      n, n > 1 ? "es" : "", what);
}

/* The stretches in which recording was off (tally_pause, --delay,
 * --duration, the toggle signal, --control), from every process's log: a
 * total, then the first PAUSES_SHOWN stretches with their reasons, in
 * seconds since their experiment's start.  Returns the CPU time the
 * processes used meanwhile, which no sample holds. */
#define PAUSES_SHOWN 8

/* Each stretch of every process: totals (show == false) or lines. */
static void pause_walk(struct report_doc *d, const struct exp_experiment *exps, size_t nexps,
		       bool show, uint64_t *wall, uint64_t *cpu, size_t *n, size_t *procs)
{
	char why[128], key[32], proc[96];
	size_t shown = 0;

	for (size_t i = 0; i < nexps; i++)
		for (size_t j = 0; j < exps[i].nprocs; j++) {
			const struct exp_proc *p = &exps[i].procs[j];
			uint64_t t0 = exps[i].procs[0].start_ns;
			struct model_pause *z;
			long nz = model_pauses(p, &z);
			if (nz <= 0)
				continue;
			if (!show)
				++*procs;
			for (long k = 0; k < nz; k++) {
				if (!show) {
					*wall += z[k].end_ns - z[k].start_ns;
					*cpu += z[k].cpu_ns;
					++*n;
					continue;
				}
				if (shown++ == PAUSES_SHOWN)
					report_kv(d, "pauses_more", "  and", "%zu more stretches",
						  *n - PAUSES_SHOWN);
				if (shown > PAUSES_SHOWN)
					break;
				proc[0] = 0;
				if (*procs > 1 || nexps > 1)
					snprintf(proc, sizeof(proc), "  [%s %u]", p->name, p->pid);
				double a = z[k].start_ns > t0 ? (double)(z[k].start_ns - t0) / 1e9 : 0;
				double b = z[k].end_ns > t0 ? (double)(z[k].end_ns - t0) / 1e9 : 0;
				snprintf(key, sizeof(key), "pause_%zu", shown);
				report_kv(d, key, "  off", "%.3f-%.3f s  %s%s", a, b,
					  model_pause_reasons(z[k].reasons, why, sizeof(why)), proc);
			}
			free(z);
		}
}

static uint64_t pauses(struct report_doc *d, const struct exp_experiment *exps, size_t nexps)
{
	uint64_t wall = 0, cpu = 0;
	size_t n = 0, procs = 0;
	char t1[48], t2[48];

	for (size_t i = 0; i < nexps; i++)
		for (size_t j = 0; j < exps[i].nprocs; j++) {
			const struct exp_proc *p = &exps[i].procs[j];
			const char *v = exp_proc_log(p, "control.signal-taken");
			uint64_t t = v ? strtoull(v, NULL, 10) : 0, t0 = exps[i].procs[0].start_ns;
			if (v)
				report_kv(d, "toggle_signal_taken", "Toggle signal",
					  "[%s %u] set its own handler for it at %.3f s: the signal was the "
					  "program's from then on, and recording no longer toggled", p->name,
					  p->pid, t > t0 ? (double)(t - t0) / 1e9 : 0.0);
		}
	pause_walk(d, exps, nexps, false, &wall, &cpu, &n, &procs);
	if (!n)
		return 0;
	char in[64] = "";
	if (procs > 1)
		snprintf(in, sizeof(in), " in %zu processes", procs);
	report_kv_num(d, "paused_s", "Paused", (double)wall / 1e9,
		      "%s recording off, %zu stretch%s%s (%s of CPU not recorded)", tstr(d, t1, (double)wall),
		      n, n > 1 ? "es" : "", in, tstr(d, t2, (double)cpu));
	report_kv_data(d, "paused_cpu_s", (double)cpu / 1e9);
	pause_walk(d, exps, nexps, true, &wall, &cpu, &n, &procs);
	return cpu;
}

/* A run with no recorded end (killed, still running): the time of its
 * latest sample (the model's threads') or thread event, CLOCK_MONOTONIC
 * ns; 0 if none. */
static uint64_t last_record_ns(const struct model *m, const struct exp_experiment *e)
{
	uint64_t last = 0;

	for (size_t t = 0; t < m->nthreads; t++)
		if (m->threads[t].proc < m->nprocs && m->procs[m->threads[t].proc].exp == e &&
		    m->threads[t].last_ns > last)
			last = m->threads[t].last_ns;

	for (size_t j = 0; j < e->nprocs; j++) {
		const struct exp_proc *p = &e->procs[j];
		for (size_t k = 0; k < p->nsamples; k++)
			if (p->samples[k].time_ns > last)
				last = p->samples[k].time_ns;
		for (size_t t = 0; t < p->nthreads; t++) {
			if (p->threads[t].end_ns > last)
				last = p->threads[t].end_ns;
			if (p->threads[t].start_ns > last)
				last = p->threads[t].start_ns;
		}
	}
	return last;
}

void report_overview(struct report_doc *d, const struct model *m,
		     const struct exp_experiment *exps, size_t nexps)
{
	char t1[48], t2[48], t3[48];
	uint64_t counters[EXP_CTR_COUNT_] = { 0 };
	uint64_t kernel_ns = 0, thread_cpu = 0;
	bool have_rusage = true;

	for (size_t i = 0; i < nexps; i++)
		for (size_t j = 0; j < exps[i].nprocs; j++)
			for (int c = 0; c < EXP_CTR_COUNT_; c++)
				counters[c] += exps[i].procs[j].counters[c];

	report_kv_begin(d, "overview", "Overview");
	bool job = report_job_head(d, exps, nexps, &kernel_ns, &thread_cpu, &have_rusage);
	for (size_t i = 0; !job && i < nexps; i++) {
		const struct exp_proc *f = &exps[i].procs[0];
		bool ok_u, ok_s;
		uint64_t u = log_u64(f, "rusage.user_ns", &ok_u), s = log_u64(f, "rusage.sys_ns", &ok_s);
		report_kv(d, "experiment", "Experiment", "%s", exps[i].path);
		const char *cmd = exp_proc_log(f, "command");
		report_kv(d, "target", "Target", "%s (pid %u)", cmd ? cmd : f->exe, f->pid);
		const char *start = exp_proc_log(f, "start");
		if (start)
			report_kv(d, "started", "Started", "%s", start);
		bool ok_w;
		uint64_t wall = log_u64(f, "wall_ns", &ok_w);
		if (!ok_w && f->end_ns > f->start_ns)
			wall = f->end_ns - f->start_ns;
		uint64_t seen = ok_w || wall ? 0 : last_record_ns(m, &exps[i]);
		if (seen > f->start_ns)
			report_kv_num(d, "duration_s", "Duration", (double)(seen - f->start_ns) / 1e9,
				      "at least %s (to its last record: no end was recorded)",
				      tstr(d, t1, (double)(seen - f->start_ns)));
		else
			report_kv_num(d, "duration_s", "Duration", (double)wall / 1e9, "%s", tstr(d, t1, (double)wall));
		how_it_ended(d, f);
		if (exp_proc_log(f, "attach.end") && (m->present & (1u << MODEL_WALL)))
			report_kv(d, "states_window", "States window", "%s",
				  exp_proc_log(f, "attach.window_end_ns")
					  ? "the attach to the detach: a block under way at the attach counts from the "
					    "attach, one under way at the detach to the detach (their stacks read from /proc)"
					  : "the attach to the detach: each thread's from its first return to a CPU "
					    "after the attach (a block under way then is not seen) to the stop");
		if (ok_u && ok_s) {
			kernel_ns += u + s;
			report_kv_num(d, "kernel_cpu_s", "Kernel CPU", (double)(u + s) / 1e9,
				      "%s (user %s + system %s)", tstr(d, t1, (double)(u + s)),
				      tstr(d, t2, (double)u), tstr(d, t3, (double)s));
		} else {
			have_rusage = false;
		}
		if (exps[i].nprocs > 1 || exps[i].empty_descendants)
			report_kv_num(d, "processes", "Processes", (double)exps[i].nprocs, "%zu%s%s%s", exps[i].nprocs,
				  exps[i].empty_descendants ? " (and descendants that recorded nothing: " : "",
				  exps[i].empty_descendants ? report_empty_cause(&exps[i]) : "",
				  exps[i].empty_descendants ? ")" : "");
		for (size_t j = 0; j < exps[i].nprocs; j++)
			for (size_t t = 0; t < exps[i].procs[j].nthreads; t++)
				thread_cpu += exps[i].procs[j].threads[t].cpu_ns;
		damage(d, &exps[i]);
	}
	report_kv_num(d, "threads", "Threads", (double)m->nthreads, "%zu", m->nthreads);
	for (size_t i = 0; i < nexps; i++) {
		const struct exp_proc *f = &exps[i].procs[0];
		for (size_t k = 0; k < f->nlog; k++) {
			const char *sp = strchr(f->log[k].value, ' ');
			if (strcmp(f->log[k].key, "marker") || !sp)
				continue;
			uint64_t t = strtoull(f->log[k].value, NULL, 10);
			double s = t > f->start_ns ? (double)(t - f->start_ns) / 1e9 : 0;
			report_kv(d, "marker", "Marker", "%.3f s  %s", s, sp + 1);
		}
	}
	uint64_t paused_cpu = pauses(d, exps, nexps);
	const char *hz = exp_proc_log(&exps[0].procs[0], "clock.hz");
	/* A clock that ran and took no sample still says where the kernel's
	 * CPU went (threads too short, unsampled threads): 0 samples is a
	 * finding, not a reason to stay silent. */
	bool clocked = hz && strcmp(hz, "0") != 0;
	if (m->present & (1u << MODEL_CPU) || m->samples || clocked) {
		const struct exp_proc *f = &exps[0].procs[0];
		const char *clk = exp_proc_log(f, "clock");
		report_kv_num(d, "samples", "Samples", (double)m->samples, "%llu (%s Hz per thread, %s)",
			      (unsigned long long)m->samples, hz ? hz : "?", clk ? clk : "?");
		sampling_error(d, m->samples);
		clock_fallback(d, exps, nexps, hz);
		raw_threads_unserved(d, exps, nexps);
		uint64_t sampled = m->total[MODEL_CPU], collector = counters[EXP_CTR_COLLECTOR_NS];
		/* The kernel's count for what was sampled: daemons added, or
		 * the chosen processes' own (report_cpu.c). */
		if (!job && have_rusage && kernel_ns)
			kernel_ns = report_cpu_base(d, m, exps, nexps, kernel_ns);
		uint64_t base = have_rusage && kernel_ns ? kernel_ns : thread_cpu;
		const char *of = have_rusage && kernel_ns ? "kernel CPU" : "the CPU of threads that ended";
		report_kv_num(d, "sampled_cpu_s", "Sampled CPU", (double)sampled / 1e9, "%s",
			      tstr(d, t1, (double)sampled));
		report_kv_num(d, "collector_cpu_s", "Collector CPU", (double)collector / 1e9,
			      "%s (signal handlers, thread set-up and end, object scans: in no sample)",
			      tstr(d, t1, (double)collector));
		handler_costs(d, exps, nexps);
		if (!have_rusage && thread_cpu)
			report_kv_num(d, "thread_cpu_s", "Thread CPU", (double)thread_cpu / 1e9,
				      "%s (threads that ended)", tstr(d, t1, (double)thread_cpu));
		if (base) {
			double pct = report_pct_of(sampled + collector, base);
			uint64_t lost = counters[EXP_CTR_UNSAMPLED_NS];
			if (lost || paused_cpu)
				report_kv_num(d, "accounted_pct", "Sampled+collector", pct,
					      "%.1f%% of %s (and %.1f%% %s)", pct, of,
					      report_pct_of(lost ? lost : paused_cpu, base),
					      lost ? "in threads that could not be sampled" : "while recording was off");
			else
				report_kv_num(d, "accounted_pct", "Sampled+collector", pct, "%.1f%% of %s", pct, of);
			report_kv_data(d, "sampled_pct", report_pct_of(sampled, base));
			report_kv_data(d, "collector_pct", report_pct_of(collector, base));
			if (!job && have_rusage && kernel_ns)
				report_cpu_gap(d, m, exps, nexps, sampled + collector + paused_cpu, base);
		}
	}
	unsampled_threads(d, exps, nexps);
	unrecorded_fork_children(d, exps, nexps);
	kernel_frames(d, exps, nexps);
	outside_mode(d, exps, nexps);
	data_source(d, exps, nexps);
	report_java_overview(d, m);
	for (int c = 0; c < EXP_CTR_COUNT_; c++) {
		if (!counters[c] || c == EXP_CTR_SAMPLES || c == EXP_CTR_FORKS || c == EXP_CTR_EXECS ||
		    c == EXP_CTR_COLLECTOR_NS || c == EXP_CTR_BYTES || c == EXP_CTR_LIMIT_NS ||
		    c == EXP_CTR_UNSAMPLED_NS)
			continue;
		const char *meaning, *title = exp_counter_title((enum exp_counter)c, &meaning);
		report_kv_num(d, exp_counter_name(c), title, (double)counters[c], "%s (%s: %s)",
			      cstr(d, t1, (double)counters[c]), exp_counter_name(c), meaning);
	}
	size_limit(d, exps, nexps);
	if (m->unknown_stacks)
		report_kv(d, "missing_stacks", "Missing stacks", "%llu events (shown as <Unknown>)",
			  (unsigned long long)m->unknown_stacks);
	for (int k = 1; k < MODEL_METRIC_COUNT; k++) {
		const struct model_metric_info *mi = model_metric_info(k);
		if (!(m->present & (1u << k)) || k == MODEL_SAMPLES)   /* shown above */
			continue;
		if (mi->is_time)
			report_kv_num(d, mi->name, mi->title, (double)m->total[k] / 1e9, "%s",
				      tstr(d, t1, (double)m->total[k]));
		else
			report_kv_num(d, mi->name, mi->title, (double)m->total[k], "%s",
				      cstr(d, t1, (double)m->total[k]));
	}
	if (m->heap_peak.bytes)
		report_kv_num(d, "heap_peak", "Heap peak", (double)m->heap_peak.bytes, "%s bytes live",
			      cstr(d, t1, (double)m->heap_peak.bytes));
	if (m->heap_unpaired.frees)
		report_kv_num(d, "heap_unpaired_frees", "Unpaired frees", (double)m->heap_unpaired.frees,
			      "%llu (blocks allocated before tracing began, or outside --time)",
			      (unsigned long long)m->heap_unpaired.frees);
	if (m->heap_unpaired.reuses)
		report_kv_num(d, "heap_unseen_frees", "Unseen frees", (double)m->heap_unpaired.reuses,
			      "%llu (blocks allocated again while live: leaks may be overstated)",
			      (unsigned long long)m->heap_unpaired.reuses);
	if (m->heap_unpaired.untracked)
		report_kv_num(d, "heap_untracked", "Untracked blocks", (double)m->heap_unpaired.untracked,
			      "%llu (not kept as live: the collector's table was full; leaks may be understated)",
			      (unsigned long long)m->heap_unpaired.untracked);
	if (m->switch_overhead_ns)
		report_kv_num(d, "switch_overhead_s", "Switch overhead", (double)m->switch_overhead_ns / 1e9,
			      "%.3f s of sampled CPU in context switches, off the CPU for the states "
			      "(docs/states.md)", (double)m->switch_overhead_ns / 1e9);
	if (m->states_collector_ns)
		report_kv_num(d, "states_collector_s", "Collector off CPU", (double)m->states_collector_ns / 1e9,
			      "%.3f s off the CPU inside tally's own handlers (a write or read of its own "
			      "that waited, as on a loaded disk): left out of the threads' states "
			      "(docs/states.md)",
			      (double)m->states_collector_ns / 1e9);
	report_kv_end(d);
	report_counters_overview(d, m);
	report_states_overview(d, m);
	report_sched_overview(d, m);
}
