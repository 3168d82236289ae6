/* SPDX-License-Identifier: MIT
 *
 * report_mpi.c — the views of an MPI job: its ranks side by side with the
 * job's imbalance (--ranks), the point-to-point traffic from rank to rank
 * (--messages), and the job's head in the overview.
 *
 * A rank's row sums its processes (the rank and its descendants).  CPU
 * outside MPI is the CPU a rank spent computing, the CPU sampled inside MPI
 * calls (MODEL_ENTRY_IN_MPI: polling for messages while waiting) set apart:
 * the rank with the most is the slowest, the one the others wait for.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/report.h"

/* Up to this many ranks, --ranks lists each; more are summarised. */
#define REPORT_RANKS_ROWS 16

struct rank_row {
	int32_t rank;
	uint64_t v[MODEL_METRIC_COUNT];
	uint64_t cpu_in_mpi;
	uint64_t op_ns[EXP_MPI_OP_COUNT_];
	const struct model_proc *first;    /* the rank's own process */
};

static int cmp_row(const void *a, const void *b)
{
	const struct rank_row *x = a, *y = b;

	return x->rank < y->rank ? -1 : x->rank > y->rank;
}

/* The model's ranks, one row each, by rank; *n gets how many.  NULL if out
 * of memory. */
static struct rank_row *rank_rows(const struct model *m, size_t *n)
{
	struct rank_row *rows = calloc(m->nprocs ? m->nprocs : 1, sizeof(*rows));
	size_t k = 0;
	int32_t highest = -1;

	if (!rows)
		return NULL;
	for (size_t i = 0; i < m->nprocs; i++) {
		const struct model_proc *p = &m->procs[i];
		if (p->rank < 0)
			continue;
		/* Ranks come in order, each with its descendants: a rank above
		 * every one seen is new, others are looked for from the last. */
		size_t j = k;
		if (p->rank <= highest)
			for (j = k; j-- > 0 && rows[j].rank != p->rank;)
				;
		if (j == SIZE_MAX)
			j = k;
		if (p->rank > highest)
			highest = p->rank;
		if (j == k) {
			rows[k].rank = p->rank;
			rows[k++].first = p;
		}
		for (int t = 0; t < MODEL_METRIC_COUNT; t++)
			rows[j].v[t] += p->v[t];
		rows[j].cpu_in_mpi += p->cpu_in_mpi;
		for (int op = 0; op < EXP_MPI_OP_COUNT_; op++)
			rows[j].op_ns[op] += p->mpi_op_ns[op];
	}
	qsort(rows, k, sizeof(*rows), cmp_row);
	*n = k;
	return rows;
}

static uint64_t outside_mpi(const struct rank_row *r)
{
	return r->v[MODEL_CPU] > r->cpu_in_mpi ? r->v[MODEL_CPU] - r->cpu_in_mpi : 0;
}

/* The MPI function a rank spent the most time in, MPI_Init and
 * MPI_Finalize aside (starting and ending are not waiting); 0: none. */
static unsigned top_op(const struct rank_row *r)
{
	unsigned best = 0;

	for (unsigned op = 1; op < EXP_MPI_OP_COUNT_; op++)
		if (op != EXP_MPI_INIT && op != EXP_MPI_INIT_THREAD && op != EXP_MPI_FINALIZE &&
		    r->op_ns[op] > r->op_ns[best])
			best = op;
	return r->op_ns[best] ? best : 0;
}

/* The host a rank ran on: the launcher's name for it (job.host), else
 * MPI's (mpi.processor), else the host `tally record` ran on; "" if none. */
static const char *rank_host(const struct exp_proc *p)
{
	const char *keys[] = { "job.host", "mpi.processor", "host" };

	for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
		const char *h = exp_proc_log(p, keys[i]);
		if (h && *h)
			return h;
	}
	return "";
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* The job the launcher ran (the job.* keys of exp_launch_job) and its
 * hosts, from the ranks' own processes `firsts` (n of them): "slurm job 42
 * step 0 (size 4)" and "2: a (2 ranks), b (2 ranks)".  Ranks that disagree
 * (experiments of several jobs put together) are said to. */
static void job_kvs(struct report_doc *d, const struct exp_proc *const *firsts, size_t n)
{
	const char *launcher = NULL, *id = NULL, *step = NULL, *size = NULL;
	bool mixed = false;
	char text[512];
	size_t len = 0;

	for (size_t i = 0; i < n; i++) {
		const char *v[4] = { exp_proc_log(firsts[i], "job.launcher"), exp_proc_log(firsts[i], "job.id"),
				     exp_proc_log(firsts[i], "job.step"), exp_proc_log(firsts[i], "job.size") };
		const char **have[4] = { &launcher, &id, &step, &size };
		for (int k = 0; k < 4; k++) {
			if (i == 0)
				*have[k] = v[k];
			else if ((*have[k] == NULL) != (v[k] == NULL) || (v[k] && strcmp(v[k], *have[k])))
				mixed = true;
		}
	}
	if (launcher || id) {
		len += (size_t)snprintf(text + len, sizeof(text) - len, "%s", launcher ? launcher : "launcher");
		if (id)
			len += (size_t)snprintf(text + len, sizeof(text) - len, " job %s", id);
		if (step && len < sizeof(text))
			len += (size_t)snprintf(text + len, sizeof(text) - len, " step %s", step);
		if (size && len < sizeof(text))
			len += (size_t)snprintf(text + len, sizeof(text) - len, " (size %s)", size);
		if (mixed && len < sizeof(text))
			snprintf(text + len, sizeof(text) - len, "; the ranks' jobs differ: "
				 "experiments of several jobs (--rank N reports one)");
		report_kv(d, "job", "Job", "%s", text);
	}

	const char **hosts = malloc((n ? n : 1) * sizeof(*hosts));
	if (!hosts) {
		report_doc_fail(d, "the job's hosts");
		return;
	}
	for (size_t i = 0; i < n; i++)
		hosts[i] = rank_host(firsts[i]);
	qsort(hosts, n, sizeof(*hosts), cmp_str);
	size_t distinct = 0, shown = 0;
	len = 0;
	text[0] = 0;
	for (size_t i = 0, j; i < n; i = j) {
		for (j = i + 1; j < n && !strcmp(hosts[j], hosts[i]); j++)
			;
		distinct++;
		if (shown < 8 && len < sizeof(text) - 100) {
			shown++;
			len += (size_t)snprintf(text + len, sizeof(text) - len, "%s%.64s (%zu rank%s)",
						len ? ", " : "", *hosts[i] ? hosts[i] : "?", j - i, j - i == 1 ? "" : "s");
		}
	}
	if (distinct > shown)
		snprintf(text + len, sizeof(text) - len, " and %zu more", distinct - shown);
	report_kv_num(d, "hosts", "Hosts", (double)distinct, "%zu: %s", distinct, text);
	free(hosts);
}

/* max / mean of a per-rank quantity, and the rank of the max and min. */
struct spread {
	double ratio;
	uint64_t max, min, sum;
	int32_t max_rank, min_rank;
};

static struct spread spread_of(const struct rank_row *rows, size_t n,
			       uint64_t (*get)(const struct rank_row *))
{
	struct spread s = { 0, 0, UINT64_MAX, 0, -1, -1 };

	for (size_t i = 0; i < n; i++) {
		uint64_t v = get(&rows[i]);
		s.sum += v;
		if (s.max_rank < 0 || v > s.max) {
			s.max = v;
			s.max_rank = rows[i].rank;
		}
		if (s.min_rank < 0 || v < s.min) {
			s.min = v;
			s.min_rank = rows[i].rank;
		}
	}
	s.ratio = s.sum ? (double)s.max * (double)n / (double)s.sum : 0;
	return s;
}

static uint64_t get_cpu(const struct rank_row *r)
{
	return r->v[MODEL_CPU];
}

static uint64_t get_mpi_time(const struct rank_row *r)
{
	return r->v[MODEL_MPI_TIME];
}

static void imbalance(struct report_doc *d, const struct model *m, const struct rank_row *rows,
		      size_t n)
{
	struct spread cpu = spread_of(rows, n, get_cpu), work = spread_of(rows, n, outside_mpi);
	struct spread wait = spread_of(rows, n, get_mpi_time);
	const char *size = exp_proc_log(rows[0].first->src, "mpi.size");
	bool traced = m->present & (1u << MODEL_MPI_TIME);

	report_kv_begin(d, "imbalance", "Imbalance");
	report_kv_num(d, "ranks", "Ranks", (double)n, "%zu%s%s%s", n, size ? " (MPI_COMM_WORLD size " : "",
		      size ? size : "", size ? ")" : "");
	const struct exp_proc **firsts = malloc(n * sizeof(*firsts));
	if (firsts) {
		for (size_t i = 0; i < n; i++)
			firsts[i] = rows[i].first->src;
		job_kvs(d, firsts, n);
		free(firsts);
	} else
		report_doc_fail(d, "the job's hosts");
	report_kv_num(d, "cpu_max_mean", "CPU", cpu.ratio, "max/mean %.2f (rank %d: %.3f s)", cpu.ratio,
		      cpu.max_rank, (double)cpu.max / 1e9);
	report_kv_num(d, "cpu_outside_mpi_max_mean", "CPU outside MPI", work.ratio,
		      "max/mean %.2f (rank %d: %.3f s)", work.ratio, work.max_rank, (double)work.max / 1e9);
	if (traced)
		report_kv_num(d, "mpi_time_max_mean", "MPI time", wait.ratio,
			      "max/mean %.2f (rank %d: %.3f s); least %.3f s (rank %d)", wait.ratio,
			      wait.max_rank, (double)wait.max / 1e9, (double)wait.min / 1e9, wait.min_rank);
	report_kv_num(d, "slowest_rank", "Slowest rank", work.max_rank,
		      "%d (the most CPU outside MPI calls%s)", work.max_rank,
		      traced ? "; the others wait for it in MPI calls" : "; -m traces the waits");
	if (m->left_out)
		report_kv_num(d, "left_out", "Not ranks", (double)m->left_out,
			      "%zu processes left out (the launcher: --process launcher reports them)",
			      m->left_out);
	report_kv_end(d);
}

/* The columns of a rank's row, and its cells (rank_cells). */
static void rank_cols(struct report_table *t)
{
	report_col(t, "rank", "Rank", COL_U64);
	report_col(t, "cpu", "CPU s", COL_SEC);
	report_col(t, "cpu_outside_mpi", "Outside MPI s", COL_SEC);
	report_col(t, "cpu_outside_mpi_pct", "%", COL_PCT);
	report_col(t, "cpu_in_mpi", "In MPI s", COL_SEC);
	report_col(t, "mpi_time", "MPI time s", COL_SEC);
	report_col(t, "mpi_calls", "MPI calls", COL_U64);
	report_col(t, "bytes_sent", "Sent", COL_COUNT);
	report_col(t, "bytes_recv", "Received", COL_COUNT);
	report_col(t, "top_mpi_time", "Waited s", COL_SEC);
	report_col(t, "top_mpi_call", "most in", COL_STR);
	report_col(t, "pid", "PID", COL_U64);
	report_col(t, "job", "Job.step", COL_STR);
	report_col(t, "host", "Host", COL_STR);
}

static void rank_cells(struct report_table *t, const struct rank_row *r, uint64_t work_total)
{
	unsigned op = top_op(r);
	const char *id = exp_proc_log(r->first->src, "job.id");
	const char *step = exp_proc_log(r->first->src, "job.step");
	char job[160];

	report_u64(t, (uint64_t)r->rank);
	report_u64(t, r->v[MODEL_CPU]);
	report_u64(t, outside_mpi(r));
	report_pct(t, report_pct_of(outside_mpi(r), work_total));
	report_u64(t, r->cpu_in_mpi);
	report_u64(t, r->v[MODEL_MPI_TIME]);
	report_u64(t, r->v[MODEL_MPI_COUNT]);
	report_u64(t, r->v[MODEL_MPI_BYTES_SENT]);
	report_u64(t, r->v[MODEL_MPI_BYTES_RECV]);
	report_u64(t, op ? r->op_ns[op] : 0);
	report_str(t, op ? exp_mpi_op_name(op) : "");
	report_u64(t, r->first->src->pid);
	snprintf(job, sizeof(job), "%.80s%s%.64s", id ? id : "", id && step ? "." : "", id && step ? step : "");
	report_str(t, job);
	report_str(t, rank_host(r->first->src));
}

/* Rows by CPU outside MPI, least first, a tie by rank. */
static int cmp_work(const void *a, const void *b)
{
	const struct rank_row *x = *(const struct rank_row *const *)a, *y = *(const struct rank_row *const *)b;
	uint64_t u = outside_mpi(x), v = outside_mpi(y);

	return u != v ? (u < v ? -1 : 1) : (x->rank < y->rank ? -1 : x->rank > y->rank);
}

/* Many ranks: five of them, by their CPU outside MPI (what makes a rank
 * the one others wait for): the slowest (the first rank with the most, as
 * the imbalance names it), the quartiles (the rank at position
 * floor((n - 1) * q) of the order, least first, a tie by rank) and the
 * fastest.  --ranks=all lists every rank. */
static void summary(struct report_doc *d, struct rank_row *rows, size_t n, uint64_t work_total)
{
	static const struct {
		const char *at;
		double q;
	} at[] = { { "slowest", 1 }, { "75%", 0.75 }, { "median", 0.5 }, { "25%", 0.25 }, { "fastest", 0 } };
	const struct rank_row **by = malloc(n * sizeof(*by));
	char title[128];

	if (!by) {
		report_doc_fail(d, "the summary of ranks");
		return;
	}
	for (size_t i = 0; i < n; i++)
		by[i] = &rows[i];
	qsort(by, n, sizeof(*by), cmp_work);
	size_t slowest = n - 1;
	while (slowest > 0 && outside_mpi(by[slowest - 1]) == outside_mpi(by[n - 1]))
		slowest--;
	snprintf(title, sizeof(title), "Ranks by CPU outside MPI (%zu ranks; --ranks=all lists each)", n);
	struct report_table *t = report_table_new("ranks_summary", title);
	report_col(t, "at", "At", COL_STR);
	rank_cols(t);
	for (size_t i = 0; i < sizeof(at) / sizeof(at[0]); i++) {
		size_t k = at[i].q == 1 ? slowest : (size_t)((double)(n - 1) * at[i].q);
		report_row(t);
		report_str(t, at[i].at);
		rank_cells(t, by[k], work_total);
	}
	report_table_emit(d, t);
	free(by);
}

void report_ranks(struct report_doc *d, const struct model *m, const struct report_opts *o,
		  enum report_ranks_mode mode)
{
	(void)o;
	size_t n;
	struct rank_row *rows = rank_rows(m, &n);

	if (!rows) {
		report_doc_fail(d, "the table of ranks");
		return;
	}
	if (!n) {
		report_note(d, "No MPI ranks: not a job (see docs/mpi.md), and no process called MPI_Init "
			       "under tally record -m.");
		free(rows);
		return;
	}
	uint64_t work_total = 0;
	for (size_t i = 0; i < n; i++)
		work_total += outside_mpi(&rows[i]);
	if (mode == REPORT_RANKS_ALL || (mode == REPORT_RANKS_AUTO && n <= REPORT_RANKS_ROWS)) {
		struct report_table *t = report_table_new("ranks", "Ranks");
		rank_cols(t);
		for (size_t i = 0; i < n; i++) {
			report_row(t);
			rank_cells(t, &rows[i], work_total);
		}
		report_table_emit(d, t);
	} else
		summary(d, rows, n, work_total);
	imbalance(d, m, rows, n);
	free(rows);
}

/* The highest rank that sent or received, + 1. */
static int32_t msg_ranks(const struct model *m)
{
	int32_t n = 0;

	for (size_t i = 0; i < m->nmsgs; i++) {
		if (m->msgs[i].from >= n)
			n = m->msgs[i].from + 1;
		if (m->msgs[i].to >= n)
			n = m->msgs[i].to + 1;
	}
	return n;
}

/* Bytes from every rank (rows) to every rank (columns), in text, for a few
 * ranks. */
static void matrix(struct report_doc *d, const struct model *m, int32_t n)
{
	char key[32], head[32];
	struct report_table *t = report_table_new("matrix", "Bytes sent, from (rows) to (columns)");
	size_t k = 0;

	report_col(t, "from", "From", COL_U64);
	for (int32_t to = 0; to < n; to++) {
		snprintf(key, sizeof(key), "to_%d", to);
		snprintf(head, sizeof(head), "%d", to);
		report_col(t, key, head, COL_U64);
	}
	for (int32_t from = 0; from < n; from++) {
		report_row(t);
		report_u64(t, (uint64_t)from);
		for (int32_t to = 0; to < n; to++) {
			bool here = k < m->nmsgs && m->msgs[k].from == from && m->msgs[k].to == to;
			report_u64(t, here ? m->msgs[k++].bytes : 0);
		}
	}
	report_table_emit(d, t);
}

/* What matching the messages found (docs/mpi.md "Time across hosts"). */
static void match_note(struct report_doc *d, const struct model_match *mt)
{
	if (mt->failed) {
		report_note(d, "Messages not matched to their receives: out of memory.");
		return;
	}
	if (!mt->matched && !mt->unmatched)
		return;
	report_kv_begin(d, "matching", mt->raw_clocks ? "Matching (send to receive, each rank's own clock)"
						      : "Matching (send to receive, rank 0's clock)");
	report_kv_num(d, "matched", "Matched", (double)mt->matched, "%llu messages",
		      (unsigned long long)mt->matched);
	report_kv_num(d, "unmatched", "Unmatched ends", (double)mt->unmatched, "%llu (a send or a receive "
		      "without its other end)", (unsigned long long)mt->unmatched);
	report_kv_num(d, "received_before_sent", "Received before sent", (double)mt->reversed, "%llu%s",
		      (unsigned long long)mt->reversed,
		      mt->reversed ? " (clocks differ beyond their measured error)" : "");
	report_kv_num(d, "worst_ns", "... at worst by", (double)mt->worst_ns, "%lld ns", (long long)mt->worst_ns);
	if (!mt->raw_clocks)
		report_kv_num(d, "clock_order_ns", "Clocks moved by order", (double)mt->order_max_ns,
			      "%lld ns at most (rank %d), within their measured error",
			      (long long)mt->order_max_ns, mt->order_rank);
	report_kv_end(d);
}

void report_messages(struct report_doc *d, const struct model *m, const struct report_opts *o)
{
	int32_t n = msg_ranks(m);

	if (!m->nmsgs) {
		report_note(d, "No point-to-point messages: record the job with tally record -m "
			       "(collectives are in --ranks, not here).");
		return;
	}
	if (o->fmt == REPORT_TEXT && n <= 16)
		matrix(d, m, n);
	struct report_table *t = report_table_new("messages", "Point-to-point messages");
	report_col(t, "from", "From", COL_U64);
	report_col(t, "to", "To", COL_U64);
	report_col(t, "bytes", "Bytes", COL_COUNT);
	report_col(t, "messages", "Messages", COL_U64);
	report_col(t, "avg_bytes", "Bytes/message", COL_COUNT);
	size_t shown = o->limit && o->limit < m->nmsgs ? o->limit : m->nmsgs;
	for (size_t i = 0; i < shown; i++) {
		const struct model_msg *g = &m->msgs[i];
		report_row(t);
		report_u64(t, (uint64_t)g->from);
		report_u64(t, (uint64_t)g->to);
		report_u64(t, g->bytes);
		report_u64(t, g->count);
		report_u64(t, g->count ? g->bytes / g->count : 0);
	}
	report_table_emit(d, t);
	if (shown < m->nmsgs)
		report_note(d, "... %zu more pairs (--limit 0 shows them all)", m->nmsgs - shown);
	report_note(d, "Sends (MPI_Send, MPI_Isend, MPI_Sendrecv ...) by their senders; collectives "
		       "are in --ranks.");
	if (o->fmt != REPORT_CSV)          /* the CSV is the table alone */
		match_note(d, &m->match);
}

/* How ranks ended: "4 exit status 0", "3 exit status 0; killed by signal 9:
 * rank 2". */
static void how_ranks_ended(struct report_doc *d, const struct exp_experiment *exps, size_t nexps)
{
	char text[512] = "";
	size_t len = 0, ok = 0;

	for (size_t i = 0; i < nexps; i++) {
		const struct exp_proc *f = &exps[i].procs[0];
		const char *st = exp_proc_log(f, "exit.status"), *sig = exp_proc_log(f, "exit.signal");
		if (exps[i].launcher)
			continue;
		if (st && !strcmp(st, "0")) {
			ok++;
			continue;
		}
		if (len < sizeof(text) - 64)
			len += (size_t)snprintf(text + len, sizeof(text) - len, "; rank %d %s %s",
						exps[i].rank, st ? "exit status" : sig ? "killed by signal" : "ended",
						st ? st : sig ? sig : "without a record (still running, or killed)");
	}
	report_kv(d, "ended", "Ended", "%zu rank%s exit status 0%s", ok, ok == 1 ? "" : "s", text);
}

bool report_job_head(struct report_doc *d, const struct exp_experiment *exps, size_t nexps,
		     uint64_t *kernel_ns, uint64_t *thread_cpu, bool *have_rusage)
{
	size_t ranks = 0;
	uint64_t wall = 0, user = 0, sys = 0;
	const struct exp_experiment *first = NULL;

	for (size_t i = 0; i < nexps; i++) {
		if (exps[i].rank < 0 && !exps[i].launcher)
			return false;
		if (exps[i].rank >= 0 && !ranks++)
			first = &exps[i];
	}
	if (nexps < 2 || !first)
		return false;
	for (size_t i = 0; i < nexps; i++) {
		const struct exp_proc *f = &exps[i].procs[0];
		const char *w = exp_proc_log(f, "wall_ns"), *u = exp_proc_log(f, "rusage.user_ns");
		const char *s = exp_proc_log(f, "rusage.sys_ns");
		uint64_t ns = w ? strtoull(w, NULL, 10) : f->end_ns > f->start_ns ? f->end_ns - f->start_ns : 0;
		if (exps[i].launcher)
			continue;
		wall = ns > wall ? ns : wall;
		if (!u || !s)
			*have_rusage = false;
		user += u ? strtoull(u, NULL, 10) : 0;
		sys += s ? strtoull(s, NULL, 10) : 0;
		for (size_t j = 0; j < exps[i].nprocs; j++)
			for (size_t t = 0; t < exps[i].procs[j].nthreads; t++)
				*thread_cpu += exps[i].procs[j].threads[t].cpu_ns;
	}
	const char *slash = strrchr(first->path, '/');
	report_kv(d, "experiment", "Experiment", "%.*s (an MPI job)",
		  slash ? (int)(slash - first->path) : (int)strlen(first->path), first->path);
	const char *cmd = exp_proc_log(&first->procs[0], "command");
	report_kv(d, "target", "Target", "%s", cmd ? cmd : first->procs[0].exe);
	report_kv_num(d, "ranks", "Ranks", (double)ranks, "%zu", ranks);
	const struct exp_proc **firsts = malloc(ranks * sizeof(*firsts));
	if (firsts) {
		size_t k = 0;
		for (size_t i = 0; i < nexps; i++)
			if (exps[i].rank >= 0 && !exps[i].launcher && exps[i].nprocs)
				firsts[k++] = &exps[i].procs[0];
		job_kvs(d, firsts, k);
		free(firsts);
	} else
		report_doc_fail(d, "the job's hosts");
	report_kv_num(d, "duration_s", "Duration", (double)wall / 1e9, "%.3f s (the longest rank)",
		      (double)wall / 1e9);
	how_ranks_ended(d, exps, nexps);
	if (*have_rusage) {
		*kernel_ns += user + sys;
		report_kv_num(d, "kernel_cpu_s", "Kernel CPU", (double)(user + sys) / 1e9,
			      "%.3f s (user %.3f + system %.3f, all ranks)", (double)(user + sys) / 1e9,
			      (double)user / 1e9, (double)sys / 1e9);
	}
	return true;
}
