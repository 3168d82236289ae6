/* SPDX-License-Identifier: MIT
 *
 * report_cpu.c — the overview's check on the CPU total: what the kernel
 * counted for what was sampled, and, when sampled + collector time differ
 * from it by more than a tenth, where the difference went, process by
 * process.
 *
 * What the kernel counted: for the whole tree, the founder's rusage as
 * `tally record` got it from wait4 (its descendants included, when they were
 * waited for), plus the processes that outlived `tally record` (daemons: no
 * one waited for them); for --process, each chosen process's own CPU time.
 * A process's own CPU time comes from its log: `cpu.start_ns` when the
 * collector started in it and `cpu.end_ns` when it ended or exec'd
 * (CLOCK_PROCESS_CPUTIME_ID, all threads).  The CPU before the collector
 * started (the dynamic loader, constructors) cannot be sampled; neither can
 * a program the collector cannot be loaded into (static, set-user-ID), nor
 * a process killed before its first sample.  Reads the experiments' logs and
 * counters and the model (events are gone by then); prints with report_kv.
 */
#include <stdlib.h>
#include <string.h>

#include "report/report.h"

/* One process image's CPU. */
struct proc_cpu {
	const struct exp_proc *p;
	bool chosen;               /* in the model (--process) */
	uint64_t sampled_ns;
	bool own_known;            /* cpu.start_ns and cpu.end_ns logged (or derived) */
	uint64_t own_ns;           /* while the collector ran in it */
	uint64_t before_ns;        /* before the collector started (its own part) */
	bool outlived;             /* still writing after `tally record` returned */
	bool running;              /* outlived, and no end recorded */
	uint64_t threads_ns;       /* the CPU of the threads the collector saw end */
	bool threads_known;        /* every thread it saw has its end */
	size_t nthreads;           /* threads it saw */
	uint64_t short_ns;         /* CPU of the threads that ended without a sample, */
	size_t nshort;             /* each having run less than two periods */
	uint64_t silent_ns;        /* CPU of those that ran longer and had none */
	size_t nsilent;
	bool attached;             /* tally record -p: threads seen from their set-up on */
	uint64_t limit_ns;         /* when the experiment reached its size limit (0: not) */
	uint64_t start_ns;         /* the experiment's start, for limit_ns in seconds */
	uint64_t stopped_ns;       /* CPU of threads without a sample that ended */
	size_t nstopped;           /* after the size limit stopped sampling */
};

struct cpu_table {
	struct proc_cpu *c;
	size_t n;
	bool filtered;             /* --process chose some */
	size_t outlived, running, unknown, unprofilable, empty, started_late;
	const char *empty_cause;   /* report_empty_cause of the first with any */
	uint64_t outlived_ns, before_ns;
	uint64_t running_ns;       /* sampled + collector CPU of those still running */
	char first_exec[300];      /* the first program that could not be profiled */
};

static bool log_u64(const struct exp_proc *p, const char *key, uint64_t *v)
{
	const char *s = exp_proc_log(p, key);

	if (s)
		*v = strtoull(s, NULL, 10);
	return s != NULL;
}

/* The image this one replaced by exec (same pid, lineage minus its _xN). */
static const struct exp_proc *exec_parent(const struct exp_experiment *x, const struct exp_proc *p)
{
	const char *x_at = strrchr(p->lineage, '_');
	size_t n = x_at ? (size_t)(x_at - p->lineage) : 0;

	if (!x_at || x_at[1] != 'x')
		return NULL;
	for (size_t i = 0; i < x->nprocs; i++)
		if (x->procs[i].pid == p->pid && strlen(x->procs[i].lineage) == n &&
		    !strncmp(x->procs[i].lineage, p->lineage, n))
			return &x->procs[i];
	return NULL;
}

/* Programs the experiment's processes (or their vfork children) exec'd that
 * the collector cannot be loaded into, as their logs say. */
static size_t unprofilable_execs(const struct exp_experiment *x, char *first, size_t len)
{
	size_t n = 0;

	for (size_t i = 0; i < x->nprocs; i++) {
		const struct exp_proc *p = &x->procs[i];
		for (size_t k = 0; k < p->nlog; k++) {
			if (strncmp(p->log[k].key, "exec", 4) || !strstr(p->log[k].value, "not profiled"))
				continue;
			if (!n++ && first && !first[0])
				snprintf(first, len, "%s", p->log[k].value);
		}
	}
	return n;
}

const char *report_empty_cause(const struct exp_experiment *x)
{
	for (size_t i = 0; i < x->nprocs; i++)
		for (size_t k = 0; k < x->procs[i].nlog; k++)
			if (!strcmp(x->procs[i].log[k].key, "error") &&
			    strstr(x->procs[i].log[k].value, ": errno 28 "))
				return "the file system was full";
	return "killed as they started, or could not write";
}

static void proc_cpu_fill(struct proc_cpu *c, const struct model *m, const struct exp_experiment *x,
			  const struct exp_proc *p, uint64_t record_end_ns)
{
	uint64_t start = 0, end = 0, parent_end = 0, last = 0;

	memset(c, 0, sizeof(*c));
	c->p = p;
	/* The size limit is the experiment's (the founder's counter): every
	 * process stops at its next claim after it. */
	c->limit_ns = x->nprocs ? x->procs[0].counters[EXP_CTR_LIMIT_NS] : 0;
	c->start_ns = x->nprocs ? x->procs[0].start_ns : 0;
	for (size_t i = 0; i < m->nprocs; i++) {
		if (m->procs[i].src != p)
			continue;
		c->chosen = true;
		c->sampled_ns = m->procs[i].v[MODEL_CPU];
		for (size_t t = 0; t < m->nthreads; t++)
			if (m->threads[t].proc == i && m->threads[t].last_ns > last)
				last = m->threads[t].last_ns;
	}
	c->threads_known = p->nthreads > 0;
	c->nthreads = p->nthreads;
	uint64_t hz = 0, period_ns;
	period_ns = log_u64(p, "clock.hz", &hz) && hz ? 1000000000ull / hz : 0;
	for (size_t t = 0; t < p->nthreads; t++) {
		/* its end's CPU, and tally's end of it after that record */
		uint64_t all = p->threads[t].cpu_ns + p->threads[t].collector_after_end_ns;
		c->threads_ns += all;
		c->threads_known &= p->threads[t].end_ns != 0;
		if (p->threads[t].end_ns && !p->threads[t].samples) {
			/* the collector's part of it is said apart */
			uint64_t own = all > p->threads[t].collector_ns ? all - p->threads[t].collector_ns : 0;
			/* Ran after the size limit stopped the clocks: the
			 * limit's, the share of its life after the limit
			 * (all of it if it started after; before, every
			 * thread that ended later was the limit's, even one
			 * that ran unsampled for long before it; its start
			 * not known: all of it).  Of the
			 * rest, less than two periods: its clock may never
			 * have fired.  More with none: it did not reach us. */
			uint64_t born = p->threads[t].start_ns, died = p->threads[t].end_ns;
			if (c->limit_ns && died > c->limit_ns) {
				uint64_t after = !born || born >= c->limit_ns ? own
						 : (uint64_t)((double)own * (double)(died - c->limit_ns) / (double)(died - born));
				c->stopped_ns += after;
				c->nstopped++;
				own -= after;
			}
			if (!own) {
				;
			} else if (period_ns && own >= 2 * period_ns) {
				c->silent_ns += own;
				c->nsilent++;
			} else {
				c->short_ns += own;
				c->nshort++;
			}
		}
	}
	/* From cpu.entry_ns (when logged) the CPU is the collector's own
	 * start-up, counted in its CPU: not the program's loading. */
	bool has_start = log_u64(p, "cpu.entry_ns", &start) || log_u64(p, "cpu.start_ns", &start);
	c->own_known = has_start && log_u64(p, "cpu.end_ns", &end) && end >= start;
	if (c->own_known)
		c->own_ns = end - start;
	/* An exec'd image inherits the CPU of the one before it. */
	const struct exp_proc *prev = exec_parent(x, p);
	if (prev && log_u64(prev, "cpu.end_ns", &parent_end) && start >= parent_end)
		start -= parent_end;
	/* An attached process (tally record -p) ran before the attach: that
	 * CPU is outside the recording, neither loading nor the collector's. */
	const char *by = exp_proc_log(p, "created-by");
	c->attached = by && !strncmp(by, "tally record -p", 15);
	c->before_ns = has_start && !c->attached ? start : 0;
	if (record_end_ns && p->lineage[0]) {
		c->outlived = p->end_ns > record_end_ns || (!p->end_ns && last > record_end_ns);
		c->running = c->outlived && !p->end_ns;
	}
}

/* Every process of every experiment; NULL c when out of memory. */
static void cpu_table_build(struct cpu_table *t, const struct model *m,
			    const struct exp_experiment *exps, size_t nexps)
{
	size_t total = 0;

	memset(t, 0, sizeof(*t));
	for (size_t i = 0; i < nexps; i++)
		total += exps[i].nprocs;
	t->c = calloc(total ? total : 1, sizeof(*t->c));
	if (!t->c)
		return;
	t->filtered = m->nprocs < total;
	for (size_t i = 0; i < nexps; i++) {
		const struct exp_proc *f = &exps[i].procs[0];
		uint64_t u = 0, s = 0, rec_end = 0, waited_ns = 0;
		bool waited_known = true;
		log_u64(f, "rusage.user_ns", &u);
		log_u64(f, "rusage.sys_ns", &s);
		log_u64(f, "record.end.mono_ns", &rec_end);
		size_t first = t->n;
		for (size_t j = 0; j < exps[i].nprocs; j++) {
			struct proc_cpu *pc = &t->c[t->n++];
			proc_cpu_fill(pc, m, &exps[i], &exps[i].procs[j], rec_end);
			t->outlived += pc->outlived;
			t->running += pc->running;
			if (pc->outlived && pc->own_known)
				t->outlived_ns += pc->own_ns + pc->before_ns;
			if (pc->running && !pc->own_known)
				t->running_ns += pc->sampled_ns + exps[i].procs[j].counters[EXP_CTR_COLLECTOR_NS];
			if (j && !pc->outlived) {
				waited_known &= pc->own_known;
				waited_ns += pc->own_ns + pc->before_ns;
			}
		}
		size_t unprofilable = unprofilable_execs(&exps[i], t->first_exec, sizeof(t->first_exec));
		size_t lost_children = unprofilable + exps[i].empty_descendants;
		t->unprofilable += unprofilable;
		if (exps[i].empty_descendants && !t->empty)
			t->empty_cause = report_empty_cause(&exps[i]);
		t->empty += exps[i].empty_descendants;
		/* A founder that ended without its own count (_exit: daemon()'s
		 * parent) has what wait4 gave, less its waited descendants' (if
		 * every one of them is known: none exec'd what we cannot follow). */
		struct proc_cpu *fc = &t->c[first];
		if (!fc->own_known && waited_known && !lost_children && u + s >= waited_ns + fc->before_ns &&
		    (u || s)) {
			fc->own_known = true;
			fc->own_ns = u + s - waited_ns - fc->before_ns;
		}
	}
	for (size_t i = 0; i < t->n; i++) {
		if (!t->c[i].chosen)
			continue;
		t->before_ns += t->c[i].before_ns;
		t->started_late += t->c[i].before_ns > 0;
		t->unknown += !t->c[i].own_known;
	}
}

uint64_t report_cpu_base(struct report_doc *d, const struct model *m,
			 const struct exp_experiment *exps, size_t nexps, uint64_t rusage_ns)
{
	struct cpu_table t;
	uint64_t base = rusage_ns;

	cpu_table_build(&t, m, exps, nexps);
	if (!t.c)
		return rusage_ns;
	if (t.outlived)
		report_kv_num(d, "outlived", "Outlived record", (double)t.outlived,
			      "%zu process%s (daemons), recorded until %s", t.outlived,
			      t.outlived > 1 ? "es" : "",
			      t.running ? "now: still running or killed" : t.outlived > 1 ? "they ended" : "it ended");
	if (t.filtered) {
		base = 0;
		for (size_t i = 0; i < t.n; i++)
			if (t.c[i].chosen)
				base += t.c[i].own_ns + t.c[i].before_ns;
		if (t.unknown) {
			report_kv(d, "kernel_cpu_compared", "Kernel CPU (these)",
				  "not known: %zu of the chosen processes did not record their CPU time "
				  "(killed, or still running)", t.unknown);
			base = 0;
		} else {
			report_kv_num(d, "kernel_cpu_compared_s", "Kernel CPU (these)", (double)base / 1e9,
				      "%.3f s: the chosen processes' own", (double)base / 1e9);
		}
	} else if (t.outlived_ns || t.running_ns) {
		/* A process still running has no CPU count yet: what it was
		 * sampled and the collector's part in it are a floor (a base
		 * without them made a daemon's share 317%, or 1842%). */
		base += t.outlived_ns + t.running_ns;
		report_kv_num(d, "kernel_cpu_compared_s", "Kernel CPU (all)", (double)base / 1e9,
			      "%.3f s, with the processes that outlived tally record%s", (double)base / 1e9,
			      t.running_ns ? " (of those still running, what was sampled so far)" : "");
	}
	free(t.c);
	return base;
}

/* Samples and events the process lost. */
static uint64_t lost(const struct exp_proc *p)
{
	return p->counters[EXP_CTR_LOST_REENTRY] + p->counters[EXP_CTR_LOST_BUFFER] +
	       p->counters[EXP_CTR_NO_THREAD_STATE] + p->counters[EXP_CTR_LOST_NOFILE];
}

/* Why a process's CPU was not sampled, in a few words. */
/* The process's CPU beyond its threads' own (each thread's clock, read as
 * it ended): threads the collector never saw, as a raw clone makes them. */
static uint64_t unseen_ns(const struct proc_cpu *c)
{
	uint64_t kern = c->own_ns + c->before_ns;

	return c->threads_known && c->own_known && kern > c->threads_ns ? kern - c->threads_ns : 0;
}

/* The unsampled CPU that the threads explain, into buf: CPU beyond every
 * thread's own (threads the collector never saw, as a raw clone makes them;
 * or, spread thin over many threads, their exits after their last record),
 * and threads that ended without a sample (each ran less than a period: a
 * per-thread clock never fired).  False if neither is a tenth of the
 * process's CPU. */
static bool threads_cause(const struct proc_cpu *c, char *buf, size_t len)
{
	uint64_t kern = c->own_ns + c->before_ns, unseen = unseen_ns(c);
	size_t n = 0;

	buf[0] = 0;
	if (unseen * 10 >= kern && unseen >= 20000000ull) {
		if (c->attached)
			/* Threads are set up one by one after the attach and
			 * left one by one before the detach. */
			n += (size_t)snprintf(buf, len, "%.3f s outside its threads' recorded spans (before "
					      "each was set up after the attach, after it was left before the "
					      "detach, or in threads made by a raw clone)", (double)unseen / 1e9);
		else if (exp_proc_log(c->p, "thread.raw"))
			/* Raw threads were met (col_rawthread.c): each is
			 * sampled from its clock's first signal, which one
			 * shorter than a period never takes. */
			n += (size_t)snprintf(buf, len, "%.3f s in threads made by a raw clone that ran no "
					      "sampling period (each is sampled from its clock's first signal: "
					      "-F higher samples shorter ones)", (double)unseen / 1e9);
		else if (c->nthreads > 10 && unseen / c->nthreads < 2000000ull)
			n += (size_t)snprintf(buf, len, "%.3f s as its %zu threads ended, after their last "
					      "record (the kernel's exit, and tally letting go of each thread's "
					      "state)", (double)unseen / 1e9, c->nthreads);
		else
			n += (size_t)snprintf(buf, len, "%.3f s in threads the collector never saw (made by a "
					      "raw clone system call, not pthread_create, that took no signal of "
					      "its clock)",
					      (double)unseen / 1e9);
	}
	if (c->nshort > 1 && c->short_ns * 10 >= kern && n < len)
		n += (size_t)snprintf(buf + n, len - n, "%s%.3f s in %zu threads that each ran less than "
				      "two sampling periods (never sampled: -F higher samples them)",
				      n ? "; " : "", (double)c->short_ns / 1e9, c->nshort);
	if (c->nsilent && c->silent_ns * 10 >= kern && n < len)
		snprintf(buf + n, len - n, "%s%.3f s in %zu thread%s that ran longer without a sample "
			 "(the sampling signal blocked?)", n ? "; " : "", (double)c->silent_ns / 1e9,
			 c->nsilent, c->nsilent > 1 ? "s" : "");
	return buf[0] != 0;
}

/* Did the size limit stop the process's sampling: reached before the
 * process ended (its end, else its last record: one that called _exit or
 * was killed writes no end; nothing known: it may still have run)? */
static bool stopped_by_limit(const struct proc_cpu *c)
{
	uint64_t end = model_proc_end(c->p);

	return c->limit_ns && (!end || end > c->limit_ns);
}

static const char *why_not_sampled(const struct proc_cpu *c, char *buf, size_t len)
{
	const char *sig = exp_proc_log(c->p, "exit.signal");
	uint64_t kern = c->own_ns + c->before_ns;

	if (c->running)
		return "still running when tally record returned: its CPU is not known yet";
	if (c->before_ns && c->before_ns * 2 >= kern - (c->sampled_ns < kern ? c->sampled_ns : kern))
		snprintf(buf, len, "%.3f s before the collector started in it (loading, constructors)",
			 (double)c->before_ns / 1e9);
	else if (stopped_by_limit(c))
		snprintf(buf, len, "sampling stopped at %.3f s, when the experiment reached its size limit "
			 "(-L raises it)%s", c->limit_ns > c->start_ns ? (double)(c->limit_ns - c->start_ns) / 1e9 : 0,
			 c->nstopped ? "; threads that ended after it had no sample" : "");
	else if (threads_cause(c, buf, len))
		;
	else if (!c->sampled_ns && sig)
		snprintf(buf, len, "killed by signal %s before its first sample", sig);
	else if (lost(c->p))
		snprintf(buf, len, "%llu samples or events lost (see the lost.* counters)",
			 (unsigned long long)lost(c->p));
	else if (!c->sampled_ns)
		snprintf(buf, len, "no sample: it ran less than a sampling period");
	else
		snprintf(buf, len, "the rest ran between samples or after its last one");
	return buf;
}

static uint64_t unsampled(const struct proc_cpu *c)
{
	uint64_t kern = c->own_ns + c->before_ns;

	return kern > c->sampled_ns ? kern - c->sampled_ns : 0;
}

static int cmp_unsampled(const void *a, const void *b)
{
	uint64_t x = unsampled(a), y = unsampled(b);

	return x < y ? 1 : x > y ? -1 : 0;
}

void report_cpu_gap(struct report_doc *d, const struct model *m, const struct exp_experiment *exps,
		    size_t nexps, uint64_t accounted_ns, uint64_t base_ns)
{
	struct cpu_table t;
	char buf[512], key[32];
	double pct = report_pct_of(accounted_ns, base_ns);

	if (!base_ns || (pct >= 90.0 && pct <= 110.0))
		return;
	cpu_table_build(&t, m, exps, nexps);
	if (!t.c)
		return;
	if (t.before_ns)
		report_kv_num(d, "before_collector_s", "Not sampled", (double)t.before_ns / 1e9,
			      "%.3f s before the collector started, in %zu process%s (dynamic loading, "
			      "constructors)", (double)t.before_ns / 1e9, t.started_late,
			      t.started_late > 1 ? "es" : "");
	if (t.unprofilable)
		report_kv_num(d, "unprofilable", "Not sampled", (double)t.unprofilable,
			      "%zu process%s not profiled: exec'd a static or set-user-ID program%s%s%s",
			      t.unprofilable, t.unprofilable > 1 ? "es" : "", t.first_exec[0] ? " (" : "",
			      t.first_exec, t.first_exec[0] ? ")" : "");
	if (t.empty)
		report_kv_num(d, "recorded_nothing", "Not sampled", (double)t.empty,
			      "%zu process%s recorded nothing (%s)", t.empty, t.empty > 1 ? "es" : "",
			      t.empty_cause);
	if (t.running)
		report_kv_num(d, "running", "Not known", (double)t.running,
			      "%zu process%s still running: %s CPU is not counted yet", t.running,
			      t.running > 1 ? "es" : "", t.running > 1 ? "their" : "its");
	qsort(t.c, t.n, sizeof(*t.c), cmp_unsampled);
	for (size_t i = 0, shown = 0; i < t.n && shown < 5; i++) {
		const struct proc_cpu *c = &t.c[i];
		if (!c->chosen || (!c->own_known && !c->running) || unsampled(c) < base_ns / 50)
			continue;
		snprintf(key, sizeof(key), "not_sampled_%zu", ++shown);
		report_kv(d, key, "  by process", "[%s %u]: kernel %.3f s, sampled %.3f s: %s",
			  c->p->name, c->p->pid, (double)(c->own_ns + c->before_ns) / 1e9,
			  (double)c->sampled_ns / 1e9, why_not_sampled(c, buf, sizeof(buf)));
	}
	free(t.c);
}
