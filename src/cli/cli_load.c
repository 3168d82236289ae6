/* SPDX-License-Identifier: MIT
 *
 * cli_load.c — loading experiments and building the model for the analysis
 * commands (see cli_load.h).
 */
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cli/cli.h"
#include "cli/cli_load.h"
#include "cli/cli_progress.h"
#include "format/exp_job.h"
#include "format/exp_launch.h"
#include "model/model_map.h"
#include "report/report_source.h"
#include "report/report_table.h"
#include "symbols/sym.h"

static const char *warn_cmd = "report";

/* Each warning once: a job's ranks map the same objects. */
static void on_sym_warning(const char *msg)
{
	static uint64_t said[256];
	static size_t nsaid;
	uint64_t h = model_hash_str(0, msg);

	for (size_t i = 0; i < nsaid; i++)
		if (said[i] == h)
			return;
	if (nsaid < sizeof(said) / sizeof(said[0]))
		said[nsaid++] = h;
	cli_warn(warn_cmd, "%s", msg);
}

/* One end of --time: seconds since the start, or the name of a marker
 * (tally_marker) in the first experiment's founder log. */
static bool parse_end(const char *s, size_t len, const struct exp_experiment *e, uint64_t *ns)
{
	char buf[256], *end;

	if (!len || len >= sizeof(buf))
		return false;
	memcpy(buf, s, len);
	buf[len] = 0;
	double v = strtod(buf, &end);
	if (end != buf && !*end && v >= 0) {
		*ns = (uint64_t)(v * 1e9 + 0.5);
		return true;
	}
	const struct exp_proc *p = &e->procs[0];
	for (size_t i = 0; i < p->nlog; i++) {
		const char *sp = strchr(p->log[i].value, ' ');
		if (strcmp(p->log[i].key, "marker") || !sp || strcmp(sp + 1, buf))
			continue;
		uint64_t t = strtoull(p->log[i].value, NULL, 10);
		*ns = t > p->start_ns ? t - p->start_ns : 0;
		return true;
	}
	return false;
}

/* Resolve --time FROM-TO once the experiments are loaded.  A marker's name
 * may hold '-' itself ("warm-up-end"), so each '-' is tried as the
 * separator, left to right, until both ends are known. */
static int resolve_time(struct cli_input *in, const char *cmd)
{
	const char *a = in->time_arg;

	in->has_time = true;
	for (const char *dash = strchr(a, '-'); dash; dash = strchr(dash + 1, '-')) {
		in->from_ns = 0;
		in->to_ns = UINT64_MAX;
		if (parse_end(a, (size_t)(dash - a), &in->exps[0], &in->from_ns) &&
		    (!dash[1] || parse_end(dash + 1, strlen(dash + 1), &in->exps[0], &in->to_ns)) &&
		    in->to_ns > in->from_ns) {
			const struct exp_proc *p = &in->exps[0].procs[0];
			uint64_t len = p->end_ns > p->start_ns ? p->end_ns - p->start_ns : 0;
			if (len && in->from_ns >= len) {     /* an empty table would say nothing */
				cli_error(cmd, "--time %s: the run lasted %.3f s: nothing was recorded from %.3f s on",
					  a, (double)len / 1e9, (double)in->from_ns / 1e9);
				return -1;
			}
			return 0;
		}
	}
	cli_error(cmd, "--time %s: expected FROM-TO, each in seconds since the start or a marker name", a);
	return -1;
}

int cli_input_add_path(struct cli_input *in, const char *cmd, const char *path)
{
	if (exp_grow(&in->paths, &in->cap_paths, in->npaths, sizeof(*in->paths))) {
		cli_error(cmd, "out of memory");
		return -1;
	}
	in->paths[in->npaths++] = path;
	return 0;
}

int cli_input_option(struct cli_input *in, const char *cmd, int id, const char *arg)
{
	if (id == CLI_ARGS_OPERAND)
		return cli_input_add_path(in, cmd, arg) ? -1 : 1;
	if (id == CLI_OPT_THREAD) {
		for (const char *p = arg; *p;) {
			char *e;
			unsigned long tid = strtoul(p, &e, 10);
			if (e == p || (*e && *e != ',') || in->ntids >= 256) {
				cli_error(cmd, "--thread %s: expected thread ids separated by commas", arg);
				return -1;
			}
			in->tids[in->ntids++] = (uint32_t)tid;
			p = *e ? e + 1 : e;
		}
		return 1;
	}
	if (id == CLI_OPT_PROCESS) {
		in->process = arg;
		return 1;
	}
	if (id == CLI_OPT_DATA_OBJECT) {
		in->data_object = arg;
		return 1;
	}
	if (id == CLI_OPT_OBJECT || id == CLI_OPT_HIDE_OBJECT || id == CLI_OPT_SYMBOL) {
		*(id == CLI_OPT_OBJECT ? &in->object : id == CLI_OPT_HIDE_OBJECT ? &in->hide_object
									  : &in->symbol) = arg;
		return 1;
	}
	if (id == CLI_OPT_NO_ARGS) {
		in->no_args = true;
		return 1;
	}
	if (id == CLI_OPT_NO_INLINE) {
		in->no_inline = true;
		return 1;
	}
	if (id == CLI_OPT_NO_KERNEL) {
		in->no_kernel = true;
		return 1;
	}
	if (id == CLI_OPT_RAW_CLOCKS) {
		in->raw_clocks = true;
		return 1;
	}
	if (id == CLI_OPT_TIME) {
		in->time_arg = arg;
		return 1;
	}
	if (id == CLI_OPT_VIEW) {
		if (strcmp(arg, "user") && strcmp(arg, "machine") && strcmp(arg, "expert")) {
			cli_error(cmd, "--view %s: expected user, expert or machine", arg);
			return -1;
		}
		in->view = !strcmp(arg, "user") ? MODEL_VIEW_USER
			   : !strcmp(arg, "expert") ? MODEL_VIEW_EXPERT : MODEL_VIEW_MACHINE;
		return 1;
	}
	if (id == CLI_OPT_RANK) {
		for (const char *p = arg; *p;) {
			char *e;
			long rank = strtol(p, &e, 10);
			if (e == p || (*e && *e != ',') || rank < 0 || rank > INT32_MAX || in->nranks >= 256) {
				cli_error(cmd, "--rank %s: expected ranks separated by commas", arg);
				return -1;
			}
			in->ranks[in->nranks++] = (int32_t)rank;
			p = *e ? e + 1 : e;
		}
		return 1;
	}
	return 0;
}

/* One experiment to load: a directory named, or a rank or the launcher of
 * a job named. */
struct item {
	const char *dir;
	int32_t rank;              /* a job's rank; -1 otherwise */
	bool launcher;
};

static bool rank_wanted(const struct cli_input *in, int32_t rank)
{
	for (size_t i = 0; i < in->nranks; i++)
		if (in->ranks[i] == rank)
			return true;
	return !in->nranks;
}

/* Is experiment `i` one named before it, or inside one named (a founder's
 * sub-experiment)?  Then it is counted once, and a warning says so. */
static bool counted_already(const struct cli_input *in, size_t i, const char *cmd)
{
	char me[PATH_MAX], other[PATH_MAX];

	if (!realpath(in->paths[i], me))
		return false;
	for (size_t j = 0; j < in->npaths; j++) {
		if (j == i || !realpath(in->paths[j], other))
			continue;
		size_t n = strlen(other);
		if (j < i && !strcmp(me, other)) {
			cli_warn(cmd, "%s is %s again: counted once", in->paths[i], in->paths[j]);
			return true;
		}
		if (strcmp(me, other) && !strncmp(me, other, n) && me[n] == '/') {
			cli_warn(cmd, "%s is part of %s: counted once, as part of it", in->paths[i],
				 in->paths[j]);
			return true;
		}
	}
	return false;
}

/* The experiments to load, jobs expanded (jobs[] keeps their listings
 * alive: items point into them).  Returns the count, or -1 (message printed). */
static long list_items(struct cli_input *in, const char *cmd, struct exp_job *jobs,
		       struct item **items)
{
	struct exp_error err;
	size_t n = 0, cap = 0;

	*items = NULL;
	for (size_t i = 0; i < in->npaths; i++) {
		if (counted_already(in, i, cmd))
			continue;
		struct stat st;
		if (geteuid() == 0 && stat(in->paths[i], &st) == 0 && st.st_uid != 0)
			report_source_restrict(st.st_uid, st.st_gid);   /* root, another's experiment */
		int rc = exp_job_open(&jobs[i], in->paths[i], &err);
		if (rc < 0) {
			cli_error(cmd, "%s", err.msg);
			return -1;
		}
		struct exp_job *j = &jobs[i];
		if (!rc && exp_grow(items, &cap, n, sizeof(**items)) == 0)
			(*items)[n++] = (struct item){ in->paths[i], -1, false };
		if (rc)
			in->has_job = true;
		if (j->size > in->job_size)
			in->job_size = j->size;
		if (j->launcher && !in->nranks && exp_grow(items, &cap, n, sizeof(**items)) == 0)
			(*items)[n++] = (struct item){ j->path, -1, true };
		for (size_t k = 0; k < j->nranks; k++)
			if (rank_wanted(in, j->ranks[k].rank) && exp_grow(items, &cap, n, sizeof(**items)) == 0)
				(*items)[n++] = (struct item){ j->ranks[k].dir, j->ranks[k].rank, false };
	}
	if (in->nranks && !in->has_job) {
		cli_error(cmd, "--rank: %s is not an MPI job (no rankN.exp inside)", in->paths[0]);
		return -1;
	}
	if (in->nranks && !n) {
		cli_error(cmd, "--rank %d: no such rank in the job (ranks 0-%d)", in->ranks[0],
			  in->job_size - 1);
		return -1;
	}
	return (long)n;
}

/* Load item `it` into in->exps[in->nexps] and add it to the model; its
 * events are dropped once in the model.  0 or CLI_FATAL. */
static int load_one(struct cli_input *in, const char *cmd, const struct item *it,
		    struct model_options *mo, bool first)
{
	struct exp_error err;
	char msg[512];
	struct exp_experiment *x = &in->exps[in->nexps++];

	cli_progress(cmd, "reading", it->dir);
	if (exp_experiment_load(x, it->dir, &err)) {
		fflush(stdout);
		cli_progress_hide();
		fprintf(stderr, "tally %s: %s\n", cmd, err.msg);
		return CLI_FATAL;
	}
	if (it->rank >= 0 && x->rank < 0)
		x->rank = it->rank;     /* no mpi.rank in its log: its directory's */
	x->launcher = it->launcher;
	if (first && in->time_arg) {
		if (resolve_time(in, cmd))
			return CLI_USAGE;
		mo->has_time = true;
		mo->from_ns = in->from_ns;
		mo->to_ns = in->to_ns;
	}
	cli_progress(cmd, "symbolizing and aggregating", it->dir);
	if ((first && model_build_begin(&in->model, mo, msg, sizeof(msg))) ||
	    model_build_add(&in->model, x, mo, msg, sizeof(msg))) {
		cli_error(cmd, "%s", msg);
		return CLI_FATAL;
	}
	exp_experiment_drop_events(x);
	return 0;
}

/* One warning line for everything the reported processes lost to damage
 * (a process left out by --process or a job's rule costs this report
 * nothing; `tally check` still lists it). */
static void warn_damage(struct cli_input *in, const char *cmd)
{
	struct exp_damage total = { 0 };
	const char *where = NULL;

	for (size_t i = 0; i < in->model.nprocs; i++) {
		const struct model_proc *p = &in->model.procs[i];
		if (p->src->damage.places && !where)
			where = p->exp->path;
		exp_damage_add(&total, &p->src->damage);
	}
	if (!total.places)
		return;
	in->partial = true;
	cli_warn(cmd, "%s: skipped; %llu damaged place%s, %llu bytes unread in all (`tally check %s` "
		 "lists them)", total.first, (unsigned long long)total.places,
		 total.places == 1 ? "" : "s", (unsigned long long)total.bytes, where);
}

const char *cli_missing_cost(const char *name)
{
	static const struct { const char *name, *cost; } costs[] = {
		{ EXP_LOG_NAME, "its program, pid and end are not known" },
		{ "maps.dat", "its addresses are <Unknown>" },
		{ "stacks.dat", "its events have no stacks (<Unknown>)" },
	};

	for (size_t k = 0; k < sizeof(costs) / sizeof(costs[0]); k++)
		if (!strcmp(name, costs[k].name))
			return costs[k].cost;
	return "its data is incomplete";
}

/* One warning per process that could not be read, or lacks a file its data
 * needs: what is missing and what it costs.  The report is then partial. */
static void warn_lost(struct cli_input *in, const char *cmd)
{
	for (size_t i = 0; i < in->nexps; i++) {
		const struct exp_experiment *x = &in->exps[i];
		if (x->lost_procs) {
			in->partial = true;
			cli_warn(cmd, "%s: %zu process%s could not be read, left out (%s); the rest is reported",
				 x->path, x->lost_procs, x->lost_procs > 1 ? "es" : "", x->lost_why ? x->lost_why : "?");
		}
		for (size_t j = 0; j < x->nprocs; j++) {
			const struct exp_proc *p = &x->procs[j];
			if (p->newer_part) {
				in->partial = true;
				cli_warn(cmd, "%s", p->newer_part);
			}
			if (!p->missing)
				continue;
			in->partial = true;
			cli_warn(cmd, "%s/%s is missing: %s", p->dir, p->missing, cli_missing_cost(p->missing));
		}
	}
}

int cli_term_columns(void)
{
	struct winsize ws;
	const char *env = getenv("COLUMNS");

	if (!isatty(STDOUT_FILENO))
		return 0;
	if (!ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) && ws.ws_col)
		return ws.ws_col;
	return env && atoi(env) > 0 ? atoi(env) : 0;
}

bool cli_colour(void)
{
	const char *no = getenv("NO_COLOR");

	return isatty(STDOUT_FILENO) && !(no && *no);
}

static long long option_value(const char *options, const char *key, long long dflt);

/* The "options:" line of the first experiment's log (the founder's), into
 * buf; false when there is none to read (not an experiment yet, or a log
 * before the line).  Loaded: the reader's; else read here, never from a
 * file that is not a regular one (a FIFO would block). */
static bool first_options(const struct cli_input *in, char *buf, size_t len)
{
	char path[PATH_MAX], line[EXP_OPTIONS_MAX + 16];
	struct stat st;
	bool found = false;

	if (in && in->nexps) {
		const char *opts = exp_proc_log(&in->exps[0].procs[0], "options");
		if (opts)
			snprintf(buf, len, "%s", opts);
		return opts != NULL;
	}
	if (!in || !in->npaths)
		return false;
	snprintf(path, sizeof(path), "%s/%s", in->paths[0], EXP_LOG_NAME);
	int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	FILE *f = fd >= 0 && fstat(fd, &st) == 0 && S_ISREG(st.st_mode) ? fdopen(fd, "r") : NULL;
	if (!f && fd >= 0)
		close(fd);
	while (f && !found && fgets(line, sizeof(line), f))
		if (!strncmp(line, "options: ", 9)) {
			line[strcspn(line, "\n")] = 0;
			snprintf(buf, len, "%s", line + 9);
			found = true;
		}
	if (f)
		fclose(f);
	return found;
}

/* Was metric mi's option on in a log's options line `opts` (a metric of
 * no option always is)? */
static bool metric_on(const char *opts, const struct model_metric_info *mi)
{
	return !mi->log_key || option_value(opts, mi->log_key, mi->log_off) != mi->log_off;
}

/* "--metric heap: unknown metric 'heap' (did you mean heap.bytes,
 * heap.count, heap.leak?  x.exp has: cpu, samples, heap.bytes, ...; every
 * metric: cpu, ...)": the names it begins, or the closest one; the metrics
 * the first experiment recorded (its log's options line: a metric of an
 * option that was off is not there); then every metric of the table
 * (model_metrics.c). */
static void unknown_metric(const char *cmd, const char *list, const char *tok, const struct cli_input *in)
{
	char like[256] = "", all[1024] = "", has[1024] = "", opts[EXP_OPTIONS_MAX];
	const char *best = NULL;
	size_t best_d = cli_suggest_limit(tok), nl = 0, na = 0, nh = 0;
	bool known = first_options(in, opts, sizeof(opts));

	for (int k = 0; k < MODEL_METRIC_COUNT; k++) {
		const struct model_metric_info *mi = model_metric_info((enum model_metric)k);
		if (!mi || !mi->name || (k >= MODEL_COUNTER_0 && k <= MODEL_COUNTER_LAST))
			continue;
		na += (size_t)snprintf(all + na, na < sizeof(all) ? sizeof(all) - na : 0, "%s%s", na ? ", " : "",
				       mi->name);
		if (known && metric_on(opts, mi))
			nh += (size_t)snprintf(has + nh, nh < sizeof(has) ? sizeof(has) - nh : 0, "%s%s",
					       nh ? ", " : "", mi->name);
		if (!strncmp(mi->name, tok, strlen(tok)))
			nl += (size_t)snprintf(like + nl, nl < sizeof(like) ? sizeof(like) - nl : 0, "%s%s",
					       nl ? ", " : "", mi->name);
		cli_suggest(tok, mi->name, &best, &best_d);
	}
	if (!like[0] && best)
		snprintf(like, sizeof(like), "%s", best);
	cli_error(cmd, "--metric %s: unknown metric '%s' (%s%s%s%s%s%s%smetrics: %s, or a counter's event name)", list,
		  tok, like[0] ? "did you mean " : "", like, like[0] ? "?  " : "", has[0] ? in->paths[0] : "",
		  has[0] ? " has: " : "", has, has[0] ? "; all " : "", all);
}

int cli_metrics_parse(const char *cmd, const char *list, enum model_metric *out, const struct cli_input *in)
{
	char buf[256];
	int n = 0;

	snprintf(buf, sizeof(buf), "%s", list);
	for (char *tok = strtok(buf, ","); tok; tok = strtok(NULL, ",")) {
		int m = model_metric_parse(tok);
		if (m < 0 || n >= MODEL_METRIC_COUNT) {
			unknown_metric(cmd, list, tok, in);
			return -1;
		}
		out[n++] = (enum model_metric)m;
	}
	return n;
}

/* cli_input_load's work, with progress lines. */
static int input_load(struct cli_input *in, const char *cmd)
{
	warn_cmd = cmd;
	sym_set_warning_handler(on_sym_warning);
	if (!in->npaths) {
		cli_error(cmd, "no experiment named (tally %s EXP...)", cmd);
		return CLI_USAGE;
	}
	struct exp_job *jobs = calloc(in->npaths, sizeof(*jobs));
	struct item *items = NULL;
	long n = jobs ? list_items(in, cmd, jobs, &items) : -1;
	int rc = n < 0 ? CLI_FATAL : 0;
	in->exps = n > 0 ? calloc((size_t)n, sizeof(*in->exps)) : NULL;
	if (!jobs || (n > 0 && !in->exps)) {
		cli_error(cmd, "out of memory");
		rc = CLI_FATAL;
	}
	struct model_options mo = {
		.tids = in->tids, .ntids = in->ntids, .keep_tally_frames = in->show_collector,
		.process = in->process, .view = in->view, .merge_procs = in->has_job && n > 1,
		.ranks_only = in->has_job && !in->all_processes,
		.keep_events = in->keep_events, .match_messages = in->match_messages,
		.raw_clocks = in->raw_clocks,
		.object = in->object, .hide_object = in->hide_object, .symbol = in->symbol,
		.data_object = in->data_object,
		.no_inline = in->no_inline, .no_kernel = in->no_kernel,
	};
	for (long i = 0; i < n && !rc; i++)
		rc = load_one(in, cmd, &items[i], &mo, i == 0);
	model_build_end(&in->model);
	for (size_t i = 0; jobs && i < in->npaths; i++)
		exp_job_free(&jobs[i]);
	free(jobs);
	free(items);
	if (rc)
		return rc;
	warn_damage(in, cmd);
	warn_lost(in, cmd);
	for (size_t i = 0; i < in->ntids; i++) {
		bool found = false;
		for (size_t k = 0; k < in->model.nthreads && !found; k++)
			found = in->model.threads[k].tid == in->tids[i];
		if (!found) {
			cli_error(cmd, "--thread %u: no such thread in the experiment (see --threads)",
				  in->tids[i]);
			return CLI_FATAL;
		}
	}
	if ((in->object || in->symbol) && !in->model.present) {
		cli_error(cmd, "--%s %s: no stack passes the filter (see --objects, --functions)",
			  in->object ? "object" : "symbol", in->object ? in->object : in->symbol);
		return CLI_FATAL;
	}
	if (in->data_object && !in->model.total[MODEL_SAMPLES]) {
		cli_error(cmd, "--data-object %s: no clock sample accessed it (see --data-objects; "
			  "the experiment needs record --data)", in->data_object);
		return CLI_FATAL;
	}
	if (in->no_args && model_funcs_shorten(&in->model)) {
		cli_error(cmd, "out of memory");
		return CLI_FATAL;
	}
	if (in->process && !in->model.nprocs) {
		cli_error(cmd, "--process %s: no such process in the experiment (see --processes)",
			  in->process);
		return CLI_FATAL;
	}
	return 0;
}

/* The value of `key` in an "options: hz=1000 heap=0 ..." log line, or `dflt`. */
static long long option_value(const char *options, const char *key, long long dflt)
{
	struct exp_launch_options o;
	char buf[EXP_OPTIONS_MAX];
	long long v;

	/* exp_launch_encode's "hz=1000,heap=0,..."; logs before it wrote the
	 * same keys with spaces ("follow=all" there is skipped: not a number) */
	snprintf(buf, sizeof(buf), "%s", options);
	for (char *c = buf; *c; c++)
		if (*c == ' ')
			*c = ',';
	size_t n = strlen(key);
	const char *p = buf;
	while ((p = strstr(p, key)) && !((p == buf || p[-1] == ',') && p[n] == '='))
		p += n;
	if (!p)
		return dflt;   /* not recorded by this tally: as off */
	exp_launch_decode(buf, &o);
	return exp_launch_get(&o, key, &v) == 0 ? v : dflt;
}

int cli_metrics_recorded(const char *cmd, const struct cli_input *in, const enum model_metric *ms, int n)
{
	for (int i = 0; i < n; i++) {
		const struct model_metric_info *mi = model_metric_info(ms[i]);
		if (!mi->log_key)
			continue;
		/* Recorded if any experiment was recorded with the option on
		 * (an experiment without the options line: assume so). */
		bool on = false;
		for (size_t e = 0; e < in->nexps && !on; e++) {
			const char *opts = exp_proc_log(&in->exps[e].procs[0], "options");
			on = !opts || metric_on(opts, mi);
		}
		if (!on && mi->kind == MODEL_KIND_SAMPLED)
			cli_error(cmd, "--metric %s: no %s: recorded with %s 0", mi->name, mi->events, mi->record);
		else if (!on)
			cli_error(cmd, "--metric %s: no %s: record with %s", mi->name, mi->events, mi->record);
		if (!on)
			return CLI_FATAL;
	}
	return 0;
}

int cli_input_load(struct cli_input *in, const char *cmd)
{
	int rc;

	cli_progress(cmd, "starting", "");
	rc = input_load(in, cmd);
	cli_progress_done();
	return rc;
}

void cli_no_such_function(const char *cmd, const struct model *m, const char *name)
{
	uint32_t ids[5];
	size_t n = model_func_suggest(m, name, ids, 5);
	char list[2048] = "", label[4096];
	size_t len = 0;

	for (size_t i = 0; i < n && len < sizeof(list); i++)
		len += (size_t)snprintf(list + len, sizeof(list) - len, "%s'%s'", i ? ", " : "",
					model_func_label(m, ids[i], label, sizeof(label)));
	if (n)
		cli_error(cmd, "no function named '%s' in the profile; nearest: %s", name, list);
	else
		cli_error(cmd, "no function named '%s' in the profile (see --functions)", name);
}

int cli_doc_end(struct report_doc *d, const char *cmd, int rc)
{
	char msg[200] = "";

	if (report_doc_error(d))
		snprintf(msg, sizeof(msg), "%s", report_doc_error(d));
	report_doc_end(d);
	if (msg[0]) {
		cli_error(cmd, "%s", msg);
		return CLI_FATAL;
	}
	return cli_finish_stdout(cmd, rc);
}

void cli_input_free(struct cli_input *in)
{
	free(in->paths);
	in->paths = NULL;
	in->npaths = in->cap_paths = 0;
	model_free(&in->model);
	for (size_t i = 0; i < in->nexps; i++)
		exp_experiment_free(&in->exps[i]);
	free(in->exps);
	sym_dtype_free_all();     /* before the objects: their DWARF handles */
	sym_objects_free();
}
